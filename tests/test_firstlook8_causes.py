"""Causes found by the first look of 2026-11-27 (eighth round, devicelint 13e68f2,
`benchmarks/firstlook/2026-11-27c.json`), each as a realistic notebook with its control.

- False DL001: a seminar notebook rebuilds its model as `CaptionRNN(...).to(device)` in a
  cell that does not parse (an unfinished optimizer literal, DL000). The cell was blanked, so
  the name kept an earlier cell's unmoved test instance and `train(model, ...)` was reported
  against code the author had replaced. A cell that cannot be parsed still rebinds the names
  its text assigns: after it those names are unknown, and unknown stays silent.
- Missed DL003: `import matplotlib.pylab as plt` then `plt.imshow(mask_pred)` of a CUDA
  prediction (a book's segmentation deployment notebook). `pylab` re-exports pyplot's
  functions (over NumPy's), but only `matplotlib.pyplot.*` was known to convert.
"""

import json

from devicelint.engine import lint_source

RULES = ["DL001", "DL002", "DL003", "DL004", "DL006", "DL010", "DL011", "DL015"]


def _nb(*sources):
    cells = [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
              "source": src.splitlines(keepends=True)} for src in sources]
    return json.dumps({"cells": cells, "metadata": {"kernelspec": {"language": "python", "name": "python3"}},
                       "nbformat": 4, "nbformat_minor": 4}, indent=1)


def _lint_nb(cells, name="seminar.ipynb"):
    return sorted((f.code, f.cell, f.line) for f in lint_source(_nb(*cells), name, select=RULES + ["DL000"]))


# --- a cell that does not parse rebinds the model ----------------------------------------

_CAPTION_CELLS = [
    """\
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
from tqdm.notebook import tqdm

device = torch.device('cuda:0' if torch.cuda.is_available() else 'cpu')
""",
    """\
image_embeds = torch.randn(1000, 1280)
tokens_all = torch.randint(0, 500, (1000, 32))
train_set = TensorDataset(tokens_all, image_embeds)
train_loader = DataLoader(train_set, batch_size=128, shuffle=True, num_workers=4, pin_memory=True)
""",
    """\
class CaptionRNN(nn.Module):
    def __init__(self, image_embed_dim, embed_dim=256, hidden_dim=256, lstm_layers=1, dropout=0.1):
        super().__init__()
        self.image_embed_to_h0 = nn.Linear(image_embed_dim, lstm_layers * hidden_dim)
        self.embedding = nn.Embedding(500, embed_dim)
        self.lstm = nn.LSTM(embed_dim, hidden_dim, num_layers=lstm_layers, batch_first=True)
        self.linear = nn.Sequential(nn.Dropout(dropout), nn.Linear(hidden_dim, 500))

    def forward(self, tokens, image_embeds):
        h0 = self.image_embed_to_h0(image_embeds).unsqueeze(0)
        outputs, _ = self.lstm(self.embedding(tokens), (h0, torch.zeros_like(h0)))
        return self.linear(outputs)
""",
    """\
# testing on the host
model = CaptionRNN(image_embeds.shape[1])
for tokens, embeds in train_loader:
    break
logits = model(tokens, embeds)
""",
    """\
def train(model, optimizer, criterion, train_loader, num_epochs):
    for epoch in range(num_epochs):
        model.train()
        for tokens, embeds in tqdm(train_loader):
            tokens, embeds = tokens.to(device), embeds.to(device)
            optimizer.zero_grad()
            logits = model(tokens[:, :-1], embeds)
            loss = criterion(logits.transpose(1, 2), tokens[:, 1:])
            loss.backward()
            optimizer.step()
""",
    """\
NUM_EPOCHS = 20

model = CaptionRNN(image_embeds.shape[1], dropout=0.3).to(device)
optimizer = torch.optim.Adam(
    {
        "params": model.lstm.parameters(), "lr": 1e-3, weight_decay=1e-6}
    {
        "params": model.linear.parameters(), "lr": 1e-4,
)
criterion = nn.CrossEntropyLoss()
""",
    """\
train(model, optimizer, criterion, train_loader, NUM_EPOCHS)
""",
]


def test_a_cell_that_does_not_parse_rebinds_the_model_it_assigns():
    # at 13e68f2: DL001 on cell 7 (the blanked cell 6 left cell 4's host model bound)
    assert _lint_nb(_CAPTION_CELLS) == [("DL000", 6, 9)]


def test_control_the_same_cell_parsing_without_the_move_is_still_flagged():
    # the author's cell, fixed but without `.to(device)`: the model really stays on the host
    cells = list(_CAPTION_CELLS)
    cells[5] = """\
NUM_EPOCHS = 20

model = CaptionRNN(image_embeds.shape[1], dropout=0.3)
optimizer = torch.optim.Adam([
    {"params": model.lstm.parameters(), "lr": 1e-3, "weight_decay": 1e-6},
    {"params": model.linear.parameters(), "lr": 1e-4},
])
criterion = nn.CrossEntropyLoss()
"""
    assert _lint_nb(cells) == [("DL001", 7, 1)]


def test_control_a_broken_cell_that_does_not_assign_the_model_hides_nothing():
    # the broken cell only builds the optimizer: `model` is still the host test instance
    cells = list(_CAPTION_CELLS)
    cells[5] = """\
NUM_EPOCHS = 20
optimizer = torch.optim.Adam(
    {"params": model.lstm.parameters(), "lr": 1e-3, weight_decay=1e-6}
)
criterion = nn.CrossEntropyLoss()
"""
    got = _lint_nb(cells)
    assert ("DL000", 6, 3) in got and ("DL001", 7, 1) in got, got


def test_the_rebinding_never_reaches_a_fix_or_the_written_cell():
    # the blanked cell stays masked: the DL001 fix of the control lands in the model's own cell
    from devicelint import notebook

    nb = notebook.Notebook(_nb(*_CAPTION_CELLS).encode())
    nb.mask_broken("seminar.ipynb")
    broken = next(c for c in nb.cells if c.index == 6)
    assert broken.masked == set(range(len(broken.lines)))
    assert nb.rebuild(nb.source) == {}


# --- pylab is pyplot ---------------------------------------------------------------------

_SEGMENT_CELLS = [
    """\
import os
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from PIL import Image
from torchvision.transforms.functional import to_tensor
""",
    """\
class SegNet(nn.Module):
    def __init__(self, params):
        super(SegNet, self).__init__()
        C_in, H_in, W_in = params["input_shape"]
        init_f = params["initial_filters"]
        self.conv1 = nn.Conv2d(C_in, init_f, kernel_size=3, stride=1, padding=1)
        self.conv_out = nn.Conv2d(init_f, params["num_outputs"], kernel_size=3, padding=1)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        return self.conv_out(x)
""",
    """\
h, w = 128, 192
model = SegNet({"input_shape": (1, h, w), "initial_filters": 16, "num_outputs": 1})
device = torch.device('cuda:1' if torch.cuda.is_available() else 'cpu')
model = model.to(device)
model.load_state_dict(torch.load("./models/weights.pt", map_location=device))
model.eval()
""",
    """\
import matplotlib.pylab as plt

for fn in os.listdir("./data/test_set/")[:4]:
    img = Image.open(os.path.join("./data/test_set/", fn)).resize((w, h))
    img_t = to_tensor(img).unsqueeze(0).to(device)
    pred = torch.sigmoid(model(img_t))[0]
    mask_pred = (pred[0] >= 0.5)
    plt.figure()
    plt.subplot(1, 2, 1)
    plt.imshow(img, cmap="gray")
    plt.subplot(1, 2, 2)
    plt.imshow(mask_pred, cmap="gray")
""",
]


def test_pylab_imshow_of_a_device_prediction_is_flagged():
    # at 13e68f2: silent (`matplotlib.pylab.imshow` was no known converter)
    assert _lint_nb(_SEGMENT_CELLS, "deployment.ipynb") == [("DL003", 4, 12)]


def test_top_level_pylab_is_pyplot_too():
    cells = list(_SEGMENT_CELLS)
    cells[3] = cells[3].replace("import matplotlib.pylab as plt", "import pylab as plt")
    assert _lint_nb(cells, "deployment.ipynb") == [("DL003", 4, 12)]


def test_control_pylab_imshow_of_the_host_mask_is_silent():
    cells = list(_SEGMENT_CELLS)
    cells[3] = cells[3].replace('plt.imshow(mask_pred, cmap="gray")', 'plt.imshow(mask_pred.cpu(), cmap="gray")')
    assert _lint_nb(cells, "deployment.ipynb") == []


def test_pylab_numpy_reduction_stays_numpy():
    # `pylab.mean` is NumPy's (pyplot has none): `np.mean(t)` calls `t.mean()`, no conversion
    cells = list(_SEGMENT_CELLS)
    cells[3] = cells[3].replace('plt.imshow(mask_pred, cmap="gray")', 'print(plt.mean(pred))')
    assert _lint_nb(cells, "deployment.ipynb") == []


def test_the_names_a_broken_cell_rebinds():
    # unindented assignments (tuples, annotations, augmented), defs and classes; never a keyword,
    # an indented line, a comparison or an attribute/subscript store
    from devicelint.notebook import _rebinding

    lines = [
        "token_to_id = <dictionary of symbol -> its identifier>\n",
        "train_x, train_y = load()\n",
        "lr: float = 1e-3\n",
        "step += 1\n",
        "def train(model, loader):\n",
        "    inner = <YOUR CODE>\n",
        "class Net(nn.Module):\n",
        "if epoch == 3:\n",
        "model.fc = nn.Linear(10, 2)\n",
        "weights[0] = 1\n",
    ]
    assert _rebinding(lines) == ("token_to_id = train_x = train_y = lr = step = train = Net"
                                 " = __devicelint_unparsed_cell__\n")
    assert _rebinding(["    x = <indented only>\n", "print(<YOUR CODE>)\n"]) == "\n"
