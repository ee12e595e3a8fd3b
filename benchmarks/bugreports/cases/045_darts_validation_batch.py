# source: https://github.com/unit8co/darts/pull/449 (fixes unit8co/darts#413)
# seen: 2026-11-26
# style: library model class (darts/models/torch_forecasting_model.py), training batches moved, validation batches not
# expect: DL002 at 68
# why: the validation loop feeds input_batch from val_loader to self.model (on self.device) without moving it
# also-ok: DL013 at 52
# also-ok: DL013 at 70
import os
from typing import Optional

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from torch.utils.tensorboard import SummaryWriter


class TorchForecastingModel:
    def __init__(self, batch_size: int = 32, n_epochs: int = 100, loss_fn: nn.modules.loss._Loss = nn.MSELoss(),
                 optimizer_cls=torch.optim.Adam, optimizer_kwargs: Optional[dict] = None, nr_epochs_val_period: int = 10,
                 model_name: str = "torch_model_run", log_tensorboard: bool = False):
        self.device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
        self.batch_size = batch_size
        self.n_epochs = n_epochs
        self.criterion = loss_fn
        self.optimizer_cls = optimizer_cls
        self.optimizer_kwargs = optimizer_kwargs or {"lr": 1e-3}
        self.nr_epochs_val_period = nr_epochs_val_period
        self.model_name = model_name
        self.log_tensorboard = log_tensorboard
        self.model = None

    def _create_model(self, input_dim: int, output_dim: int) -> nn.Module:
        return nn.Sequential(nn.Linear(input_dim, 64), nn.ReLU(), nn.Linear(64, output_dim))

    def _init_model(self, input_dim: int, output_dim: int) -> None:
        self.model = self._create_model(input_dim, output_dim)
        self.model = self.model.to(self.device)
        self.optimizer = self.optimizer_cls(self.model.parameters(), **self.optimizer_kwargs)

    def _train(self, train_loader: DataLoader, val_loader: Optional[DataLoader], tb_writer: Optional[SummaryWriter]) -> None:
        for epoch in range(self.n_epochs):
            total_loss = 0
            for batch_idx, (data, target) in enumerate(train_loader):
                self.model.train()
                data, target = data.to(self.device), target.to(self.device)
                output = self.model(data)
                loss = self.criterion(output, target)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                total_loss += loss.item()

            if tb_writer is not None:
                tb_writer.add_scalar("training/loss_total", total_loss / (batch_idx + 1), epoch)

            if epoch % self.nr_epochs_val_period == 0 and val_loader is not None:
                validation_loss = self._evaluate_validation_loss(val_loader)
                if tb_writer is not None:
                    tb_writer.add_scalar("validation/loss_total", validation_loss, epoch)

    def _evaluate_validation_loss(self, val_loader: DataLoader):
        total_loss = 0
        batch_count = 0
        self.model.eval()
        with torch.no_grad():
            for batch_idx, (input_batch, output_batch) in enumerate(val_loader):
                output = self.model(input_batch)
                loss = self.criterion(output, output_batch)
                total_loss += loss.item()
                batch_count += 1
        validation_loss = total_loss / batch_count
        return validation_loss
