# source: https://github.com/Lightning-AI/pytorch-lightning/issues/2400
# seen: 2026-11-26
# style: LightningModule for sentence-pair retrieval with dict batches {"x1", "x2"}, an N-pairs loss written as its own LightningModule, Trainer(gpus=1)
# expect: DL011 at 64, 65
# why: Lightning moves the module and the dict batch to cuda:0, but target = torch.arange(batch size) is built on the CPU and goes into CrossEntropyLoss with the CUDA logits -> "Expected object of device type cuda but got device type cpu for argument #2 'target'"
import torch
import torch.nn.functional as F
from pytorch_lightning import LightningModule, Trainer
from torch import nn
from torch.utils.data import DataLoader, Dataset


class NPairsLoss(LightningModule):
    """The N-Pairs Loss: cross entropy over the similarity matrix of x1 and x2, the diagonal as the target."""

    def __init__(self, alpha=100):
        super(NPairsLoss, self).__init__()
        self.ce = nn.CrossEntropyLoss()
        self.alpha = alpha

    def similarities(self, x1, x2):
        x1 = F.normalize(x1, p=2, dim=1)
        x2 = F.normalize(x2, p=2, dim=1)
        return self.alpha * torch.matmul(x1, x2.t())

    def forward(self, predict, target):
        return self.ce(predict, target)


class PairDataset(Dataset):
    def __init__(self, n=10000, seq_len=32, vocab=30000):
        self.x1 = torch.randint(0, vocab, (n, seq_len))
        self.x2 = torch.randint(0, vocab, (n, seq_len))

    def __len__(self):
        return len(self.x1)

    def __getitem__(self, idx):
        return {"x1": self.x1[idx], "x2": self.x2[idx]}


class JointEncoder(LightningModule):
    def __init__(self, vocab=30000, hidden_size=256, lr=1e-3):
        super().__init__()
        self.x1_encoder = nn.Sequential(nn.EmbeddingBag(vocab, hidden_size), nn.Linear(hidden_size, hidden_size))
        self.x2_encoder = nn.Sequential(nn.EmbeddingBag(vocab, hidden_size), nn.Linear(hidden_size, hidden_size))
        self.loss_fn = NPairsLoss()
        self.lr = lr

    def forward(self, x1, x2):
        r1 = self.x1_encoder(x1)
        r2 = self.x2_encoder(x2)
        return self.loss_fn.similarities(r1, r2)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.lr)

    def train_dataloader(self):
        return DataLoader(PairDataset(), batch_size=64, shuffle=True, num_workers=4)

    def training_step(self, batch, batch_idx):
        x1, x2 = batch["x1"], batch["x2"]
        predict = self(x1, x2)
        target = torch.arange(x1.size()[0])
        loss = self.loss_fn(predict, target)
        return {"loss": loss}


if __name__ == "__main__":
    model = JointEncoder()
    trainer = Trainer(gpus=1, max_epochs=3)
    trainer.fit(model)
