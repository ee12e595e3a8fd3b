# devicelint-fixture
# expect: DL002 at 12
# runtime: raises RuntimeError: Expected all tensors to be on the same device
#   | Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the same
import torch
from torch import nn

device = "cuda" if torch.cuda.is_available() else "cpu"
model = nn.Linear(4, 2).to(device)
data = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(6, 4), torch.randn(6, 2)), batch_size=3, pin_memory=True)
for x, y in data:
    loss = nn.functional.mse_loss(model(x), y.to(device))
    loss.backward()
