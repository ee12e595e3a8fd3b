# source: https://github.com/dawnranger/pytorch-AGNN/issues/5
# seen: 2026-11-26
# style: graph network (agnn/model.py + train.py folded in one file): a layer keeps beta as a Parameter in one branch of __init__ and as a plain Variable in the other; the model is moved with model.cuda() when args.cuda
# expect: DL015 at 25, 30
# also-ok: DL013 at 130, 131
# why: the first attention layer is built with requires_grad=False, so self.beta is a plain Variable(torch.zeros(1)) that model.cuda() does not move; beta * (cuda tensor) in forward -> "expected device cpu but got device cuda:0"
import argparse
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.autograd import Variable
from torch.nn.parameter import Parameter


class GraphAttentionLayer(nn.Module):
    def __init__(self, requires_grad=True):
        super(GraphAttentionLayer, self).__init__()
        if requires_grad:
            self.beta = Parameter(torch.Tensor(1).uniform_(0, 1), requires_grad=requires_grad)
        else:
            self.beta = Variable(torch.zeros(1), requires_grad=requires_grad)

    def forward(self, x, adj):
        norm2 = torch.norm(x, 2, 1).view(-1, 1)
        # add a minor constant (1e-7) to denominator to prevent division by zero error
        cos = self.beta * \
            torch.div(torch.mm(x, x.t()), torch.mm(norm2, norm2.t()) + 1e-7)
        mask = (1. - adj) * -1e9
        masked = cos + mask
        P = F.softmax(masked, dim=1)
        output = torch.mm(P, x)
        return output


class LinearLayer(nn.Module):
    def __init__(self, in_features, out_features, initializer=nn.init.xavier_uniform_):
        super(LinearLayer, self).__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(initializer(torch.Tensor(in_features, out_features)))

    def forward(self, input):
        return torch.mm(input, self.weight)


class AGNN(nn.Module):
    def __init__(self, nfeat, nhid, nclass, nlayers, dropout_rate):
        super(AGNN, self).__init__()
        self.layers = nlayers
        self.dropout_rate = dropout_rate
        self.embeddinglayer = LinearLayer(nfeat, nhid)
        self.attentionlayers = nn.ModuleList()
        # for Cora dataset, the first propagation layer is non-trainable and beta is fixed at 0
        self.attentionlayers.append(GraphAttentionLayer(requires_grad=False))
        for i in range(1, self.layers):
            self.attentionlayers.append(GraphAttentionLayer())
        self.outputlayer = LinearLayer(nhid, nclass)

    def forward(self, x, adj):
        x = F.relu(self.embeddinglayer(x))
        x = F.dropout(x, self.dropout_rate, training=self.training)
        for i in range(self.layers):
            x = self.attentionlayers[i](x, adj)
        x = self.outputlayer(x)
        x = F.dropout(x, self.dropout_rate, training=self.training)
        return F.log_softmax(x, dim=1)


def load_data(n=2708, nfeat=1433, nclass=7):
    features = torch.FloatTensor(np.random.rand(n, nfeat))
    adj = torch.FloatTensor((np.random.rand(n, n) < 0.002).astype(np.float32)) + torch.eye(n)
    labels = torch.LongTensor(np.random.randint(0, nclass, n))
    idx_train = torch.LongTensor(range(140))
    idx_val = torch.LongTensor(range(200, 500))
    idx_test = torch.LongTensor(range(500, 1500))
    return adj, features, labels, idx_train, idx_val, idx_test


def accuracy(output, labels):
    preds = output.max(1)[1].type_as(labels)
    correct = preds.eq(labels).double()
    return correct.sum() / len(labels)


parser = argparse.ArgumentParser()
parser.add_argument("--no-cuda", action="store_true", default=False, help="Disables CUDA training.")
parser.add_argument("--seed", type=int, default=42, help="Random seed.")
parser.add_argument("--epochs", type=int, default=1000, help="Number of epochs to train.")
parser.add_argument("--lr", type=float, default=0.01, help="Initial learning rate.")
parser.add_argument("--weight_decay", type=float, default=5e-4, help="Weight decay (L2 loss on parameters).")
parser.add_argument("--hidden", type=int, default=16, help="Number of hidden units.")
parser.add_argument("--layers", type=int, default=4, help="Number of attention layers.")
parser.add_argument("--dropout_rate", type=float, default=0.5, help="Dropout rate (1 - keep probability).")
args = parser.parse_args()
args.cuda = not args.no_cuda and torch.cuda.is_available()

np.random.seed(args.seed)
torch.manual_seed(args.seed)
if args.cuda:
    torch.cuda.manual_seed(args.seed)

adj, features, labels, idx_train, idx_val, idx_test = load_data()
model = AGNN(nfeat=features.shape[1], nhid=args.hidden, nclass=int(labels.max()) + 1,
             nlayers=args.layers, dropout_rate=args.dropout_rate)
optimizer = optim.Adam(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)

if args.cuda:
    model.cuda()
    features = features.cuda()
    adj = adj.cuda()
    labels = labels.cuda()
    idx_train = idx_train.cuda()
    idx_val = idx_val.cuda()
    idx_test = idx_test.cuda()


def train(epoch):
    t = time.time()
    model.train()
    optimizer.zero_grad()
    output = model(features, adj)
    loss_train = F.nll_loss(output[idx_train], labels[idx_train])
    acc_train = accuracy(output[idx_train], labels[idx_train])
    loss_train.backward()
    optimizer.step()
    print("Epoch: {:04d}".format(epoch + 1), "loss_train: {:.4f}".format(loss_train.item()),
          "acc_train: {:.4f}".format(acc_train.item()), "time: {:.4f}s".format(time.time() - t))


for epoch in range(args.epochs):
    train(epoch)
