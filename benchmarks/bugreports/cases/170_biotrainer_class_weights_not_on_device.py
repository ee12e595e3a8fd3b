# source: https://github.com/sacdallago/biotrainer/issues/67
# seen: 2026-11-27
# style: library trainer module (biotrainer's trainer/solver split folded into one file): a config dict read from YAML, residue-embedding dataset and loader, a light-attention CNN moved to the configured device, class weights computed from the training labels when use_class_weights is set and handed to CrossEntropyLoss, a Solver class with train / validate epochs that move every batch
# expect: DL011 at 56, 102, 80
# also-ok: DL014 at 77
# also-ok: DL013 at 85
# why: with use_class_weights: True the weights tensor is built with torch.tensor(...) on the CPU and given to nn.CrossEntropyLoss(weight=...); the logits and targets are on cuda, so the loss fails -> "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!" (the issue: "Class weights need to be sent to the device when use_class_weights=True")
import argparse
import logging

import h5py
import numpy as np
import torch
import torch.nn as nn
import yaml
from torch.utils.data import DataLoader, Dataset

logger = logging.getLogger(__name__)


class ResidueEmbeddingsDataset(Dataset):
    def __init__(self, embeddings_file, labels):
        self.embeddings = h5py.File(embeddings_file, "r")
        self.ids = sorted(labels)
        self.labels = labels

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, idx):
        seq_id = self.ids[idx]
        x = torch.tensor(np.array(self.embeddings[seq_id]), dtype=torch.float32)
        y = torch.tensor(self.labels[seq_id], dtype=torch.long)
        return x, y


class CNN(nn.Module):
    def __init__(self, n_features, n_classes, hidden=32, dropout=0.25):
        super().__init__()
        self.conv1 = nn.Conv1d(n_features, hidden, kernel_size=7, padding=3)
        self.dropout = nn.Dropout(dropout)
        self.conv2 = nn.Conv1d(hidden, n_classes, kernel_size=7, padding=3)

    def forward(self, x):
        x = x.permute(0, 2, 1)
        return self.conv2(self.dropout(torch.relu(self.conv1(x))))


def compute_class_weights(labels, n_classes):
    counts = np.zeros(n_classes)
    for residue_labels in labels.values():
        for label in residue_labels:
            counts[label] += 1
    weights = counts.sum() / (n_classes * np.maximum(counts, 1))
    logger.info("Individual class counts and weights: %s", list(zip(counts.tolist(), weights.tolist())))
    return torch.tensor(weights, dtype=torch.float32)


class Solver:
    def __init__(self, network, optimizer, loss_function, device, num_epochs):
        self.network = network
        self.optimizer = optimizer
        self.loss_function = loss_function
        self.device = device
        self.num_epochs = num_epochs

    def train(self, train_loader, val_loader):
        for epoch in range(self.num_epochs):
            train_loss = self._epoch(train_loader, training=True)
            val_loss = self._epoch(val_loader, training=False)
            logger.info("epoch %d: train %.4f val %.4f", epoch, train_loss, val_loss)

    def _epoch(self, loader, training):
        self.network.train(training)
        total = 0.0
        for X, y in loader:
            X, y = X.to(self.device), y.to(self.device)
            with torch.set_grad_enabled(training):
                prediction = self.network(X)
                loss = self.loss_function(prediction, y)
            if training:
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
            total += loss.item()
        return total / max(len(loader), 1)


def run(config):
    device = torch.device(config.get("device", "cuda" if torch.cuda.is_available() else "cpu"))
    with open(config["labels_file"]) as f:
        labels = yaml.safe_load(f)
    n_classes = config["n_classes"]
    dataset = ResidueEmbeddingsDataset(config["embeddings_file"], labels)
    train_loader = DataLoader(dataset, batch_size=config["batch_size"], shuffle=True)
    val_loader = DataLoader(dataset, batch_size=config["batch_size"], shuffle=False)

    network = CNN(config["n_features"], n_classes).to(device)
    optimizer = torch.optim.Adam(network.parameters(), lr=config["learning_rate"])
    if config.get("use_class_weights", False):
        class_weights = compute_class_weights(labels, n_classes)
        loss_function = nn.CrossEntropyLoss(weight=class_weights)
    else:
        loss_function = nn.CrossEntropyLoss()

    solver = Solver(network, optimizer, loss_function, device, config["num_epochs"])
    solver.train(train_loader, val_loader)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Train a residue classifier on precomputed embeddings")
    parser.add_argument("config_file")
    args = parser.parse_args()
    with open(args.config_file) as f:
        run(yaml.safe_load(f))
