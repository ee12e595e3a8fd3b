# source: https://github.com/JDAI-CV/fast-reid/pull/509  (fixed version: the distance matrix is copied to the host with .cpu() before .numpy())
# expect: clean
import numpy as np
import torch
import torch.nn.functional as F


def rank(query_feats: torch.Tensor, gallery_feats: torch.Tensor, topk=5):
    q = F.normalize(query_feats, dim=1)
    g = F.normalize(gallery_feats, dim=1)
    distmat = 1 - q @ g.t()
    distmat = distmat.cpu().numpy()
    return np.argsort(distmat, axis=1)[:, :topk]


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    print(rank(torch.randn(10, 256, device=device), torch.randn(100, 256, device=device)))
