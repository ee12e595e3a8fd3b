# source: https://github.com/samet-akcay/ganomaly/issues/26  (test(): roc_curve(labels, scores) was given CUDA tensors; sklearn's np.asarray failed with "can't convert CUDA tensor to numpy")
# expect: DL003 at 45
import torch
import torch.nn as nn
from sklearn.metrics import auc, roc_curve
from torch.utils.data import DataLoader


class Encoder(nn.Module):
    def __init__(self, nz=100):
        super().__init__()
        self.main = nn.Sequential(nn.Conv2d(1, 32, 4, 2, 1), nn.LeakyReLU(0.2), nn.Conv2d(32, 64, 4, 2, 1),
                                  nn.LeakyReLU(0.2), nn.Flatten(), nn.Linear(64 * 8 * 8, nz))

    def forward(self, x):
        return self.main(x)


class Decoder(nn.Module):
    def __init__(self, nz=100):
        super().__init__()
        self.fc = nn.Linear(nz, 64 * 8 * 8)
        self.main = nn.Sequential(nn.ConvTranspose2d(64, 32, 4, 2, 1), nn.ReLU(), nn.ConvTranspose2d(32, 1, 4, 2, 1), nn.Tanh())

    def forward(self, z):
        return self.main(self.fc(z).view(-1, 64, 8, 8))


def test(netg_enc, netg_dec, net_enc2, loader: DataLoader, device):
    n = len(loader.dataset)
    an_scores = torch.zeros(n, dtype=torch.float32, device=device)
    gt_labels = torch.zeros(n, dtype=torch.long, device=device)
    offset = 0
    with torch.no_grad():
        for images, labels in loader:
            images = images.to(device)
            labels = labels.to(device)
            latent_i = netg_enc(images)
            latent_o = net_enc2(netg_dec(latent_i))
            error = torch.mean((latent_i - latent_o) ** 2, dim=1)
            an_scores[offset: offset + error.size(0)] = error
            gt_labels[offset: offset + error.size(0)] = labels
            offset += error.size(0)
    an_scores = (an_scores - an_scores.min()) / (an_scores.max() - an_scores.min())
    y_score = an_scores.numpy()
    y_true = gt_labels.cpu().numpy()
    fpr, tpr, _ = roc_curve(y_true, y_score)
    return auc(fpr, tpr)


if __name__ == "__main__":
    from torch.utils.data import TensorDataset

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    enc, dec, enc2 = Encoder().to(device), Decoder().to(device), Encoder().to(device)
    data = TensorDataset(torch.rand(256, 1, 32, 32), torch.randint(0, 2, (256,)))
    print("AUC", test(enc, dec, enc2, DataLoader(data, batch_size=64, pin_memory=True), device))
