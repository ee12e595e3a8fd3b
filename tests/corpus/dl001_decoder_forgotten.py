# source: https://github.com/ML4ITS/mtad-gat-pytorch/issues/23  ("Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor)": the data was on the GPU but part of the model was not)
# expect: DL001 at 47
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Encoder(nn.Module):
    def __init__(self, n_features, latent):
        super().__init__()
        self.conv = nn.Conv1d(n_features, 32, kernel_size=7, padding=3)
        self.gru = nn.GRU(32, latent, batch_first=True)

    def forward(self, x):
        h = torch.relu(self.conv(x.transpose(1, 2))).transpose(1, 2)
        _, last = self.gru(h)
        return last[-1]


class Reconstructor(nn.Module):
    def __init__(self, latent, n_features, window):
        super().__init__()
        self.window = window
        self.gru = nn.GRU(latent, 64, batch_first=True)
        self.out = nn.Linear(64, n_features)

    def forward(self, z):
        h, _ = self.gru(z.unsqueeze(1).repeat(1, self.window, 1))
        return self.out(h)


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    window, n_features, latent = 50, 12, 32
    series = torch.randn(800, window, n_features)
    loader = DataLoader(TensorDataset(series), batch_size=64, shuffle=True, pin_memory=True)

    encoder = Encoder(n_features, latent).to(device)
    recon_model = Reconstructor(latent, n_features, window)
    params = list(encoder.parameters()) + list(recon_model.parameters())
    optimizer = torch.optim.Adam(params, lr=1e-3)

    for epoch in range(10):
        for (x,) in loader:
            x = x.to(device)
            z = encoder(x)
            x_hat = recon_model(z)
            loss = nn.functional.mse_loss(x_hat, x)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main()
