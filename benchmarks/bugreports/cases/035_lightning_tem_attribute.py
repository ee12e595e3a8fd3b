# source: https://github.com/Lightning-AI/pytorch-lightning/issues/3674
# seen: 2026-11-26
# style: LightningModule (MNIST), tensor built in __init__ by a helper method, Trainer(gpus=1)
# expect: DL015 at 22, 23
# why: self.tem is a plain tensor attribute, not a buffer; moving the module to the GPU leaves it on the CPU
# also-ok: DL014 at 64
import os
import torch
import torch.nn.functional as F
from torchvision.datasets import MNIST
from torchvision import transforms
from torch.utils.data import DataLoader
import pytorch_lightning as pl
from torch.utils.data import random_split


class LitModel(pl.LightningModule):
    def __init__(self) -> None:
        super().__init__()
        self.seg = 20
        self.num_joints = 25
        self.tem = self.one_hot(self.seg, self.num_joints)
        self.tem = self.tem.permute(2, 0, 1)
        self.layer_1 = torch.nn.Linear(28 * 28, 128)
        self.layer_2 = torch.nn.Linear(128, 10)

    def one_hot(self, spa, tem) -> torch.Tensor:

        y = torch.arange(spa).unsqueeze(-1)
        y_onehot = torch.FloatTensor(spa, spa)

        y_onehot.zero_()
        y_onehot.scatter_(1, y, 1)

        y_onehot = y_onehot.unsqueeze(0)
        y_onehot = y_onehot.repeat(tem, 1, 1)

        return y_onehot

    def forward(self, x):
        print(self.tem.device)  # the output is CPU, expected is GPU
        x = x.view(x.size(0), -1)
        x = self.layer_1(x)
        x = F.relu(x)
        x = self.layer_2(x)
        return x

    def configure_optimizers(self):
        optimizer = torch.optim.Adam(self.parameters(), lr=1e-3)
        return optimizer

    def training_step(self, batch, batch_idx):
        x, y = batch
        logits = self(x)
        loss = F.cross_entropy(logits, y)
        return loss


dataset = MNIST(os.getcwd(), download=True, transform=transforms.ToTensor())
train, val = random_split(dataset, [55000, 5000])

model = LitModel()
trainer = pl.Trainer(gpus=1, max_epochs=1)
trainer.fit(model, DataLoader(train, batch_size=32), DataLoader(val, batch_size=32))
