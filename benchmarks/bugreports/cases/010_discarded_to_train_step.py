# source: https://github.com/pytorch/pytorch/issues/43313
# seen: 2026-11-26
# style: helper function train_step(encoder, decoder, loader, ...) called from a script (Colab)
# expect: DL006 at 44
# expect: DL006 at 45
# why: Tensor.to() is not in place; the batch stays on the CPU and meets the encoder on CUDA
# also-ok: DL007 at 37
# also-ok: DL002 at 49
# also-ok: DL014 at 72
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class ConvEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, (3, 3), padding=(1, 1))
        self.relu1 = nn.ReLU(inplace=True)
        self.maxpool1 = nn.MaxPool2d((2, 2))

    def forward(self, x):
        return self.maxpool1(self.relu1(self.conv1(x)))


class ConvDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.deconv1 = nn.ConvTranspose2d(16, 3, (2, 2), stride=(2, 2))
        self.relu1 = nn.ReLU(inplace=True)

    def forward(self, x):
        return self.relu1(self.deconv1(x))


def train_step(encoder, decoder, train_loader, loss_fn, optimizer, device):
    device = "cuda"
    encoder.train()
    decoder.train()

    print(device)

    for batch_idx, (train_img, target_img) in enumerate(train_loader):
        train_img.to(device)
        target_img.to(device)

        optimizer.zero_grad()

        enc_output = encoder(train_img)
        dec_output = decoder(enc_output)

        loss = loss_fn(dec_output, target_img)
        loss.backward()

        optimizer.step()

    return loss.item()


if torch.cuda.is_available():
    device = "cuda"
else:
    device = "cpu"

encoder = ConvEncoder()
decoder = ConvDecoder()
encoder.to(device)
decoder.to(device)

images = torch.randn(128, 3, 64, 64)
dataset = TensorDataset(images, images)
train_loader = DataLoader(dataset, batch_size=32, shuffle=True)
loss_fn = nn.MSELoss()
autoencoder_params = list(encoder.parameters()) + list(decoder.parameters())
optimizer = torch.optim.Adam(autoencoder_params, lr=1e-3)

for epoch in range(10):
    train_loss = train_step(encoder, decoder, train_loader, loss_fn, optimizer, device=device)
    print(f"Epochs = {epoch}, Training Loss : {train_loss}")
