# source: https://github.com/swz30/MPRNet/issues/91
# seen: 2026-11-26
# style: training script (Deblurring/train.py), multi-stage outputs summed with np.sum
# expect: DL003 at 51
# why: np.sum over a list of CUDA loss tensors converts each to NumPy
# also-ok: DL007 at 28
# also-ok: DL007 at 45
# also-ok: DL007 at 46
# also-ok: DL003 at 52
# also-ok: DL013 at 57
import os
import time

import numpy as np
import torch
import torch.optim as optim
from torch.utils.data import DataLoader

import losses
from MPRNet import MPRNet
from data_RGB import get_training_data

torch.backends.cudnn.benchmark = True
os.environ["CUDA_VISIBLE_DEVICES"] = "0"
train_dir = './Datasets/GoPro/train'

model_restoration = MPRNet()
model_restoration.cuda()

optimizer = optim.Adam(model_restoration.parameters(), lr=2e-4, betas=(0.9, 0.999), eps=1e-8)
criterion_char = losses.CharbonnierLoss()
criterion_edge = losses.EdgeLoss()

train_dataset = get_training_data(train_dir, {'patch_size': 256})
train_loader = DataLoader(dataset=train_dataset, batch_size=16, shuffle=True, num_workers=16, drop_last=False, pin_memory=True)

for epoch in range(1, 3001):
    epoch_start_time = time.time()
    epoch_loss = 0
    model_restoration.train()
    for i, data in enumerate(train_loader, 0):
        for param in model_restoration.parameters():
            param.grad = None

        target = data[0].cuda()
        input_ = data[1].cuda()

        restored = model_restoration(input_)

        # Compute loss at each stage
        loss_char = np.sum([criterion_char(restored[j], target) for j in range(len(restored))])
        loss_edge = np.sum([criterion_edge(restored[j], target) for j in range(len(restored))])
        loss = (loss_char) + (0.05 * loss_edge)

        loss.backward()
        optimizer.step()
        epoch_loss += loss.item()

    print("Epoch: {}\tTime: {:.4f}\tLoss: {:.4f}".format(epoch, time.time() - epoch_start_time, epoch_loss))
