"""Which operations mixing a host tensor with a device tensor fail on CUDA, and which work.

    python benchmarks/cross_device_ops.py [--simulate] [--out FILE.json]

DL011 and the simulator both rest on these facts (an index tensor may stay on the host, a
0-dim tensor is a scalar, ...). On a GPU this asks real CUDA; with ``--simulate`` it asks
devicelint's simulated device on the CPU. `benchmarks/cross_device_ops_h200.json` holds
real CUDA's answers, and tests/test_runtime_sim.py holds the simulator to them.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

DEV = "cuda"

# name -> statement; `d(*shape)` is a device tensor, `h(*shape)` a host one
PROBES = {
    "cat an empty host tensor (torch.empty(0)) onto a device tensor": "torch.cat((torch.empty(0), d(3)))",
    "cat an empty host list tensor (torch.tensor([])) onto a device tensor": "torch.cat([torch.tensor([]), d(3)])",
    "cat a device tensor onto an empty host tensor": "torch.cat([d(3), torch.empty(0)])",
    "cat an empty 2-d host tensor (zeros(0, 4)) onto a device tensor": "torch.cat([torch.zeros(0, 4), d(2, 4)])",
    "cat a non-empty host tensor onto a device tensor": "torch.cat([h(1, 4), d(2, 4)])",
    "stack a host and a device tensor": "torch.stack([h(3), d(3)])",
    "add a 0-dim host tensor": "d(3) + torch.tensor(2.0)",
    "add a 1-element 1-d host tensor": "d(3) + torch.tensor([2.0])",
    "add a host tensor": "d(3) + h(3)",
    "multiply by a host bool mask": "d(3) * torch.tensor([True, False, True])",
    "index a device tensor with host longs": "d(5)[torch.tensor([0, 2])]",
    "index a device tensor with a host bool mask": "d(3)[torch.tensor([True, False, True])]",
    "index a device tensor's columns with host longs": "d(2, 5)[:, torch.tensor([0, 2])]",
    "index a host tensor with device longs": "h(5)[torch.tensor([0, 2], device=DEV)]",
    "index a host tensor with a device bool mask": "h(3)[torch.tensor([True, False, True], device=DEV)]",
    "assign through host longs into a device tensor": "t = d(5); t[torch.tensor([0, 1])] = 1.0",
    "assign a host tensor into a slice of a device tensor": "t = d(5); t[0:2] = h(2)",
    "copy_ a host tensor into a device tensor": "d(3).copy_(h(3))",
    "index_select with host indices": "d(5).index_select(0, torch.tensor([0, 2]))",
    "gather with host indices": "d(2, 3).gather(1, torch.zeros(2, 1, dtype=torch.long))",
    "scatter_ with host indices": "d(2, 3).scatter_(1, torch.zeros(2, 1, dtype=torch.long), 1.0)",
    "index_add_ with host indices": "d(5).index_add_(0, torch.tensor([0, 1]), d(2))",
    "take_along_dim with host indices": "torch.take_along_dim(d(2, 3), torch.zeros(2, 1, dtype=torch.long), dim=1)",
    "masked_fill with a host mask": "d(3).masked_fill(torch.tensor([True, False, True]), 0.0)",
    "masked_fill with a 0-dim host value": "d(3).masked_fill(d(3) > 0, torch.tensor(0.0))",
    "masked_select with a host mask": "d(3).masked_select(torch.tensor([True, False, True]))",
    "torch.where with a host operand": "torch.where(d(3) > 0, d(3), h(3))",
    "torch.where with a 0-dim host operand": "torch.where(d(3) > 0, d(3), torch.tensor(0.0))",
    "repeat_interleave with host repeats": "d(3).repeat_interleave(torch.tensor([1, 2, 1]))",
    "matmul with a host tensor": "d(2, 3) @ h(3, 2)",
    "torch.maximum with a host tensor": "torch.maximum(d(3), h(3))",
    "clamp with a host tensor bound": "d(3).clamp(min=h(3))",
    "bucketize with host boundaries": "torch.bucketize(d(3), torch.tensor([0.0, 1.0]))",
    "embedding with host indices": "F.embedding(torch.tensor([0, 1]), d(4, 2))",
    "embedding module on the device given host indices": "nn.Embedding(4, 2).to(DEV)(torch.tensor([0, 1]))",
    "cross_entropy with a host target": "F.cross_entropy(d(2, 3), torch.tensor([0, 1]))",
    "cross_entropy with a host class weight": "F.cross_entropy(d(2, 3), torch.tensor([0, 1], device=DEV), weight=torch.ones(3))",
    "mse_loss against a host target": "F.mse_loss(d(3), h(3))",
    "LSTM on the device given a host initial state": "nn.LSTM(4, 5).to(DEV)(d(2, 1, 4), (torch.zeros(1, 1, 5), torch.zeros(1, 1, 5)))",
    "Linear on the device given a host input": "nn.Linear(3, 2).to(DEV)(h(4, 3))",
    "host Linear given a device input": "nn.Linear(3, 2)(d(4, 3))",
    "lerp toward a host tensor": "d(3).lerp(h(3), 0.5)",
    "in-place add of a host tensor": "d(3).add_(h(3))",
    "in-place add of a 0-dim host tensor": "d(3).add_(torch.tensor(1.0))",
    "expand_as a host tensor (shape only)": "d(1).expand_as(h(3))",
    "type_as a host tensor": "d(3).type_as(h(3))",
    "compare with a host tensor": "d(3) == h(3)",
    "einsum with a host operand": "torch.einsum('i,i->', d(3), h(3))",
    "stack a 0-dim host and a 0-dim device tensor": "torch.stack([torch.tensor(1.0), d(3).sum()])",
    "torch.tensor of 0-dim device tensors, then added to a device tensor": "d(2) + torch.tensor([d(3).sum(), d(3).sum()])",
    "cat two host tensors, then add to a device tensor (0-dim after sum)": "d(3) + torch.cat([h(2), h(2)]).sum()",
}


def outcomes(simulate: bool) -> dict:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    def run_all():
        results = {}
        for name, stmt in PROBES.items():
            scope = {"torch": torch, "nn": nn, "F": F, "DEV": DEV,
                     "d": lambda *s: torch.randn(*s, device=DEV), "h": lambda *s: torch.randn(*s)}
            try:
                exec(stmt, scope)
                if not simulate:
                    torch.cuda.synchronize()
                results[name] = "ok"
            except Exception as exc:  # noqa: BLE001 - the failure is the answer
                first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
                results[name] = f"{type(exc).__name__}: {first[:240]}"
        return results

    if simulate:
        from devicelint.runtime.sim import Simulator

        with Simulator():
            return run_all()
    if not torch.cuda.is_available():
        raise SystemExit("no CUDA device here: pass --simulate")
    return run_all()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--simulate", action="store_true")
    parser.add_argument("--out")
    ns = parser.parse_args(argv)
    import torch

    results = outcomes(ns.simulate)
    device = "simulated" if ns.simulate else torch.cuda.get_device_name(0)
    for name, outcome in results.items():
        print(f"{'ok   ' if outcome == 'ok' else 'FAILS'}  {name}" + ("" if outcome == "ok" else f"  ({outcome[:110]})"))
    print(f"{sum(o != 'ok' for o in results.values())} of {len(results)} fail; {device}, torch {torch.__version__}")
    if ns.out:
        Path(ns.out).write_text(json.dumps({"device": device, "torch": torch.__version__, "simulated": ns.simulate,
                                            "outcomes": results}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
