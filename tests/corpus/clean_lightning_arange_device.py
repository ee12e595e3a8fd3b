# source: https://github.com/Lightning-AI/pytorch-lightning/issues/2400  (fixed version: the target built inside training_step is created on the batch's device; Lightning moves the batch itself)
# expect: clean
import pytorch_lightning as pl
import torch
import torch.nn as nn
import torch.nn.functional as F


class NPairs(pl.LightningModule):
    def __init__(self, dim=32):
        super().__init__()
        self.enc1 = nn.Linear(dim, 64)
        self.enc2 = nn.Linear(dim, 64)
        self.ce = nn.CrossEntropyLoss()

    def forward(self, x1, x2):
        a = F.normalize(self.enc1(x1), dim=1)
        b = F.normalize(self.enc2(x2), dim=1)
        return a @ b.t() * 20

    def training_step(self, batch, batch_idx):
        x1, x2 = batch["x1"], batch["x2"]
        predict = self(x1, x2)
        target = torch.arange(x1.size(0), device=x1.device)
        loss = self.ce(predict, target)
        self.log("loss", loss)
        return loss

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)
