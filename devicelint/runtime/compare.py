"""Hold the simulator against real CUDA: two runtime reports, script by script.

    python -m devicelint.runtime.compare REAL.json SIMULATED.json

A script's verdict, its blamed line and its autofix verdict must be the same in both
reports, and so must what a waste pair and a fixed script observe (copies and syncs,
counted per line on both sides). Exception texts may differ in wording (each fixture
header names the alternatives), memory figures in size (the simulator counts only its
logical device's bytes), timings exist only on the GPU. Each difference is a simulator
bug or a fixture header that names one side's wording only. A script the real run did
not run for want of GPUs (a ``ranks: N`` pair on a machine with fewer) has nothing to hold
the simulator to: it is not compared, and the output names it. Exit code 1 when they
differ, 0 when they agree.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass

from devicelint.runtime.ranks import NEEDS

COMPARED = ("verdict", "line", "autofix")
# ranks.NEEDS as written on a real run that had too few GPUs for the pair
_TOO_FEW_GPUS = re.compile(re.escape(NEEDS).replace(re.escape("{}"), r"\d+"))


@dataclass(frozen=True)
class Difference:
    fixture: str
    field: str
    real: object
    simulated: object

    def __str__(self) -> str:
        return f"{self.fixture}: {self.field} real {self.real!r}, simulated {self.simulated!r}"


def not_compared(real: dict) -> list[str]:
    """The scripts the real run did not run because the machine had too few GPUs."""
    return [r["fixture"] for r in real["results"] if _TOO_FEW_GPUS.fullmatch(r.get("observed") or "")]


def differences(real: dict, simulated: dict) -> list[Difference]:
    sim = {r["fixture"]: r for r in simulated["results"]}
    skipped = set(not_compared(real))
    out = []
    for r in real["results"]:
        s = sim.pop(r["fixture"], None)
        if r["fixture"] in skipped:
            continue
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


def environment_notes(real: dict, simulated: dict) -> list[str]:
    """The simulation runs the installed torch's and Python's own code (optimizer state,
    DataLoader, fork), so a torch or Python version unlike the real run's can change what
    is counted: said, so that a difference is not read as a simulator bug too soon."""
    notes = []
    for key, name in (("torch", "torch"), ("python", "Python")):
        if real.get(key) and simulated.get(key) and str(real[key]).split("+")[0] != str(simulated[key]).split("+")[0]:
            notes.append(f"note: {name} {real[key]} on the real run, {simulated[key]} on the simulated one: "
                         "what the library's own code does may differ")
    return notes


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
    skipped = not_compared(real)
    if skipped:
        print(f"{len(skipped)} script{'s' if len(skipped) != 1 else ''} not compared: the real run had too few GPUs "
              f"({', '.join(skipped)})")
    for line in environment_notes(real, simulated):
        print(line)
    for diff in diffs:
        print(f"  {diff}")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
