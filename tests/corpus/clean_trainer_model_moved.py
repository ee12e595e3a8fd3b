# source: https://github.com/PacktPublishing/Mastering-PyTorch/pull/9  (fixed version: the model is moved to the current device where it is built, the batches inside train_epoch)
# expect: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class Trainer:
    def __init__(self, model: nn.Module, train_loader, device=None):
        self.device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        self.model = model
        self.model.to(self.device)
        self.optimizer = torch.optim.Adadelta(self.model.parameters(), lr=1.0)
        self.loader = train_loader

    def train_epoch(self):
        self.model.train()
        losses = []
        for data, target in self.loader:
            data, target = data.to(self.device), target.to(self.device)
            self.optimizer.zero_grad()
            loss = F.nll_loss(F.log_softmax(self.model(data), dim=1), target)
            loss.backward()
            self.optimizer.step()
            losses.append(loss.detach())
        return torch.stack(losses).mean()
