"""False-positive causes found by the first look of 2026-11-26 (fifth round, devicelint
2d4e984, `benchmarks/firstlook/2026-11-26e.json`), each as a realistic program with its
control: the same program with the bug put back must still be flagged.

- A DataLoader whose `collate_fn` moves each batch to the device (a book's sentiment RNN:
  `return padded.to(device), labels.to(device), lengths.to(device)`), iterated in
  `def train(dataloader)`: the parameter was guessed by its name to yield host batches
  (12 false DL002). In a course notebook the collate calls an imported `to_device(...)` and
  reaches the loader through a helper's `DataLoader(ds, bs, **kwargs)` (4 false DL002).
- A model from a factory of the file used before the name is rebound to a moved one
  (`gen_model = make_generator()` ... `gen_model(z)` ... later
  `gen_model = make_generator().to(device)`): at the first use it is on the host (a book's
  GAN chapter, 1 DL002 + 1 DL011).

Lines ending in `# <- DLnnn` must be flagged with that code and nothing else may be flagged.
"""

import json

import pytest
from inference_cases import expected, program

from devicelint.engine import lint_source

RULES = ["DL001", "DL002", "DL003", "DL004", "DL006", "DL010", "DL011", "DL015"]

_SENTIMENT = """
from torch.nn.utils.rnn import pad_sequence

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=10)
args = parser.parse_args()
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

vocab = {"<pad>": 0, "good": 1, "bad": 2, "movie": 3}
train_dataset = [("pos", "good movie"), ("neg", "bad movie")] * 32
valid_dataset = [("pos", "good"), ("neg", "bad")] * 8


def text_pipeline(text):
    return [vocab.get(tok, 0) for tok in text.split()]


def collate_batch(batch):
    label_list, text_list, lengths = [], [], []
    for _label, _text in batch:
        label_list.append(1.0 if _label == "pos" else 0.0)
        processed = torch.tensor(text_pipeline(_text), dtype=torch.int64)
        text_list.append(processed)
        lengths.append(processed.size(0))
    label_list = torch.tensor(label_list)
    lengths = torch.tensor(lengths)
    padded = pad_sequence(text_list, batch_first=True)
    return padded.to(device), label_list.to(device), lengths.to(device)


class RNN(nn.Module):
    def __init__(self, vocab_size, embed_dim, hidden):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_dim, padding_idx=0)
        self.rnn = nn.LSTM(embed_dim, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, 1)

    def forward(self, text, lengths):
        out, (hidden, cell) = self.rnn(self.embedding(text))
        return torch.sigmoid(self.fc(hidden[-1]))


train_dl = DataLoader(train_dataset, batch_size=32, shuffle=True, collate_fn=collate_batch)
valid_dl = DataLoader(valid_dataset, batch_size=32, shuffle=False, collate_fn=collate_batch)
model = RNN(len(vocab), 20, 64).to(device)
loss_fn = nn.BCELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.001)


def train(dataloader):
    model.train()
    total_acc, total_loss = 0, 0
    for text_batch, label_batch, lengths in dataloader:
        optimizer.zero_grad()
        pred = model(text_batch, lengths)[:, 0]
        loss = loss_fn(pred, label_batch)
        loss.backward()
        optimizer.step()
        total_acc += ((pred >= 0.5).float() == label_batch).float().sum().item()
        total_loss += loss.item() * label_batch.size(0)
    return total_acc / len(dataloader.dataset), total_loss / len(dataloader.dataset)


for epoch in range(args.epochs):
    acc_train, loss_train = train(train_dl)
    print(f"epoch {epoch} accuracy {acc_train:.4f}")
"""

# Control: the collate function pads on the host and moves nothing; `train` never moves the
# batch either, so the batch meets the model on the device.
_SENTIMENT_HOST_COLLATE = _SENTIMENT.replace(
    "return padded.to(device), label_list.to(device), lengths.to(device)",
    "return padded, label_list, lengths",
).replace(
    "pred = model(text_batch, lengths)[:, 0]",
    "pred = model(text_batch, lengths)[:, 0]  # <- DL002",
).replace(
    "loss = loss_fn(pred, label_batch)",
    "loss = loss_fn(pred, label_batch)  # <- DL002",
).replace(
    "== label_batch).float().sum().item()",
    "== label_batch).float().sum().item()  # <- DL002",
)

_GAN = """
parser = argparse.ArgumentParser()
parser.add_argument("--z-size", type=int, default=20)
args = parser.parse_args()
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
z_size = args.z_size
mnist = TensorDataset(torch.rand(256, 784), torch.randint(0, 10, (256,)))


def make_generator(input_size, hidden, output_size):
    return nn.Sequential(nn.Linear(input_size, hidden), nn.LeakyReLU(), nn.Linear(hidden, output_size), nn.Tanh())


def make_discriminator(input_size, hidden):
    return nn.Sequential(nn.Linear(input_size, hidden), nn.LeakyReLU(), nn.Linear(hidden, 1), nn.Sigmoid())


def create_noise(batch_size, z_size):
    return torch.rand(batch_size, z_size) * 2 - 1


# Shapes first, on the CPU, as the chapter walks through them
gen_model = make_generator(z_size, 100, 784)
disc_model = make_discriminator(784, 100)
dataloader = DataLoader(mnist, 32, shuffle=False)
input_real, label = next(iter(dataloader))
input_z = create_noise(32, z_size)
g_output = gen_model(input_z)
d_proba_real = disc_model(input_real)
print(g_output.shape, d_proba_real.shape)

# Then the real training, on the device
gen_model = make_generator(z_size, 100, 784).to(device)
disc_model = make_discriminator(784, 100).to(device)
loss_fn = nn.BCELoss()
g_optimizer = torch.optim.Adam(gen_model.parameters())
d_optimizer = torch.optim.Adam(disc_model.parameters())
mnist_dl = DataLoader(mnist, batch_size=64, shuffle=True, drop_last=True)
for epoch in range(10):
    for x, _ in mnist_dl:
        x = x.to(device)
        d_optimizer.zero_grad()
        d_real = disc_model(x)
        z = create_noise(x.size(0), z_size).to(device)
        d_fake = disc_model(gen_model(z).detach())
        d_loss = loss_fn(d_real, torch.ones_like(d_real)) + loss_fn(d_fake, torch.zeros_like(d_fake))
        d_loss.backward()
        d_optimizer.step()
"""

# Control: the training loop forgets to move the real images to the device.
_GAN_UNMOVED = _GAN.replace("        x = x.to(device)\n", "").replace(
    "d_real = disc_model(x)", "d_real = disc_model(x)  # <- DL002"
)

CASES = {
    "collate_fn_moves_each_batch": _SENTIMENT,
    "collate_fn_on_the_host": _SENTIMENT_HOST_COLLATE,
    "factory_model_used_before_its_moved_rebinding": _GAN,
    "factory_model_moved_batch_not": _GAN_UNMOVED,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_firstlook_cause(name):
    code = program(CASES[name])
    got = {(f.code, f.line) for f in lint_source(code, f"{name}.py", select=RULES)}
    listing = "\n".join(f"{i:4d} {line}" for i, line in enumerate(code.splitlines(), start=1))
    assert got == expected(code), f"got {sorted(got)}\n{listing}"


def _nb(*sources):
    cells = [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
              "source": src.splitlines(keepends=True)} for src in sources]
    return json.dumps({"cells": cells, "metadata": {"kernelspec": {"language": "python", "name": "python3"}},
                       "nbformat": 4, "nbformat_minor": 4}, indent=1)


# A course notebook built on its own mini-library: `to_device` comes from a star import, the
# collate function moves each batch, and a helper passes it on through `**kwargs`.
_NB_CELLS = [
    """\
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import optim
from torch.utils.data import DataLoader
from datasets import load_dataset
from miniai.datasets import *
def_device = 'cuda' if torch.cuda.is_available() else 'cpu'
""",
    """\
dsd = load_dataset("fashion_mnist")
tds = dsd.with_transform(transformi)
cf = collate_dict(tds['train'])
""",
    """\
def collate_(b): return to_device(cf(b))
def data_loaders(dsd, bs, **kwargs): return {k: DataLoader(v, bs, **kwargs) for k, v in dsd.items()}
""",
    """\
dls = data_loaders(tds, 256, collate_fn=collate_)
dt = dls['train']
dv = dls['test']
xb, yb = next(iter(dt))
""",
    """\
def eval(model, loss_func, valid_dl, epoch=0):
    model.eval()
    with torch.no_grad():
        tot_loss, count = 0., 0
        for xb, _ in valid_dl:
            pred = model(xb)
            n = len(xb)
            count += n
            tot_loss += loss_func(pred, xb).item() * n
    print(epoch, f'{tot_loss/count:.3f}')
""",
    """\
def fit(epochs, model, loss_func, opt, train_dl, valid_dl):
    for epoch in range(epochs):
        model.train()
        for xb, _ in train_dl:
            loss = loss_func(model(xb), xb)
            loss.backward()
            opt.step()
            opt.zero_grad()
        eval(model, loss_func, valid_dl, epoch)
""",
    """\
ae = nn.Sequential(nn.Flatten(), nn.Linear(784, 32), nn.ReLU(), nn.Linear(32, 784), nn.Sigmoid(),
                   nn.Unflatten(1, (1, 28, 28))).to(def_device)
opt = optim.SGD(ae.parameters(), lr=0.01)
fit(5, ae, F.mse_loss, opt, dt, dv)
""",
    """\
p = ae(xb)
""",
]


def _lint_nb(cells):
    return sorted((f.code, f.cell, f.line) for f in lint_source(_nb(*cells), "autoencoder.ipynb", select=RULES))


def test_notebook_collate_that_moves_through_a_helper_and_kwargs():
    assert _lint_nb(_NB_CELLS) == []


def test_notebook_collate_on_the_host_is_still_flagged():
    # Control: the collate function only stacks (no move): the batches reach the model on the host.
    cells = list(_NB_CELLS)
    cells[2] = cells[2].replace("return to_device(cf(b))", "return cf(b)")
    got = _lint_nb(cells)
    assert ("DL002", 8, 1) in got, got


def test_notebook_collate_calling_an_imported_to_device_given_to_the_loader_itself():
    # The same collate handed to the DataLoader directly: `to_device` (a star import's helper)
    # says by its name that each batch goes to the device.
    cells = list(_NB_CELLS)
    cells[3] = cells[3].replace("dls = data_loaders(tds, 256, collate_fn=collate_)",
                                "dls = {k: DataLoader(v, 256, collate_fn=collate_) for k, v in tds.items()}")
    assert "DataLoader(v, 256, collate_fn=collate_)" in cells[3]
    assert _lint_nb(cells) == []
