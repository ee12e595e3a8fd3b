# source: https://github.com/Lightning-AI/pytorch-lightning/issues/17299
# seen: 2026-11-26
# style: quantitative-finance regression: a custom loss nn.Module in its own class (penalised MSE), a LightningModule that calls it in training_step/validation_step, Trainer(accelerator="gpu")
# expect: DL011 at 22, 26, 27
# why: penalty_factor = torch.ones(y_pred.size(0), dtype=torch.float32) is created on the CPU inside the loss; y_pred and y_true are on cuda:0 under Lightning -> device mismatch in the masked assignment / product
import numpy as np
import pytorch_lightning as pl
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class PenalizedMSELoss(nn.Module):
    """MSE that weighs wrong-sign predictions more heavily."""

    def __init__(self, penalty=2.0):
        super().__init__()
        self.penalty = penalty

    def forward(self, y_pred, y_true):
        y_pred = y_pred.squeeze(-1)
        penalty_factor = torch.ones(
            y_pred.size(0), dtype=torch.float32,
        )  # error occur from this line
        wrong_sign = torch.sign(y_pred) != torch.sign(y_true)
        penalty_factor[wrong_sign] = self.penalty
        return torch.mean(penalty_factor * (y_pred - y_true) ** 2)


class FactorModel(pl.LightningModule):
    def __init__(self, n_features, hidden=128, lr=1e-3):
        super().__init__()
        self.save_hyperparameters()
        self.net = nn.Sequential(nn.Linear(n_features, hidden), nn.ReLU(), nn.Dropout(0.1), nn.Linear(hidden, 1))
        self.criterion = PenalizedMSELoss()

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch, batch_idx):
        x, y = batch
        y_hat = self(x)
        loss = self.criterion(y_hat, y)
        self.log("train_loss", loss)
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        y_hat = self(x)
        loss = self.criterion(y_hat, y)
        self.log("val_loss", loss, prog_bar=True)

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=self.hparams.lr)


def make_loaders(n=20000, n_features=64, batch_size=512):
    x = np.random.randn(n, n_features).astype(np.float32)
    y = (x[:, :8].sum(axis=1) * 0.01 + np.random.randn(n) * 0.02).astype(np.float32)
    split = int(n * 0.8)
    train = TensorDataset(torch.from_numpy(x[:split]), torch.from_numpy(y[:split]))
    val = TensorDataset(torch.from_numpy(x[split:]), torch.from_numpy(y[split:]))
    return DataLoader(train, batch_size=batch_size, shuffle=True), DataLoader(val, batch_size=batch_size)


if __name__ == "__main__":
    train_loader, val_loader = make_loaders()
    model = FactorModel(n_features=64)
    trainer = pl.Trainer(accelerator="gpu", devices=1, max_epochs=20)
    trainer.fit(model, train_loader, val_loader)
