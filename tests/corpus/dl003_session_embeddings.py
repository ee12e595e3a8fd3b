# source: https://github.com/xiaxin1998/DHCN/issues/14  (model.py: item_embeddings = np.sum(final, 0) / (layers + 1) on CUDA tensors -> "can't convert cuda:0 device type tensor to numpy")
# expect: DL003 at 21
import numpy as np
import torch
import torch.nn as nn


class HyperConv(nn.Module):
    def __init__(self, layers, emb_size=100):
        super().__init__()
        self.layers = layers
        self.emb_size = emb_size

    def forward(self, adjacency, embedding):
        item_embeddings = embedding
        final = [item_embeddings]
        for _ in range(self.layers):
            item_embeddings = torch.sparse.mm(adjacency, item_embeddings)
            final.append(item_embeddings)
        stacked = torch.stack(final)
        summed = np.array(stacked.sum(0))
        return summed / (self.layers + 1)


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    n_items = 500
    idx = torch.randint(0, n_items, (2, 4000), device=device)
    vals = torch.rand(4000, device=device)
    adjacency = torch.sparse_coo_tensor(idx, vals, (n_items, n_items)).coalesce()
    embedding = nn.Embedding(n_items, 100).to(device)
    conv = HyperConv(layers=3)
    with torch.no_grad():
        out = conv(adjacency, embedding.weight)
    print(out.shape)
