"""Writes off the `--fix` path and runs that end early: a full disk, a read-only folder, a
config file that is not UTF-8, SIGTERM and Ctrl-C, and links out of the named tree. Nothing
is lost, nothing is left behind, one line says what happened."""

import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from devicelint.cli import cli

TRAIN = '''"""Train a small classifier on synthetic data."""
import argparse

import torch
from torch import nn


class Net(nn.Module):
    def __init__(self, hidden: int) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(16, hidden), nn.ReLU(), nn.Linear(hidden, 4))

    def forward(self, x):
        return self.body(x)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hidden", type=int, default=32)
    args = parser.parse_args()
    device = torch.device("cuda")
    model = Net(args.hidden).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(10):
        batch = {"x": torch.randn(8, 16, device=device), "y": torch.randint(0, 4, (8,), device=device)}
        loss = nn.functional.cross_entropy(model(batch["x"]), batch["y"])
        opt.zero_grad()
        loss.backward()
        opt.step()
        preds = model(batch["x"]).argmax(1).numpy()
        print(step, preds[:4])


if __name__ == "__main__":
    main()
'''
TRAIN_FIXED = TRAIN.replace(".argmax(1).numpy()", ".argmax(1).cpu().numpy()")
# the same script with a long docstring: a file bigger than the write limit used below
BIG = TRAIN.replace('"""Train a small classifier on synthetic data."""',
                    '"""Train a small classifier on synthetic data.\n\n' + "Usage notes. " * 400 + '\n"""')


def _devicelint(args, cwd, file_limit=None, **kw):
    """The real command in its own process; `file_limit` (bytes) makes every write past
    that size fail (RLIMIT_FSIZE, EFBIG): a disk that fills up part-way, without root."""
    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # fail the write instead of killing us
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_limit, file_limit))

    return subprocess.run([sys.executable, "-m", "devicelint", *args], cwd=cwd, capture_output=True, text=True,
                          preexec_fn=limit if file_limit else None, timeout=120, **kw)


def _leftovers(folder: Path) -> list:
    return sorted(p.name for p in folder.rglob(".devicelint-*"))


def test_write_baseline_on_a_full_disk_keeps_the_old_baseline(tmp_path):
    (tmp_path / "train.py").write_text(TRAIN)
    r = _devicelint(["--no-cache", "--write-baseline", "baseline.json", "train.py"], tmp_path)
    assert r.returncode == 0, r.stderr
    old = (tmp_path / "baseline.json").read_bytes()
    assert len(json.loads(old)["findings"]) == 2
    (tmp_path / "eval.py").write_text(TRAIN.replace("SGD", "Adam"))
    # the new baseline (two files) is bigger than what the disk still takes
    r = _devicelint(["--no-cache", "--write-baseline", "baseline.json", "train.py", "eval.py"], tmp_path,
                    file_limit=len(old) + 100)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert "error: cannot write baseline baseline.json: file too large" in r.stderr.lower()
    assert (tmp_path / "baseline.json").read_bytes() == old
    assert _leftovers(tmp_path) == []


def test_add_noqa_on_a_full_disk_says_which_file_and_goes_on(tmp_path):
    (tmp_path / "big_train.py").write_text(BIG)
    (tmp_path / "train.py").write_text(TRAIN)
    r = _devicelint(["--no-cache", "--add-noqa", "."], tmp_path, file_limit=len(TRAIN) + 200)
    assert "Traceback" not in r.stderr
    assert r.returncode == 2, r.stderr
    assert "big_train.py:1:1: DL000 [unwritable-file] not silenced: file too large" in r.stderr
    assert "Added 2 noqa directives." in r.stderr
    assert (tmp_path / "big_train.py").read_text() == BIG  # untouched, not truncated
    assert "# noqa: DL007" in (tmp_path / "train.py").read_text()
    assert _leftovers(tmp_path) == []


def test_add_noqa_in_a_read_only_folder_says_which_file_and_goes_on(tmp_path, monkeypatch):
    """Root writes into any folder, so the refusal is made where the kernel would make it:
    creating the temporary file beside the source."""
    (tmp_path / "vendor").mkdir()
    (tmp_path / "vendor" / "train.py").write_text(TRAIN)
    (tmp_path / "train.py").write_text(TRAIN)
    real_mkstemp = tempfile.mkstemp

    def mkstemp(*a, dir=None, **k):
        if dir is not None and os.path.basename(os.path.abspath(dir)) == "vendor":
            raise PermissionError(13, "Permission denied", dir)
        return real_mkstemp(*a, dir=dir, **k)

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(cli, ["--no-cache", "--add-noqa", "."])
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    assert r.exit_code == 2
    assert "vendor/train.py:1:1: DL000 [unwritable-file] not silenced: permission denied" in r.stderr
    assert "Added 2 noqa directives." in r.stderr
    assert (tmp_path / "vendor" / "train.py").read_text() == TRAIN
    assert "# noqa: DL007" in (tmp_path / "train.py").read_text()


def test_a_pyproject_that_is_not_utf8_is_a_config_error(tmp_path, monkeypatch):
    # saved by an editor in Latin-1: the comment's "é" is one byte, 0xe9
    (tmp_path / "pyproject.toml").write_bytes(
        b'[project]\nname = "trainer"\n\n[tool.devicelint]\n'
        b'ignore = ["DL007"]  # le mod\xe8le choisit son device\n')
    (tmp_path / "train.py").write_text(TRAIN)
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(cli, ["--no-cache", "train.py"])
    assert r.exit_code == 2, r.output
    assert not isinstance(r.exception, UnicodeDecodeError)
    assert "error:" in r.stderr and "pyproject.toml: not UTF-8" in r.stderr


# ---- runs that end early -------------------------------------------------------------------
# Runs the real entry point with os.replace held back, so that the signal lands while the
# fixed source sits in its temporary file beside the user's script.
_SLOW_REPLACE = '''
import os, sys, time
real = os.replace
def held(src, dst):
    if os.path.basename(src).startswith(".devicelint-") and dst.endswith(".py"):
        open(os.environ["READY"], "w").close()
        time.sleep(60)
    return real(src, dst)
os.replace = held
sys.argv = ["devicelint", *sys.argv[1:]]
from devicelint.cli import main
main()
'''


def _wait_for(check, timeout=60.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("signum, code, said", [(signal.SIGTERM, 143, "terminated"), (signal.SIGINT, 130, "interrupted")])
def test_a_signal_during_fix_leaves_no_temporary_file(tmp_path, signum, code, said):
    (tmp_path / "train.py").write_text(TRAIN)
    ready = tmp_path / "ready"
    env = dict(os.environ, READY=str(ready))
    proc = subprocess.Popen([sys.executable, "-c", _SLOW_REPLACE, "--no-cache", "--fix", "train.py"], cwd=tmp_path,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            # a job a non-interactive shell started in the background inherits
                            # SIGINT ignored, which devicelint keeps: give the child Ctrl-C back
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert _wait_for(ready.exists), proc.communicate(timeout=5)
        assert _leftovers(tmp_path)  # the fixed source, waiting to be renamed
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == code, err
    assert f"devicelint: {said}" in err and "Aborted!" not in err and "Traceback" not in err
    assert _leftovers(tmp_path) == []
    assert (tmp_path / "train.py").read_text() == TRAIN  # old or new, never half: here the old


@pytest.mark.parametrize("whole_group", [False, True], ids=["main-process", "process-group"])
def test_sigterm_during_a_pooled_run_removes_the_shared_summaries(tmp_path, whole_group):
    src = tmp_path / "project"
    src.mkdir()
    # enough files that the run is still linting when the signal comes, on an idle machine too
    for i in range(600):
        (src / f"train_{i:03d}.py").write_text(TRAIN.replace("hidden: int", f"hidden: int = {i}"))
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = dict(os.environ, TMPDIR=str(tmp))
    proc = subprocess.Popen([sys.executable, "-m", "devicelint", "--no-cache", "--jobs", "2", "project"], cwd=tmp_path,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert _wait_for(lambda: any(tmp.glob("devicelint-summaries-*"))), proc.communicate(timeout=5)
        time.sleep(0.5)  # the workers are linting
        if whole_group:  # what a CI runner or `timeout` does to a job
            os.killpg(proc.pid, signal.SIGTERM)
        else:
            proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    assert proc.returncode == 143, err
    assert "devicelint: terminated" in err and "Traceback" not in err
    time.sleep(0.2)  # a worker that outlived the run would write here now
    assert list(tmp.iterdir()) == []


# ---- links out of the named tree -----------------------------------------------------------
def test_fix_does_not_follow_a_link_out_of_the_named_tree(tmp_path, monkeypatch):
    """`project/shared_train.py` links to a file of another checkout: `--fix project` fixes
    the project's own files, and a link within the project, but not that file (as Black
    refuses links that resolve outside the root)."""
    other = tmp_path / "other_checkout"
    other.mkdir()
    (other / "train.py").write_text(TRAIN)
    project = tmp_path / "project"
    (project / "lib").mkdir(parents=True)
    (project / "train.py").write_text(TRAIN)
    (project / "lib" / "eval.py").write_text(TRAIN)
    (project / "eval_link.py").symlink_to("lib/eval.py")  # inside: fixed through the link
    (project / "shared_train.py").symlink_to(other / "train.py")
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(cli, ["--no-cache", "--fix", "--output-format", "concise", "project"])
    assert (other / "train.py").read_text() == TRAIN
    assert (project / "train.py").read_text() == TRAIN_FIXED
    assert (project / "lib" / "eval.py").read_text() == TRAIN_FIXED
    assert (project / "eval_link.py").is_symlink() and (project / "shared_train.py").is_symlink()
    line = (f"project/shared_train.py:1:1: DL000 [symlink-outside] not fixed: a link to {other / 'train.py'}, "
            "outside the paths given")
    assert line in r.stderr
    # still linted: its finding is reported, not silently dropped
    assert "project/shared_train.py:30:17: DL003" in r.stdout
    assert r.exit_code == 1
    # named on the command line, the link is the user's own choice
    r = CliRunner().invoke(cli, ["--no-cache", "--fix", "--output-format", "concise", "project/shared_train.py"])
    assert (other / "train.py").read_text() == TRAIN_FIXED and "DL000" not in r.stderr


def test_diff_shows_no_patch_for_a_link_out_of_the_tree(tmp_path, monkeypatch):
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "train.py").write_text(TRAIN)
    project = tmp_path / "project"
    project.mkdir()
    (project / "shared.py").symlink_to(other / "train.py")
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(cli, ["--no-cache", "--diff", "project"])
    assert "+++" not in r.stdout and "DL000 [symlink-outside]" in r.stderr
    assert r.exit_code == 0


def test_atomic_write_keeps_the_mode_and_cleans_up_on_failure(tmp_path, monkeypatch):
    from devicelint import atomic

    target = tmp_path / "baseline.json"
    target.write_text("old")
    target.chmod(0o640)
    atomic.write(str(target), b"new")
    assert target.read_bytes() == b"new" and (target.stat().st_mode & 0o777) == 0o640

    def no_room(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", no_room)
    with pytest.raises(OSError):
        atomic.write(str(target), b"newer")
    assert target.read_bytes() == b"new" and _leftovers(tmp_path) == []
