# source: https://github.com/MultimediaTechLab/YOLO/pull/83
# seen: 2026-11-26
# style: trainer class (yolo/tools/solver.py), per-name loss totals in a defaultdict of device tensors
# expect: DL010 at 55
# why: total_loss[loss_name] += loss_val * batch_size keeps the graph of every batch (fix: loss_val.item())
# also-ok: DL005 at 12
# also-ok: DL005 at 26
# also-ok: DL005 at 32
from collections import defaultdict

import torch
from torch.cuda.amp import GradScaler, autocast

from yolo.tools.loss_functions import create_loss_function
from yolo.utils.logging_utils import ProgressLogger


class ModelTrainer:
    def __init__(self, cfg, model, vec2box, progress: ProgressLogger, device):
        train_cfg = cfg.task
        self.model = model
        self.device = device
        self.optimizer = torch.optim.SGD(model.parameters(), lr=train_cfg.optimizer.args.lr, momentum=0.937)
        self.loss_fn = create_loss_function(cfg, vec2box)
        self.progress = progress
        self.scaler = GradScaler()

    def train_one_batch(self, images, targets):
        images, targets = images.to(self.device), targets.to(self.device)
        self.optimizer.zero_grad()

        with autocast():
            predicts = self.model(images)
            aux_predicts = self.vec2box(predicts["AUX"])
            main_predicts = self.vec2box(predicts["Main"])
            loss, loss_item = self.loss_fn(aux_predicts, main_predicts, targets)

        self.scaler.scale(loss).backward()
        self.scaler.unscale_(self.optimizer)
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), max_norm=10.0)
        self.scaler.step(self.optimizer)
        self.scaler.update()

        return loss_item

    def train_one_epoch(self, dataloader):
        self.model.train()
        total_loss = defaultdict(lambda: torch.tensor(0.0, device=self.device))
        total_samples = 0

        for batch_size, images, targets, *_ in dataloader:
            loss_each = self.train_one_batch(images, targets)

            for loss_name, loss_val in loss_each.items():
                total_loss[loss_name] += loss_val * batch_size
            total_samples += batch_size
            self.progress.one_batch(loss_each)

        for loss_val in total_loss.values():
            loss_val /= total_samples

        return total_loss
