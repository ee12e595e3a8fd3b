# source: https://github.com/google/brax/pull/152  (the FAQ fix: accumulate float(loss) / loss.item(), not the tensor)
# expect: clean
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(10, 1).to(device)
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
loader = DataLoader(TensorDataset(torch.randn(64, 10), torch.randn(64, 1)), batch_size=16, pin_memory=True)

total_loss = 0
for x, y in loader:
    optimizer.zero_grad()
    output = model(x.to(device))
    loss = criterion(output, y.to(device))
    loss.backward()
    optimizer.step()
    total_loss += float(loss)

model.eval()
val_loss = 0.0
with torch.no_grad():
    for x, y in loader:
        val_loss += criterion(model(x.to(device)), y.to(device))
print(total_loss / len(loader), val_loss.item() / len(loader))
