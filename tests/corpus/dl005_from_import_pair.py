# source: https://github.com/thuml/Time-Series-Library/issues/740  (`torch.cuda.amp.autocast(args...)` and `torch.cuda.amp.GradScaler(args...)` are deprecated; the forecasting experiments still used both)
# expect: DL005 at 33, 41
import argparse

import torch
import torch.nn as nn
from torch.cuda.amp import GradScaler, autocast
from torch.utils.data import DataLoader, TensorDataset


class DLinear(nn.Module):
    def __init__(self, seq_len, pred_len, channels):
        super().__init__()
        self.trend = nn.Linear(seq_len, pred_len)
        self.seasonal = nn.Linear(seq_len, pred_len)
        self.avg = nn.AvgPool1d(kernel_size=25, stride=1, padding=12, count_include_pad=False)

    def forward(self, x):
        trend = self.avg(x.transpose(1, 2))
        seasonal = x.transpose(1, 2) - trend
        return (self.trend(trend) + self.seasonal(seasonal)).transpose(1, 2)


def train(args):
    device = torch.device("cuda" if torch.cuda.is_available() and args.use_gpu else "cpu")
    series = torch.randn(2000, args.seq_len + args.pred_len, 7)
    loader = DataLoader(TensorDataset(series[:, :args.seq_len], series[:, args.seq_len:]),
                        batch_size=32, shuffle=True, pin_memory=True)
    model = DLinear(args.seq_len, args.pred_len, 7).to(device)
    optim = torch.optim.Adam(model.parameters(), lr=args.learning_rate)
    criterion = nn.MSELoss()
    if args.use_amp:
        scaler = GradScaler()
    for epoch in range(args.train_epochs):
        model.train()
        for batch_x, batch_y in loader:
            batch_x = batch_x.float().to(device)
            batch_y = batch_y.float().to(device)
            optim.zero_grad()
            if args.use_amp:
                with autocast():
                    loss = criterion(model(batch_x), batch_y)
                scaler.scale(loss).backward()
                scaler.step(optim)
                scaler.update()
            else:
                loss = criterion(model(batch_x), batch_y)
                loss.backward()
                optim.step()


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--seq_len", type=int, default=96)
    p.add_argument("--pred_len", type=int, default=24)
    p.add_argument("--learning_rate", type=float, default=1e-3)
    p.add_argument("--train_epochs", type=int, default=3)
    p.add_argument("--use_amp", action="store_true")
    p.add_argument("--use_gpu", type=bool, default=True)
    train(p.parse_args())
