# source: https://github.com/hangyu94/Ada-CM/issues/10
# seen: 2026-11-27
# style: semi-supervised facial-expression training script (main.py): argparse at module level, main() building RAF-DB loaders and a DataParallel ResNet-18 plus an EMA copy, train() drawing labeled/unlabeled batches from iterators and moving them with .cuda() behind use_cuda, helpers mask_generate / adaptive_threshold_generate at the bottom
# expect: DL011 at 158, 163
# also-ok: DL012 at 79
# also-ok: DL013 at 148
# also-ok: DL007 at 79, 164
# why: mask_generate builds mask_ori = torch.zeros(batch) on the CPU and adds the CUDA confidences into it (`mask_ori[idx[k]] += m[k]`, m comes from max_probs of the CUDA outputs) -> "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu" (the reporter: line 366 mask_ori); the fix creates it on the device of max_probs
from __future__ import print_function

import argparse
import math
import os
import random
import time

import numpy as np
import torch
import torch.backends.cudnn as cudnn
import torch.nn as nn
import torch.optim as optim
import torch.utils.data as data
import torchvision.transforms as transforms

import dataset.raf as dataset
from losses import SupConLoss
from models.backbone import ResNet_18
from utils import AverageMeter, Bar, Logger, accuracy, mkdir_p

parser = argparse.ArgumentParser(description='PyTorch Ada-CM Training')
parser.add_argument('--epochs', default=20, type=int)
parser.add_argument('--batch-size', default=16, type=int)
parser.add_argument('--lr', '--learning-rate', default=0.0005, type=float)
parser.add_argument('--num_workers', type=int, default=16)
parser.add_argument('--manualSeed', type=int, default=5)
parser.add_argument('--gpu', default='0,1', type=str)
parser.add_argument('--n-labeled', type=int, default=4000)
parser.add_argument('--train-iteration', type=int, default=800)
parser.add_argument('--out', default='result')
parser.add_argument('--ema-decay', default=0.999, type=float)
parser.add_argument('--train-root', type=str, default='datasets/RAFdataset/train')
parser.add_argument('--test-root', type=str, default='datasets/RAFdataset/test')
parser.add_argument('--label-train', default='datasets/RAFdataset/RAF_train_label2.txt', type=str)
parser.add_argument('--label-test', default='datasets/RAFdataset/RAF_test_label2.txt', type=str)
args = parser.parse_args()

os.environ['CUDA_VISIBLE_DEVICES'] = args.gpu
use_cuda = torch.cuda.is_available()

np.random.seed(args.manualSeed)
torch.manual_seed(args.manualSeed)
torch.cuda.manual_seed_all(args.manualSeed)


def main():
    if not os.path.isdir(args.out):
        mkdir_p(args.out)

    mean = (0.485, 0.456, 0.406)
    std = (0.229, 0.224, 0.225)
    transform_train = transforms.Compose([
        transforms.Resize(224),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize(mean=mean, std=std),
    ])
    transform_val = transforms.Compose([
        transforms.Resize(224),
        transforms.ToTensor(),
        transforms.Normalize(mean=mean, std=std),
    ])

    train_labeled_set, train_unlabeled_set, test_set = dataset.get_raf(args.train_root, args.label_train, args.test_root, args.label_test, args.n_labeled, transform_train=transform_train, transform_val=transform_val)
    labeled_trainloader = data.DataLoader(train_labeled_set, batch_size=args.batch_size, shuffle=True, num_workers=args.num_workers, drop_last=True)
    unlabeled_trainloader = data.DataLoader(train_unlabeled_set, batch_size=args.batch_size, shuffle=True, num_workers=args.num_workers, drop_last=True)

    def create_model(ema=False):
        model = ResNet_18(num_classes=7)
        model = torch.nn.DataParallel(model).cuda()
        if ema:
            for param in model.parameters():
                param.detach_()
        return model

    model = create_model()
    ema_model = create_model(ema=True)
    cudnn.benchmark = True

    criterion = nn.CrossEntropyLoss(reduction='none')
    criterion_simclr = SupConLoss()
    optimizer = optim.Adam(model.parameters(), lr=args.lr)

    threshold = [0.8] * 7
    for epoch in range(1, args.epochs + 1):
        train_loss = train(labeled_trainloader, unlabeled_trainloader, model, optimizer, criterion, criterion_simclr, threshold, epoch, use_cuda)
        print('epoch %d train loss %.4f' % (epoch, train_loss))


def train(labeled_trainloader, unlabeled_trainloader, model, optimizer, criterion_ce, criterion_simclr, threshold, epoch, use_cuda):
    losses = AverageMeter()
    labeled_train_iter = iter(labeled_trainloader)
    unlabeled_train_iter = iter(unlabeled_trainloader)

    model.train()
    for batch_idx in range(args.train_iteration):
        try:
            inputs_x, targets_x = next(labeled_train_iter)
        except StopIteration:
            labeled_train_iter = iter(labeled_trainloader)
            inputs_x, targets_x = next(labeled_train_iter)
        try:
            (inputs_u, inputs_u2, inputs_strong), _ = next(unlabeled_train_iter)
        except StopIteration:
            unlabeled_train_iter = iter(unlabeled_trainloader)
            (inputs_u, inputs_u2, inputs_strong), _ = next(unlabeled_train_iter)

        batch_size = inputs_x.size(0)

        if use_cuda:
            inputs_x, targets_x = inputs_x.cuda(), targets_x.cuda(non_blocking=True)
            inputs_u = inputs_u.cuda()
            inputs_u2 = inputs_u2.cuda()
            inputs_strong = inputs_strong.cuda()

        outputs_u, feature_u = model(inputs_u)
        outputs_u2, feature_u2 = model(inputs_u2)
        p = (torch.softmax(outputs_u, dim=1) + torch.softmax(outputs_u2, dim=1)) / 2
        max_probs, max_idx = torch.max(p, dim=1)
        max_idx = max_idx.detach()

        output_x, _ = model(inputs_x)

        mask = mask_generate(max_probs, max_idx, batch_size, threshold)
        mask_idx = np.where(mask.cpu() == 0)[0]
        features_prob = torch.cat([feature_u[mask_idx, :].unsqueeze(1), feature_u2[mask_idx, :].unsqueeze(1)], dim=1)

        Lx = criterion_ce(output_x, targets_x).mean()
        if features_prob.shape[0] == 0:
            Ls = torch.from_numpy(np.array(0))
        else:
            Ls = criterion_simclr(features_prob)

        output_strong, _ = model(inputs_strong)
        Lu = criterion_ce(output_strong, max_idx) * mask
        Lu = Lu.mean()
        loss = Lx * 0.5 + Lu + Ls * 0.1

        losses.update(loss.item(), inputs_x.size(0))

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    return losses.avg


def mask_generate(max_probs, max_idx, batch, threshold):
    mask_ori = torch.zeros(batch)
    for i in range(7):
        idx = np.where(max_idx.cpu() == i)[0]
        m = max_probs[idx].ge(threshold[i]).float()
        for k in range(len(idx)):
            mask_ori[idx[k]] += m[k]
    return mask_ori.cuda()


if __name__ == '__main__':
    main()
