# source: https://github.com/ry-takashima/python_asr/issues/1
# seen: 2026-11-26
# style: book script (04dnn_hmm/02_train_dnn.py): argparse-free config block, train/validation phases in one loop, learning curves drawn with matplotlib at the end
# expect: DL003 at 92, 93
# also-ok: DL014 at 61
# also-ok: DL013 at 71, 79
# why: the per-epoch error rates are CUDA tensors (sums of comparisons of GPU outputs); plt.plot converts them with np.atleast_1d -> "can't convert cuda:0 device type tensor to numpy"
import os

import matplotlib
matplotlib.use('Agg')
import matplotlib.pyplot as plt
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import DataLoader

from my_dataset import SequenceDataset
from my_model import MyDNN

train_feat_scp = '../01compute_features/fbank/train_small/feats.scp'
train_label_file = './exp/data/train_small/alignment'
dev_feat_scp = '../01compute_features/fbank/dev/feats.scp'
dev_label_file = './exp/data/dev/alignment'
output_dir = 'exp/model_dnn'
batch_size = 5
max_num_epoch = 60
num_layers = 4
hidden_dim = 1024
initial_learning_rate = 0.008
feat_dim = 40
num_tokens = 2000
os.makedirs(output_dir, exist_ok=True)

train_dataset = SequenceDataset(train_feat_scp, train_label_file, feat_dim, 5, 5)
dev_dataset = SequenceDataset(dev_feat_scp, dev_label_file, feat_dim, 5, 5)
train_loader = DataLoader(train_dataset, batch_size=batch_size, shuffle=True, num_workers=4)
dev_loader = DataLoader(dev_dataset, batch_size=batch_size, shuffle=False, num_workers=4)

model = MyDNN(dim_in=feat_dim * 11, dim_hidden=hidden_dim, dim_out=num_tokens, num_layers=num_layers)
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(model.parameters(), lr=initial_learning_rate)
device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
model = model.to(device)

loss_history = {'train': [], 'validation': []}
error_history = {'train': [], 'validation': []}
for epoch in range(max_num_epoch):
    for phase in ['train', 'validation']:
        total_loss = 0
        total_error = 0
        total_frames = 0
        if phase == 'train':
            model.train()
            loader = train_loader
        else:
            model.eval()
            loader = dev_loader
        for (features, labels, feat_len, utt_ids) in loader:
            features, labels = features.to(device), labels.to(device)
            optimizer.zero_grad()
            outputs = model(features)
            b_size, frames, _ = outputs.size()
            outputs = outputs.view(b_size * frames, num_tokens)
            labels = labels.view(b_size * frames)
            loss = criterion(outputs, labels)
            if phase == 'train':
                loss.backward()
                optimizer.step()
            total_loss += loss.item() * b_size
            _, hyp = torch.max(outputs, 1)
            total_error += torch.sum(hyp != labels)
            total_frames += b_size * frames
        epoch_loss = total_loss / total_frames
        epoch_error = 100.0 * total_error / total_frames
        loss_history[phase].append(epoch_loss)
        error_history[phase].append(epoch_error)
        print('    %s loss: %f, error: %f' % (phase, epoch_loss, epoch_error))
    torch.save(model.state_dict(), os.path.join(output_dir, 'model.pt'))

fig1 = plt.figure()
for phase in ['train', 'validation']:
    plt.plot(loss_history[phase], label=phase + ' loss')
plt.xlabel('Epoch')
plt.ylabel('Loss')
fig1.legend()
fig1.savefig(os.path.join(output_dir, 'loss.png'))

fig2 = plt.figure()
for phase in ['train', 'validation']:
    plt.plot(error_history[phase],
             label=phase + ' error')
plt.xlabel('Epoch')
plt.ylabel('Error [%]')
fig2.legend()
fig2.savefig(os.path.join(output_dir, 'error.png'))
