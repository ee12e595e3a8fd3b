# source: https://github.com/hangyu94/Ada-CM/issues/10  (semi-supervised train loop: a label/mask tensor from the loader stayed on the CPU and met CUDA logits -> "Expected all tensors to be on the same device, cuda:0 and cpu")
# expect: DL002 at 25
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader


class Trainer:
    def __init__(self, model: nn.Module, labeled_loader: DataLoader, args):
        self.args = args
        self.device = torch.device(args.device)
        self.model = model.to(self.device)
        self.loader = labeled_loader
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=args.lr, momentum=0.9, nesterov=True)

    def train_epoch(self):
        self.model.train()
        losses = []
        for batch_idx, (inputs_x, targets_x, mask_ori) in enumerate(self.loader):
            inputs_x = inputs_x.to(self.device)
            targets_x = targets_x.to(self.device)
            logits_x = self.model(inputs_x)
            per_sample = F.cross_entropy(logits_x, targets_x, reduction="none")
            loss = (per_sample * mask_ori).mean()
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            losses.append(loss.detach())
        return torch.stack(losses).mean()
