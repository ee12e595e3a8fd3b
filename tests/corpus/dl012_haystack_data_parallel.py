# source: https://github.com/deepset-ai/haystack/pull/1855  (reader wrapped the model in torch.nn.DataParallel; reviewers asked why not DistributedDataParallel)
# expect: DL012 at 15
import torch
from torch.nn import DataParallel


def optimize_model(model, device, local_rank, distributed=False):
    model = model.to(device)
    if distributed:
        model = torch.nn.parallel.DistributedDataParallel(
            model, device_ids=[local_rank], output_device=local_rank, find_unused_parameters=True
        )
    elif torch.cuda.device_count() > 1:
        if not isinstance(model, DataParallel):
            model = DataParallel(model)
    return model
