# source: https://github.com/syuu1987/geekTime-semantic-segmentation/issues/1
# seen: 2026-11-26
# style: U-Net block class from a blog tutorial, BatchNorm/ReLU built in forward
# expect: DL016 at 22
# expect: DL016 at 25
# why: nn.BatchNorm2d(...) built inside forward has fresh CPU weights every call and meets CUDA activations
# also-ok: DL014 at 55
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Block(nn.Module):
    def __init__(self, in_channels, features):
        super(Block, self).__init__()
        self.features = features
        self.conv1 = nn.Conv2d(in_channels=in_channels, out_channels=features, kernel_size=3, padding="same")
        self.conv2 = nn.Conv2d(in_channels=features, out_channels=features, kernel_size=3, padding="same")

    def forward(self, input):
        x = self.conv1(input)
        x = nn.BatchNorm2d(num_features=self.features)(x)
        x = nn.ReLU(inplace=True)(x)
        x = self.conv2(x)
        x = nn.BatchNorm2d(num_features=self.features)(x)
        x = nn.ReLU(inplace=True)(x)

        return x


class UNet(nn.Module):
    def __init__(self, in_channels=3, out_channels=2, init_features=32):
        super(UNet, self).__init__()
        features = init_features
        self.encoder1 = Block(in_channels, features)
        self.pool1 = nn.MaxPool2d(kernel_size=2, stride=2)
        self.bottleneck = Block(features, features * 2)
        self.upconv1 = nn.ConvTranspose2d(features * 2, features, kernel_size=2, stride=2)
        self.decoder1 = Block(features * 2, features)
        self.conv = nn.Conv2d(in_channels=features, out_channels=out_channels, kernel_size=1)

    def forward(self, x):
        enc1 = self.encoder1(x)
        bottleneck = self.bottleneck(self.pool1(enc1))
        dec1 = self.upconv1(bottleneck)
        dec1 = torch.cat((dec1, enc1), dim=1)
        dec1 = self.decoder1(dec1)
        return self.conv(dec1)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = UNet().to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()
loader = DataLoader(TensorDataset(torch.randn(16, 3, 64, 64), torch.randint(0, 2, (16, 64, 64))), batch_size=4)

for epoch in range(3):
    for images, masks in loader:
        images, masks = images.to(device), masks.to(device)
        loss = criterion(model(images), masks)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
