# source: https://github.com/esa/torchquad/issues/157
# seen: 2026-11-27
# style: the reporter's project test turned script (test/data_loader_conflict.py of a Levy score-matching package): torchquad's set_up_backend("torch", data_type="float32") at the top for the package's numerical integrals, an MNIST loader with shuffle=True, a small score network and a loop that integrates a density with torchquad's Simpson rule per batch
# expect: DL019 at 35
# why: on a CUDA machine set_up_backend("torch") makes CUDA the default tensor type (torch.set_default_tensor_type(torch.cuda.FloatTensor)); the shuffling DataLoader then draws its permutation from a CPU generator while randperm builds on the default cuda device -> "RuntimeError: Expected a 'cuda' device type for generator but found 'cpu'" at the first next(); answers: pass generator=torch.Generator(device="cuda") or set the backend after building the loader
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from torchquad import Simpson, set_up_backend
from torchvision import datasets, transforms

set_up_backend("torch", data_type="float32")


class ScoreNet(nn.Module):
    def __init__(self, dim=784, hidden=512):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim + 1, hidden), nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU(),
                                 nn.Linear(hidden, dim))

    def forward(self, x, t):
        return self.net(torch.cat([x, t[:, None]], dim=1))


def levy_normaliser(alpha):
    simpson = Simpson()
    return simpson.integrate(lambda x: torch.exp(-torch.abs(x) ** alpha), dim=1, N=1001,
                             integration_domain=[[-20.0, 20.0]])


def test_data_loader_conflict(args):
    train_data = datasets.MNIST(root="./data", train=True, download=True, transform=transforms.ToTensor())
    train_loader = DataLoader(train_data, batch_size=args.batch_size, shuffle=True)

    model = ScoreNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    z = levy_normaliser(args.alpha)
    for x, _ in train_loader:
        x = x.flatten(1)
        t = torch.rand(x.shape[0])
        noise = torch.randn_like(x)
        x_t = x + t[:, None] * noise
        loss = ((model(x_t, t) + noise / z) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(loss.item())
        break


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--alpha", type=float, default=1.8)
    parser.add_argument("--lr", type=float, default=1e-4)
    test_data_loader_conflict(parser.parse_args())
