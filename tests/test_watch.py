"""`devicelint --watch`: lints, lints again when a file changes (through the cache), and
Ctrl-C ends it with exit code 130 and no traceback. Waits are on the output, not sleeps."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time

import pytest

pytest.importorskip("watchfiles")

TIMEOUT = 60

EVAL = '''\
"""Evaluate a saved classifier on the validation split."""
import argparse

import numpy as np
import torch
import torch.nn as nn


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--checkpoint", default="model.pt")
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 4)).to(device)
    model.load_state_dict(torch.load(args.checkpoint, map_location=device))
    features = torch.randn(256, 20, device=device)
    with torch.no_grad():
        predictions = model(features).argmax(dim=1){convert}
    print(np.bincount(predictions, minlength=4))


if __name__ == "__main__":
    main()
'''


def _reader(stream, lines: queue.Queue) -> None:
    for line in iter(stream.readline, ""):
        lines.put(line)


def _wait_for(lines: queue.Queue, needle: str, seen: list) -> None:
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=max(deadline - time.monotonic(), 0.01))
        except queue.Empty:
            break
        seen.append(line)
        if needle in line:
            return
    pytest.fail(f"{needle!r} never came; output: {''.join(seen)}")


def test_watch_relints_on_change_and_ctrl_c_exits_130(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.devicelint]\nselect = ["DL003"]\n')
    script = tmp_path / "evaluate.py"
    script.write_text(EVAL.format(convert=".cpu().numpy()"))
    proc = subprocess.Popen([sys.executable, "-m", "devicelint", "--watch", "."], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True,
                            env={**os.environ, "NO_COLOR": "1"},
                            # a background job of a non-interactive shell inherits SIGINT ignored
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=_reader, args=(proc.stdout, lines), daemon=True).start()
    seen: list = []
    try:
        _wait_for(lines, "All checks passed", seen)
        _wait_for(lines, "watching . for changes", seen)
        script.write_text(EVAL.format(convert=".numpy()"))  # the fix undone: DL003 again
        _wait_for(lines, "evaluate.py:18:23: DL003", seen)
        _wait_for(lines, "Found 1 finding", seen)
        _wait_for(lines, "watching . for changes", seen)
        assert (tmp_path / ".devicelint_cache").is_dir()  # each round goes through the result cache
        proc.send_signal(signal.SIGINT)
        assert proc.wait(TIMEOUT) == 130
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    rest = "".join(iter(lambda: lines.get(timeout=5) if not lines.empty() else "", ""))
    assert "Traceback" not in "".join(seen) + rest and "interrupted" not in rest


def test_watch_refuses_stdin(tmp_path):
    done = subprocess.run([sys.executable, "-m", "devicelint", "--watch", "-"], capture_output=True, text=True,
                          timeout=TIMEOUT, stdin=subprocess.DEVNULL, cwd=tmp_path)
    assert done.returncode == 2 and "--watch lints files" in done.stderr
