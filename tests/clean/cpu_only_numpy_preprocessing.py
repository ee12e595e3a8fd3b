# tempts: DL003/DL001 in a CPU-only script: .numpy() and np.asarray on tensors that never leave the CPU, models never moved
import numpy as np
import torch
import torch.nn as nn


def standardize(batch: torch.Tensor) -> torch.Tensor:
    mean = batch.mean(dim=0, keepdim=True)
    std = batch.std(dim=0, keepdim=True).clamp_min(1e-6)
    return (batch - mean) / std


raw = np.random.default_rng(0).normal(size=(1000, 5)).astype(np.float32)
x = torch.from_numpy(raw)
x = standardize(x)
stats = x.numpy()
print("column means", stats.mean(axis=0))

pca_basis = torch.linalg.svd(x, full_matrices=False).Vh[:2]
projected = x @ pca_basis.T
np.savetxt("projected.csv", np.asarray(projected), delimiter=",")

encoder = nn.Linear(5, 2)
with torch.no_grad():
    codes = encoder(x)
codes_np = np.array(codes)
print(codes_np[:3])
