"""The data pipeline (issue 20, item 4): a loader's batches are what its dataset's `__getitem__`
returns, through the wrappers and the ways scripts read them (`for`, `enumerate`,
`next(iter(loader))`, `dataset[i]`, `dataset[i][0]`), with the Dataset class in the project's own
`datasets.py` / `dataset.py` the way training repositories keep it.

Each test below that is not marked as a control fails on 6d3cec3."""

import textwrap

import pytest

from devicelint.engine import lint_file

HEAD = """\
import argparse

import torch
import torch.nn as nn
from torch.utils.data import ConcatDataset, DataLoader, Dataset, Subset, TensorDataset, random_split
"""

# a Dataset whose `__getitem__` puts both tensors of the pair on the device
PLACING = HEAD + '''
DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Pairs(Dataset):
    """Features and labels, served straight from device memory."""

    def __init__(self, n=512, dim=16):
        self.x = torch.randn(n, dim)
        self.y = torch.randint(0, 2, (n,))

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        x = self.x[i].to(DEVICE)
        return x, self.y[i].to(DEVICE)
'''

# the same, items left on the host
HOST = HEAD + '''

class Pairs(Dataset):
    def __init__(self, n=512, dim=16):
        self.x = torch.randn(n, dim)
        self.y = torch.randint(0, 2, (n,))

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]
'''

# a dict batch placed key by key
PLACING_DICT = HEAD + '''

class Tokens(Dataset):
    def __init__(self, ids, labels, device):
        self.ids, self.labels, self.device = ids, labels, device

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, i):
        return {"input_ids": self.ids[i].to(self.device), "labels": self.labels[i].to(self.device)}
'''


def train_script(imports: str, setup: str, loop: str) -> str:
    body = textwrap.indent(textwrap.dedent(setup).strip("\n") + "\n" + textwrap.dedent(loop).strip("\n"), "    ")
    return HEAD + imports + '''

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 2)

    def forward(self, x):
        return self.fc(x)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--lr", type=float, default=1e-3)
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = Net().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    criterion = nn.CrossEntropyLoss()
''' + body + '''


if __name__ == "__main__":
    main()
'''


TRAIN_LOOP = """
for epoch in range(args.epochs):
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
"""

EVAL_LOOP = """
model.eval()
with torch.no_grad():
    for i, (x, y) in enumerate(loader):
        pred = model(x).argmax(1)
        print(i, (pred == y).float().mean().item(), y.numpy())
"""


def lint_project(tmp_path, files: dict, select=("DL002", "DL003")) -> list:
    """Write the project, lint train.py: (code, the flagged line's text) per finding."""
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    path = tmp_path / "train.py"
    lines = path.read_text().splitlines()
    found = lint_file(str(path), select=list(select))
    return sorted((f.code, lines[f.line - 1].strip()) for f in found)


# ---------------------------------------------------------------- datasets.py shadows HF datasets


def test_a_dataset_of_datasets_py_that_places_its_items_yields_no_host_batches(tmp_path):
    """`from datasets import Pairs` next to a `datasets.py` imports the project's file (the
    script's folder is first on sys.path), not Hugging Face's package: its Pairs moves."""
    got = lint_project(tmp_path, {"datasets.py": PLACING, "train.py": train_script(
        "from datasets import Pairs\n", "loader = DataLoader(Pairs(), batch_size=32, shuffle=True)", TRAIN_LOOP)})
    assert got == []


def test_control_a_dataset_of_datasets_py_with_host_items_still_needs_its_batches_moved(tmp_path):
    got = lint_project(tmp_path, {"datasets.py": HOST, "train.py": train_script(
        "from datasets import Pairs\n", "loader = DataLoader(Pairs(), batch_size=32, shuffle=True)", TRAIN_LOOP)})
    assert got == [("DL002", "loss = criterion(model(x), y)")]


def test_control_a_datasets_folder_of_data_files_does_not_hide_hugging_face(tmp_path):
    """A plain `datasets/` folder (a namespace, not a package) loses to the installed package."""
    (tmp_path / "datasets").mkdir()
    (tmp_path / "datasets" / "train.csv").write_text("a,b\n")
    got = lint_project(tmp_path, {"train.py": train_script(
        "from datasets import load_dataset\n",
        'ds = load_dataset("csv", data_files="datasets/train.csv", split="train").with_format("torch")\n'
        "loader = DataLoader(ds, batch_size=32)",
        'for batch in loader:\n    print(model(batch["a"].float()))')})
    assert got == [("DL002", 'print(model(batch["a"].float()))')]


# ---------------------------------------------------------------- the wrappers keep the item's place


@pytest.mark.parametrize("setup", [
    "full = Pairs()\ntrain_set = Subset(full, range(400))\nloader = DataLoader(train_set, batch_size=32)",
    "train_set, val_set = random_split(Pairs(), [400, 112])\nloader = DataLoader(train_set, batch_size=32)",
    "loader = DataLoader(ConcatDataset([Pairs(), Pairs(n=128)]), batch_size=32)",
], ids=["Subset", "random_split", "ConcatDataset"])
def test_wrappers_of_a_placing_dataset_from_datasets_py_yield_no_host_batches(tmp_path, setup):
    got = lint_project(tmp_path, {"datasets.py": PLACING, "train.py": train_script(
        "from datasets import Pairs\n", setup, TRAIN_LOOP)})
    assert got == []


@pytest.mark.parametrize("setup", [
    "full = Pairs()\ntrain_set = Subset(full, range(400))\nloader = DataLoader(train_set, batch_size=32)",
    "train_set, val_set = random_split(Pairs(), [400, 112])\nloader = DataLoader(train_set, batch_size=32)",
    "loader = DataLoader(ConcatDataset([Pairs(), Pairs(n=128)]), batch_size=32)",
], ids=["Subset", "random_split", "ConcatDataset"])
def test_control_wrappers_of_a_host_dataset_from_datasets_py_still_need_their_batches_moved(tmp_path, setup):
    got = lint_project(tmp_path, {"datasets.py": HOST, "train.py": train_script(
        "from datasets import Pairs\n", setup, TRAIN_LOOP)})
    assert got == [("DL002", "loss = criterion(model(x), y)")]


# ---------------------------------------------------------------- batches on the device


def test_enumerate_over_a_loader_of_a_placing_dataset_gives_device_batches(tmp_path):
    """`for i, (x, y) in enumerate(loader)`: y comes from `__getitem__`'s `.to(DEVICE)`, so
    `y.numpy()` fails on a GPU machine (the file is dataset.py: no shadowing involved)."""
    got = lint_project(tmp_path, {"dataset.py": PLACING, "train.py": train_script(
        "from dataset import Pairs\n", "loader = DataLoader(Pairs(), batch_size=32)", EVAL_LOOP)})
    assert got == [("DL003", "print(i, (pred == y).float().mean().item(), y.numpy())")]


def test_next_iter_over_a_loader_of_a_placing_dataset(tmp_path):
    got = lint_project(tmp_path, {"dataset.py": PLACING, "train.py": train_script(
        "from dataset import Pairs\n", "loader = DataLoader(Pairs(), batch_size=32)", """
        x, y = next(iter(loader))
        print(model(x).shape, y.numpy()[:8])
        """)})
    assert got == [("DL003", "print(model(x).shape, y.numpy()[:8])")]


def test_indexing_a_placing_dataset(tmp_path):
    """`dataset[i]` and `dataset[i][0]` are the item `__getitem__` returns."""
    got = lint_project(tmp_path, {"dataset.py": PLACING, "train.py": train_script(
        "from dataset import Pairs\n", "data = Pairs()", """
        x, y = data[0]
        print(model(x.unsqueeze(0)), y.numpy())
        first = data[1][0]
        print(first.numpy().round(2))
        """)})
    assert got == [("DL003", "print(first.numpy().round(2))"), ("DL003", "print(model(x.unsqueeze(0)), y.numpy())")]


def test_a_dict_batch_placed_key_by_key_in_the_same_file(tmp_path):
    script = train_script("", """
        ids = torch.randint(0, 100, (256, 16)).float()
        labels = torch.randint(0, 2, (256,))
        loader = DataLoader(Tokens(ids, labels, device), batch_size=16)
        """, """
        for batch in loader:
            logits = model(batch["input_ids"])
            print(logits.shape, batch["labels"].numpy())
        """)
    script = script.replace("\n\nclass Net(", PLACING_DICT[len(HEAD):] + "\n\nclass Net(", 1)
    got = lint_project(tmp_path, {"train.py": script})
    assert got == [("DL003", 'print(logits.shape, batch["labels"].numpy())')]


def test_a_tensor_dataset_keeps_each_tensor_where_it_is(tmp_path):
    """`TensorDataset(features.to(device), labels)`: the features are on the device, the
    labels on the host (no finding for them)."""
    got = lint_project(tmp_path, {"train.py": train_script("", """
        features = torch.randn(512, 16).to(device)
        labels = torch.randint(0, 2, (512,))
        loader = DataLoader(TensorDataset(features, labels), batch_size=32)
        """, """
        for x, y in loader:
            print(x.numpy().mean(), y.numpy().sum())
        """)})
    assert got == [("DL003", "print(x.numpy().mean(), y.numpy().sum())")]
    assert len(lint_file(str(tmp_path / "train.py"), select=["DL003"])) == 1


def test_control_a_dataset_told_the_host_places_nothing(tmp_path):
    got = lint_project(tmp_path, {"dataset.py": PLACING_DICT, "train.py": train_script(
        "from dataset import Tokens\n", """
        ids = torch.randn(256, 16)
        labels = torch.randint(0, 2, (256,))
        loader = DataLoader(Tokens(ids, labels, device="cpu"), batch_size=16)
        """, """
        for batch in loader:
            print(batch["labels"].numpy())
        """)})
    assert got == []


def test_control_a_collate_fn_changes_what_the_loader_yields(tmp_path):
    """A collate function of its own builds the batch: the item's places no longer say."""
    got = lint_project(tmp_path, {"dataset.py": PLACING, "train.py": train_script(
        "from dataset import Pairs\n", """
        def collate(rows):
            return torch.stack([r[0].cpu() for r in rows]), torch.stack([r[1].cpu() for r in rows])

        loader = DataLoader(Pairs(), batch_size=32, collate_fn=collate)
        """, EVAL_LOOP)})
    assert got == []


# ---------------------------------------------------------------- Hugging Face datasets


@pytest.mark.parametrize("setup", [
    'ds = load_dataset("imdb", split="train").with_format("torch", device=device)',
    'ds = load_dataset("imdb", split="train")\nds.set_format(type="torch", columns=["input_ids"], device=device)',
], ids=["with_format", "set_format"])
def test_a_hugging_face_dataset_formatted_on_the_device_yields_no_host_batches(tmp_path, setup):
    got = lint_project(tmp_path, {"train.py": train_script(
        "from datasets import load_dataset\n", setup + "\nloader = DataLoader(ds, batch_size=32)",
        'for batch in loader:\n    print(model(batch["input_ids"].float()))')})
    assert got == []


def test_control_a_hugging_face_dataset_formatted_for_torch_alone_is_host_data(tmp_path):
    got = lint_project(tmp_path, {"train.py": train_script(
        "from datasets import load_dataset\n",
        'ds = load_dataset("imdb", split="train").with_format("torch")\nloader = DataLoader(ds, batch_size=32)',
        'for batch in loader:\n    print(model(batch["input_ids"].float()))')})
    assert got == [("DL002", 'print(model(batch["input_ids"].float()))')]


# ---------------------------------------------------------------- collate functions

COLLATE_UTILS = HEAD + '''
DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def pad_batch(rows):
    """Stack the pairs of a batch (the features may differ in length in real data)."""
    xs = torch.stack([r[0] for r in rows])
    ys = torch.stack([r[1] for r in rows])
    return xs, ys


def to_gpu_batch(rows):
    xs, ys = pad_batch(rows)
    return xs.to(DEVICE), ys.to(DEVICE)
'''


def test_a_collate_fn_of_utils_py_that_moves_nothing_leaves_host_batches(tmp_path):
    got = lint_project(tmp_path, {"dataset.py": HOST, "utils.py": COLLATE_UTILS, "train.py": train_script(
        "from dataset import Pairs\nfrom utils import pad_batch\n",
        "loader = DataLoader(Pairs(), batch_size=32, shuffle=True, collate_fn=pad_batch)", TRAIN_LOOP)})
    assert got == [("DL002", "loss = criterion(model(x), y)")]


def test_a_collate_fn_of_utils_py_that_moves_gives_device_batches(tmp_path):
    got = lint_project(tmp_path, {"dataset.py": HOST, "utils.py": COLLATE_UTILS, "train.py": train_script(
        "from dataset import Pairs\nfrom utils import to_gpu_batch\n",
        "loader = DataLoader(Pairs(), batch_size=32, collate_fn=to_gpu_batch)", EVAL_LOOP)})
    assert got == [("DL003", "print(i, (pred == y).float().mean().item(), y.numpy())")]


def test_a_collate_fn_of_the_script_that_moves_gives_device_batches(tmp_path):
    got = lint_project(tmp_path, {"dataset.py": HOST, "train.py": train_script(
        "from dataset import Pairs\n", """
        def collate(rows):
            xs = torch.stack([r[0] for r in rows]).to(device)
            return xs, torch.stack([r[1] for r in rows]).to(device)

        loader = DataLoader(Pairs(), batch_size=32, collate_fn=collate)
        """, EVAL_LOOP)})
    assert got == [("DL003", "print(i, (pred == y).float().mean().item(), y.numpy())")]
