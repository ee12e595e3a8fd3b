# source: https://github.com/dmlc/dgl/issues/5302  (record the total loss with total_loss += loss.detach(); read it once per epoch)
# expect: clean
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(16, 4).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
dataloader = DataLoader(TensorDataset(torch.randn(96, 16), torch.randint(0, 4, (96,))), batch_size=8, pin_memory=True)

for epoch in range(2):
    total_loss = torch.zeros((), device=device)
    for step, (x, y) in enumerate(dataloader):
        y_pred = model(x.to(device))
        loss = nn.functional.cross_entropy(y_pred, y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
        total_loss += loss.detach()
        if step % 50 == 0:
            print(f"step {step}: {loss.item():.4f}")
    print(f"epoch {epoch}: {total_loss.item() / len(dataloader):.4f}")
