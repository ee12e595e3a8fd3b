# source: https://github.com/pytorch/pytorch/issues/28111  (a CPU-only user; code that never touches a GPU can load its own CPU-saved statistics plainly)
# expect: clean
import torch

stats = torch.load("dataset_stats.pt")
mean, std = stats["mean"], stats["std"]
samples = torch.randn(16, 3)
normalized = (samples - mean) / std
print(normalized.mean(dim=0))
