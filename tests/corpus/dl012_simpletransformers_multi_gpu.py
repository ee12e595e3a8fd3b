# source: https://github.com/ThilinaRajapakse/simpletransformers/issues/1054  (training wrapped the model in torch.nn.DataParallel for multi-GPU; the docs recommend DistributedDataParallel)
# expect: DL012 at 16
import torch
import torch.nn as nn


class ClassificationModel:
    def __init__(self, model, n_gpu, device):
        self.model = model
        self.n_gpu = n_gpu
        self.device = device

    def train(self, batches, optimizer):
        self.model.to(self.device)
        if self.n_gpu > 1:
            self.model = nn.DataParallel(self.model)
        for inputs, labels in batches:
            inputs, labels = inputs.to(self.device), labels.to(self.device)
            loss = nn.functional.cross_entropy(self.model(inputs), labels)
            if self.n_gpu > 1:
                loss = loss.mean()
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
