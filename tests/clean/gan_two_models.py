# tempts: DL001/DL004/DL008 in a GAN loop: two models both moved, noise and labels created with device=, fake.detach() reused
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
z_dim = 16

G = nn.Sequential(nn.Linear(z_dim, 64), nn.ReLU(), nn.Linear(64, 2)).to(device)
D = nn.Sequential(nn.Linear(2, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1)).to(device)
opt_g = torch.optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.999))
opt_d = torch.optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.999))
bce = nn.BCEWithLogitsLoss()

ring = torch.randn(5000, 2)
ring = ring / ring.norm(dim=1, keepdim=True)
loader = DataLoader(TensorDataset(ring), batch_size=128, shuffle=True, pin_memory=True)

for epoch in range(5):
    for (real,) in loader:
        real = real.to(device)
        b = real.size(0)
        ones = torch.ones(b, 1, device=device)
        zeros = torch.zeros(b, 1, device=device)

        noise = torch.randn(b, z_dim, device=device)
        fake = G(noise)
        d_loss = bce(D(real), ones) + bce(D(fake.detach()), zeros)
        opt_d.zero_grad()
        d_loss.backward()
        opt_d.step()

        g_loss = bce(D(fake), ones)
        opt_g.zero_grad()
        g_loss.backward()
        opt_g.step()
    print(f"epoch {epoch} d={d_loss.item():.3f} g={g_loss.item():.3f}")
