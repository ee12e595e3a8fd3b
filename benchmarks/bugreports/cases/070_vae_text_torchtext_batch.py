# source: https://github.com/rohithreddy024/VAE-Text-Generation/pull/3
# seen: 2026-11-26
# style: training script (main.py) with argparse at module level, a get_cuda() helper, torchtext BucketIterator batches handed to a train_batch(x, G_inp, step) helper
# expect: DL002 at 120, 142, 151
# why: the VAE is moved with get_cuda(vae), but batch.text from the torchtext iterators (no device=) stays on the CPU and reaches vae(x, G_inp, ...)
import argparse
import math
import os
import re

import numpy as np
import torch as T
import torch.nn as nn
import torch.nn.functional as F
from torchtext import data


def tokenizer_function(text):
    text = [x for x in text.split(" ") if x != "" and x.find(" ") == -1]
    return text


class MyDataset(data.Dataset):
    def __init__(self, path, text_field, **kwargs):
        fields = [("text", text_field)]
        examples = []
        with open(path, "r") as f:
            for text in f:
                examples.append(data.Example.fromlist([text], fields))
        super(MyDataset, self).__init__(examples, fields, **kwargs)

    @classmethod
    def splits(cls, text_field, train="train", **kwargs):
        return super(MyDataset, cls).splits(text_field=text_field, train=train, **kwargs)


def get_iterators(opt):
    text_field = data.Field(init_token=opt.start_token, eos_token=opt.end_token, lower=True,
                            tokenize=tokenizer_function, batch_first=True)
    train_data, val_data = MyDataset.splits(path="data/imdb", train="train.txt", test="test.txt", text_field=text_field)
    text_field.build_vocab(train_data, val_data, max_size=opt.n_vocab - 4, vectors="glove.6B.300d")
    train_iter, val_iter = data.BucketIterator.splits((train_data, val_data), batch_size=opt.batch_size,
                                                      sort_key=lambda x: len(x.text), repeat=False)
    return train_iter, val_iter, text_field.vocab


def get_cuda(tensor):
    if T.cuda.is_available():
        tensor = tensor.cuda()
    return tensor


class VAE(nn.Module):
    def __init__(self, opt):
        super(VAE, self).__init__()
        self.embedding = nn.Embedding(opt.n_vocab, opt.n_embed)
        self.encoder = nn.LSTM(opt.n_embed, opt.n_hidden_E, opt.n_layers_E, batch_first=True, bidirectional=True)
        self.hidden_to_mu = nn.Linear(2 * opt.n_hidden_E, opt.n_z)
        self.hidden_to_logvar = nn.Linear(2 * opt.n_hidden_E, opt.n_z)
        self.generator = nn.LSTM(opt.n_embed + opt.n_z, opt.n_hidden_G, opt.n_layers_G, batch_first=True)
        self.fc = nn.Linear(opt.n_hidden_G, opt.n_vocab)
        self.n_z = opt.n_z

    def forward(self, x, G_inp, z=None, G_hidden=None):
        if z is None:
            E_inp = self.embedding(x)
            _, (h_T, _) = self.encoder(E_inp)
            h_T = T.cat([h_T[-2], h_T[-1]], dim=1)
            mu = self.hidden_to_mu(h_T)
            logvar = self.hidden_to_logvar(h_T)
            z = mu + T.randn_like(mu) * T.exp(0.5 * logvar)
            kld = -0.5 * T.sum(logvar - mu.pow(2) - logvar.exp() + 1, 1).mean()
        else:
            kld = None
        G_inp = self.embedding(G_inp)
        z = z.unsqueeze(1).repeat(1, G_inp.size(1), 1)
        output, G_hidden = self.generator(T.cat([G_inp, z], 2), G_hidden)
        return self.fc(output), G_hidden, kld


parser = argparse.ArgumentParser()
parser.add_argument("--batch_size", type=int, default=128)
parser.add_argument("--n_vocab", type=int, default=12000)
parser.add_argument("--epochs", type=int, default=121)
parser.add_argument("--n_hidden_G", type=int, default=512)
parser.add_argument("--n_layers_G", type=int, default=2)
parser.add_argument("--n_hidden_E", type=int, default=512)
parser.add_argument("--n_layers_E", type=int, default=1)
parser.add_argument("--n_z", type=int, default=100)
parser.add_argument("--word_dropout", type=float, default=0.5)
parser.add_argument("--rec_coef", type=float, default=7)
parser.add_argument("--lr", type=float, default=0.0001)
parser.add_argument("--n_embed", type=int, default=300)
parser.add_argument("--unk_token", type=str, default="<unk>")
parser.add_argument("--pad_token", type=str, default="<pad>")
parser.add_argument("--start_token", type=str, default="<sos>")
parser.add_argument("--end_token", type=str, default="<eos>")
opt = parser.parse_args()

train_iter, val_iter, vocab = get_iterators(opt)
vae = VAE(opt)
vae.embedding.weight.data.copy_(vocab.vectors)
vae = get_cuda(vae)
trainer_vae = T.optim.Adam(vae.parameters(), lr=opt.lr)


def create_generator_input(x, train):
    G_inp = x[:, 0:x.size(1) - 1].clone()
    if train == False:
        return G_inp
    r = np.random.rand(G_inp.size(0), G_inp.size(1))
    for i in range(len(G_inp)):
        for j in range(1, G_inp.size(1)):
            if r[i, j] < opt.word_dropout and G_inp[i, j] not in [vocab.stoi[opt.pad_token], vocab.stoi[opt.end_token]]:
                G_inp[i, j] = vocab.stoi[opt.unk_token]
    return G_inp


def train_batch(x, G_inp, step, train=True):
    logit, _, kld = vae(x, G_inp, None, None)
    logit = logit.view(-1, opt.n_vocab)
    x = x[:, 1:x.size(1)]
    x = x.contiguous().view(-1)
    rec_loss = F.cross_entropy(logit, x)
    kld_coef = (math.tanh((step - 15000) / 1000) + 1) / 2
    loss = opt.rec_coef * rec_loss + kld_coef * kld
    if train == True:
        trainer_vae.zero_grad()
        loss.backward()
        trainer_vae.step()
    return rec_loss.item(), kld.item()


def training():
    step = 0
    for epoch in range(opt.epochs):
        vae.train()
        train_rec_loss = []
        for batch in train_iter:
            x = batch.text
            G_inp = create_generator_input(x, train=True)
            rec_loss, kl_loss = train_batch(x, G_inp, step, train=True)
            train_rec_loss.append(rec_loss)
            step += 1
        vae.eval()
        valid_rec_loss = []
        for batch in val_iter:
            x = batch.text
            G_inp = create_generator_input(x, train=False)
            with T.autograd.no_grad():
                rec_loss, kl_loss = train_batch(x, G_inp, step, train=False)
            valid_rec_loss.append(rec_loss)
        print("No.", epoch, "T_rec:", "%.2f" % np.mean(train_rec_loss), "V_rec:", "%.2f" % np.mean(valid_rec_loss))


if __name__ == "__main__":
    training()
