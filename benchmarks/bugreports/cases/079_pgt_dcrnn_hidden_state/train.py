# source: https://github.com/benedekrozemberczki/pytorch_geometric_temporal/issues/18
# seen: 2026-11-26
# style: two files: the user's training script (a RecurrentGCN wrapping DCRNN, model and every snapshot moved to cuda) and the DCRNN layer whose _set_hidden_state builds H with torch.zeros when no H is passed
# why: DCRNN(...)(x, edge_index, edge_weight) with no H makes H on the CPU; torch.cat([X, H]) with X on cuda:0 -> "All input tensors must be on the same device. Received cuda:0 and cpu"
import torch
import torch.nn.functional as F
from tqdm import tqdm

from dcrnn import DCRNN
from torch_geometric_temporal.dataset import ChickenpoxDatasetLoader
from torch_geometric_temporal.signal import temporal_signal_split


class RecurrentGCN(torch.nn.Module):
    def __init__(self, node_features):
        super(RecurrentGCN, self).__init__()
        self.recurrent = DCRNN(node_features, 32, 1)
        self.linear = torch.nn.Linear(32, 1)

    def forward(self, x, edge_index, edge_weight):
        h = self.recurrent(x, edge_index, edge_weight)
        h = F.relu(h)
        h = self.linear(h)
        return h


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
loader = ChickenpoxDatasetLoader()
dataset = loader.get_dataset()
train_dataset, test_dataset = temporal_signal_split(dataset, train_ratio=0.2)

model = RecurrentGCN(node_features=4).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)

model.train()
for epoch in tqdm(range(200)):
    cost = 0
    for time, snapshot in enumerate(train_dataset):
        snapshot = snapshot.to(device)
        y_hat = model(snapshot.x, snapshot.edge_index, snapshot.edge_attr)
        cost = cost + torch.mean((y_hat - snapshot.y) ** 2)
    cost = cost / (time + 1)
    cost.backward()
    optimizer.step()
    optimizer.zero_grad()

model.eval()
cost = 0
for time, snapshot in enumerate(test_dataset):
    snapshot = snapshot.to(device)
    y_hat = model(snapshot.x, snapshot.edge_index, snapshot.edge_attr)
    cost = cost + torch.mean((y_hat - snapshot.y) ** 2)
cost = cost / (time + 1)
print("MSE: {:.4f}".format(cost.item()))
