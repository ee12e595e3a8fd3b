# source: https://github.com/huggingface/accelerate/pull/1627  (the fix for the default-device generator error: create the sampler's torch.Generator on the default device)
# expect: clean
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, RandomSampler, TensorDataset, random_split

device = "cuda" if torch.cuda.is_available() else "cpu"
torch.set_default_device(device)

features = torch.randn(1000, 16)
labels = (features.sum(dim=1) > 0).float()
dataset = TensorDataset(features, labels)
gen = torch.Generator(device=device).manual_seed(0)
train_set, val_set = random_split(dataset, [800, 200], generator=gen)
train_loader = DataLoader(train_set, batch_size=32, sampler=RandomSampler(train_set, generator=gen))
val_loader = DataLoader(val_set, batch_size=64, shuffle=False)

model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 1))
optimizer = torch.optim.Adam(model.parameters())
for epoch in range(3):
    for x, y in train_loader:
        loss = nn.functional.binary_cross_entropy_with_logits(model(x).squeeze(1), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    with torch.no_grad():
        correct = sum(((model(x).squeeze(1) > 0).float() == y).sum().item() for x, y in val_loader)
    print(epoch, correct / len(val_set))
