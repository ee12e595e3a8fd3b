# source: https://github.com/xiaxin1998/DHCN/issues/14
# seen: 2026-11-26
# style: model module (model.py) of a session-recommendation repo: sub-modules called from the model's forward, a trans_to_cuda helper moves the model and the batches
# expect: DL003 at 55
# why: HyperConv.forward collects CUDA embeddings in a list (final.append) and hands the list to np.sum -> "can't convert cuda:0 device type tensor to numpy"
import argparse
import datetime
import math
import pickle

import numpy as np
import torch
import torch.sparse
from scipy.sparse import coo_matrix
from torch import nn
from torch.nn import Module


def trans_to_cuda(variable):
    if torch.cuda.is_available():
        return variable.cuda()
    else:
        return variable


def trans_to_cpu(variable):
    if torch.cuda.is_available():
        return variable.cpu()
    else:
        return variable


class HyperConv(Module):
    def __init__(self, layers, dataset, emb_size=100):
        super(HyperConv, self).__init__()
        self.emb_size = emb_size
        self.layers = layers
        self.dataset = dataset

    def forward(self, adjacency, embedding):
        values = adjacency.data
        indices = np.vstack((adjacency.row, adjacency.col))
        i = torch.LongTensor(indices)
        v = torch.FloatTensor(values)
        shape = adjacency.shape
        adjacency = torch.sparse.FloatTensor(i, v, torch.Size(shape))
        item_embeddings = embedding
        item_embedding_layer0 = item_embeddings
        final = [item_embedding_layer0]
        for i in range(self.layers):
            item_embeddings = torch.sparse.mm(trans_to_cuda(adjacency), item_embeddings)
            final.append(item_embeddings)
        # final1 = trans_to_cuda(torch.tensor([item.cpu().detach().numpy() for item in final]))
        # item_embeddings = torch.sum(final1, 0)
        item_embeddings = np.sum(final, 0)
        return item_embeddings


class DHCN(Module):
    def __init__(self, adjacency, n_node, lr, layers, l2, beta, dataset, emb_size=100, batch_size=100):
        super(DHCN, self).__init__()
        self.emb_size = emb_size
        self.batch_size = batch_size
        self.n_node = n_node
        self.L2 = l2
        self.lr = lr
        self.layers = layers
        self.beta = beta
        self.adjacency = adjacency
        self.embedding = nn.Embedding(self.n_node, self.emb_size)
        self.HyperGraph = HyperConv(self.layers, dataset)
        self.loss_function = nn.CrossEntropyLoss()
        self.optimizer = torch.optim.Adam(self.parameters(), lr=self.lr)
        self.init_parameters()

    def init_parameters(self):
        stdv = 1.0 / math.sqrt(self.emb_size)
        for weight in self.parameters():
            weight.data.uniform_(-stdv, stdv)

    def forward(self, session_item, session_len):
        item_embeddings_hg = self.HyperGraph(self.adjacency, self.embedding.weight)
        seq_h = item_embeddings_hg[session_item]
        sess_emb = torch.div(torch.sum(seq_h, 1), session_len.unsqueeze(-1).float())
        return item_embeddings_hg, sess_emb


def forward(model, i, data):
    tar, session_len, session_item = data.get_slice(i)
    session_item = trans_to_cuda(torch.Tensor(session_item).long())
    session_len = trans_to_cuda(torch.Tensor(session_len).long())
    tar = trans_to_cuda(torch.Tensor(tar).long())
    item_emb_hg, sess_emb_hgnn = model(session_item, session_len)
    scores = torch.mm(sess_emb_hgnn, torch.transpose(item_emb_hg, 1, 0))
    return tar, scores


def train_test(model, train_data, test_data):
    print("start training: ", datetime.datetime.now())
    total_loss = 0.0
    slices = train_data.generate_batch(model.batch_size)
    for i in slices:
        model.zero_grad()
        targets, scores = forward(model, i, train_data)
        loss = model.loss_function(scores + 1e-8, targets)
        loss.backward()
        model.optimizer.step()
        total_loss += loss.item()
    print("\tLoss:\t%.3f" % total_loss)
    model.eval()
    hits = []
    for i in test_data.generate_batch(model.batch_size):
        tar, scores = forward(model, i, test_data)
        scores = trans_to_cpu(scores).detach().numpy()
        index = np.argsort(-scores, 1)[:, :20]
        tar = trans_to_cpu(tar).detach().numpy()
        for prediction, target in zip(index, tar):
            hits.append(np.isin(target, prediction))
    return np.mean(hits), total_loss


class Data:
    def __init__(self, data, n_node):
        self.raw = np.asarray(data[0], dtype=object)
        self.targets = np.asarray(data[1])
        self.length = len(self.raw)
        self.n_node = n_node
        rows, cols = [], []
        for s in self.raw:
            for it in s:
                rows.append(len(rows))
                cols.append(it - 1)
        self.adjacency = coo_matrix((np.ones(len(rows)), (np.arange(len(rows)) % n_node, cols)), shape=(n_node, n_node))

    def generate_batch(self, batch_size):
        n_batch = max(1, self.length // batch_size)
        return np.split(np.arange(n_batch * batch_size), n_batch)

    def get_slice(self, index):
        items = [list(s) + [0] * (10 - len(s)) for s in self.raw[index]]
        lens = [max(1, len(s)) for s in self.raw[index]]
        return self.targets[index] - 1, lens, items


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dataset", default="Tmall")
    parser.add_argument("--epoch", type=int, default=30)
    parser.add_argument("--batchSize", type=int, default=100)
    parser.add_argument("--lr", type=float, default=0.001)
    parser.add_argument("--layer", type=int, default=3)
    opt = parser.parse_args()
    train_data = pickle.load(open("datasets/" + opt.dataset + "/train.txt", "rb"))
    test_data = pickle.load(open("datasets/" + opt.dataset + "/test.txt", "rb"))
    n_node = 40728
    train_data = Data(train_data, n_node)
    test_data = Data(test_data, n_node)
    model = trans_to_cuda(DHCN(adjacency=train_data.adjacency, n_node=n_node, lr=opt.lr, l2=1e-5, beta=0.01,
                               layers=opt.layer, emb_size=100, batch_size=opt.batchSize, dataset=opt.dataset))
    for epoch in range(opt.epoch):
        print("epoch: ", epoch)
        hit, total_loss = train_test(model, train_data, test_data)
        print("hit@20: %.4f" % hit)


if __name__ == "__main__":
    main()
