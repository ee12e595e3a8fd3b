# source: https://github.com/yyvhang/IAGNet/issues/4  (the maintainer's answer: put `model = model.to(device)` before loading; here a plain SGD without momentum, whose state holds no tensors, is also restored before the move)
# expect: clean
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def build(resume_path=None):
    model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    if resume_path is not None:
        ckpt = torch.load(resume_path, map_location="cpu")
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])  # SGD without momentum: an empty state
    return model.to(device), optimizer


def build_adam(resume_path=None):
    model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 1))
    model = model.to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    if resume_path is not None:
        ckpt = torch.load(resume_path, map_location=device)
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
    return model, optimizer


model, optimizer = build("last.pt")
adam_model, adam_optimizer = build_adam("last_adam.pt")
x, y = torch.randn(128, 20, device=device), torch.randn(128, 1, device=device)
for step in range(20):
    for m, opt in ((model, optimizer), (adam_model, adam_optimizer)):
        loss = nn.functional.mse_loss(m(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
