"""What each waste rule costs at a realistic size, on the GPU at hand.

    python benchmarks/waste_cost.py [--batch 64] [--out costs.json]

The fixture pairs prove that a waste happens (copies and syncs counted per line), but
they are small enough to run anywhere, and at their size a step is bound by kernel
launches: the waste does not show in the step time (fixtures/cuda-report.json, `cost`).
Here each waste rule gets one bad/fixed pair of training loops at an image-batch size
(64 x 3 x 224 x 224 by default), written to a temporary folder, checked with devicelint
(the bad loop flagged by its rule, the fixed one clean) and timed with the same clock as
the report (devicelint/runtime/steptime.py: median ms per optimizer step after a warm-up
run, with and without a synchronization at every step).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

HEAD = '''import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
BATCH = {batch}

model = nn.Sequential(
    nn.Conv2d(3, 32, 3, stride=2, padding=1), nn.ReLU(),
    nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.ReLU(),
    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10),
).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
'''

HOST_DATA = '''images = torch.randn(BATCH * 12, 3, 224, 224)
labels = torch.randint(0, 10, (BATCH * 12,))
'''

PINNED = '''loader = DataLoader(TensorDataset(images, labels), batch_size=BATCH, shuffle=True,
                    pin_memory=torch.cuda.is_available())
'''

# rule -> (what the waste is, bad loop, fixed loop); {pin} and the rest filled per side
PAIRS = {
    "DL014": (
        "batches copied from pageable host memory (DataLoader without pin_memory)",
        HOST_DATA + '''loader = DataLoader(TensorDataset(images, labels), batch_size=BATCH, shuffle=True)
for x, y in loader:
    x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
    optimizer.zero_grad()
    F.cross_entropy(model(x), y).backward()
    optimizer.step()
''',
        HOST_DATA + PINNED + '''for x, y in loader:
    x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
    optimizer.zero_grad()
    F.cross_entropy(model(x), y).backward()
    optimizer.step()
''',
    ),
    "DL013": (
        "loss.item() every step: the host waits for the GPU before queueing the next step",
        HOST_DATA + PINNED + '''running = 0.0
for x, y in loader:
    x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
    optimizer.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    running += loss.item()
print(running / len(loader))
''',
        HOST_DATA + PINNED + '''running = torch.zeros((), device=device)
for x, y in loader:
    x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
    optimizer.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    running += loss.detach()
print(running.item() / len(loader))
''',
    ),
    "DL008": (
        "per-step noise made on the CPU and then moved, instead of made on the device",
        '''images = torch.randn(BATCH, 3, 224, 224, device=device)
labels = torch.randint(0, 10, (BATCH,), device=device)
for step in range(24):
    noisy = images + 0.1 * torch.randn(BATCH, 3, 224, 224).to(device)
    optimizer.zero_grad()
    F.cross_entropy(model(noisy), labels).backward()
    optimizer.step()
''',
        '''images = torch.randn(BATCH, 3, 224, 224, device=device)
labels = torch.randint(0, 10, (BATCH,), device=device)
for step in range(24):
    noisy = images + 0.1 * torch.randn(BATCH, 3, 224, 224, device=device)
    optimizer.zero_grad()
    F.cross_entropy(model(noisy), labels).backward()
    optimizer.step()
''',
    ),
    "DL004": (
        "the same host batch moved twice per step (input and reconstruction target)",
        HOST_DATA + PINNED + '''decoder = nn.Conv2d(3, 3, 3, padding=1).to(device)
optimizer = torch.optim.SGD(decoder.parameters(), lr=0.01)
for x, _ in loader:
    recon = decoder(x.to(device, non_blocking=True))
    loss = F.mse_loss(recon, x.to(device, non_blocking=True))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
''',
        HOST_DATA + PINNED + '''decoder = nn.Conv2d(3, 3, 3, padding=1).to(device)
optimizer = torch.optim.SGD(decoder.parameters(), lr=0.01)
for x, _ in loader:
    x = x.to(device, non_blocking=True)
    recon = decoder(x)
    loss = F.mse_loss(recon, x)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
''',
    ),
}


def lint_check(code: str, bad: str, fixed: str) -> str:
    """'' when devicelint flags the bad loop with `code` and nothing in the fixed one."""
    from devicelint.engine import lint_source

    flagged = {f.code for f in lint_source(bad.encode(), "bad.py", select=["ALL"])}
    left = sorted({f.code for f in lint_source(fixed.encode(), "fixed.py", select=["ALL"])})
    problems = ([] if code in flagged else [f"bad not flagged by {code}"]) + ([f"fixed flagged {left}"] if left else [])
    return "; ".join(problems)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--out")
    parser.add_argument("--only", help="comma-separated rule codes")
    ns = parser.parse_args(argv)
    from devicelint.runtime.steptime import time_scripts

    import torch

    rows = {}
    with tempfile.TemporaryDirectory(prefix="devicelint-waste-") as tmp:
        for code, (what, bad_loop, fixed_loop) in PAIRS.items():
            if ns.only and code not in ns.only.split(","):
                continue
            bad, fixed = (HEAD.format(batch=ns.batch) + loop for loop in (bad_loop, fixed_loop))
            paths = [Path(tmp) / f"{code}_bad.py", Path(tmp) / f"{code}_fixed.py"]
            for path, text in zip(paths, (bad, fixed)):
                path.write_text(text)
            times = time_scripts([str(p) for p in paths], repeats=2)
            b, f = (times[str(p)] for p in paths)
            rows[code] = {"waste": what, "lint": lint_check(code, bad, fixed) or "bad flagged, fixed clean",
                          "bad": b, "fixed": f}
    device = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "CPU"
    report = {"device": device, "torch": torch.__version__, "batch": ns.batch, "rules": rows}
    for code, row in rows.items():
        cells = []
        for mode in ("synchronized", "unsynchronized"):
            b, f = row["bad"].get(mode, {}), row["fixed"].get(mode, {})
            if b.get("median_ms") and f.get("median_ms"):
                cells.append(f"{mode}: bad {b['median_ms']:.2f} ms, fixed {f['median_ms']:.2f} ms "
                             f"(x{b['median_ms'] / f['median_ms']:.2f})")
            else:
                cells.append(f"{mode}: {row['bad'].get('error') or row['fixed'].get('error')}")
        print(f"{code} ({row['lint']}): " + "; ".join(cells))
    print(f"device {device}, torch {torch.__version__}, batch {ns.batch}x3x224x224")
    if ns.out:
        Path(ns.out).write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
