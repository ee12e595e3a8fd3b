"""What a waste costs: the steady-state time of a training step, bad script against fixed.

    python -m devicelint.runtime.steptime --out TIMES.json [--repeats 2] SCRIPT [SCRIPT ...]

Runs in one process (no dispatch or function modes: they would cost more than the
waste). A step ends at each ``optimizer.step()``; every waste fixture trains. The
scripts run in turns, ``A B A B ...``, after one warm-up run each (CUDA context, kernels,
allocator), so that a drift of the machine's clocks hits the bad and the fixed script
alike. Two figures per script, each the median over the timed runs' steps (the first
step of a run, which waits for the loader's start, is left out):

* ``synchronized``: ``torch.cuda.synchronize()`` at every step end, so a step's time is
  its whole device work plus the host work between steps;
* ``unsynchronized``: host time between step ends with no added synchronization. Here a
  script's own syncs (``.item()`` per step) show: without them the host queues work
  ahead, and the synchronized figure cannot see that loss.

Each figure needs ``MIN_STEPS`` steps: a script with fewer steps per run than ``--repeats``
runs give runs more times (at most ``MAX_RUNS`` timed runs).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

MIN_STEPS = 20
MAX_RUNS = 12
NO_STEP = "neither script calls optimizer.step(): no training step to time"


class StepClock:
    def __init__(self, synchronize):
        self.synchronize = synchronize  # callable or None
        self.stamps: list[float] = []

    def on_step(self, optimizer, args, kwargs) -> None:
        if self.synchronize is not None:
            self.synchronize()
        self.stamps.append(time.perf_counter())

    def deltas_ms(self) -> list[float]:
        # stamps[0] ends the first step, which includes the loader's start-up
        return [(b - a) * 1000.0 for a, b in zip(self.stamps, self.stamps[1:])]


def _run_once(script: str, clock: StepClock | None) -> None:
    import torch
    from torch.optim.optimizer import register_optimizer_step_post_hook

    from devicelint.runtime.harness import _run_main

    handle = register_optimizer_step_post_hook(clock.on_step) if clock else None
    old_cwd, old_argv, old_path0 = os.getcwd(), sys.argv[:], sys.path[0]
    try:
        with tempfile.TemporaryDirectory(prefix="devicelint-time-") as workdir:
            os.chdir(workdir)
            sys.argv, sys.path[0] = [script], os.path.dirname(script)
            _run_main(script)
            if torch.cuda.is_available():
                torch.cuda.synchronize()
    finally:
        os.chdir(old_cwd)
        sys.argv, sys.path[0] = old_argv, old_path0
        if handle is not None:
            handle.remove()


_MODES = ("synchronized", "unsynchronized")


def time_scripts(scripts: list[str], repeats: int = 2) -> dict:
    """``{script: {"synchronized": {...}, "unsynchronized": {...}}}`` for each script; a
    script that raises gets ``{"error": "..."}`` instead."""
    import torch

    sync = torch.cuda.synchronize if torch.cuda.is_available() else None
    scripts = [os.path.abspath(s) for s in scripts]
    timer = _Timer(scripts, sync)
    for script in scripts:
        timer.turn(script, None)  # warm-up
    # the scripts take turns, so that each sees the machine in the same state
    for _ in range(repeats):
        for mode in _MODES:
            for script in scripts:
                timer.turn(script, mode)
    while any(timer.short(s, m) and s not in timer.errors for s in scripts for m in _MODES):
        for mode in _MODES:
            for script in scripts:
                if timer.short(script, mode):
                    timer.turn(script, mode)
    return {script: timer.result(script) for script in scripts}


class _Timer:
    """The step times of several scripts, gathered one run at a time."""

    def __init__(self, scripts: list[str], sync) -> None:
        self.sync = sync
        self.deltas = {s: {mode: [] for mode in _MODES} for s in scripts}
        self.errors: dict[str, str] = {}
        self.runs = {s: 0 for s in scripts}

    def turn(self, script: str, mode: str | None) -> None:
        """Run `script` once, timing its steps in `mode` (None: a warm-up, not timed)."""
        if script in self.errors:
            return
        clock = StepClock(self.sync if mode == "synchronized" else None) if mode else None
        try:
            _run_once(script, clock)
        except BaseException as exc:  # noqa: BLE001 - one script's failure is its own result
            if isinstance(exc, KeyboardInterrupt):
                raise
            self.errors[script] = _error_line(exc)
            return
        if clock is not None:
            self.deltas[script][mode].extend(clock.deltas_ms())
            self.runs[script] += 1

    def short(self, script: str, mode: str) -> bool:
        """Too few steps timed in `mode`, and runs left to time more."""
        return len(self.deltas[script][mode]) < MIN_STEPS and self.runs[script] < MAX_RUNS

    def result(self, script: str) -> dict:
        if script in self.errors:
            return {"error": self.errors[script]}
        return {mode: _summary(values) for mode, values in self.deltas[script].items()}


def _error_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0][:200] if text else ''}"


def _summary(values: list[float]) -> dict:
    if not values:
        return {"steps": 0, "median_ms": None}
    q = statistics.quantiles(values, n=4) if len(values) >= 2 else [values[0]] * 3
    return {"steps": len(values), "median_ms": round(statistics.median(values), 4),
            "q1_ms": round(q[0], 4), "q3_ms": round(q[2], 4)}


# ---- the parent side: one process per waste pair, one pair at a time -------------------
def measure_costs(pairs, results, timeout: float = 600.0) -> None:
    """Time the bad and the fixed script of every ``wastes`` pair on the GPU and put the
    figures on the bad script's result (``Result.cost``). Pairs run one after another,
    never beside other GPU work, so the figures are the scripts' own."""
    import subprocess

    from devicelint.runtime.warm import root_on_path

    by_fixture = {r.fixture: r for r in results if r.role == "bad"}
    for pair in pairs:
        result = by_fixture.get(pair.name)
        if result is None or pair.fixed is None or pair.header is None or pair.header.outcome.kind != "wastes":
            continue
        bad, fixed = str(pair.bad.resolve()), str(pair.fixed.resolve())
        with tempfile.TemporaryDirectory(prefix="devicelint-time-") as tmp:
            out = os.path.join(tmp, "times.json")
            cmd = [sys.executable, "-m", "devicelint.runtime.steptime", "--out", out, bad, fixed]
            try:
                proc = subprocess.run(cmd, capture_output=True, timeout=timeout, cwd=tmp,
                                      env=root_on_path(dict(os.environ)))
            except subprocess.TimeoutExpired:
                result.cost = {"error": f"timed out after {timeout:g}s"}
                continue
            if not os.path.exists(out):
                tail = proc.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
                result.cost = {"error": f"no timings (exit code {proc.returncode}): {tail[0][:200]}"}
                continue
            with open(out, encoding="utf-8") as fh:
                times = json.load(fh)
        result.cost = cost_record(times.get(bad, {}), times.get(fixed, {}))


def cost_record(bad: dict, fixed: dict) -> dict:
    """The report's ``cost`` entry from the two scripts' timings."""
    if "error" in bad or "error" in fixed:
        return {"error": bad.get("error") or fixed.get("error")}
    if not any(t.get(mode, {}).get("steps") for t in (bad, fixed) for mode in _MODES):
        # an evaluation-only waste (DL021's eval loops): its copy counts are the proof
        return {"error": NO_STEP}
    record = {"method": f"median of steps after a warm-up run (>= {MIN_STEPS} steps each); "
                        "synchronized: torch.cuda.synchronize() at every optimizer step"}
    for mode, key in (("synchronized", ""), ("unsynchronized", "_unsynchronized")):
        b, f = bad.get(mode, {}), fixed.get(mode, {})
        record[f"bad_ms_per_step{key}"] = b.get("median_ms")
        record[f"fixed_ms_per_step{key}"] = f.get("median_ms")
        record[f"steps{key}"] = [b.get("steps", 0), f.get("steps", 0)]
    return record


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m devicelint.runtime.steptime")
    parser.add_argument("--out", required=True)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("scripts", nargs="+")
    ns = parser.parse_args(argv)
    times = time_scripts(ns.scripts, ns.repeats)
    tmp = ns.out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(times, fh, indent=1)
    os.replace(tmp, ns.out)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # a script's stray non-daemon threads must not hang us (as in harness.py)


if __name__ == "__main__":
    main()
