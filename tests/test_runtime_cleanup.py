"""`devicelint verify` leaves nothing running and always prints its table: a script's child
processes and DataLoader workers end with it (a normal exit too), a script that kills its
parent fails its own verdict only, and a script that eats memory hits a per-script cap."""

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

pytest.importorskip("torch")

HEADER = """\
# devicelint-fixture
# expect: DL002 at {line}
# runtime: raises RuntimeError: Expected all tensors to be on the same device
#   | Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the same
"""

# A training script with a helper process (a log shipper, a TensorBoard) and a DataLoader
# whose two persistent workers stay up between epochs: all of them still run when the
# script itself is done. Each writes its pid to PIDS (a path filled in by the test).
WITH_HELPERS = '''\
import os
import subprocess
import sys

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

PIDS = {pids!r}


def note_pid(_worker_id):
    with open(PIDS, "a") as f:
        f.write(f"{{os.getpid()}}\\n")


def main():
    shipper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    with open(PIDS, "a") as f:
        f.write(f"{{shipper.pid}}\\n")
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = nn.Linear(4, 2).to(device)
    data = DataLoader(TensorDataset(torch.randn(12, 4), torch.randn(12, 2)), batch_size=3, num_workers=2, pin_memory=True,
                      persistent_workers=True, worker_init_fn=note_pid)
    for epoch in range(2):
        for x, y in data:
            loss = nn.functional.mse_loss({call}, y.to(device))
            loss.backward()
    print("done, the shipper keeps running")


main()
'''

# A launcher-aware script that "stops its supervisor" when done with a batch: its parent
# is the process that ran it.
KILLS_PARENT = '''\
import os
import signal

import torch
from torch import nn

device = "cuda" if torch.cuda.is_available() else "cpu"
model = nn.Linear(4, 2).to(device)
os.kill(os.getppid(), signal.SIGKILL)  # "the watchdog is not needed any more"
for x, y in torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(6, 4), torch.randn(6, 2)), batch_size=3, pin_memory=True):
    loss = nn.functional.mse_loss({call}, y.to(device))
    loss.backward()
'''

# Keeps the whole dataset in memory as one tensor "to go faster": 1.2 GB for a toy model.
GREEDY = '''\
import torch
from torch import nn

device = "cuda" if torch.cuda.is_available() else "cpu"
model = nn.Linear(4, 2).to(device)
cache = torch.ones(300_000_000)  # every sample preloaded, float32: 1.2 GB
for x, y in torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(6, 4), torch.randn(6, 2)), batch_size=3, pin_memory=True):
    loss = nn.functional.mse_loss({call}, y.to(device))
    loss.backward()
'''


def _pair(root: Path, name: str, template: str, **fill) -> None:
    folder = root / name
    folder.mkdir(parents=True)
    bad = template.format(call="model(x)", **fill)
    line = next(i for i, text in enumerate(bad.splitlines(), 1) if "model(x)" in text) + HEADER.count("\n")
    (folder / "bad.py").write_text(HEADER.format(line=line) + bad)
    (folder / "fixed.py").write_text(template.format(call="model(x.to(device))", **fill))


def _verify(folder: Path, *extra, fresh: bool = False, timeout: float = 300):
    env = dict(os.environ)
    if fresh:
        env["DEVICELINT_FRESH_PROCESSES"] = "1"  # the path real-CUDA runs take
    return subprocess.run([sys.executable, "-m", "devicelint", "verify", "--simulate", "--timeout", "60", *extra,
                           str(folder)], capture_output=True, text=True, env=env, timeout=timeout)


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")  # killed, waiting to be reaped by init


def _rows(stdout: str) -> dict:
    rows = {}
    for line in stdout.splitlines():
        parts = line.split()
        if parts and parts[0].endswith(".py"):
            rows[parts[0]] = parts[-1]
    return rows


def test_children_and_dataloader_workers_end_with_the_script(tmp_path):
    from devicelint.runtime.runner import run_script

    pids = tmp_path / "pids.txt"
    fixtures = tmp_path / "fixtures"
    _pair(fixtures, "DL002-helpers-left-running", WITH_HELPERS, pids=str(pids))
    r = _verify(fixtures)  # simulated runs: forked from a warm server
    # real-CUDA runs: a fresh process each
    run = run_script(fixtures / "DL002-helpers-left-running" / "fixed.py", False, 60)
    started = [int(p) for p in pids.read_text().split()]
    # bad, fixed, the autofixed copy and the fresh run: a shipper and two workers each
    assert len(started) == 12, (started, r.stdout, r.stderr)
    deadline = time.monotonic() + 10  # SIGKILLed: gone once the kernel has torn them down
    while (left := [p for p in started if _running(p)]) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert left == [], f"still running after verify: {left}"
    assert _rows(r.stdout) == {"DL002-helpers-left-running/bad.py": "confirmed",
                               "DL002-helpers-left-running/fixed.py": "clean"}, r.stdout + r.stderr
    assert r.returncode == 0  # not "timeout": a leftover child holding the output does not keep verify waiting
    assert run.exited_clean, (run.problem, run.stderr_tail)


def test_a_script_that_kills_its_parent_fails_alone_and_the_table_is_printed(tmp_path):
    fixtures = tmp_path / "fixtures"
    _pair(fixtures, "DL002-kills-its-parent", KILLS_PARENT)
    fixed = fixtures / "DL002-kills-its-parent" / "fixed.py"
    fixed.write_text("\n".join(ln for ln in fixed.read_text().splitlines() if "os.kill" not in ln) + "\n")
    r = _verify(fixtures)
    assert "runtime verdicts" in r.stdout, r.stderr
    rows = _rows(r.stdout)
    assert rows == {"DL002-kills-its-parent/bad.py": "error", "DL002-kills-its-parent/fixed.py": "clean"}, r.stdout
    # the reason under the failing row: the guard between runner and script was killed
    assert "(exit code -9)" in r.stdout
    assert r.returncode == 1


def test_a_script_over_its_memory_cap_fails_its_own_verdict(tmp_path):
    from devicelint.runtime.runner import run_script

    fixtures = tmp_path / "fixtures"
    _pair(fixtures, "DL002-preloads-everything", GREEDY)
    r = _verify(fixtures, "--max-memory", "768")
    rows = _rows(r.stdout)
    assert rows["DL002-preloads-everything/bad.py"] == "failed-otherwise", r.stdout + r.stderr
    assert rows["DL002-preloads-everything/fixed.py"] == "not-clean"
    assert "can't allocate memory" in r.stdout
    assert r.returncode == 1
    # under the default cap (half this machine) the same script runs as it would anywhere
    run = run_script(fixtures / "DL002-preloads-everything" / "fixed.py", True, 60)
    assert run.exited_clean, (run.problem, run.stderr_tail)


def test_the_memory_cap_reaches_the_script(tmp_path, monkeypatch):
    from devicelint.runtime.runner import run_script

    script = tmp_path / "limits.py"
    script.write_text(textwrap.dedent('''\
        import resource
        cap = resource.getrlimit(resource.RLIMIT_DATA)[0]
        raise SystemExit(0 if cap == 900 * 1024 * 1024 else 5)
    '''))
    monkeypatch.setenv("DEVICELINT_SCRIPT_MEMORY_MB", "900")
    run = run_script(script, True, 60)
    assert run.record is not None and run.record["exit_code"] == 0, run.stderr_tail


def test_an_internal_error_in_one_pair_still_gives_the_table(tmp_path, monkeypatch):
    """No script runs here: the runs are stood in for, one pair's by a crash of the runner."""
    from devicelint.runtime import runner
    from devicelint.runtime.verify import format_table, verify_folder

    fixtures = tmp_path / "fixtures"
    _pair(fixtures, "DL002-first", KILLS_PARENT)
    _pair(fixtures, "DL002-second", GREEDY)

    def run_script(script, *a, **k):
        if "DL002-first" in str(script):
            raise OSError(24, "Too many open files")
        return runner.Run(str(script), None, "timed out after 60s")

    monkeypatch.setattr(runner, "run_script", run_script)
    results = verify_folder(fixtures, simulate=True, timeout=60)
    table = format_table(results)
    assert [(r.fixture, r.verdict) for r in results] == [
        ("DL002-first/bad.py", "error"), ("DL002-second/bad.py", "timeout"), ("DL002-second/fixed.py", "timeout")]
    assert "internal error while running the pair: OSError: [Errno 24] Too many open files" in table
