# source: https://github.com/samuelyu2002/ImVisible/issues/2
# seen: 2026-11-26
# style: training script with train and validation loops (train.py lines 97-99, 165-167)
# expect: DL010 at 54
# expect: DL010 at 55
# expect: DL010 at 56
# why: running losses accumulate tensors with autograd history; the maintainer's fix is += loss.item()
# also-ok: DL014 at 22
# also-ok: DL014 at 23
import torch
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import DataLoader

from dataset import TrafficLightDataset
from network import LytNet

device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")

train_dataset = TrafficLightDataset(csv_file='./annotations/training_file.csv', img_dir='./PTL_Dataset/768_576')
valid_dataset = TrafficLightDataset(csv_file='./annotations/validation_file.csv', img_dir='./PTL_Dataset/768_576')
train_dataloader = DataLoader(train_dataset, batch_size=32, shuffle=True, num_workers=2)
valid_dataloader = DataLoader(valid_dataset, batch_size=32, shuffle=True, num_workers=2)

net = LytNet()
net = net.to(device)
optimizer = optim.Adam(net.parameters(), lr=0.001)
scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=60, gamma=0.1)
cross_entropy_loss = nn.CrossEntropyLoss()
MSE_loss = nn.MSELoss()
MSE_weight = 0.5

for epoch in range(800):
    net.train()
    running_loss = 0.0
    running_loss_MSE = 0.0
    running_loss_cross_entropy = 0.0
    for i, data in enumerate(train_dataloader):
        images = data['image'].type(torch.FloatTensor).to(device)
        mode = data['mode'].to(device)
        points = data['points'].to(device)

        optimizer.zero_grad()

        pred_classes, pred_direc = net(images)
        _, predicted = torch.max(pred_classes, 1)

        cross_entropy = cross_entropy_loss(pred_classes, mode)
        MSE = MSE_loss(pred_direc, points) / (points.size(0) * 4)
        loss = cross_entropy + MSE_weight * MSE
        loss.backward()
        optimizer.step()

        running_loss += loss
        running_loss_MSE += MSE
        running_loss_cross_entropy += cross_entropy

    print('Epoch: ' + str(epoch + 1) + ' Loss: ' + str(running_loss / len(train_dataloader)))
    scheduler.step()

    net.eval()
    val_running_loss = 0.0
    val_mse_loss = 0.0
    val_ce_loss = 0.0
    with torch.no_grad():
        for j, data in enumerate(valid_dataloader):
            images = data['image'].type(torch.FloatTensor).to(device)
            mode = data['mode'].to(device)
            points = data['points'].to(device)
            pred_classes, pred_direc = net(images)
            cross_entropy = cross_entropy_loss(pred_classes, mode)
            MSE = MSE_loss(pred_direc, points) / (points.size(0) * 4)
            loss = cross_entropy + MSE_weight * MSE
            val_running_loss += loss
            val_mse_loss += MSE
            val_ce_loss += cross_entropy
    print('Validation loss: ' + str(val_running_loss / len(valid_dataloader)))
