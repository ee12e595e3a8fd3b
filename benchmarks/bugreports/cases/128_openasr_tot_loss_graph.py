# source: https://github.com/by2101/OpenASR/issues/12
# seen: 2026-11-26
# style: ASR trainer module (trainer.py): a Trainer class holding the model (moved to cuda), optimizer and LR scheduler, train_one_epoch over a batch iterator with gradient accumulation, logging of the running loss every N steps, a checkpoint save
# expect: DL010 at 56
# why: `tot_loss = tot_loss + batch_loss` keeps a reference to every step's graph through the running sum, which is only used for the log line; host memory grows until the process is killed after about two hours (the maintainer: add .item(), the value is only logged)
import logging
import os
import time

import torch
import torch.nn as nn

logger = logging.getLogger(__name__)


class Trainer(object):
    def __init__(self, model, optimizer, lr_scheduler, config, use_gpu=True, grad_accum=1, log_period=100):
        self.model = model
        self.optimizer = optimizer
        self.lr_scheduler = lr_scheduler
        self.config = config
        self.use_gpu = use_gpu and torch.cuda.is_available()
        self.grad_accum = grad_accum
        self.log_period = log_period
        self.grad_max_norm = config.get("grad_max_norm", 5.0)
        self.exp_dir = config.get("exp_dir", "exp")
        self.num_epochs = config.get("num_epochs", 80)
        self.step = 0
        if self.use_gpu:
            self.model = self.model.cuda()

    def iter_one_batch(self, data):
        utts, padded_waveforms, wave_lengths, ids, labels, paddings = data
        if self.use_gpu:
            padded_waveforms = padded_waveforms.cuda()
            wave_lengths = wave_lengths.cuda()
            ids = ids.cuda()
            labels = labels.cuda()
            paddings = paddings.cuda()
        this_loss = self.model(padded_waveforms, wave_lengths, ids, labels, paddings)
        return this_loss

    def train_one_epoch(self, epoch, tr_loader):
        self.model.train()
        tot_loss = 0.
        tot_token = 0
        tot_sequence = 0
        n_accum = 0
        timer = time.time()
        for niter, data in enumerate(tr_loader):
            niter += 1
            n_sequence = len(data[0])
            n_token = int((1 - data[5]).sum())

            batch_loss = self.iter_one_batch(data)
            tot_loss = tot_loss + batch_loss
            tot_token += n_token
            tot_sequence += n_sequence

            (batch_loss / self.grad_accum).backward()
            n_accum += 1
            if n_accum == self.grad_accum:
                grad_norm = nn.utils.clip_grad_norm_(self.model.parameters(), self.grad_max_norm)
                self.optimizer.step()
                self.optimizer.zero_grad()
                self.lr_scheduler.step()
                self.step += 1
                n_accum = 0

            if niter % self.log_period == 0:
                logger.info("Epoch {} | Step {} | Iter {} | loss/token {:.4f} | lr {:.6f} | {:.2f}s".format(
                    epoch, self.step, niter, float(tot_loss) / tot_token,
                    self.optimizer.param_groups[0]["lr"], time.time() - timer))
        return float(tot_loss) / tot_token

    def save(self, path):
        torch.save({"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
                    "step": self.step}, path)

    def train(self, tr_loader, cv_loader=None):
        for epoch in range(self.num_epochs):
            tr_loss = self.train_one_epoch(epoch, tr_loader)
            logger.info("Epoch {} done, training loss/token {:.4f}".format(epoch, tr_loss))
            self.save(os.path.join(self.exp_dir, "ep-{:04d}.pt".format(epoch)))
