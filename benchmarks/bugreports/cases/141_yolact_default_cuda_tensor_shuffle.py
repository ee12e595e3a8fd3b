# source: https://github.com/dbolya/yolact/issues/664
# seen: 2026-11-27
# style: repository training script (train.py): argparse at module level with a str2bool helper, the default tensor type set to torch.cuda.FloatTensor when CUDA is used, a NetLoss wrapper and a DataParallel subclass, train() building the COCO dataset, the net, SGD and a shuffling DataLoader with workers, an epoch loop over datum batches
# expect: DL019 at 125
# also-ok: DL019 at 132
# also-ok: DL012 at 79
# also-ok: DL013 at 141
# why: with torch.set_default_tensor_type('torch.cuda.FloatTensor') the shuffling loader's RandomSampler draws with a CPU generator against CUDA default tensors -> "RuntimeError: Expected a 'cuda' device type for generator but found 'cpu'" on iter(data_loader) (torch 1.9); a commenter's workaround is shuffle=False, the usual fix generator=torch.Generator(device='cuda')
import argparse
import datetime
import os
import time

import torch
import torch.nn as nn
import torch.optim as optim
import torch.utils.data as data

from data import COCODetection, MEANS, cfg, detection_collate, set_cfg
from layers.modules import MultiBoxLoss
from utils.augmentations import SSDAugmentation
from yolact import Yolact


def str2bool(v):
    return v.lower() in ("yes", "true", "t", "1")


parser = argparse.ArgumentParser(description='Yolact Training Script')
parser.add_argument('--batch_size', default=8, type=int)
parser.add_argument('--resume', default=None, type=str)
parser.add_argument('--start_iter', default=-1, type=int)
parser.add_argument('--num_workers', default=4, type=int)
parser.add_argument('--cuda', default=True, type=str2bool)
parser.add_argument('--lr', '--learning_rate', default=None, type=float)
parser.add_argument('--momentum', default=None, type=float)
parser.add_argument('--decay', '--weight_decay', default=None, type=float)
parser.add_argument('--save_folder', default='weights/')
parser.add_argument('--config', default=None)
parser.add_argument('--save_interval', default=10000, type=int)
args = parser.parse_args()

if args.config is not None:
    set_cfg(args.config)

def replace(name):
    if getattr(args, name) is None:
        setattr(args, name, getattr(cfg, name))

replace('lr')
replace('decay')
replace('momentum')

if torch.cuda.device_count() == 0:
    print('No GPUs detected. Exiting...')
    exit(-1)

if torch.cuda.is_available():
    if args.cuda:
        torch.set_default_tensor_type('torch.cuda.FloatTensor')
    if not args.cuda:
        print("WARNING: It looks like you have a CUDA device, but aren't using CUDA.")
        torch.set_default_tensor_type('torch.FloatTensor')
else:
    torch.set_default_tensor_type('torch.FloatTensor')


class NetLoss(nn.Module):
    def __init__(self, net, criterion):
        super().__init__()
        self.net = net
        self.criterion = criterion

    def forward(self, images, targets, masks, num_crowds):
        preds = self.net(images)
        return self.criterion(self.net, preds, targets, masks, num_crowds)


class CustomDataParallel(nn.DataParallel):
    def scatter(self, inputs, kwargs, device_ids):
        devices = ['cuda:' + str(x) for x in device_ids]
        splits = prepare_data(inputs[0], devices)
        return [[split[device_idx] for split in splits] for device_idx in range(len(devices))], [kwargs] * len(devices)


def prepare_data(datum, devices):
    images, (targets, masks, num_crowds) = datum
    splits = [[], [], [], []]
    for idx in range(len(images)):
        device = devices[idx % len(devices)]
        splits[0].append(images[idx].to(device))
        splits[1].append(targets[idx].to(device))
        splits[2].append(masks[idx].to(device))
        splits[3].append(num_crowds[idx])
    return [torch.stack(s, dim=0) if i == 0 else s for i, s in enumerate(splits)]


def train():
    if not os.path.exists(args.save_folder):
        os.mkdir(args.save_folder)

    dataset = COCODetection(image_path=cfg.dataset.train_images, info_file=cfg.dataset.train_info, transform=SSDAugmentation(MEANS))

    yolact_net = Yolact()
    net = yolact_net
    net.train()

    if args.resume is not None:
        yolact_net.load_weights(args.resume)
    else:
        yolact_net.init_weights(backbone_path=args.save_folder + cfg.backbone.path)

    optimizer = optim.SGD(net.parameters(), lr=args.lr, momentum=args.momentum, weight_decay=args.decay)
    criterion = MultiBoxLoss(num_classes=cfg.num_classes, pos_threshold=cfg.positive_iou_threshold,
                             neg_threshold=cfg.negative_iou_threshold, negpos_ratio=cfg.ohem_negpos_ratio)

    net = CustomDataParallel(NetLoss(net, criterion))
    if args.cuda:
        net = net.cuda()

    iteration = max(args.start_iter, 0)
    epoch_size = len(dataset) // args.batch_size
    num_epochs = cfg.max_iter // epoch_size

    data_loader = data.DataLoader(dataset, args.batch_size,
                                  num_workers=args.num_workers,
                                  shuffle=True, collate_fn=detection_collate,
                                  pin_memory=True)

    print('Begin training!')
    for epoch in range(num_epochs):
        for datum in data_loader:
            if iteration == cfg.max_iter:
                break
            losses = net(datum)
            losses = {k: v.mean() for k, v in losses.items()}
            loss = sum([losses[k] for k in losses])

            optimizer.zero_grad()
            loss.backward()
            if torch.isfinite(loss).item():
                optimizer.step()

            iteration += 1
            if iteration % 10 == 0:
                print('[%3d] %7d ||' % (epoch, iteration), ' T: %.3f' % loss.item(), str(datetime.timedelta(seconds=time.time())))

            if iteration % args.save_interval == 0 and iteration != args.start_iter:
                yolact_net.save_weights(args.save_folder + 'yolact_%d_%d.pth' % (epoch, iteration))

    yolact_net.save_weights(args.save_folder + 'yolact_final.pth')


if __name__ == '__main__':
    train()
