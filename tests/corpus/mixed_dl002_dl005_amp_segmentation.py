# source: https://github.com/k2-fsa/icefall/pull/1821  (recipe still used torch.cuda.amp.autocast/GradScaler, deprecated since torch 2.4)
# expect: DL002 at 49
# expect: DL005 at 38
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.cuda.amp import GradScaler, autocast
from torch.utils.data import DataLoader, Dataset


class SegDataset(Dataset):
    def __init__(self, n=400, size=64, classes=4):
        self.images = torch.rand(n, 3, size, size)
        self.masks = torch.randint(0, classes, (n, size, size))

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        return {"image": self.images[i], "mask": self.masks[i]}


class FCN(nn.Module):
    def __init__(self, classes=4):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.ReLU())
        self.cls = nn.Conv2d(64, classes, 1)

    def forward(self, x):
        return F.interpolate(self.cls(self.enc(x)), size=x.shape[-2:], mode="bilinear", align_corners=False)


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    use_amp = device.type == "cuda"
    model = FCN().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = GradScaler(enabled=use_amp)
    loader = DataLoader(SegDataset(), batch_size=16, shuffle=True, num_workers=2, pin_memory=True)

    for epoch in range(3):
        model.train()
        for batch in loader:
            image = batch["image"].to(device, non_blocking=True)
            mask = batch["mask"]
            optimizer.zero_grad(set_to_none=True)
            with torch.autocast(device_type=device.type, enabled=use_amp):
                logits = model(image)
                loss = F.cross_entropy(logits, mask)
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()


if __name__ == "__main__":
    main()
