# source: https://github.com/scverse/scvi-tools/issues/24
# seen: 2026-11-26
# style: benchmark driver (run_benchmarks.py + scvi/benchmark.py + scvi/imputation.py folded in one file): the VAE is moved with vae.cuda() when use_cuda, then handed to imputation(vae, gene_dataset)
# expect: DL003 at 75
# also-ok: DL014 at 80, 45
# why: px_rate comes out of the VAE on the GPU; imputation() calls px_rate.data.numpy() -> "can't convert CUDA tensor to numpy (it doesn't support GPU arrays). Use .cpu() to move the tensor to host memory first."
import argparse

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class VAE(nn.Module):
    def __init__(self, n_input, n_hidden=128, n_latent=10):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(n_input, n_hidden), nn.ReLU())
        self.z_mean = nn.Linear(n_hidden, n_latent)
        self.z_var = nn.Linear(n_hidden, n_latent)
        self.decoder = nn.Sequential(nn.Linear(n_latent, n_hidden), nn.ReLU(), nn.Linear(n_hidden, n_input))
        self.px_r = nn.Parameter(torch.randn(n_input))

    def forward(self, x):
        h = self.encoder(torch.log(1 + x))
        qz_m, qz_v = self.z_mean(h), torch.exp(self.z_var(h))
        z = qz_m + torch.sqrt(qz_v) * torch.randn_like(qz_m)
        px_scale = torch.softmax(self.decoder(z), dim=-1)
        library = torch.log(torch.sum(x, dim=1, keepdim=True))
        px_rate = torch.exp(library) * px_scale
        return px_scale, self.px_r, px_rate, qz_m, qz_v

    def loss(self, x):
        px_scale, px_r, px_rate, qz_m, qz_v = self(x)
        reconst = torch.sum((x - px_rate) ** 2, dim=1)
        kl = 0.5 * torch.sum(qz_m ** 2 + qz_v - torch.log(qz_v) - 1, dim=1)
        return torch.mean(reconst + kl)


def train(vae, data_loader, n_epochs=20, lr=1e-3, use_cuda=True):
    optimizer = torch.optim.Adam(vae.parameters(), lr=lr)
    for epoch in range(n_epochs):
        for (sample_batch,) in data_loader:
            if use_cuda:
                sample_batch = sample_batch.cuda(non_blocking=True)
            loss = vae.loss(sample_batch)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


def imputation_error(X_pred, X, i, j, ix):
    all_index = i[ix], j[ix]
    x, y = X_pred[all_index], X[all_index]
    return np.median(np.abs(x - y))


def dropout(X, rate=0.1):
    X_zero = np.copy(X)
    i, j = np.nonzero(X_zero)
    ix = np.random.choice(range(len(i)), int(np.floor(rate * len(i))), replace=False)
    X_zero[i[ix], j[ix]] = 0.0
    return X_zero, i, j, ix


def imputation(vae, gene_dataset, rate=0.1, use_cuda=True):
    X = gene_dataset
    X_zero, i, j, ix = dropout(X, rate)
    sample_batch = torch.FloatTensor(X_zero)
    if use_cuda:
        sample_batch = sample_batch.cuda(non_blocking=True)
    vae.eval()
    with torch.no_grad():
        _, _, px_rate, _, _ = vae(sample_batch)
    mae = imputation_error(px_rate.data.numpy(), X, i, j, ix)
    return mae


def run_benchmarks(gene_dataset, n_epochs=1000, learning_rate=1e-3, use_cuda=True):
    data_loader = DataLoader(TensorDataset(torch.FloatTensor(gene_dataset)), batch_size=128, shuffle=True)
    vae = VAE(gene_dataset.shape[1])
    if use_cuda:
        vae.cuda()
    train(vae, data_loader, n_epochs=n_epochs, lr=learning_rate, use_cuda=use_cuda)
    imputation_score = imputation(vae, gene_dataset, use_cuda=use_cuda)
    print("Imputation score on test (MAE) is:", imputation_score)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=1000)
    parser.add_argument("--nobatches", action="store_true")
    args = parser.parse_args()
    gene_dataset = np.random.negative_binomial(5, 0.3, size=(3000, 558)).astype(np.float32)
    use_cuda = torch.cuda.is_available()
    run_benchmarks(gene_dataset, n_epochs=args.epochs, use_cuda=use_cuda)
