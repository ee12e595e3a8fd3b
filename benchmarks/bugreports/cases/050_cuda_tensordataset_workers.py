# source: https://github.com/pytorch/pytorch/issues/4377
# seen: 2026-11-26
# style: short script, features built as CUDA tensors up front, wrapped in TensorDataset and iterated with worker processes
# expect: DL017 at 12, 13
# why: the dataset's tensors are already on the GPU; indexing them in forked DataLoader workers (num_workers=2) raises "Cuda error (3): initialization error"
# also-ok: DL007 at 10, 11
import torch
from torch.utils.data import DataLoader, TensorDataset

features = torch.cuda.LongTensor(range(12)).view(3, 4)
labels = torch.cuda.LongTensor(range(3))
dataset = TensorDataset(features, labels)
dataloader = DataLoader(dataset, num_workers=2)
for feat, lab in dataloader:
    print(feat)
    print(lab)
