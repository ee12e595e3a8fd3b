# (see 0_train.py for the header)
"""Network blocks of Contrastive Predictive Coding: a strided conv encoder, a GRU context model, W_k predictors."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class CPC(nn.Module):
    def __init__(self, options):
        super(CPC, self).__init__()
        self.options = options
        self.timestep = options["timestep"]
        self.seq_len = options["seq_len"]
        self.hidden_dim = options["hidden_dim"]
        self.z_dim = options["z_dim"]
        self.encoder = nn.Sequential(
            nn.Conv1d(1, self.z_dim, kernel_size=10, stride=5, padding=3, bias=False),
            nn.BatchNorm1d(self.z_dim),
            nn.ReLU(inplace=True),
            nn.Conv1d(self.z_dim, self.z_dim, kernel_size=8, stride=4, padding=2, bias=False),
            nn.BatchNorm1d(self.z_dim),
            nn.ReLU(inplace=True),
            nn.Conv1d(self.z_dim, self.z_dim, kernel_size=4, stride=2, padding=1, bias=False),
            nn.BatchNorm1d(self.z_dim),
            nn.ReLU(inplace=True),
        )
        self.gru = nn.GRU(self.z_dim, self.hidden_dim, num_layers=1, bidirectional=False, batch_first=True)
        self.Wk = nn.ModuleList([nn.Linear(self.hidden_dim, self.z_dim) for _ in range(self.timestep)])
        self.softmax = nn.Softmax(dim=1)
        self.lsoftmax = nn.LogSoftmax(dim=1)

    def init_hidden(self, batch_size):
        return torch.zeros(1, batch_size, self.hidden_dim)

    def forward(self, x, hidden):
        batch = x.size()[0]
        t_samples = torch.randint(self.seq_len // 160 - self.timestep, size=(1,)).long()
        z = self.encoder(x)
        z = z.transpose(1, 2)
        encoder_samples = torch.empty((self.timestep, batch, self.z_dim), device=x.device).float()
        for i in range(1, self.timestep + 1):
            encoder_samples[i - 1] = z[:, t_samples + i, :].view(batch, self.z_dim)
        prior_sequence = z[:, :t_samples + 1, :]
        output, hidden = self.gru(prior_sequence, hidden)
        c_t = output[:, t_samples, :].view(batch, self.hidden_dim)
        predictions = torch.empty((self.timestep, batch, self.z_dim), device=x.device).float()
        for i in range(self.timestep):
            predictions[i] = self.Wk[i](c_t)
        return encoder_samples, predictions, hidden


def info_nce(encoder_samples, predictions, timestep, batch):
    nce = 0
    correct = 0
    for i in range(timestep):
        total = torch.mm(encoder_samples[i], torch.transpose(predictions[i], 0, 1))
        correct += torch.sum(torch.eq(torch.argmax(F.softmax(total, dim=0), dim=0), torch.arange(0, batch, device=total.device)))
        nce += torch.sum(torch.diag(F.log_softmax(total, dim=1)))
    nce /= -1.0 * batch * timestep
    accuracy = 1.0 * correct.item() / batch
    return nce, accuracy
