"""`--add-noqa`: one `# noqa: DLnnn` per flagged line, merged with what is there, never
inside a string, idempotent."""

import textwrap

from click.testing import CliRunner

from devicelint.cli import cli
from devicelint.engine import lint_source
from devicelint.noqa import add_noqa

SCRIPT = '''\
import numpy as np
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 2).to(device)
x = torch.randn(8, 4, device=device)
with torch.no_grad():
    logits = model(x)
preds = logits.argmax(dim=1).numpy()
probs = np.asarray(logits.softmax(-1))  # noqa: E501
labels = logits.argmax(1).numpy()  # keep for the report
print("""probs:""", np.asarray(logits.softmax(-1)), """
""")
scaler = torch.cuda.amp.GradScaler()  # noqa: DL003
x.cpu() ; y = logits.numpy()
'''


def run(tmp_path, *args):
    return CliRunner().invoke(cli, [str(tmp_path / "train.py"), "--no-cache", *args])


def test_add_noqa_appends_merges_and_keeps_strings(tmp_path):
    (tmp_path / "train.py").write_text(SCRIPT)
    before = lint_source(SCRIPT, "train.py")
    assert {f.line for f in before} == {9, 10, 11, 12, 14, 15}
    r = run(tmp_path, "--add-noqa")
    assert r.exit_code == 0, r.output
    assert "Added 5 noqa directives." in r.output
    after = (tmp_path / "train.py").read_text().splitlines()
    assert after[8] == "preds = logits.argmax(dim=1).numpy()  # noqa: DL003"
    assert after[9] == "probs = np.asarray(logits.softmax(-1))  # noqa: E501, DL003"
    assert after[10] == "labels = logits.argmax(1).numpy()  # keep for the report  # noqa: DL003"
    # the line ends inside a string: a comment there would change the text
    assert after[11] == 'print("""probs:""", np.asarray(logits.softmax(-1)), """'
    assert after[13] == "scaler = torch.cuda.amp.GradScaler()  # noqa: DL003, DL005"
    assert after[14] == "x.cpu() ; y = logits.numpy()  # noqa: DL003, DL006"
    left = lint_source((tmp_path / "train.py").read_text(), "train.py")
    assert [f.line for f in left] == [12]  # only the one a comment cannot reach


def test_add_noqa_is_idempotent(tmp_path):
    (tmp_path / "train.py").write_text(SCRIPT)
    run(tmp_path, "--add-noqa")
    once = (tmp_path / "train.py").read_bytes()
    r = run(tmp_path, "--add-noqa")
    assert r.exit_code == 0 and "Added 0 noqa directives." in r.output
    assert (tmp_path / "train.py").read_bytes() == once


def test_multiline_statement_and_backslash_and_crlf():
    src = textwrap.dedent('''\
    import torch
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    x = torch.randn(8, 4, device=device)
    arr = (x +
           1).numpy()
    b = x \\
        .numpy()
    ''').replace("\n", "\r\n").encode()
    findings = lint_source(src, "t.py")
    assert sorted((f.line, f.end_line) for f in findings) == [(4, 5), (6, 7)]
    new, count = add_noqa(src, findings)
    assert count == 2
    lines = new.split(b"\r\n")
    assert lines[3] == b"arr = (x +  # noqa: DL003"
    # a comment after a backslash would break the code: the finding's last line takes it
    assert lines[5] == b"b = x \\" and lines[6] == b"    .numpy()  # noqa: DL003"
    assert lint_source(new, "t.py") == []
    assert new.count(b"\r\n") == src.count(b"\r\n")


def test_stdin_is_refused(tmp_path):
    r = CliRunner().invoke(cli, ["-", "--add-noqa", "--no-cache"], input=SCRIPT)
    assert r.exit_code == 2 and "cannot read stdin" in r.output


# --- notebooks: the directives go into the cells' sources ------------------------------------

import json  # noqa: E402


def _cell(kind, text, outputs=None, count=None, ident="c"):
    cell = {"cell_type": kind, "id": ident, "metadata": {}, "source": text.splitlines(keepends=True)}
    if kind == "code":
        cell.update(execution_count=count, outputs=outputs or [])
    return cell


COURSE = {
    "cells": [
        _cell("markdown", "# Week 4: evaluating a classifier\n", ident="intro"),
        _cell("code", '%load_ext autoreload\nimport numpy as np\nimport torch\nimport torch.nn as nn\n\ndevice = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n',
              count=1, ident="imports"),
        _cell("code", "class Classifier(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(20, 3)\n\n"
                      "    def forward(self, x):\n        return self.fc(x)\n\n\nmodel = Classifier().to(device)\n", count=2, ident="model"),
        _cell("code", "features = torch.randn(128, 20, device=device)\nwith torch.no_grad():\n    logits = model(features)\n"
                      "preds = logits.argmax(dim=1).numpy()  # class ids for the report\nprint(np.bincount(preds))\n"
                      "%time probs = logits.softmax(dim=1).numpy()\n",
              outputs=[{"name": "stdout", "output_type": "stream", "text": ["[40 45 43]\n"]},
                       {"data": {"text/plain": ["<Figure size 640x480>"]}, "metadata": {}, "output_type": "display_data"}],
              count=3, ident="eval"),
    ],
    "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                 "language_info": {"name": "python"}},
    "nbformat": 4,
    "nbformat_minor": 5,
}


def test_add_noqa_writes_into_notebook_cells_and_names_what_it_cannot_silence(tmp_path):
    text = json.dumps(COURSE, indent=1) + "\n"
    path = tmp_path / "week4.ipynb"
    path.write_text(text)
    (tmp_path / "train.py").write_text(SCRIPT)
    r = CliRunner().invoke(cli, [str(tmp_path), "--no-cache", "--add-noqa"])
    assert r.exit_code == 0, r.output
    assert "Added 6 noqa directives." in r.stderr  # 5 in train.py, 1 in the notebook
    assert f"{path}:cell 4:6:15: DL003 [numpy-on-cuda] not silenced: line 6 of cell 4 is IPython syntax" in r.stderr
    # the script's line that ends inside a string is named too, no longer left silently
    assert f"{tmp_path / 'train.py'}:12:21: DL003 [numpy-on-cuda] not silenced: its lines end inside a string" in r.stderr
    after = json.loads(path.read_text())
    want = json.loads(text)
    want["cells"][3]["source"][3] = "preds = logits.argmax(dim=1).numpy()  # class ids for the report  # noqa: DL003\n"
    assert after == want  # outputs, metadata, ids untouched; only that line changed
    left = CliRunner().invoke(cli, [str(path), "--no-cache", "--output-format", "json"])
    assert [(f["cell"], f["line"]) for f in json.loads(left.stdout)] == [(4, 6)]
    again = CliRunner().invoke(cli, [str(path), "--no-cache", "--add-noqa"])
    assert "Added 0 noqa directives." in again.stderr and json.loads(path.read_text()) == want


def test_add_noqa_says_in_one_line_how_many_dl000_findings_it_cannot_silence(tmp_path):
    # a notebook export cut off mid-call and a file saved half-merged: no directive silences a
    # file that does not parse, and the next lint run stays red; say so instead of nothing
    (tmp_path / "train.py").write_text(SCRIPT)
    (tmp_path / "export.py").write_text("import torch\nmodel = torch.nn.Linear(4, 2).to(\n")
    (tmp_path / "merge.py").write_text("import torch\n<<<<<<< HEAD\nx = torch.zeros(3)\n=======\n")
    r = CliRunner().invoke(cli, [str(tmp_path), "--no-cache", "--add-noqa"])
    assert r.exit_code == 0, r.output
    lines = [ln for ln in r.output.splitlines() if "DL000" in ln]
    assert lines == ["2 DL000 findings not silenced: a file that cannot be read or parsed cannot be silenced by noqa "
                     "(run devicelint without --add-noqa to see them)"]
    assert "Added 5 noqa directives." in r.output
