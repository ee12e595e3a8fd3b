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


def test_full_disk_leaves_no_temporary_files(tmp_path, monkeypatch):
    import errno
    import os

    from devicelint import cache
    from devicelint.findings import Finding

    real_fdopen = os.fdopen

    class Full:  # the temporary file opens, its write fails: a disk that fills up
        def __init__(self, *a, **k):
            self.f = real_fdopen(*a, **k)

        def write(self, data):
            raise OSError(errno.ENOSPC, "No space left on device")

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.f.close()

    monkeypatch.setattr(os, "fdopen", Full)
    found = [Finding("t.py", 1, 1, 1, 2, "DL001", "model-not-moved", "m")]
    cache.store(str(tmp_path / "c"), "ab" * 32, found)
    assert not list((tmp_path / "c").rglob("*.tmp"))
    assert cache.load(str(tmp_path / "c"), "ab" * 32, "t.py") is None


def test_prune_drops_old_and_oversized_entries_once_a_day(tmp_path, monkeypatch):
    import os
    import time

    from devicelint import cache

    c = tmp_path / "c"
    (c / "aa").mkdir(parents=True)
    now = time.time()
    ages = {"old": 40, "recent": 1, "newest": 0}
    for name, days in ages.items():
        p = c / "aa" / f"{name}.json"
        p.write_text("[]" + " " * 1000)
        os.utime(p, (now - days * 86400, now - days * 86400))
    leftover = c / "aa" / "x.tmp"
    leftover.write_text("")
    os.utime(leftover, (now - 7200, now - 7200))
    assert cache.prune(str(c)) == 2  # the 40-day-old entry and the dead run's .tmp
    assert sorted(p.name for p in (c / "aa").iterdir()) == ["newest.json", "recent.json"]
    monkeypatch.setattr(cache, "MAX_BYTES", 1500)
    assert cache.prune(str(c)) == 0  # not due again today
    assert cache.prune(str(c), force=True) == 1  # over the size cap: the older one goes
    assert [p.name for p in (c / "aa").iterdir()] == ["newest.json"]


def test_a_run_prunes_and_reading_an_entry_keeps_it_young(tmp_path, monkeypatch):
    import os
    import time

    monkeypatch.chdir(tmp_path)
    (tmp_path / "train.py").write_text(BUGGY)
    _run(["train.py"], tmp_path)
    (entry,) = _entries(tmp_path / ".devicelint_cache")
    stamp = tmp_path / ".devicelint_cache" / ".last-prune"
    assert stamp.exists()
    old = time.time() - 40 * 86400
    os.utime(stamp, (old, old))
    os.utime(entry, (old, old))
    _run(["train.py"], tmp_path)  # reads it (so it is in use) before the prune
    assert entry.exists() and time.time() - entry.stat().st_mtime < 3600


def test_clean_removes_the_cache_and_nothing_else(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "train.py").write_text(BUGGY)
    _run(["train.py"], tmp_path)
    assert (tmp_path / ".devicelint_cache").is_dir()
    r = CliRunner().invoke(cli, ["clean"])
    assert r.exit_code == 0 and "Removed" in r.output
    assert not (tmp_path / ".devicelint_cache").exists() and (tmp_path / "train.py").exists()
    assert "No cache" in CliRunner().invoke(cli, ["clean"]).output
    (tmp_path / "precious").mkdir()
    (tmp_path / "precious" / "data.txt").write_text("keep me")
    r = CliRunner().invoke(cli, ["clean", "--cache-dir", "precious"])
    assert r.exit_code == 2 and "does not look like a devicelint cache" in r.output
    assert (tmp_path / "precious" / "data.txt").exists()


def test_too_complex_is_never_cached(tmp_path, monkeypatch):
    """A timeout depends on how busy the machine was; the next run must try again."""
    from devicelint import limits

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(limits, "MAX_LINES", 3)
    (tmp_path / "train.py").write_text(BUGGY)
    code, found = _run(["train.py"], tmp_path)
    assert [f["name"] for f in found] == ["too-complex"]
    assert _entries(tmp_path / ".devicelint_cache") == []
