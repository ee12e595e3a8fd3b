# source: https://github.com/IDKiro/action-recognition/issues/18 (the model and training script the question is about)
# seen: 2026-11-27
# style: video action-recognition repository folded into one file (models.py + train.py): a ResNet feature extractor per frame, an LSTM over the frame features whose init_hidden builds (h0, c0) with torch.zeros(...).cuda(), forward stacking frame features into a buffer made with torch.zeros(...).cuda(), an argparse train loop that moves the model and each clip with .cuda()
# also-ok: DL007 at 33, 34, 39, 53, 71, 54, 72, 95
# also-ok: DL008 at 33, 34, 39
# also-ok: DL013 at 74, 62
# clean: no DL011 expected: the question ("What is the purpose of init_hidden?") is about code that works on the GPU it was written for: init_hidden and the feature buffer are created then moved with .cuda(), and the model and every clip are on cuda too, so nothing meets across devices; the hard-coded .cuda() calls and the build-then-move pattern are right by their own rules
import argparse
import os
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader
from torchvision import models

from dataset import UCF101Clips


class ResCRNN(nn.Module):
    def __init__(self, num_classes, hidden_size=512, num_layers=1, pretrained=True):
        super(ResCRNN, self).__init__()
        resnet = models.resnet34(pretrained=pretrained)
        self.features = nn.Sequential(*list(resnet.children())[:-1])
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.rnn = nn.LSTM(input_size=resnet.fc.in_features, hidden_size=hidden_size,
                           num_layers=num_layers, batch_first=True)
        self.fc = nn.Linear(hidden_size, num_classes)

    def init_hidden(self, num_layers, batch_size):
        return (torch.zeros(num_layers, batch_size, self.hidden_size).cuda(),
                torch.zeros(num_layers, batch_size, self.hidden_size).cuda())

    def forward(self, inputs, hidden=None):
        # inputs: (batch, frames, 3, H, W)
        batch_size, length = inputs.size(0), inputs.size(1)
        fs = torch.zeros(batch_size, length, self.rnn.input_size).cuda()
        for i in range(length):
            f = self.features(inputs[:, i])
            fs[:, i, :] = f.view(batch_size, -1)
        if hidden is None:
            hidden = self.init_hidden(self.num_layers, batch_size)
        outputs, hidden = self.rnn(fs, hidden)
        return self.fc(outputs[:, -1, :])


def train(model, loader, optimizer, epoch, print_freq=20):
    model.train()
    end = time.time()
    for i, (clips, target) in enumerate(loader):
        clips = clips.cuda(non_blocking=True)
        target = target.cuda(non_blocking=True)
        output = model(clips)
        loss = F.cross_entropy(output, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if i % print_freq == 0:
            print("Epoch: [{0}][{1}/{2}]\tTime {3:.3f}\tLoss {4:.4f}".format(
                epoch, i, len(loader), time.time() - end, loss.item()))
        end = time.time()


def validate(model, loader):
    model.eval()
    correct, total = 0, 0
    with torch.no_grad():
        for clips, target in loader:
            clips = clips.cuda(non_blocking=True)
            target = target.cuda(non_blocking=True)
            pred = model(clips).argmax(dim=1)
            correct += (pred == target).sum().item()
            total += target.size(0)
    return correct / max(total, 1)


def main():
    parser = argparse.ArgumentParser(description="Train ResCRNN on UCF101")
    parser.add_argument("--data", default="data/ucf101")
    parser.add_argument("--frames", type=int, default=16)
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--save", default="checkpoints")
    args = parser.parse_args()

    train_set = UCF101Clips(args.data, split="train", frames=args.frames)
    val_set = UCF101Clips(args.data, split="val", frames=args.frames)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, num_workers=args.workers, pin_memory=True)
    val_loader = DataLoader(val_set, batch_size=args.batch_size, shuffle=False, num_workers=args.workers, pin_memory=True)

    model = ResCRNN(num_classes=101).cuda()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    os.makedirs(args.save, exist_ok=True)
    best = 0.0
    for epoch in range(args.epochs):
        train(model, train_loader, optimizer, epoch)
        acc = validate(model, val_loader)
        if acc > best:
            best = acc
            torch.save(model.state_dict(), os.path.join(args.save, "best.pth"))
        print("epoch {} val acc {:.4f} (best {:.4f})".format(epoch, acc, best))


if __name__ == "__main__":
    main()
