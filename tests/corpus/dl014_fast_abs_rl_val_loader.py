# source: https://github.com/ChenRocks/fast_abs_rl/issues/52  (DataLoader built without pin_memory for GPU training)
# expect: DL014 at 24
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class MatchDataset(Dataset):
    def __init__(self, split, n=40):
        self.x = torch.randn(n, 30)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i]


cuda = torch.cuda.is_available()
scorer = nn.Linear(30, 1).cuda() if cuda else nn.Linear(30, 1)
val_loader = DataLoader(MatchDataset("val"), batch_size=8, shuffle=False, num_workers=0)
for art in val_loader:
    if cuda:
        art = art.cuda()
    with torch.no_grad():
        print(scorer(art).shape)
