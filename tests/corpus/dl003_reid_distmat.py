# source: https://github.com/JDAI-CV/fast-reid/pull/509  (demo/visualize_result.py: distmat = distmat.numpy() raised "can't convert cuda:0 device type tensor to numpy")
# expect: DL003 at 23
import numpy as np
import torch
import torch.nn.functional as F


def extract_features(model, loader, device):
    feats, pids, camids = [], [], []
    with torch.no_grad():
        for images, pid, camid in loader:
            images = images.to(device)
            feats.append(F.normalize(model(images), dim=1))
            pids.append(pid)
            camids.append(camid)
    return torch.cat(feats), torch.cat(pids).numpy(), torch.cat(camids).numpy()


def rank_and_visualize(model, query_loader, gallery_loader, device, topk=10):
    q_feat, q_pids, q_camids = extract_features(model, query_loader, device)
    g_feat, g_pids, g_camids = extract_features(model, gallery_loader, device)
    distmat = 1 - torch.mm(q_feat, g_feat.t())
    distmat = distmat.numpy()
    indices = np.argsort(distmat, axis=1)[:, :topk]
    matches = g_pids[indices] == q_pids[:, np.newaxis]
    return indices, matches

