# source: https://github.com/jokermask/SANet/issues/4
# seen: 2026-11-26
# style: crowd-counting training script (train.py, CSRNet lineage): argparse, a validate(val_list, model, criterion) helper with a DataLoader, MAE / MSE accumulated over the test set, model moved with .cuda() in main()
# expect: DL003 at 97
# why: mse is accumulated from output.data.sum() minus a target moved with .cuda(), so it is a CUDA tensor when np.sqrt(mse / ...) converts it ("can't convert CUDA tensor to numpy")
import argparse
import json
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable
from torchvision import transforms

import dataset
from model import SANet

parser = argparse.ArgumentParser(description='PyTorch SANet')
parser.add_argument('train_json', metavar='TRAIN', help='path to train json')
parser.add_argument('test_json', metavar='TEST', help='path to test json')
parser.add_argument('--pre', '-p', metavar='PRETRAINED', default=None, type=str, help='path to the pretrained model')
parser.add_argument('gpu', metavar='GPU', type=str, help='GPU id to use.')
parser.add_argument('task', metavar='TASK', type=str, help='task id to use.')

patch_num = 4


def main():
    global args, best_prec1
    best_prec1 = 1e6
    args = parser.parse_args()
    args.lr = 1e-5
    args.batch_size = 1
    args.epochs = 400
    args.workers = 4
    with open(args.train_json, 'r') as outfile:
        train_list = json.load(outfile)
    with open(args.test_json, 'r') as outfile:
        val_list = json.load(outfile)

    model = SANet()
    model = model.cuda()
    criterion = nn.MSELoss(size_average=False).cuda()
    optimizer = torch.optim.Adam(model.parameters(), args.lr)

    for epoch in range(args.epochs):
        train(train_list, model, criterion, optimizer, epoch)
        prec1 = validate(val_list, model, criterion)
        best_prec1 = min(prec1, best_prec1)
        print(' * best MAE {mae:.3f} '.format(mae=best_prec1))


def train(train_list, model, criterion, optimizer, epoch):
    train_loader = torch.utils.data.DataLoader(
        dataset.listDataset(train_list, shuffle=True,
                            transform=transforms.Compose([transforms.ToTensor(),
                                                          transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])]),
                            train=True, batch_size=args.batch_size, num_workers=args.workers),
        batch_size=args.batch_size)
    model.train()
    end = time.time()
    for i, (img, target) in enumerate(train_loader):
        img = img.cuda()
        img = Variable(img)
        output = model(img)
        target = target.type(torch.FloatTensor).unsqueeze(1).cuda()
        target = Variable(target)
        loss = criterion(output, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if i % 100 == 0:
            print('Epoch: [{0}][{1}/{2}]\tTime {3:.3f}\tLoss {4:.4f}'.format(epoch, i, len(train_loader), time.time() - end, loss.item()))
            end = time.time()


def validate(val_list, model, criterion):
    print('begin test')
    test_loader = torch.utils.data.DataLoader(
        dataset.listDataset(val_list, shuffle=False,
                            transform=transforms.Compose([transforms.ToTensor(),
                                                          transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])]),
                            train=False),
        batch_size=1)
    model.eval()
    mae = 0
    mse = 0
    for i, (img, target) in enumerate(test_loader):
        img = img.cuda()
        img = Variable(img)
        output = model(img)
        mae += abs(output.data.sum() - target.sum().type(torch.FloatTensor).cuda())
        mse += (output.data.sum() - target.sum().type(torch.FloatTensor).cuda()).pow(2)
    mae = mae / (len(test_loader) * patch_num)
    mse = np.sqrt(mse / (len(test_loader) * patch_num))
    print(' * MAE {mae:.3f} MSE {mse:.3f}'.format(mae=mae, mse=mse))
    return mae


if __name__ == '__main__':
    main()
