"""Score a first-look audit: precision per rule on repositories linted for the first time.

Usage:
    python benchmarks/firstlook.py benchmarks/firstlook/2026-11-26.json
    python benchmarks/firstlook.py benchmarks/firstlook/*.json     # several rounds summed
    python benchmarks/firstlook.py --shapes benchmarks/firstlook/2026-11-26.json

A round file (see `benchmarks/firstlook/`) holds what one first look recorded:

    {"date": ..., "devicelint_commit": ...,
     "repos":  [{"repo", "commit", "files": {"py", "ipynb"}, "findings": {CODE: count}}],
     "labels": [{"repo", "path", "cell", "line", "code",
                 "verdict": "true" | "false" | "unsure", "reason", "shape"?}]}

`findings` counts every finding the lint reported (audited or not); `labels` are the
audited ones. Precision = true / (true + false): unsure verdicts are shown but left out
of it. DL000 (a file that cannot be parsed) is shown but left out of the totals: it
says nothing about device semantics. The "weighted" total estimates the precision over
all findings from sampled rules: each rule's precision weighted by its finding count.
Notebooks and scripts are told apart by the path (`.ipynb` or not). `--shapes` adds the
false positives grouped by their `shape` (the general cause the auditor named).
Prints a Markdown table, ready for benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path

MISSION = ("DL001", "DL002", "DL003", "DL004", "DL005")
NOT_DEVICE = frozenset({"DL000"})
VERDICTS = ("true", "false", "unsure")


def load(paths: list[Path]) -> list[dict]:
    return [json.loads(p.read_text(encoding="utf-8")) for p in paths]


def tally(rounds: list[dict]) -> dict[str, collections.Counter]:
    """Per rule code: findings reported, audited, and the count of each verdict."""
    rows: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for rnd in rounds:
        for repo in rnd["repos"]:
            for code, n in repo["findings"].items():
                rows[code]["findings"] += n
        for lab in rnd["labels"]:
            if lab["verdict"] not in VERDICTS:
                raise ValueError(f"unknown verdict {lab['verdict']!r} in {lab}")
            rows[lab["code"]]["audited"] += 1
            rows[lab["code"]][lab["verdict"]] += 1
    return rows


def precision(c: collections.Counter) -> float | None:
    judged = c["true"] + c["false"]
    return c["true"] / judged if judged else None


def total(rows: dict[str, collections.Counter], codes) -> collections.Counter:
    out: collections.Counter = collections.Counter()
    for code in codes:
        out.update(rows.get(code, collections.Counter()))
    return out


def weighted(rows: dict[str, collections.Counter]) -> float | None:
    """Precision over all findings, each audited rule's precision weighted by its findings."""
    num = den = 0.0
    for code, c in rows.items():
        p = precision(c)
        if code in NOT_DEVICE or p is None:
            continue
        num += p * c["findings"]
        den += c["findings"]
    return num / den if den else None


def by_kind(rounds: list[dict]) -> dict[str, collections.Counter]:
    """Verdict counts of the audited device findings, notebooks apart from scripts."""
    out = {"notebooks": collections.Counter(), "scripts": collections.Counter()}
    for rnd in rounds:
        for lab in rnd["labels"]:
            if lab["code"] in NOT_DEVICE:
                continue
            kind = "notebooks" if lab["path"].endswith(".ipynb") else "scripts"
            out[kind]["audited"] += 1
            out[kind][lab["verdict"]] += 1
    return out


def shapes(rounds: list[dict]) -> collections.Counter:
    """False positives per (shape, rule); a false label without a shape counts as '?'."""
    return collections.Counter(
        (lab.get("shape", "?"), lab["code"])
        for rnd in rounds for lab in rnd["labels"] if lab["verdict"] == "false")


def fmt(p: float | None) -> str:
    return "-" if p is None else f"{p:.2f}"


def row(name: str, c: collections.Counter, findings: bool = True) -> str:
    n = str(c["findings"]) if findings else "-"
    return (f"| {name} | {n} | {c['audited']} | {c['true']} | {c['false']} | {c['unsure']} "
            f"| {fmt(precision(c))} |")


def header(rounds: list[dict]) -> list[str]:
    dates = ", ".join(sorted({r.get("date", "?") for r in rounds}))
    commits = ", ".join(sorted({r.get("devicelint_commit", "?") for r in rounds}))
    repos = [repo for r in rounds for repo in r["repos"]]
    py = sum(x["files"]["py"] for x in repos)
    nb = sum(x["files"]["ipynb"] for x in repos)
    return [f"date {dates}, devicelint {commits}: {len(repos)} repositories, "
            f"{py} .py + {nb} .ipynb files", ""]


def table(rounds: list[dict]) -> list[str]:
    rows = tally(rounds)
    device = [c for c in rows if c not in NOT_DEVICE]
    lines = header(rounds) + [
        "| rule | findings | audited | true | false | unsure | precision |",
        "|---|---:|---:|---:|---:|---:|---:|"]
    lines += [row(code, rows[code]) for code in sorted(rows)]
    lines.append(row("**mission five (DL001-DL005)**", total(rows, MISSION)))
    lines.append(row("**all device rules (audited)**", total(rows, device)))
    for kind, c in by_kind(rounds).items():
        lines.append(row(f"{kind} (audited)", c, findings=False))
    lines += ["", f"weighted by findings per rule (estimate over all {total(rows, device)['findings']} "
              f"device findings): {fmt(weighted(rows))}"]
    return lines


def shape_lines(rounds: list[dict]) -> list[str]:
    lines = ["", "| false-positive shape | rule | count |", "|---|---|---:|"]
    for (shape, code), n in sorted(shapes(rounds).items(), key=lambda kv: (-kv[1], kv[0])):
        lines.append(f"| {shape} | {code} | {n} |")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rounds", nargs="+", type=Path, help="first-look round files (JSON)")
    ap.add_argument("--shapes", action="store_true", help="also list the false positives by shape")
    args = ap.parse_args(argv)
    try:
        rounds = load(args.rounds)
        lines = table(rounds) + (shape_lines(rounds) if args.shapes else [])
    except (OSError, ValueError, KeyError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
