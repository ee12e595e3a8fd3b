# source: https://github.com/intel/intel-extension-for-pytorch/pull/267  (README sample fixed: `Tensor.to()` returns a copy; modules move in place, tensors must be reassigned)
# expect: clean
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(16, 4)

    def forward(self, x):
        return self.proj(x)


model = Head()
model.to(device)  # in place for modules
model.eval()
data = torch.randn(32, 16)
data = data.to(device)
with torch.no_grad():
    scores = model(data).softmax(dim=-1)
print(scores.argmax(dim=-1).cpu().tolist())
