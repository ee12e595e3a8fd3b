# tempts: DL001 when the model comes from a factory that returns Net().to(device)
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self, vocab=1000, dim=64, classes=4):
        super().__init__()
        self.emb = nn.EmbeddingBag(vocab, dim)
        self.out = nn.Linear(dim, classes)

    def forward(self, tokens):
        return self.out(self.emb(tokens))


def build_model(device):
    return Net().to(device)


def build_optimizer(model):
    return torch.optim.Adam(model.parameters(), lr=5e-4)


def run(device):
    model = build_model(device)
    optimizer = build_optimizer(model)
    tokens = torch.randint(0, 1000, (600, 12))
    labels = torch.randint(0, 4, (600,))
    loader = DataLoader(TensorDataset(tokens, labels), batch_size=30, shuffle=True, pin_memory=True)
    for epoch in range(2):
        for tok, lab in loader:
            tok, lab = tok.to(device), lab.to(device)
            loss = F.cross_entropy(model(tok), lab)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    return model


if __name__ == "__main__":
    run(torch.device("cuda" if torch.cuda.is_available() else "cpu"))
