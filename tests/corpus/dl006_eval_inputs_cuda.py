# source: https://github.com/pytorch/pytorch/issues/14068  ("cannot change the device of Tensor": `x.cuda()` on its own line, expecting the tensor to move in place)
# expect: DL006 at 19, 20
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 2)).to(device)
criterion = nn.CrossEntropyLoss()

features = torch.randn(100, 10)
targets = torch.randint(0, 2, (100,))
model.eval()
with torch.no_grad():
    for start in range(0, 100, 20):
        xb = features[start:start + 20]
        yb = targets[start:start + 20]
        if device.type == "cuda":
            # move the batch to the GPU
            xb.cuda()
            yb.cuda()
        out = model(xb)
        print(criterion(out, yb).item())
