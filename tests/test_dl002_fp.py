"""DL002 (batch-not-moved) false positives, each as a realistic training script with its
control, the same script with the bug put back, which must still be flagged.

- a loss module whose `forward` moves the labels itself through a local made from them
  (`label = torch.cat((nlabel, alabel), 0)` then `label = label.cuda()`, RTFM's train.py) or
  through a helper method of its class (`self._to_device(target)`): the host batch handed to
  it is moved before it meets device tensors;
- a function handed a loader of a library class we do not model (pyg's `NeighborLoader`,
  which slices a graph the caller moved with `data.to(rank, 'x', 'y')`) and a model the caller
  moved under DDP: the loader's batches are unknown, not host batches guessed from the
  parameter's name `loader` (pyg examples/multi_gpu/distributed_sampling.py); a torch
  `DataLoader` handed in the same way still gives host batches.
"""

from devicelint.engine import lint_file, lint_source

RTFM_TRAIN = '''
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Scorer(nn.Module):
    def __init__(self, n_features=2048):
        super().__init__()
        self.fc1 = nn.Linear(n_features, 512)
        self.fc2 = nn.Linear(512, 1)

    def forward(self, x):
        return torch.sigmoid(self.fc2(torch.relu(self.fc1(x)))).squeeze(-1)


class RankingLoss(nn.Module):
    def __init__(self, alpha, margin):
        super().__init__()
        self.alpha = alpha
        self.margin = margin
        self.criterion = nn.BCELoss()

    def forward(self, score_normal, score_abnormal, nlabel, alabel):
        label = torch.cat((nlabel, alabel), 0)
        score = torch.cat((score_normal, score_abnormal), 0)
        LABEL_MOVE
        loss_cls = self.criterion(score, label)
        return loss_cls + self.alpha * torch.relu(self.margin - score_abnormal.mean())


def train(nloader, aloader, model, optimizer, device):
    model.train()
    ninput, nlabel = next(nloader)
    ainput, alabel = next(aloader)
    inputs = torch.cat((ninput, ainput), 0).to(device)
    scores = model(inputs)
    score_normal, score_abnormal = scores[:ninput.size(0)], scores[ninput.size(0):]
    loss_criterion = RankingLoss(0.0001, 100)
    cost = loss_criterion(score_normal, score_abnormal, nlabel, alabel)
    optimizer.zero_grad()
    cost.backward()
    optimizer.step()
    return cost.item()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--steps", type=int, default=100)
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    normal = TensorDataset(torch.randn(512, 2048), torch.zeros(512))
    abnormal = TensorDataset(torch.randn(512, 2048), torch.ones(512))
    nloader = DataLoader(normal, batch_size=args.batch_size, shuffle=True, drop_last=True)
    aloader = DataLoader(abnormal, batch_size=args.batch_size, shuffle=True, drop_last=True)
    model = Scorer().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(args.steps):
        if step % len(nloader) == 0:
            niter, aiter = iter(nloader), iter(aloader)
        loss = train(niter, aiter, model, optimizer, device)
        print(f"step {step}: {loss:.4f}")


if __name__ == "__main__":
    main()
'''


def dl002_lines(code: str) -> list:
    return [f.line for f in lint_source(code, "train.py", select=["DL002"])]


def line_of(code: str, needle: str) -> int:
    return next(i for i, ln in enumerate(code.splitlines(), 1) if needle in ln)


def test_a_loss_that_moves_a_local_made_from_its_labels_takes_host_labels():
    code = RTFM_TRAIN.replace("LABEL_MOVE", "label = label.cuda()")
    assert dl002_lines(code) == []


def test_a_loss_that_moves_its_labels_by_to_device_on_a_chain():
    code = RTFM_TRAIN.replace("LABEL_MOVE", "label = label.float().to(score.device)")
    assert dl002_lines(code) == []


def test_a_loss_that_moves_its_labels_through_a_helper_method():
    code = RTFM_TRAIN.replace("LABEL_MOVE", "label = self._on_device(label)").replace(
        "    def forward(self, score_normal,",
        "    def _on_device(self, t):\n        return t.cuda() if torch.cuda.is_available() else t\n\n"
        "    def forward(self, score_normal,")
    assert dl002_lines(code) == []


def test_control_a_loss_that_never_moves_its_labels_is_still_flagged():
    code = RTFM_TRAIN.replace("LABEL_MOVE", "label = label.float()")
    assert dl002_lines(code) == [line_of(code, "cost = loss_criterion(")]


def test_control_a_helper_that_does_not_move_leaves_the_finding():
    code = RTFM_TRAIN.replace("LABEL_MOVE", "label = self._smooth(label)").replace(
        "    def forward(self, score_normal,",
        "    def _smooth(self, t):\n        return t * 0.9 + 0.05\n\n"
        "    def forward(self, score_normal,")
    assert dl002_lines(code) == [line_of(code, "cost = loss_criterion(")]


PYG_DDP = '''
import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel
from torch_geometric.datasets import Reddit
from torch_geometric.loader import NeighborLoader
from torch_geometric.nn import SAGEConv


class SAGE(torch.nn.Module):
    def __init__(self, in_channels, hidden_channels, out_channels):
        super().__init__()
        self.conv1 = SAGEConv(in_channels, hidden_channels)
        self.conv2 = SAGEConv(hidden_channels, out_channels)

    def forward(self, x, edge_index):
        x = F.relu(self.conv1(x, edge_index))
        return self.conv2(x, edge_index)


@torch.no_grad()
def test(loader, model, rank):
    model.eval()
    correct = total = 0
    for batch in loader:
        out = model(batch.x, batch.edge_index.to(rank))
        pred = out[:batch.batch_size].argmax(dim=-1)
        correct += int((pred == batch.y[:batch.batch_size].to(rank)).sum())
        total += batch.batch_size
    return correct / total


def run(rank, world_size, dataset):
    os.environ["MASTER_ADDR"] = "localhost"
    os.environ["MASTER_PORT"] = "12355"
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    data = dataset[0]
    data = data.to(rank, "x", "y")
    train_idx = data.train_mask.nonzero(as_tuple=False).view(-1)
    val_idx = data.val_mask.nonzero(as_tuple=False).view(-1)
    LOADERS
    model = SAGE(dataset.num_features, 256, dataset.num_classes).to(rank)
    # evaluated unwrapped: a `DistributedDataParallel(model, device_ids=[rank])` handed in
    # would copy host inputs to its GPU itself, and the control below could not rest on it
    for epoch in range(1, 11):
        train_acc = test(train_loader, model, rank)
        val_acc = test(val_loader, model, rank)
        if rank == 0:
            print(f"epoch {epoch}: train {train_acc:.4f} val {val_acc:.4f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    dataset = Reddit("data/Reddit")
    world_size = torch.cuda.device_count()
    mp.spawn(run, args=(world_size, dataset), nprocs=world_size, join=True)
'''

NEIGHBOR_LOADERS = """train_loader = NeighborLoader(data, input_nodes=train_idx, num_neighbors=[25, 10], batch_size=1024, shuffle=True)
    val_loader = NeighborLoader(data, input_nodes=val_idx, num_neighbors=[25, 10], batch_size=1024)"""

TORCH_LOADERS = """train_loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(data.x.cpu(), data.y.cpu()), batch_size=1024)
    val_loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(data.x.cpu(), data.y.cpu()), batch_size=1024)"""


def pyg_script(tmp_path, loaders: str):
    (tmp_path / "pyproject.toml").write_text("")
    script = tmp_path / "distributed_sampling.py"
    script.write_text(PYG_DDP.replace("LOADERS", loaders).lstrip())
    return script


def test_a_loader_of_an_unmodelled_library_class_handed_in_gives_no_host_batches(tmp_path):
    script = pyg_script(tmp_path, NEIGHBOR_LOADERS)
    assert [f.line for f in lint_file(str(script)) if f.code == "DL002"] == []


def test_control_a_torch_dataloader_handed_in_still_gives_host_batches(tmp_path):
    script = pyg_script(tmp_path, TORCH_LOADERS)
    found = [f.line for f in lint_file(str(script)) if f.code == "DL002"]
    assert found and found[0] == line_of(script.read_text(), "out = model(batch.x, batch.edge_index.to(rank))")


POSITIONS_TRAIN = '''
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class TinyTransformer(nn.Module):
    def __init__(self, vocab=1000, dim=64, max_len=128, n_classes=4):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(max_len, dim)
        layer = nn.TransformerEncoderLayer(dim, nhead=4, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2)
        self.head = nn.Linear(dim, n_classes)

    def forward(self, tokens):
        positions = torch.arange(tokens.size(1))
        positions = positions.to(self.pos.weight.device)
        h = self.tok(tokens) + self.pos(positions)[None]
        return self.head(self.encoder(h).mean(1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    data = TensorDataset(torch.randint(0, 1000, (512, 32)), torch.randint(0, 4, (512,)))
    loader = DataLoader(data, batch_size=32, shuffle=True)
    model = TinyTransformer().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(args.epochs):
        for tokens, labels in loader:
            labels = labels.to(device)
            logits = model(tokens)
            loss = criterion(logits, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main()
'''


def test_control_a_forward_that_moves_positions_built_from_a_size_still_wants_its_tokens_moved():
    # `positions` is made from `tokens.size(1)`, not of `tokens`: moving it says nothing of
    # where the forward wants `tokens`, so the unmoved batch is still a finding
    assert dl002_lines(POSITIONS_TRAIN) == [line_of(POSITIONS_TRAIN, "logits = model(tokens)")]


PER_ARGUMENT = '''import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class TextClassifier(nn.Module):
    def __init__(self, vocab, dim, classes):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(dim, 4, batch_first=True), 2)
        self.head = nn.Linear(dim, classes)

    @property
    def device(self):
        return self.head.weight.device

    def forward(self, tokens, padding_mask):
        tokens = tokens.to(self.device)
        MASK_MOVE
        h = self.encoder(self.embed(tokens), src_key_padding_mask=padding_mask)
        h = h.masked_fill(padding_mask.unsqueeze(-1), 0.0).sum(1)
        return self.head(h)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    tokens = torch.randint(0, 1000, (256, 32))
    mask = torch.zeros(256, 32, dtype=torch.bool)
    labels = torch.randint(0, 4, (256,))
    loader = DataLoader(TensorDataset(tokens, mask, labels), batch_size=32, shuffle=True)
    model = TextClassifier(1000, 64, 4).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(args.epochs):
        for batch_tokens, batch_mask, batch_labels in loader:
            logits = model(batch_tokens, batch_mask)
            loss = criterion(logits, batch_labels.to(device))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(epoch, loss.item())


if __name__ == "__main__":
    main()
'''


def test_a_forward_that_moves_its_tokens_but_not_its_mask_leaves_the_host_mask_flagged():
    # the forward's `tokens.to(self.device)` moves `tokens` only: the mask meets the encoder's
    # weights on the host (the exemption used to cover every argument once one was moved)
    code = PER_ARGUMENT.replace("MASK_MOVE", "")
    assert dl002_lines(code) == [line_of(code, "logits = model(batch_tokens, batch_mask)")]


def test_control_a_forward_that_moves_both_of_its_arguments_takes_host_batches():
    code = PER_ARGUMENT.replace("MASK_MOVE", "padding_mask = padding_mask.to(self.device)")
    assert dl002_lines(code) == []


def test_an_argument_a_moving_forward_takes_through_kwargs_is_taken_as_moved():
    # which parameter `**kwargs` hands it to is not known: silence
    code = PER_ARGUMENT.replace("MASK_MOVE", "").replace(
        "def forward(self, tokens, padding_mask):", "def forward(self, tokens, **kwargs):\n"
        "        padding_mask = kwargs[\"padding_mask\"]").replace(
        "model(batch_tokens, batch_mask)", "model(batch_tokens, padding_mask=batch_mask)")
    assert "def forward(self, tokens, **kwargs)" in code
    assert dl002_lines(code) == []
