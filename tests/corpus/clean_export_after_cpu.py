# source: https://github.com/ztxz16/fastllm/issues/231  (fixed version: the model is moved back with model.to("cpu") before the weights are exported through .numpy())
# expect: clean
import numpy as np
import torch
import torch.nn as nn


def export_npz(model: nn.Module, path: str):
    model = model.to("cpu")
    arrays = {name: t.detach().float().numpy() for name, t in model.state_dict().items()}
    np.savez(path, **arrays)


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    net = nn.Sequential(nn.Linear(32, 32), nn.LayerNorm(32)).to(device)
    with torch.no_grad():
        net(torch.randn(2, 32, device=device))
    export_npz(net, "weights.npz")
