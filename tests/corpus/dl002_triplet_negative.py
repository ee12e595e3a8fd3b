# source: https://github.com/hangyu94/Ada-CM/issues/7  (a tensor coming out of the data pipeline was left on the CPU while the network ran on CUDA: "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu")
# expect: DL002 at 51
import random

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


class TripletFaces(Dataset):
    def __init__(self, n=1200, identities=40):
        self.faces = torch.rand(n, 3, 64, 64)
        self.ids = [random.randrange(identities) for _ in range(n)]
        self.by_id = {}
        for idx, pid in enumerate(self.ids):
            self.by_id.setdefault(pid, []).append(idx)

    def __len__(self):
        return len(self.faces)

    def __getitem__(self, i):
        j = random.choice(self.by_id[self.ids[i]])
        k = random.choice([idx for idx, pid in enumerate(self.ids) if pid != self.ids[i]])
        return self.faces[i], self.faces[j], self.faces[k]


class Embedder(nn.Module):
    def __init__(self, dim=128):
        super().__init__()
        self.cnn = nn.Sequential(nn.Conv2d(3, 32, 3, 2, 1), nn.ReLU(), nn.Conv2d(32, 64, 3, 2, 1), nn.ReLU(),
                                 nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.fc = nn.Linear(64, dim)

    def forward(self, x):
        return F.normalize(self.fc(self.cnn(x)), dim=1)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
net = Embedder().to(device)
criterion = nn.TripletMarginLoss(margin=0.2)
optimizer = torch.optim.Adam(net.parameters(), lr=3e-4)
loader = DataLoader(TripletFaces(), batch_size=32, shuffle=True, num_workers=2, pin_memory=True)

for epoch in range(5):
    for anchor, positive, negative in loader:
        anchor = anchor.to(device)
        positive = positive.to(device)
        emb_a = net(anchor)
        emb_p = net(positive)
        emb_n = net(negative)
        loss = criterion(emb_a, emb_p, emb_n)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
