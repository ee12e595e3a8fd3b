# source: https://github.com/Lightning-AI/pytorch-lightning/issues/1429
# seen: 2026-11-26
# style: LightningModule (pytorch-lightning 0.7 era), metrics from sklearn inside validation_step, Trainer(gpus=1)
# expect: DL003 at 42
# why: Lightning moves the batch to the GPU; sklearn's accuracy_score calls np.asarray on the CUDA tensors y and the argmax of y_hat -> "can't convert CUDA tensor to numpy"
import torch
import torch.nn as nn
import torch.nn.functional as F
import pytorch_lightning as pl
from sklearn.metrics import accuracy_score
from torch.utils.data import DataLoader
from torchvision import transforms
from torchvision.datasets import ImageFolder


class DroneNet(pl.LightningModule):
    def __init__(self, data_dir="data/drone", batch_size=32, lr=1e-3):
        super().__init__()
        self.data_dir = data_dir
        self.batch_size = batch_size
        self.lr = lr
        self.features = nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.classifier = nn.Linear(64 * 32 * 32, 4)

    def forward(self, x):
        x = self.features(x)
        return self.classifier(x.view(x.size(0), -1))

    def training_step(self, batch, batch_idx):
        x, y = batch
        y_hat = self(x)
        loss = F.cross_entropy(y_hat, y)
        return {'loss': loss, 'log': {'train_loss': loss}}

    def validation_step(self, batch, batch_idx):
        x, y = batch
        y_hat = self(x)
        loss = F.cross_entropy(y_hat, y)
        val_acc = accuracy_score(y, torch.argmax(y_hat, dim=1))
        return {'val_loss': loss, 'val_acc': torch.tensor(val_acc)}

    def validation_epoch_end(self, outputs):
        avg_loss = torch.stack([x['val_loss'] for x in outputs]).mean()
        avg_acc = torch.stack([x['val_acc'] for x in outputs]).mean()
        return {'val_loss': avg_loss, 'log': {'val_loss': avg_loss, 'val_acc': avg_acc}}

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.lr)

    def _loader(self, split, shuffle):
        tf = transforms.Compose([transforms.Resize((128, 128)), transforms.ToTensor()])
        return DataLoader(ImageFolder(f"{self.data_dir}/{split}", transform=tf), batch_size=self.batch_size,
                          shuffle=shuffle, num_workers=4)

    def train_dataloader(self):
        return self._loader("train", True)

    def val_dataloader(self):
        return self._loader("val", False)


if __name__ == "__main__":
    model = DroneNet()
    trainer = pl.Trainer(gpus=1, max_epochs=20)
    trainer.fit(model)
