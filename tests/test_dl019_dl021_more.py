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
