"""One file, the way an editor or pre-commit lints it: how a whole `devicelint FILE` process
compares with the least any LibCST linter must do, parsing that file in a fresh interpreter.

Usage:
    python benchmarks/one_file.py [FILE] [--rounds 11] [--warmup 1] [--json OUT]

FILE defaults to benchmarks/data/train_classifier.py (a 300-line training script: argparse,
a dataset class returning dict batches, a residual network, AMP, checkpoints). Each round
runs, each in a new process, in an order that rotates from round to round:
  floor   python -c "import libcst; libcst.parse_module(open(FILE).read())"
  cold    python -m devicelint --no-cache FILE
  hit     python -m devicelint --cache-dir DIR FILE   (DIR filled before the rounds)
and takes the ratios cold/floor and hit/floor of that round (paired: a round's three runs
meet the same machine load). It prints the medians of the ratios, of the CPU time (user +
system of the process) and of the wall clock. Goals: cold <= 1.5x the floor, hit <= 0.5x.
On a shared machine compare the CPU ratios: the wall clock swings with the load.
The report of every cold and hit run must be the same (checked). Nothing is written into
the repository (the cache lives in a temporary folder).

Every run has its modules' bytecode cached, as an installed package has (pip compiles it at
install time; a checkout writes `__pycache__` on first import): the timed commands get
PYTHONPYCACHEPREFIX, a temporary folder filled by the warm-up, and never
PYTHONDONTWRITEBYTECODE. Without this, in an environment that sets PYTHONDONTWRITEBYTECODE
(as this project's sessions do), every run compiled devicelint's ~80 modules from source
while LibCST's came compiled from site-packages: about a sixth of the cold run then was
compiling. `--no-bytecode` times those conditions (no bytecode written; what is already
compiled is read).

`--instructions` counts instead of timing: each of the three commands runs once under
`valgrind --tool=callgrind` (after the warm-up fills the bytecode cache) and the ratios of
their instruction counts are printed. On a shared machine this is the figure that does not
move with the load (the same command gives the same count to within a fraction of a
percent); it needs valgrind on PATH.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_FILE = HERE / "data" / "train_classifier.py"
FLOOR = "import sys, libcst; libcst.parse_module(open(sys.argv[1], 'rb').read())"
GOALS = {"cold": 1.5, "hit": 0.5}


def commands(python: str, file: str, cache: str) -> dict:
    return {
        "floor": [python, "-c", FLOOR, file],
        "cold": [python, "-m", "devicelint", "--no-cache", "--exit-zero", "--output-format", "json", file],
        "hit": [python, "-m", "devicelint", "--cache-dir", cache, "--exit-zero", "--output-format", "json", file],
    }


def bytecode_env(pycache: str | None) -> dict:
    """The environment of the timed runs: bytecode cached under `pycache` (None: none written)."""
    env = dict(os.environ)
    if pycache is None:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env.pop("PYTHONPYCACHEPREFIX", None)
    else:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = pycache
    return env


ENV: dict | None = None  # set by main(); None: this process's own environment


def timed(cmd: list) -> tuple:
    """(wall seconds, CPU seconds, stdout) of one run of `cmd` in a new process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=ENV)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"failed ({done.returncode}): {' '.join(cmd)}\n{done.stderr}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done.stdout


def measure(cmds: dict, rounds: int, warmup: int) -> dict:
    """Every round's wall and CPU time per command, and whether every devicelint report agreed."""
    names = list(cmds)
    reports = set()
    for _ in range(warmup):
        for name in names:
            out = timed(cmds[name])[2]
            if name != "floor":
                reports.add(out)
    runs: dict = {name: [] for name in names}
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            wall, cpu, out = timed(cmds[name])
            runs[name].append((wall, cpu))
            if name != "floor":
                reports.add(out)
    return {"runs": runs, "same_report": len(reports) == 1}


def instructions(cmd: list, work: str) -> int:
    """Instructions one run of `cmd` executes, counted by callgrind."""
    out = os.path.join(work, "callgrind.out")
    done = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *cmd],
                          capture_output=True, text=True, env=ENV)
    if done.returncode != 0:
        sys.exit(f"failed under callgrind ({done.returncode}): {' '.join(cmd)}\n{done.stderr[-2000:]}")
    for line in done.stderr.splitlines():
        if "Collected :" in line:
            return int(line.rsplit(":", 1)[1].strip().replace(",", ""))
    sys.exit("callgrind printed no count")


def count_instructions(cmds: dict, work: str) -> None:
    """--instructions: one callgrind run of each command, the ratios to the floor's count."""
    for cmd in cmds.values():
        timed(cmd)  # fills the bytecode cache (the hit's result cache is full already)
    counts = {name: instructions(cmd, work) for name, cmd in cmds.items()}
    for name, n in counts.items():
        ratio = f"{n / counts['floor']:6.3f}x  (goal <= {GOALS[name]}x)" if name in GOALS else ""
        print(f"{name:6s} {n:>15,d} instructions  {ratio}")


def summarize(runs: dict) -> dict:
    """Medians of each command's times and of the paired ratios to the floor."""
    out = {}
    floor = runs["floor"]
    for name, times in runs.items():
        row = {"wall": statistics.median(w for w, _ in times), "cpu": statistics.median(c for _, c in times)}
        if name != "floor":
            row["cpu_ratio"] = statistics.median(c / f[1] for (_, c), f in zip(times, floor))
            row["wall_ratio"] = statistics.median(w / f[0] for (w, _), f in zip(times, floor))
        out[name] = row
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file", nargs="?", type=Path, default=DEFAULT_FILE)
    ap.add_argument("--rounds", type=int, default=11)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--python", default=sys.executable, help="the interpreter to time (default: this one)")
    ap.add_argument("--json", type=Path, help="write the figures here")
    ap.add_argument("--instructions", action="store_true",
                    help="count instructions with valgrind's callgrind (one run each) instead of timing")
    ap.add_argument("--no-bytecode", action="store_true",
                    help="write no bytecode (PYTHONDONTWRITEBYTECODE=1): modules not compiled already are compiled every run")
    opts = ap.parse_args()
    file = str(opts.file.resolve())
    work = tempfile.mkdtemp(prefix="devicelint-one-file-")
    cache = os.path.join(work, "cache")  # devicelint's result cache
    global ENV
    ENV = bytecode_env(None if opts.no_bytecode else os.path.join(work, "pycache"))
    try:
        cmds = commands(opts.python, file, cache)
        timed(cmds["hit"])  # fills the cache
        if opts.instructions:
            count_instructions(cmds, work)
            return
        m = measure(cmds, opts.rounds, opts.warmup)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    res = summarize(m["runs"])
    lines = sum(1 for _ in open(file, "rb"))
    bytecode = "none written (--no-bytecode)" if opts.no_bytecode else "cached in a temporary folder"
    print(f"{file} ({lines} lines), {opts.rounds} paired rounds; medians; bytecode {bytecode}")
    print(f"{'':6s} {'wall s':>8s} {'CPU s':>8s} {'CPU ratio':>10s} {'wall ratio':>11s}  goal")
    for name, row in res.items():
        ratios = f"{row['cpu_ratio']:9.2f}x {row['wall_ratio']:10.2f}x  <= {GOALS[name]}x" if name in GOALS else ""
        print(f"{name:6s} {row['wall']:8.3f} {row['cpu']:8.3f} {ratios}")
    print(f"cold and hit reported the same findings every run: {m['same_report']}")
    if opts.json:
        opts.json.write_text(json.dumps({"file": file, "lines": lines, "rounds": opts.rounds,
                                         "bytecode": not opts.no_bytecode, **res,
                                         "same_report": m["same_report"], "all": m["runs"]}, indent=2))
    if not m["same_report"]:
        sys.exit(1)


if __name__ == "__main__":
    main()
