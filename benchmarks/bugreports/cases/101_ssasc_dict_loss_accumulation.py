# source: https://github.com/jokester-zzz/SSA-SC/issues/2
# seen: 2026-11-26
# style: semantic scene completion training script (LMSCNet lineage): argparse, a train() function over a dict-batch loader, model.compute_loss returning a dict of loss tensors, per-key running sums kept in dicts for train and validation, TensorBoard logging
# expect: DL010 at 57, 32
# why: `epoch_loss[l_key] += loss[l_key]` (and the validation sum) keeps every step's loss tensor, with its autograd graph in training, alive for the whole epoch: GPU memory rises continuously; the fix is loss[key].item()
import argparse
import os
import time

import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from torch.utils.tensorboard import SummaryWriter

from common.dataset import get_dataset
from common.model import get_model
from common.optimizer import build_optimizer, build_scheduler


def validate(model, dset, epoch, tbwriter, device):
    model.eval()
    val_loss = {}
    with torch.no_grad():
        for t, (data, indices) in enumerate(dset):
            for k in data:
                data[k] = data[k].to(device=device)
            scores = model(data)
            loss = model.compute_loss(scores, data)
            for l_key in loss:
                if l_key not in val_loss:
                    val_loss[l_key] = 0
                val_loss[l_key] += loss[l_key]
    for l_key in val_loss:
        tbwriter.add_scalar('validation_loss_epoch/{}'.format(l_key), val_loss[l_key] / len(dset), epoch)
    return val_loss['total'] / len(dset)


def train(model, optimizer, scheduler, dataset, cfg, start_epoch, tbwriter, device):
    dset = dataset['train']
    nbr_epochs = cfg['TRAIN']['EPOCHS']
    best_loss = float('inf')
    for epoch in range(start_epoch, nbr_epochs + 1):
        model.train()
        epoch_loss = {}
        start = time.time()
        for t, (data, indices) in enumerate(dset):
            for k in data:
                data[k] = data[k].to(device=device)
            scores = model(data)
            loss = model.compute_loss(scores, data)
            optimizer.zero_grad()
            loss['total'].backward()
            optimizer.step()
            for l_key in loss:
                if l_key not in epoch_loss:
                    epoch_loss[l_key] = 0
                epoch_loss[l_key] += loss[l_key]
            if t % cfg['TRAIN']['SUMMARY_PERIOD'] == 0:
                print('Epoch [{}/{}], step [{}/{}], loss {:.4f}, {:.1f}s'.format(
                    epoch, nbr_epochs, t, len(dset), loss['total'].item(), time.time() - start))
        scheduler.step()
        for l_key in epoch_loss:
            tbwriter.add_scalar('train_loss_epoch/{}'.format(l_key), epoch_loss[l_key] / len(dset), epoch)
        val = validate(model, dataset['val'], epoch, tbwriter, device)
        if val < best_loss:
            best_loss = val
            torch.save({'model': model.state_dict(), 'optimizer': optimizer.state_dict(), 'epoch': epoch},
                       os.path.join(cfg['OUTPUT']['OUT_ROOT'], 'best.pth'))


def main():
    parser = argparse.ArgumentParser(description='SSA-SC training')
    parser.add_argument('--cfg', dest='config_file', default='cfgs/SSA-SC.yaml', type=str)
    parser.add_argument('--dset_root', default=None, type=str)
    args = parser.parse_args()

    import yaml
    with open(args.config_file) as f:
        cfg = yaml.safe_load(f)
    if args.dset_root is not None:
        cfg['DATASET']['ROOT_DIR'] = args.dset_root
    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
    dataset = get_dataset(cfg)
    model = get_model(cfg, dataset['train'].dataset).to(device)
    optimizer = build_optimizer(cfg, model)
    scheduler = build_scheduler(cfg, optimizer)
    tbwriter = SummaryWriter(logdir=os.path.join(cfg['OUTPUT']['OUT_ROOT'], 'metrics'))
    train(model, optimizer, scheduler, dataset, cfg, 1, tbwriter, device)


if __name__ == '__main__':
    main()
