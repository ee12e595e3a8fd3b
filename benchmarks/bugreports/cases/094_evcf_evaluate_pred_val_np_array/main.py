import argparse
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from scipy import sparse

from evaluation import evaluate, naive_sparse2tensor

parser = argparse.ArgumentParser(description='EVCF: VAE for collaborative filtering')
parser.add_argument('--data', type=str, default='ml-20m/pro_sg')
parser.add_argument('--lr', type=float, default=1e-3)
parser.add_argument('--wd', type=float, default=0.00)
parser.add_argument('--batch_size', type=int, default=500)
parser.add_argument('--epochs', type=int, default=200)
parser.add_argument('--total_anneal_steps', type=int, default=200000)
parser.add_argument('--anneal_cap', type=float, default=0.2)
parser.add_argument('--seed', type=int, default=1111)
parser.add_argument('--cuda', action='store_true')
args = parser.parse_args()

torch.manual_seed(args.seed)
args.device = torch.device("cuda" if args.cuda and torch.cuda.is_available() else "cpu")


class MultiVAE(nn.Module):
    def __init__(self, p_dims, dropout=0.5):
        super(MultiVAE, self).__init__()
        self.p_dims = p_dims
        self.q_dims = p_dims[::-1]
        temp_q_dims = self.q_dims[:-1] + [self.q_dims[-1] * 2]
        self.q_layers = nn.ModuleList([nn.Linear(d_in, d_out) for d_in, d_out in zip(temp_q_dims[:-1], temp_q_dims[1:])])
        self.p_layers = nn.ModuleList([nn.Linear(d_in, d_out) for d_in, d_out in zip(self.p_dims[:-1], self.p_dims[1:])])
        self.drop = nn.Dropout(dropout)

    def encode(self, input):
        h = F.normalize(input)
        h = self.drop(h)
        for i, layer in enumerate(self.q_layers):
            h = layer(h)
            if i != len(self.q_layers) - 1:
                h = torch.tanh(h)
            else:
                mu = h[:, :self.q_dims[-1]]
                logvar = h[:, self.q_dims[-1]:]
        return mu, logvar

    def reparameterize(self, mu, logvar):
        if self.training:
            std = torch.exp(0.5 * logvar)
            eps = torch.randn_like(std)
            return eps.mul(std).add_(mu)
        return mu

    def decode(self, z):
        h = z
        for i, layer in enumerate(self.p_layers):
            h = layer(h)
            if i != len(self.p_layers) - 1:
                h = torch.tanh(h)
        return h

    def forward(self, input):
        mu, logvar = self.encode(input)
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


def loss_function(recon_x, x, mu, logvar, anneal=1.0):
    BCE = -torch.mean(torch.sum(F.log_softmax(recon_x, 1) * x, -1))
    KLD = -0.5 * torch.mean(torch.sum(1 + logvar - mu.pow(2) - logvar.exp(), dim=1))
    return BCE + anneal * KLD


train_data = sparse.load_npz(f'{args.data}/train.npz')
vad_data_tr = sparse.load_npz(f'{args.data}/validation_tr.npz')
vad_data_te = sparse.load_npz(f'{args.data}/validation_te.npz')
N, n_items = train_data.shape
idxlist = list(range(N))

model = MultiVAE([200, 600, n_items]).to(args.device)
optimizer = optim.Adam(model.parameters(), lr=args.lr, weight_decay=args.wd)
update_count = 0

for epoch in range(1, args.epochs + 1):
    epoch_start_time = time.time()
    model.train()
    np.random.shuffle(idxlist)
    for batch_idx, start_idx in enumerate(range(0, N, args.batch_size)):
        end_idx = min(start_idx + args.batch_size, N)
        data = naive_sparse2tensor(train_data[idxlist[start_idx:end_idx]]).to(args.device)
        anneal = min(args.anneal_cap, 1. * update_count / args.total_anneal_steps) if args.total_anneal_steps > 0 else args.anneal_cap
        optimizer.zero_grad()
        recon_batch, mu, logvar = model(data)
        loss = loss_function(recon_batch, data, mu, logvar, anneal)
        loss.backward()
        optimizer.step()
        update_count += 1
    val_loss, n100, r20, r50 = evaluate(args, model, loss_function, vad_data_tr, vad_data_te,
                                        args.total_anneal_steps, args.anneal_cap, update_count)
    print('| end of epoch {:3d} | time: {:4.2f}s | valid loss {:4.2f} | n100 {:5.3f} | r20 {:5.3f} | r50 {:5.3f}'.format(
        epoch, time.time() - epoch_start_time, val_loss, n100, r20, r50))
