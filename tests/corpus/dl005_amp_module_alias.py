# source: https://github.com/mit-han-lab/efficientvit/issues/127  (FutureWarning: `torch.cuda.amp.autocast(args...)` is deprecated, reported with torch 2.4.0 for the training code)
# expect: DL005 at 17, 21
import torch
import torch.nn as nn
from torch.cuda import amp
from torch.utils.data import DataLoader


class Runner:
    def __init__(self, model: nn.Module, train_loader: DataLoader, amp_dtype=torch.float16, lr=1e-3):
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.model = model.to(self.device)
        self.loader = train_loader
        self.amp_dtype = amp_dtype
        self.enable_amp = self.device.type == "cuda"
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=lr, weight_decay=0.05)
        self.scaler = amp.GradScaler(enabled=self.enable_amp)
        self.criterion = nn.CrossEntropyLoss(label_smoothing=0.1)

    def run_step(self, images, labels):
        with amp.autocast(enabled=self.enable_amp, dtype=self.amp_dtype):
            output = self.model(images)
            loss = self.criterion(output, labels)
        self.scaler.scale(loss).backward()
        self.scaler.step(self.optimizer)
        self.scaler.update()
        self.optimizer.zero_grad()
        return loss.detach()

    def train_one_epoch(self):
        self.model.train()
        losses = []
        for images, labels in self.loader:
            images = images.to(self.device, non_blocking=True)
            labels = labels.to(self.device, non_blocking=True)
            losses.append(self.run_step(images, labels))
        return torch.stack(losses).mean()
