# source: https://github.com/pytorch/pytorch/issues/122757
# seen: 2026-11-26
# style: training script with an imbalanced-class loss; the loss is defined away from the loop
# expect: DL011 at 18, 28
# why: the class weights are a CPU tensor inside CrossEntropyLoss while the logits and labels are on CUDA
# also-ok: DL014 at 22
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

features = torch.randn(1000, 32)
labels_all = torch.randint(0, 5, (1000,))
counts = torch.bincount(labels_all, minlength=5).float()
weights = counts.sum() / (5 * counts)

loss_fn = torch.nn.CrossEntropyLoss(weight=weights)

model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 5)).to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
loader = DataLoader(TensorDataset(features, labels_all), batch_size=64, shuffle=True)

for epoch in range(5):
    for x, labels in loader:
        x, labels = x.to(device), labels.to(device)
        model_output = model(x)
        loss = loss_fn(input=model_output, target=labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(epoch, loss.item())
