"""The result cache: same answers warm as cold, keyed on content and rules, robust to damage."""

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from devicelint.cli import cli

BUGGY = '''import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 2)
x = torch.randn(8, 4, device=device)
out = model(x)
'''


def _run(args, cwd):
    r = CliRunner().invoke(cli, [*args, "--output-format", "json"], catch_exceptions=False)
    return r.exit_code, json.loads(r.output)


def _entries(cache: Path):
    return sorted(p for p in cache.rglob("*.json"))


def test_warm_run_reads_the_cache_and_gives_the_same_findings(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "train.py").write_text(BUGGY)
    cold = _run(["train.py"], tmp_path)
    entries = _entries(tmp_path / ".devicelint_cache")
    assert len(entries) == 1
    # prove the second run reads the entry: doctor it and see the doctored finding come back
    row = json.loads(entries[0].read_text())
    row[0]["message"] = "from the cache"
    entries[0].write_text(json.dumps(row))
    warm = _run(["train.py"], tmp_path)
    assert warm[0] == cold[0] == 1
    assert [f["message"] for f in warm[1]] == ["from the cache"]
    assert [(f["path"], f["line"], f["code"]) for f in warm[1]] == [(f["path"], f["line"], f["code"]) for f in cold[1]]


def test_key_changes_with_content_and_rules(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "train.py").write_text(BUGGY)
    _run(["train.py"], tmp_path)
    _run(["train.py", "--select", "DL001"], tmp_path)
    (tmp_path / "train.py").write_text(BUGGY.replace("model(x)", "model.to(device)(x)"))
    code, found = _run(["train.py"], tmp_path)
    assert code == 0 and found == []
    assert len(_entries(tmp_path / ".devicelint_cache")) == 3


def test_corrupted_entry_is_ignored_and_rewritten(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "train.py").write_text(BUGGY)
    _run(["train.py"], tmp_path)
    (entry,) = _entries(tmp_path / ".devicelint_cache")
    entry.write_text("{not json")
    code, found = _run(["train.py"], tmp_path)
    assert code == 1 and [f["code"] for f in found] == ["DL001"]
    assert json.loads(entry.read_text())[0]["code"] == "DL001"


def test_no_cache_and_cache_dir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "train.py").write_text(BUGGY)
    _run(["train.py", "--no-cache"], tmp_path)
    assert not (tmp_path / ".devicelint_cache").exists()
    _run(["train.py", "--cache-dir", str(tmp_path / "elsewhere")], tmp_path)
    assert len(_entries(tmp_path / "elsewhere")) == 1
    assert not (tmp_path / ".devicelint_cache").exists()


def test_concurrent_runs_agree(tmp_path):
    for i in range(30):
        (tmp_path / f"m{i}.py").write_text(BUGGY + f"# {i}\n")
    cmd = [sys.executable, "-m", "devicelint", ".", "--output-format", "json", "--jobs", "2"]
    procs = [subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(3)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 1 for p in procs), [o[1] for o in outs]
    results = [json.loads(o[0]) for o in outs]
    assert results[0] == results[1] == results[2] and len(results[0]) == 30
    assert not list((tmp_path / ".devicelint_cache").rglob("*.tmp"))
