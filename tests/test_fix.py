"""`--fix` and `--diff`: safe rewrites only, never a broken file."""

import subprocess
import sys

from click.testing import CliRunner

from devicelint.cli import cli
from devicelint.engine import lint_source
from devicelint.fix import fix_source

SCRIPT = '''import numpy as np
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 2).to(device)
scaler = torch.cuda.amp.GradScaler(init_scale=1024.0)


def predict(x):
    with torch.cuda.amp.autocast(dtype=torch.float16):
        out = model(x.to(device))
    probs = out.softmax(-1).detach().numpy()
    return np.asarray(out.argmax(-1) + 1), probs
'''

FIXED = '''import numpy as np
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 2).to(device)
scaler = torch.amp.GradScaler("cuda", init_scale=1024.0)


def predict(x):
    with torch.amp.autocast("cuda", dtype=torch.float16):
        out = model(x.to(device))
    probs = out.softmax(-1).detach().cpu().numpy()
    return np.asarray((out.argmax(-1) + 1).cpu()), probs
'''


def test_fix_source_rewrites_and_the_result_is_clean():
    new, count = fix_source(SCRIPT.encode(), "predict.py")
    assert new.decode() == FIXED
    assert count == 4
    assert lint_source(new, "predict.py") == []


def test_unsafe_forms_are_left_alone():
    src = b"""import torch
from torch.cuda.amp import autocast
with autocast():
    pass
with torch.cuda.amp.autocast(True):
    pass
"""
    new, count = fix_source(src, "x.py")
    assert (new, count) == (src, 0)
    assert [f.code for f in lint_source(src, "x.py")] == ["DL005", "DL005"]


def test_cli_fix_writes_and_reports_the_rest(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "predict.py").write_text(SCRIPT)
    r = CliRunner().invoke(cli, ["predict.py", "--fix", "--no-cache", "--output-format", "concise"])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "predict.py").read_text() == FIXED


def test_cli_diff_changes_nothing(tmp_path):
    (tmp_path / "predict.py").write_text(SCRIPT)
    r = subprocess.run(
        [sys.executable, "-m", "devicelint", "predict.py", "--diff", "--no-cache"], cwd=tmp_path, capture_output=True, text=True
    )
    assert r.returncode == 1
    assert "+    probs = out.softmax(-1).detach().cpu().numpy()" in r.stdout
    assert (tmp_path / "predict.py").read_text() == SCRIPT


def test_fix_keeps_file_mode_and_never_writes_broken_code(tmp_path, monkeypatch):
    import devicelint.fix as fixmod

    path = tmp_path / "predict.py"
    path.write_text(SCRIPT)
    path.chmod(0o751)
    monkeypatch.setattr(fixmod, "_parses", lambda source, p: False)  # pretend every fix breaks the file
    new, count = fix_source(SCRIPT.encode(), str(path))
    assert (new, count) == (SCRIPT.encode(), 0)
    monkeypatch.undo()
    fixmod.write_atomically(str(path), FIXED.encode())
    assert path.read_text() == FIXED and (path.stat().st_mode & 0o777) == 0o751
    assert not list(tmp_path.glob(".devicelint-*"))
