"""Hold the simulator against real CUDA: two runtime reports, script by script.

    python -m devicelint.runtime.compare REAL.json SIMULATED.json

A script's verdict, its blamed line and its autofix verdict must be the same in both
reports, and so must what a waste pair and a fixed script observe (copies and syncs,
counted per line on both sides). Exception texts may differ in wording (each fixture
header names the alternatives), memory figures in size (the simulator counts only its
logical device's bytes), timings exist only on the GPU. Each difference is a simulator
bug or a fixture header that names one side's wording only. Exit code 1 when they
differ, 0 when they agree.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass

COMPARED = ("verdict", "line", "autofix")


@dataclass(frozen=True)
class Difference:
    fixture: str
    field: str
    real: object
    simulated: object

    def __str__(self) -> str:
        return f"{self.fixture}: {self.field} real {self.real!r}, simulated {self.simulated!r}"


def differences(real: dict, simulated: dict) -> list[Difference]:
    sim = {r["fixture"]: r for r in simulated["results"]}
    out = []
    for r in real["results"]:
        s = sim.pop(r["fixture"], None)
        if s is None:
            out.append(Difference(r["fixture"], "present", True, False))
            continue
        out += [Difference(r["fixture"], key, r.get(key), s.get(key)) for key in COMPARED if r.get(key) != s.get(key)]
        if _counted(r) and r["observed"] != s["observed"]:
            out.append(Difference(r["fixture"], "observed", r["observed"], s["observed"]))
    out += [Difference(name, "present", False, True) for name in sim]
    return out


def _counted(result: dict) -> bool:
    """Its observed text is copy and sync counts, which the simulator must reproduce."""
    return result["role"] == "fixed" or result["expected"].startswith("wastes")


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    try:
        real, simulated = (json.load(open(path, encoding="utf-8")) for path in argv)
    except (OSError, ValueError) as exc:
        print(f"compare: cannot read a report: {exc}", file=sys.stderr)
        return 2
    diffs = differences(real, simulated)
    print(f"real: {real.get('device')} (torch {real.get('torch')}, CUDA {real.get('cuda')}), "
          f"{real['summary']['passed']}/{real['summary']['scripts']} passed; simulated: "
          f"{simulated['summary']['passed']}/{simulated['summary']['scripts']} passed")
    print(f"{len(diffs)} difference(s) in {', '.join(COMPARED)} and the counts of waste pairs and fixed scripts")
    for diff in diffs:
        print(f"  {diff}")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
