# source: https://github.com/eth-easl/modyn/pull/525
# seen: 2026-11-26
# style: data-selection trainer: a downsampler class that keeps a running tensor of per-sample scores on self (initialised in __init__ / init_downsampler), fed with the model's CUDA outputs by a Trainer class, argparse entry point
# expect: DL011 at 21, 35
# why: self.rho_loss starts as torch.tensor([]) on the CPU; the first torch.cat([self.rho_loss, training_loss - irreducible_loss]) mixes it with the CUDA losses of the batch
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class RHOLossDownsampler:
    """Keeps the samples with the highest reducible loss (training loss minus irreducible loss)."""

    def __init__(self, irreducible_losses, downsampling_ratio, per_sample_loss):
        self.irreducible_losses = irreducible_losses
        self.downsampling_ratio = downsampling_ratio
        self.per_sample_loss_fct = per_sample_loss
        self.index_sampleid_map = []
        self.rho_loss = torch.tensor([])
        self.number_of_points_seen = 0

    def init_downsampler(self):
        self.index_sampleid_map = []
        self.rho_loss = torch.tensor([])
        self.number_of_points_seen = 0

    def _get_irreducible_loss(self, sample_ids):
        return torch.tensor([self.irreducible_losses[int(s)] for s in sample_ids], dtype=torch.float32)

    def inform_samples(self, sample_ids, forward_output, target):
        training_loss = self.per_sample_loss_fct(forward_output, target).detach()
        irreducible_loss = self._get_irreducible_loss(sample_ids).to(training_loss.device)
        self.rho_loss = torch.cat([self.rho_loss, training_loss - irreducible_loss]).to(training_loss.dtype)
        self.index_sampleid_map += sample_ids.tolist()
        self.number_of_points_seen += forward_output.shape[0]

    def select_points(self):
        target_size = max(int(self.downsampling_ratio * self.number_of_points_seen / 100), 1)
        _, top_k_indices = torch.topk(self.rho_loss, target_size)
        selected = [self.index_sampleid_map[i] for i in top_k_indices.tolist()]
        weights = torch.ones(target_size)
        return selected, weights


class IndexedDataset(Dataset):
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __getitem__(self, idx):
        return idx, self.x[idx], self.y[idx]

    def __len__(self):
        return len(self.y)


class Trainer:
    def __init__(self, model, downsampler, loader, device, lr=0.01):
        self.model = model.to(device)
        self.downsampler = downsampler
        self.loader = loader
        self.device = device
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=lr, momentum=0.9)
        self.criterion = nn.CrossEntropyLoss()

    def score_epoch(self):
        self.model.eval()
        self.downsampler.init_downsampler()
        with torch.no_grad():
            for sample_ids, data, target in self.loader:
                data, target = data.to(self.device), target.to(self.device)
                output = self.model(data)
                self.downsampler.inform_samples(sample_ids, output, target)
        return self.downsampler.select_points()

    def train_on(self, dataset, selected):
        self.model.train()
        subset = torch.utils.data.Subset(dataset, selected)
        for _, data, target in DataLoader(subset, batch_size=64, shuffle=True):
            data, target = data.to(self.device), target.to(self.device)
            self.optimizer.zero_grad()
            loss = self.criterion(self.model(data), target)
            loss.backward()
            self.optimizer.step()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ratio", type=int, default=50)
    parser.add_argument("--epochs", type=int, default=5)
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    x = torch.randn(10000, 32)
    y = torch.randint(0, 10, (10000,))
    dataset = IndexedDataset(x, y)
    loader = DataLoader(dataset, batch_size=256)
    irreducible = {i: float(v) for i, v in enumerate(torch.rand(10000))}
    downsampler = RHOLossDownsampler(irreducible, args.ratio, nn.CrossEntropyLoss(reduction="none"))
    model = nn.Sequential(nn.Linear(32, 128), nn.ReLU(), nn.Linear(128, 10))
    trainer = Trainer(model, downsampler, loader, device)
    for epoch in range(args.epochs):
        selected, _ = trainer.score_epoch()
        trainer.train_on(dataset, selected)
        print(f"epoch {epoch}: trained on {len(selected)} samples")


if __name__ == "__main__":
    main()
