# source: https://github.com/werner-duvaud/muzero-general/issues/133  (DataParallel vs DistributedDataParallel; code that only recognises and unwraps a wrapped model is not the pitfall)
# expect: clean
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel


def unwrap(model):
    if isinstance(model, (nn.DataParallel, DistributedDataParallel)):
        return model.module
    return model


def save_weights(model, path):
    torch.save(unwrap(model).state_dict(), path)
