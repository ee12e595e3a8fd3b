# source: https://github.com/facebookresearch/mmf/pull/456  (a to_device helper moves nested batches to the model's device before forward)
# expect: clean
import torch
import torch.nn as nn
from torch.utils.data import DataLoader


def to_device(batch, device):
    if isinstance(batch, torch.Tensor):
        return batch.to(device, non_blocking=True)
    if isinstance(batch, dict):
        return {k: to_device(v, device) for k, v in batch.items()}
    if isinstance(batch, (list, tuple)):
        return type(batch)(to_device(v, device) for v in batch)
    return batch


class VQAHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.img = nn.Linear(512, 256)
        self.txt = nn.Embedding(1000, 256)
        self.cls = nn.Linear(256, 10)

    def forward(self, sample):
        fused = self.img(sample["image_feat"]) * self.txt(sample["question"]).mean(1)
        return self.cls(fused)


def train(model, loader, device):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    for sample in loader:
        sample = to_device(sample, device)
        loss = nn.functional.cross_entropy(model(sample), sample["answer"])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    rows = [{"image_feat": torch.randn(512), "question": torch.randint(0, 1000, (12,)),
             "answer": torch.randint(0, 10, ())} for _ in range(64)]
    train(VQAHead().to(device), DataLoader(rows, batch_size=8, pin_memory=True), device)
