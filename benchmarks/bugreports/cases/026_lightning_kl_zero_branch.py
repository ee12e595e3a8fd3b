# source: https://github.com/Lightning-AI/pytorch-lightning/issues/7023
# seen: 2026-11-26
# style: LightningModule with a loss helper method; one branch builds a fresh tensor
# expect: DL011 at 29, 47
# why: loss_kl = torch.tensor(0) is on the CPU in the no-KLD branch and is stacked with CUDA losses when logging/averaging
import torch
import torch.nn as nn
import torch.nn.functional as F
import pytorch_lightning as pl


class VAEModel(pl.LightningModule):
    def __init__(self, in_dim=784, z_dim=32, use_kld=True, beta=1.0):
        super().__init__()
        self.use_kld = use_kld
        self.beta = beta
        self.encoder = nn.Sequential(nn.Linear(in_dim, 256), nn.ReLU(), nn.Linear(256, 2 * z_dim))
        self.decoder = nn.Sequential(nn.Linear(z_dim, 256), nn.ReLU(), nn.Linear(256, in_dim))

    def forward(self, x):
        mu, logvar = self.encoder(x).chunk(2, dim=-1)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return self.decoder(z), mu, logvar

    def calculate_losses(self, loss, kld, r=0.5):
        if kld is None:
            loss_rec = loss  # not relevant to bug
            total_loss = loss  # not relevant to bug
            loss_kl = torch.tensor(0)  # THIS LINE CAUSES THE BUG
        else:
            loss_rec = loss
            total_loss = loss + self.beta * kld
            loss_kl = kld
        return total_loss, loss_rec, loss_kl

    def training_step(self, batch, batch_idx):
        x, _ = batch
        x = x.view(x.size(0), -1)
        x_hat, mu, logvar = self(x)
        rec = F.mse_loss(x_hat, x)
        kld = -0.5 * torch.mean(1 + logvar - mu.pow(2) - logvar.exp()) if self.use_kld else None
        total_loss, loss_rec, loss_kl = self.calculate_losses(rec, kld)
        self.log("train_loss", total_loss)
        return {"loss": total_loss, "loss_rec": loss_rec, "loss_kl": loss_kl}

    def training_epoch_end(self, outputs):
        avg_kl = torch.stack([o["loss_kl"] for o in outputs]).mean()
        avg_rec = torch.stack([o["loss_rec"] for o in outputs]).mean()
        self.log("epoch_kl", avg_kl)
        self.log("epoch_rec", avg_rec)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)
