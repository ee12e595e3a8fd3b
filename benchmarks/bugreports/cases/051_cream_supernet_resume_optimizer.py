# source: https://github.com/microsoft/Cream/issues/2
# seen: 2026-11-26
# style: distributed supernet training entry point (tools/train.py) with cfg.AUTO_RESUME and a timm resume_checkpoint
# expect: DL018 at 50, 51
# also-ok: DL007 at 51, 69
# why: the optimizer state is loaded while the supernet is still on the host (load_state_dict casts the state to the parameters' device), then model.cuda(); SGD's momentum buffers stay on the CPU and the first step() fails with "cuda:2 and cpu"
import datetime
import os
import sys

import numpy as np
import torch
import torch.nn as nn
from timm.data import Dataset, create_loader
from timm.models import resume_checkpoint
from timm.utils import CheckpointSaver
from torch.nn.parallel import DistributedDataParallel as DDP

from lib.core.train import train_epoch, validate
from lib.models.structures.supernet import gen_supernet
from lib.utils.util import create_optimizer_supernet, create_supernet_scheduler, get_logger, parse_config_args


def main():
    args, cfg = parse_config_args('super net training')
    output_dir = os.path.join(cfg.SAVE_PATH, "{}-{}".format(datetime.date.today().strftime('%m%d'), cfg.MODEL))
    logger = get_logger(os.path.join(output_dir, "train.log")) if args.local_rank == 0 else None

    torch.cuda.set_device(args.local_rank)
    torch.distributed.init_process_group(backend='nccl', init_method='env://')
    torch.manual_seed(cfg.SEED)
    np.random.seed(cfg.SEED)

    model, sta_num, resolution = gen_supernet(
        flops_minimum=cfg.SUPERNET.FLOPS_MINIMUM,
        flops_maximum=cfg.SUPERNET.FLOPS_MAXIMUM,
        num_classes=cfg.DATASET.NUM_CLASSES,
        drop_rate=cfg.NET.DROPOUT_RATE,
        logger=logger)

    # optionally resume from a checkpoint
    optimizer_state = None
    resume_epoch = None
    if cfg.AUTO_RESUME:
        optimizer_state, resume_epoch = resume_checkpoint(model, cfg.RESUME_PATH)

    # create optimizer and resume from checkpoint
    optimizer = create_optimizer_supernet(cfg, model, False)
    if optimizer_state is not None:
        optimizer.load_state_dict(optimizer_state['optimizer'])
    model = model.cuda()
    model = DDP(model, device_ids=[args.local_rank])

    lr_scheduler, num_epochs = create_supernet_scheduler(cfg, optimizer)
    start_epoch = resume_epoch if resume_epoch is not None else 0
    if start_epoch > 0:
        lr_scheduler.step(start_epoch)

    train_dir = os.path.join(cfg.DATA_DIR, 'train')
    if not os.path.exists(train_dir):
        sys.exit()
    loader_train = create_loader(Dataset(train_dir), input_size=(3, cfg.DATASET.IMAGE_SIZE, cfg.DATASET.IMAGE_SIZE),
                                 batch_size=cfg.DATASET.BATCH_SIZE, is_training=True, use_prefetcher=True,
                                 num_workers=cfg.WORKERS, distributed=True)
    loader_eval = create_loader(Dataset(os.path.join(cfg.DATA_DIR, 'val')),
                                input_size=(3, cfg.DATASET.IMAGE_SIZE, cfg.DATASET.IMAGE_SIZE),
                                batch_size=4 * cfg.DATASET.BATCH_SIZE, is_training=False, use_prefetcher=True,
                                num_workers=cfg.WORKERS, distributed=True)
    train_loss_fn = nn.CrossEntropyLoss().cuda()
    saver = CheckpointSaver(checkpoint_dir=output_dir) if args.local_rank == 0 else None

    for epoch in range(start_epoch, num_epochs):
        loader_train.sampler.set_epoch(epoch)
        train_epoch(epoch, model, loader_train, optimizer, train_loss_fn, cfg,
                    lr_scheduler=lr_scheduler, saver=saver, output_dir=output_dir, logger=logger)
        eval_metrics = validate(model, loader_eval, train_loss_fn, cfg, local_rank=args.local_rank, logger=logger)
        if saver is not None:
            saver.save_checkpoint(model, optimizer, cfg, epoch=epoch, metric=eval_metrics['prec1'])


if __name__ == '__main__':
    main()
