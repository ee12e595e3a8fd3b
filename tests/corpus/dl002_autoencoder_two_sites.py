# source: https://github.com/RonyAbecidan/ManTraNet-pytorch/issues/2  (with device='cuda' the images fed to the network were still CPU tensors -> "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!")
# expect: DL002 at 31, 32
import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from torchvision import datasets, transforms


class ConvAutoencoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(1, 16, 3, 2, 1), nn.ReLU(), nn.Conv2d(16, 32, 3, 2, 1), nn.ReLU())
        self.dec = nn.Sequential(nn.ConvTranspose2d(32, 16, 4, 2, 1), nn.ReLU(),
                                 nn.ConvTranspose2d(16, 1, 4, 2, 1), nn.Sigmoid())

    def forward(self, x):
        return self.dec(self.enc(x))


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    mnist = datasets.MNIST("data", train=True, download=True, transform=transforms.ToTensor())
    loader = DataLoader(mnist, batch_size=128, shuffle=True, num_workers=2, pin_memory=True)
    autoencoder = ConvAutoencoder().to(device)
    optimizer = torch.optim.Adam(autoencoder.parameters(), lr=1e-3)
    mse = nn.MSELoss()

    for epoch in range(5):
        epoch_loss = torch.zeros((), device=device)
        for images, _ in loader:
            recon = autoencoder(images)
            loss = mse(recon, images)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            epoch_loss += loss.detach()
        print(f"epoch {epoch}: {(epoch_loss / len(loader)).item():.4f}")


if __name__ == "__main__":
    main()
