# source: https://github.com/pytorch/pytorch/issues/34470
# seen: 2026-11-26
# style: CRNN text-recognition fine-tuning script: argparse options, the optimizer is built and its state loaded from a checkpoint, then the pretrained weights are loaded and the network moved with crnn.cuda() when opt.cuda
# expect: DL018 at 102, 107
# also-ok: DL009 at 101, 105
# also-ok: DL014 at 77, 113
# why: Adam's state is loaded while the CRNN is still on the CPU (load_state_dict casts exp_avg/exp_avg_sq to the parameters' device, the CPU); crnn.cuda() then moves only the parameters, and the first optimizer.step() fails with "expected backend CPU and dtype Float but got backend CUDA"
import argparse
import os
import random

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
import torch.utils.data

import dataset
import utils


class BidirectionalLSTM(nn.Module):
    def __init__(self, nIn, nHidden, nOut):
        super(BidirectionalLSTM, self).__init__()
        self.rnn = nn.LSTM(nIn, nHidden, bidirectional=True)
        self.embedding = nn.Linear(nHidden * 2, nOut)

    def forward(self, input):
        recurrent, _ = self.rnn(input)
        T, b, h = recurrent.size()
        output = self.embedding(recurrent.view(T * b, h))
        return output.view(T, b, -1)


class CRNN(nn.Module):
    def __init__(self, imgH, nc, nclass, nh):
        super(CRNN, self).__init__()
        self.cnn = nn.Sequential(
            nn.Conv2d(nc, 64, 3, 1, 1), nn.ReLU(True), nn.MaxPool2d(2, 2),
            nn.Conv2d(64, 128, 3, 1, 1), nn.ReLU(True), nn.MaxPool2d(2, 2),
            nn.Conv2d(128, 256, 3, 1, 1), nn.BatchNorm2d(256), nn.ReLU(True),
            nn.MaxPool2d((2, 2), (2, 1), (0, 1)),
            nn.Conv2d(256, 512, 3, 1, 1), nn.BatchNorm2d(512), nn.ReLU(True),
            nn.MaxPool2d((2, 2), (2, 1), (0, 1)),
            nn.Conv2d(512, 512, 2, 1, 0), nn.BatchNorm2d(512), nn.ReLU(True),
        )
        self.rnn = nn.Sequential(BidirectionalLSTM(512, nh, nh), BidirectionalLSTM(nh, nh, nclass))

    def forward(self, input):
        conv = self.cnn(input)
        conv = conv.squeeze(2).permute(2, 0, 1)
        return self.rnn(conv)


parser = argparse.ArgumentParser()
parser.add_argument("--trainroot", required=True, help="path to dataset")
parser.add_argument("--batchSize", type=int, default=64, help="input batch size")
parser.add_argument("--imgH", type=int, default=32)
parser.add_argument("--imgW", type=int, default=100)
parser.add_argument("--nh", type=int, default=256)
parser.add_argument("--nepoch", type=int, default=25)
parser.add_argument("--cuda", action="store_true", help="enables cuda")
parser.add_argument("--pretrained", default="", help="path to pretrained model (to continue training)")
parser.add_argument("--resume", default="", help="checkpoint with the optimizer state")
parser.add_argument("--alphabet", type=str, default="0123456789abcdefghijklmnopqrstuvwxyz")
parser.add_argument("--expr_dir", default="expr")
parser.add_argument("--lr", type=float, default=0.0001)
parser.add_argument("--beta1", type=float, default=0.5)
opt = parser.parse_args()

os.makedirs(opt.expr_dir, exist_ok=True)
random.seed(1234)
np.random.seed(1234)
torch.manual_seed(1234)

train_dataset = dataset.lmdbDataset(root=opt.trainroot)
train_loader = torch.utils.data.DataLoader(
    train_dataset, batch_size=opt.batchSize, shuffle=True, num_workers=2,
    collate_fn=dataset.alignCollate(imgH=opt.imgH, imgW=opt.imgW))

nclass = len(opt.alphabet) + 1
converter = utils.strLabelConverter(opt.alphabet)
criterion = nn.CTCLoss()


def weights_init(m):
    classname = m.__class__.__name__
    if classname.find("Conv") != -1:
        m.weight.data.normal_(0.0, 0.02)
    elif classname.find("BatchNorm") != -1:
        m.weight.data.normal_(1.0, 0.02)
        m.bias.data.fill_(0)


crnn = CRNN(opt.imgH, 1, nclass, opt.nh)
crnn.apply(weights_init)
model = crnn

optimizer = optim.Adam(model.parameters(), lr=opt.lr, betas=(opt.beta1, 0.999))
if opt.resume:
    checkpoint = torch.load(opt.resume)
    optimizer.load_state_dict(checkpoint["optimizer_state_dict"])
if opt.pretrained != "":
    print("loading pretrained model from %s" % opt.pretrained)
    crnn.load_state_dict(torch.load(opt.pretrained)["model"].state_dict(), strict=True)
if opt.cuda:
    crnn.cuda()
    criterion = criterion.cuda()


def train_batch(net, criterion, optimizer, cpu_images, cpu_texts):
    batch_size = cpu_images.size(0)
    image = cpu_images.cuda() if opt.cuda else cpu_images
    t, l = converter.encode(cpu_texts)
    preds = net(image)
    preds_size = torch.IntTensor([preds.size(0)] * batch_size)
    cost = criterion(preds.log_softmax(2), t, preds_size, l) / batch_size
    net.zero_grad()
    cost.backward()
    optimizer.step()
    return cost


best_ratio = 0.0
for epoch in range(opt.nepoch):
    for i, (cpu_images, cpu_texts) in enumerate(train_loader):
        crnn.train()
        cost = train_batch(crnn, criterion, optimizer, cpu_images, cpu_texts)
        if i % 100 == 0:
            print("[%d/%d][%d/%d] Loss: %f" % (epoch, opt.nepoch, i, len(train_loader), cost.item()))
    torch.save({"epoch": epoch, "model": model, "optimizer_state_dict": optimizer.state_dict(), "loss": cost},
               "{0}/CRNN_{1}_{2}_ckpt.pth".format(opt.expr_dir, epoch, best_ratio))
