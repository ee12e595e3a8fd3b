"""Run a fixture script as several ranks of one process group, the way `torchrun
--nproc_per_node=N` does (the `ranks: N` header): N harness processes at once, each with
RANK / LOCAL_RANK / WORLD_SIZE / MASTER_ADDR / MASTER_PORT set, simulated with N GPUs
(`DEVICELINT_SIM_GPUS`, runtime/simdist.py).

On real CUDA it needs N GPUs: with fewer, one process per GPU cannot be launched (the fixed
script's `set_device(1)` has no GPU 1) and ranks sharing one GPU is exactly what a fixed
script must not do, so the pair is not run and says so ("needs N GPUs").
"""

from __future__ import annotations

import socket
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

NEEDS = "needs {} GPUs (one process per GPU), this machine has {}: not run"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def real_gpu_count() -> int:
    """GPUs torch sees on this machine (in a child: the runner never imports torch)."""
    try:
        out = subprocess.run([sys.executable, "-c", "import torch; print(torch.cuda.device_count())"],
                             capture_output=True, text=True, timeout=120)
        return int(out.stdout.strip() or 0)
    except (OSError, ValueError, subprocess.SubprocessError):
        return 0


def rank_envs(ranks: int, simulate: bool, env_extra: dict | None = None) -> list[dict]:
    port = str(_free_port())
    base = dict(env_extra or {}, WORLD_SIZE=str(ranks), LOCAL_WORLD_SIZE=str(ranks), MASTER_ADDR="127.0.0.1",
                MASTER_PORT=port)
    if simulate:
        base["DEVICELINT_SIM_GPUS"] = str(ranks)
    return [dict(base, RANK=str(r), LOCAL_RANK=str(r)) for r in range(ranks)]


def run_ranks(script: str | Path, simulate: bool, ranks: int, timeout: float, env_extra: dict | None = None,
              memory_mb: int | None = None, run_script=None):
    """One Run for the whole group: the lowest rank that failed (its record says which rank),
    else rank 0's. ``run_script`` is runner.run_script (passed in: no import cycle)."""
    envs = rank_envs(ranks, simulate, env_extra)
    with ThreadPoolExecutor(ranks) as pool:
        runs = list(pool.map(lambda env: run_script(script, simulate, timeout, env, None, memory_mb), envs))
    for rank, run in enumerate(runs):
        if run.record is not None:
            run.record["rank"] = rank
            run.record["ranks"] = ranks
    failed = [r for r in runs if r.record is None or not r.exited_clean]
    return failed[0] if failed else runs[0]
