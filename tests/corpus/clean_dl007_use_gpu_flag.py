# source: https://github.com/amdegroot/ssd.pytorch/issues/536  (MultiBoxLoss defaulted use_gpu=True and crashed without CUDA; the fix makes every .cuda() depend on the flag)
# expect: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class MultiBoxLoss(nn.Module):
    def __init__(self, num_classes, use_gpu=None):
        super().__init__()
        self.num_classes = num_classes
        self.use_gpu = torch.cuda.is_available() if use_gpu is None else use_gpu

    def forward(self, conf_data, targets):
        conf_t = torch.zeros(conf_data.size(0), dtype=torch.long)
        if self.use_gpu:
            conf_t = conf_t.cuda()
        conf_t[: targets.size(0)] = targets
        return F.cross_entropy(conf_data, conf_t)


criterion = MultiBoxLoss(21)
scores = torch.randn(8, 21)
if criterion.use_gpu:
    scores = scores.cuda()
print(criterion(scores, torch.randint(0, 21, (4,))).item())
