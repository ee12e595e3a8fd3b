# source: https://github.com/pyg-team/pytorch_geometric/issues/499
# seen: 2026-11-26
# style: PyG training script (models/pytorch_geometric/test.py): an InMemoryDataset of molecular graphs read from processed files, the whole dataset's storage moved to the GPU once for speed, shuffling DataLoaders with worker processes, a GCN regressor and its loop
# expect: DL017 at 66, 67
# why: dataset.data now holds CUDA tensors and InMemoryDataset.__getitem__ slices them inside the loader's worker processes -> "CUDA error: initialization error" from the worker when the loop starts (it works with num_workers=0)
import argparse
import os.path as osp

import torch
import torch.nn.functional as F
from torch_geometric.data import DataLoader, InMemoryDataset
from torch_geometric.nn import GCNConv, global_mean_pool


class UVVisDataset(InMemoryDataset):
    def __init__(self, root, transform=None, pre_transform=None):
        super(UVVisDataset, self).__init__(root, transform, pre_transform)
        self.data, self.slices = torch.load(self.processed_paths[0])

    @property
    def raw_file_names(self):
        return ['spectra.csv']

    @property
    def processed_file_names(self):
        return ['data.pt']

    def download(self):
        pass

    def process(self):
        raise RuntimeError('run preprocess.py first')


class Net(torch.nn.Module):
    def __init__(self, num_features, hidden, num_outputs):
        super(Net, self).__init__()
        self.conv1 = GCNConv(num_features, hidden)
        self.conv2 = GCNConv(hidden, hidden)
        self.lin = torch.nn.Linear(hidden, num_outputs)

    def forward(self, data):
        x, edge_index, batch = data.x, data.edge_index, data.batch
        x = F.relu(self.conv1(x, edge_index))
        x = F.relu(self.conv2(x, edge_index))
        x = global_mean_pool(x, batch)
        return self.lin(x)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--root', default=osp.join('data', 'uvvis'))
    parser.add_argument('--epochs', type=int, default=200)
    parser.add_argument('--batch_size', type=int, default=64)
    parser.add_argument('--num_workers', type=int, default=4)
    args = parser.parse_args()

    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')

    dataset = UVVisDataset(args.root)
    dataset.data = dataset.data.to(device)
    dataset = dataset.shuffle()
    n = len(dataset) // 10
    test_dataset = dataset[:n]
    train_dataset = dataset[n:]
    train_dl = DataLoader(train_dataset, batch_size=args.batch_size, shuffle=True, num_workers=args.num_workers)
    test_dl = DataLoader(test_dataset, batch_size=args.batch_size, num_workers=args.num_workers)

    model = Net(dataset.num_features, 128, dataset[0].y.size(-1)).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.001)

    for epoch in range(1, args.epochs + 1):
        model.train()
        total = 0
        for i, batch in enumerate(train_dl):
            batch = batch.to(device)
            optimizer.zero_grad()
            loss = F.mse_loss(model(batch), batch.y.view(-1, model.lin.out_features))
            loss.backward()
            optimizer.step()
            total += loss.item() * batch.num_graphs
        model.eval()
        err = 0
        with torch.no_grad():
            for batch in test_dl:
                batch = batch.to(device)
                err += F.l1_loss(model(batch), batch.y.view(-1, model.lin.out_features), reduction='sum').item()
        print('Epoch {:03d}, Loss: {:.4f}, Test MAE: {:.4f}'.format(epoch, total / len(train_dataset), err / len(test_dataset)))


if __name__ == '__main__':
    main()
