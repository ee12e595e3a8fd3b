# source: https://github.com/AdaptInfer/Contextualized/issues/254
# seen: 2026-11-26
# style: Lightning research library file: NOTEARS-style DAG regularisers as module-level functions, a LightningModule whose training_step turns the network's output into per-sample adjacency matrices and calls them, Trainer(accelerator="gpu")
# expect: DL011 at 25
# why: dag_loss builds torch.eye(d) on the CPU and adds it to the adjacency matrices w, which live on the GPU when Lightning runs the step there ("Expected all tensors to be on the same device"); the maintainers' fix is torch.eye(...).to(w.device)
import argparse

import numpy as np
import pytorch_lightning as pl
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def dag_loss(w, alpha=1e0, rho=1e0):
    d = w.shape[-1]
    m = torch.linalg.matrix_exp(w * w)
    h = torch.diagonal(m, dim1=-2, dim2=-1).sum(-1) - d
    return alpha * h + 0.5 * rho * h * h


def dag_loss_poly(w, alpha=1e0, rho=1e0):
    d = w.shape[-1]
    eye = torch.eye(d)
    m = eye + w * w / d
    e = torch.linalg.matrix_power(m, d - 1)
    h = (e.transpose(-1, -2) * m).sum(dim=(-1, -2)) - d
    return alpha * h + 0.5 * rho * h * h


def l1_loss(w, l1=1e-3):
    return l1 * torch.norm(w, p=1, dim=(-1, -2))


def mse_loss(w, x):
    x_hat = torch.matmul(x.unsqueeze(1), w).squeeze(1)
    return ((x - x_hat) ** 2).mean(dim=-1)


class ContextualizedBayesianNetworks(pl.LightningModule):
    def __init__(self, context_dim, x_dim, width=64, learning_rate=1e-3, alpha=1e-1, rho=1e-2):
        super().__init__()
        self.save_hyperparameters()
        self.x_dim = x_dim
        self.encoder = nn.Sequential(nn.Linear(context_dim, width), nn.ReLU(), nn.Linear(width, x_dim * x_dim))
        self.register_buffer("diag_mask", 1.0 - torch.eye(x_dim))

    def forward(self, c):
        w = self.encoder(c).view(-1, self.x_dim, self.x_dim)
        return w * self.diag_mask

    def _loss(self, batch):
        c, x = batch
        w = self(c)
        loss = mse_loss(w, x) + dag_loss_poly(w, self.hparams.alpha, self.hparams.rho) + l1_loss(w)
        return loss.mean()

    def training_step(self, batch, batch_idx):
        loss = self._loss(batch)
        self.log("train_loss", loss)
        return loss

    def validation_step(self, batch, batch_idx):
        self.log("val_loss", self._loss(batch), prog_bar=True)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.hparams.learning_rate)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--epochs", type=int, default=20)
    args = parser.parse_args()
    c = np.random.randn(args.n, 4).astype(np.float32)
    x = np.random.randn(args.n, 8).astype(np.float32)
    split = int(0.8 * args.n)
    train = DataLoader(TensorDataset(torch.from_numpy(c[:split]), torch.from_numpy(x[:split])), batch_size=64, shuffle=True)
    val = DataLoader(TensorDataset(torch.from_numpy(c[split:]), torch.from_numpy(x[split:])), batch_size=64)
    model = ContextualizedBayesianNetworks(context_dim=4, x_dim=8)
    trainer = pl.Trainer(accelerator="gpu", devices=1, max_epochs=args.epochs)
    trainer.fit(model, train, val)
