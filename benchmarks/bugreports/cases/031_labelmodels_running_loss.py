# source: https://github.com/BatsResearch/labelmodels/issues/4
# seen: 2026-11-26
# style: library base class (labelmodels/label_model.py), training loop in a method
# expect: DL010 at 54
# why: running_loss += loss keeps every batch's autograd graph alive; GPU memory grows until OOM
import logging

import numpy as np
import torch
import torch.nn as nn


class LabelModel(nn.Module):
    """Parent class for all generative label models."""

    def forward(self, *args):
        raise NotImplementedError

    def estimate_label_model(self, *args, config=None):
        raise NotImplementedError

    def get_label_distribution(self, *args):
        raise NotImplementedError

    def _do_estimate_label_model(self, batches, config):
        # Sets up optimization hyperparameters
        optimizer = torch.optim.SGD(
            self.parameters(), lr=config.step_size, momentum=config.momentum,
            weight_decay=0)
        if config.step_schedule is not None and config.step_size_mult is not None:
            scheduler = torch.optim.lr_scheduler.MultiStepLR(
                optimizer, config.step_schedule, gamma=config.step_size_mult)
        else:
            scheduler = None

        # Iterates over epochs
        for epoch in range(config.epochs):
            logging.info('Epoch {}/{}'.format(epoch + 1, config.epochs))
            if scheduler is not None:
                scheduler.step()

            # Sets model to training mode
            self.train()
            running_loss = 0.0

            # Iterates over training data
            for i_batch, inputs in enumerate(batches):
                optimizer.zero_grad()
                log_likelihood = self(*inputs)
                loss = -1 * torch.mean(log_likelihood)
                loss += self._get_regularization_loss()
                loss.backward()
                optimizer.step()
                running_loss += loss

            epoch_loss = running_loss / len(batches)
            logging.info('Train Loss: %.6f', epoch_loss)

    def _get_regularization_loss(self):
        return 0.0
