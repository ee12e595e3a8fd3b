"""Issue 23, more DL019 / DL021: one finding per shuffling loader, on the DataLoader(...) line
where `generator=` goes (DL019); the tuple form `x, y = x.to(d), y.to(d)` read like one
assignment per line (DL021). Realistic scripts and notebook cells, with controls."""

import textwrap

from devicelint.engine import lint_source


def flagged(code: str, select) -> list:
    code = textwrap.dedent(code).lstrip("\n")
    return sorted((f.code, f.line) for f in lint_source(code, "train.py", select=list(select)))


def marked(code: str, tag: str) -> list:
    lines = textwrap.dedent(code).lstrip("\n").splitlines()
    return sorted((tag, i) for i, line in enumerate(lines, 1) if f"# <- {tag}" in line)


# ---------------------------------------------------------------- DL021, the tuple form

NOTEBOOK_EVAL = """
    import numpy as np
    import torch
    import torch.nn as nn
    from sklearn.metrics import accuracy_score, confusion_matrix
    from torch.utils.data import DataLoader, TensorDataset

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 5)).to(device)
    test_ds = TensorDataset(torch.randn(200, 32), torch.randint(0, 5, (200,)))
    test_loader = DataLoader(test_ds, batch_size=32)

    y_pred, y_true = [], []
    model.eval()
    with torch.no_grad():
        for images, labels in test_loader:
            {MOVE}
            outputs = model(images)
            {USE}
            y_pred.append(outputs.argmax(dim=1).cpu().numpy())
            y_true.append(labels.cpu().numpy())
    y_pred, y_true = np.concatenate(y_pred), np.concatenate(y_true)
    print(accuracy_score(y_true, y_pred))
    print(confusion_matrix(y_true, y_pred))
"""


def _eval(move: str, use: str = "pass") -> str:
    return NOTEBOOK_EVAL.replace("{MOVE}", move).replace("{USE}", use)


def test_dl021_tuple_move_of_labels_read_back_only():
    code = _eval("images, labels = images.to(device), labels.to(device)  # <- DL021")
    assert flagged(code, ["DL021"]) == marked(code, "DL021")


def test_dl021_tuple_with_cuda_and_parentheses():
    code = _eval("(images, labels) = (images.cuda(), labels.cuda())  # <- DL021")
    assert flagged(code, ["DL021"]) == marked(code, "DL021")


def test_dl021_tuple_same_as_one_assignment_per_line():
    one_per_line = _eval("images = images.to(device)\n            labels = labels.to(device)  # <- DL021")
    assert flagged(one_per_line, ["DL021"]) == marked(one_per_line, "DL021")


def test_dl021_tuple_control_labels_used_by_the_loss():
    code = _eval("images, labels = images.to(device), labels.to(device)",
                 "loss = nn.functional.cross_entropy(outputs, labels)")
    assert flagged(code, ["DL021"]) == []


def test_dl021_tuple_control_values_not_written_element_by_element():
    # a helper's pair, a starred target, a value of another length: which name gets which
    # value is not written down, so stay silent
    for move in ("images, labels = move_batch((images.to(device), labels.to(device)))",
                 "images, *rest = images.to(device), labels.to(device)",
                 "images, labels = [t.to(device) for t in (images, labels)]"):
        assert flagged(_eval(move), ["DL021"]) == [], move


# ---------------------------------------------------------------- DL019, one finding per loader

DETECTION_TRAIN = """
    import argparse

    import torch
    import torch.nn as nn
    import torch.optim as optim
    import torch.utils.data as data
    from torchvision import datasets, transforms

    parser = argparse.ArgumentParser(description="detector training")
    parser.add_argument("--batch_size", default=32, type=int)
    parser.add_argument("--max_iter", default=12000, type=int)
    parser.add_argument("--cuda", default=True, type=bool)
    args = parser.parse_args()

    if torch.cuda.is_available() and args.cuda:
        torch.set_default_tensor_type("torch.cuda.FloatTensor")
    else:
        torch.set_default_tensor_type("torch.FloatTensor")


    def train(net, dataset, val_set):
        optimizer = optim.SGD(net.parameters(), lr=1e-3, momentum=0.9)
        data_loader = data.DataLoader(dataset, args.batch_size, shuffle=True,  # <- DL019
                                      num_workers=4, pin_memory=True)
        val_loader = data.DataLoader(val_set, args.batch_size, shuffle={VAL_SHUFFLE}{VAL_GEN})
        batch_iterator = iter(data_loader)
        for iteration in range(args.max_iter):
            try:
                images, targets = next(batch_iterator)
            except StopIteration:
                batch_iterator = iter(data_loader)
                images, targets = next(batch_iterator)
            loss = nn.functional.cross_entropy(net(images.cuda()), targets.cuda())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if iteration % 1000 == 0:
                val_iter = iter(val_loader)
                for images, targets in val_iter:
                    print(net(images.cuda()).argmax(1).eq(targets.cuda()).float().mean().item())
"""


def _detection(val_shuffle: str = "False", val_gen: str = "") -> str:
    return DETECTION_TRAIN.replace("{VAL_SHUFFLE}", val_shuffle).replace("{VAL_GEN}", val_gen)


def test_dl019_reports_each_loader_once_on_its_dataloader_line():
    # iter(data_loader) twice (again after StopIteration): one bug, one finding, where `generator=` goes
    code = _detection()
    assert flagged(code, ["DL019"]) == marked(code, "DL019")


def test_dl019_for_over_the_iterator_iter_made_is_the_same_bug():
    # `val_iter = iter(val_loader)` then `for ... in val_iter`: one finding on val_loader's line
    code = _detection("True").replace("shuffle=True)", "shuffle=True)  # <- DL019")
    assert flagged(code, ["DL019"]) == marked(code, "DL019")
    assert len(marked(code, "DL019")) == 2


def test_dl019_message_names_where_the_loader_is_iterated():
    code = textwrap.dedent(_detection()).lstrip("\n")
    (finding,) = [f for f in lint_source(code, "train.py", select=["DL019"])]
    first_iter = 1 + code.splitlines().index("    batch_iterator = iter(data_loader)")
    assert f"(line {first_iter})" in finding.message and "generator=" in finding.message


def test_dl019_control_loader_with_a_generator_stays_silent():
    code = _detection("True", ", generator=torch.Generator(device=\"cuda\")")
    assert flagged(code, ["DL019"]) == marked(code, "DL019")  # only data_loader, not val_loader
    code = code.replace("pin_memory=True)", "pin_memory=True, generator=torch.Generator(device=\"cuda\"))")
    assert flagged(code, ["DL019"]) == []


def test_dl019_control_host_default_device_stays_silent():
    code = _detection("True").replace('"torch.cuda.FloatTensor"', '"torch.FloatTensor"')
    assert flagged(code, ["DL019"]) == []


LOSS_MODULE = """
import torch
import torch.nn as nn
import torch.nn.functional as F

if torch.cuda.is_available():
    torch.set_default_tensor_type("torch.cuda.FloatTensor")


class MultiBoxLoss(nn.Module):
    def forward(self, predictions, targets):
        return F.smooth_l1_loss(predictions, targets)
"""

TRAIN_SCRIPT = """
import argparse

import torch
from torch.utils.data import DataLoader, TensorDataset

from loss import MultiBoxLoss
{SETTER}

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=2)
args = parser.parse_args()

dataset = TensorDataset(torch.randn(256, 4), torch.randn(256, 4))
loader = DataLoader(dataset, batch_size=32, shuffle=True)
criterion = MultiBoxLoss()
for epoch in range(args.epochs):
    for preds, targets in loader:
        loss = criterion(preds, targets)
"""


def _project(tmp_path, setter: str) -> list:
    from devicelint.engine import lint_file

    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'ssd'\n")
    (tmp_path / "loss.py").write_text(LOSS_MODULE)
    main = tmp_path / "train.py"
    main.write_text(TRAIN_SCRIPT.replace("{SETTER}", setter))
    return sorted((f.code, f.line) for f in lint_file(str(main), select=["DL019"]))


def test_dl019_commented_out_setter_does_not_hide_the_imported_default(tmp_path):
    # importing loss.py makes CUDA the default; a setter left commented out in the script
    # (or named in a docstring) sets nothing
    expected = [("DL019", 15)]
    assert _project(tmp_path, "") == expected
    assert _project(tmp_path, '# torch.set_default_tensor_type("torch.cuda.FloatTensor")') == expected
    assert _project(tmp_path, '"""Call torch.set_default_tensor_type() before training."""') == expected


def test_dl019_control_script_own_host_setter_still_wins(tmp_path):
    assert _project(tmp_path, 'torch.set_default_tensor_type("torch.FloatTensor")') == []
