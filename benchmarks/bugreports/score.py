"""Score devicelint on the blind recall set of real bug reports (benchmarks/bugreports/cases).

    python benchmarks/bugreports/score.py [--misses] [--json FILE] [CASE ...]

With benchmarks/bugreports/extras_audit.json (the hand audit of the findings that match
nothing written down) it also prints the precision with the audited extras counted for what
they are: a finding audited true (the reported bug by another rule or at another line, a rule's
documented pattern) is correct; one audited false, or not in the audit, stays false.

Each case is one reporter's code rebuilt as a file (.py, or .ipynb for a notebook report). Its
header, written before devicelint ever ran on it, says what a correct linter reports:

    # expect: DL002 at 34, 35       one bug: any finding of that code on one of these lines
    # also-ok: DL007 at 12          a correct finding that is not the reported bug
    (in a notebook, in the first cell: "at CELL:LINE", e.g. "# expect: DL003 at 4:7")

A report whose code spans several files is a folder case (`NNN_name/`, linted as one project):
each `.py` file's header names lines of that file, or of another file of the folder as
"FILE:LINE" (e.g. "# expect: DL019 at main.py:20"); one expectation may list lines of both.

An expectation is found when a finding has its code and either starts on one of its lines or
spans one of them. Recall is over expectations; precision over findings: a finding that matches
neither an expectation nor an also-ok line of its own case is a false positive. Standard library
only; devicelint runs as `python -m devicelint --output-format json --select ALL`.

A case may expect a rule devicelint does not have yet (its code is not in `devicelint rules`):
that expectation counts as missed in the recall of the whole set, and a second figure gives the
recall over the expectations of rules devicelint has, so a new rule's cases can be written blind
before the rule exists.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
CASES = HERE / "cases"
AUDIT = HERE / "extras_audit.json"  # the hand audit of the findings that match nothing written down
MISSION_FIVE = ("DL001", "DL002", "DL003", "DL004", "DL005")
HEADER = re.compile(r"^#\s*(expect|also-ok):\s*(DL\d{3})\s+at\s+(.+?)\s*$")


@dataclass(frozen=True)
class Location:
    cell: int | None  # 1-based notebook cell, None in a .py file
    line: int
    file: str | None = None  # the file inside a folder case, None for a one-file case


@dataclass
class Expectation:
    code: str
    locations: tuple[Location, ...]
    also_ok: bool = False


@dataclass
class CaseResult:
    name: str
    expectations: list[Expectation]
    found: list[bool] = field(default_factory=list)
    false_findings: list[dict] = field(default_factory=list)
    findings: int = 0


def header_lines(path: Path) -> list[str]:
    """The comment lines a case's header lives in (a notebook's first cell)."""
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        source = cells[0]["source"] if cells else []
        text = "".join(source) if isinstance(source, list) else source
    else:
        text = path.read_text(encoding="utf-8")
    return text.splitlines()


def parse_location(text: str, notebook: bool, file: str | None = None) -> Location:
    """LINE, CELL:LINE in a notebook, or FILE:LINE (else the header's own file) in a folder case."""
    if file is not None:
        other, sep, line = text.rpartition(":")
        return Location(None, int(line), other if sep else file)
    if notebook:
        cell, _, line = text.partition(":")
        if not line:
            raise ValueError(f"notebook location {text!r} needs CELL:LINE")
        return Location(int(cell), int(line))
    return Location(None, int(text))


def parse_header(path: Path) -> list[Expectation]:
    """Every `# expect:` / `# also-ok:` line of the case, in order (a folder: its files in order)."""
    if path.is_dir():
        return [e for f in sorted(path.rglob("*.py")) for e in _parse_file_header(f, f.relative_to(path).as_posix())]
    return _parse_file_header(path, None)


def _parse_file_header(path: Path, file: str | None) -> list[Expectation]:
    notebook = path.suffix == ".ipynb"
    out = []
    for line in header_lines(path):
        m = HEADER.match(line.strip())
        if not m:
            continue
        kind, code, where = m.groups()
        locs = tuple(parse_location(part.strip(), notebook, file) for part in where.split(","))
        out.append(Expectation(code, locs, also_ok=kind == "also-ok"))
    return out


def covers(finding: dict, loc: Location) -> bool:
    """A finding starting on the line, or spanning it, in the same cell."""
    if loc.cell is not None and finding.get("cell") != loc.cell:
        return False
    if loc.file is not None and finding.get("file") != loc.file:
        return False
    start = finding["line"]
    end = finding.get("end_line") or start
    return start <= loc.line <= end


def matches(finding: dict, exp: Expectation) -> bool:
    return finding["code"] == exp.code and any(covers(finding, loc) for loc in exp.locations)


def score_case(name: str, expectations: list[Expectation], findings: list[dict]) -> CaseResult:
    """Which expectations some finding meets, and which findings meet nothing written down."""
    wanted = [e for e in expectations if not e.also_ok]
    result = CaseResult(name, wanted, findings=len(findings))
    result.found = [any(matches(f, e) for f in findings) for e in wanted]
    result.false_findings = [f for f in findings if not any(matches(f, e) for e in expectations)]
    return result


def run_devicelint(paths: list[Path]) -> dict[str, list[dict]]:
    """Findings per case file name, from one devicelint run over all cases."""
    cmd = [sys.executable, "-m", "devicelint", "--output-format", "json", "--select", "ALL",
           "--no-cache", "--exit-zero", *map(str, paths)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"error: devicelint exited {proc.returncode}: {proc.stderr.strip()}")
    by_name: dict[str, list[dict]] = {p.name: [] for p in paths}
    folders = [p.resolve() for p in paths if p.is_dir()]
    for finding in json.loads(proc.stdout or "[]"):
        where = Path(finding["path"]).resolve()
        folder = next((d for d in folders if where.is_relative_to(d)), None)
        if folder is not None:  # a folder case: the finding names its file inside the folder
            finding["file"] = where.relative_to(folder).as_posix()
            by_name[folder.name].append(finding)
        else:
            by_name.setdefault(where.name, []).append(finding)
    return by_name


def known_codes() -> set[str]:
    """The codes devicelint has (`python -m devicelint rules`), to tell rules not built yet apart."""
    proc = subprocess.run([sys.executable, "-m", "devicelint", "rules"], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"error: devicelint rules exited {proc.returncode}: {proc.stderr.strip()}")
    return set(re.findall(r"^(DL\d{3})\b", proc.stdout, flags=re.MULTILINE))


def load_audit(path: Path = AUDIT) -> dict:
    """(case, code, cell, file, line) -> verdict ("true"/"false") of the hand audit of the
    findings that match nothing written down (extras_audit.json); {} when there is none."""
    if not path.exists():
        return {}
    try:
        doc = json.loads(path.read_text())
        return {(e["case"], e["code"], e.get("cell"), e.get("file"), e["line"]): e["verdict"] for e in doc["extras"]}
    except (ValueError, KeyError, TypeError) as e:
        print(f"error: {path.name} unreadable ({e}); no audited figure", file=sys.stderr)
        return {}


def audited_precision(results: list[CaseResult], audit: dict) -> dict:
    """Precision once the audited extras count for what they are: an extra audited true (the
    reported bug at another line or by another rule, a rule's documented pattern) is correct,
    one audited false or not audited at all stays false (listed as unaudited)."""
    total = sum(r.findings for r in results)
    good, unaudited = total, 0
    for r in results:
        for f in r.false_findings:
            verdict = audit.get((r.name, f["code"], f.get("cell"), f.get("file"), f["line"]))
            good -= verdict != "true"
            unaudited += verdict is None
    return {"audited_precision": [good, total], "unaudited_extras": unaudited}


def ratio(num: int, den: int) -> str:
    return f"{num / den:.2f}" if den else "n/a"


def summarize(results: list[CaseResult], known: set[str] | None = None) -> dict:
    """Per-rule, overall and mission-five recall; precision over all findings.

    `known`: the codes devicelint has; expectations of any other code are missed in `recall` and
    left out of `known_rule_recall` (None: every code counts as known)."""
    per_rule_tp, per_rule_n = Counter(), Counter()
    for r in results:
        for exp, hit in zip(r.expectations, r.found):
            per_rule_n[exp.code] += 1
            per_rule_tp[exp.code] += hit
    total_f = sum(r.findings for r in results)
    false_f = sum(len(r.false_findings) for r in results)
    five_n = sum(per_rule_n[c] for c in MISSION_FIVE)
    five_tp = sum(per_rule_tp[c] for c in MISSION_FIVE)
    unbuilt = sorted(c for c in per_rule_n if known is not None and c not in known)
    return {
        "cases": len(results),
        "expectations": sum(per_rule_n.values()),
        "per_rule": {c: [per_rule_tp[c], per_rule_n[c]] for c in sorted(per_rule_n)},
        "recall": [sum(per_rule_tp.values()), sum(per_rule_n.values())],
        "mission_five_recall": [five_tp, five_n],
        "not_built": unbuilt,
        "known_rule_recall": [sum(per_rule_tp[c] for c in per_rule_n if c not in unbuilt),
                              sum(per_rule_n[c] for c in per_rule_n if c not in unbuilt)],
        "precision": [total_f - false_f, total_f],
        "false_by_rule": dict(Counter(f["code"] for r in results for f in r.false_findings)),
    }


def report(summary: dict, results: list[CaseResult], misses: bool) -> None:
    print(f"{summary['cases']} cases, {summary['expectations']} expectations")
    print(f"{'rule':6} {'found':>5} {'of':>3} {'recall':>7}")
    for code, (tp, n) in summary["per_rule"].items():
        note = "  (rule not built yet: counted missed)" if code in summary["not_built"] else ""
        print(f"{code:6} {tp:5d} {n:3d} {ratio(tp, n):>7}{note}")
    for label, key in (("recall", "recall"),
                       ("recall over rules devicelint has", "known_rule_recall"),
                       ("mission five (DL001-DL005) recall", "mission_five_recall"),
                       ("precision", "precision")):
        num, den = summary[key]
        print(f"{label}: {num}/{den} = {ratio(num, den)}")
    if "audited_precision" in summary:
        num, den = summary["audited_precision"]
        print(f"precision with audited extras: {num}/{den} = {ratio(num, den)} "
              f"({summary['unaudited_extras']} extras not in {AUDIT.name}, counted false)")
    if summary["false_by_rule"]:
        print("false findings by rule: " + ", ".join(f"{c} {n}" for c, n in sorted(summary["false_by_rule"].items())))
    if not misses:
        return
    for r in results:
        for exp, hit in zip(r.expectations, r.found):
            if not hit:
                where = ", ".join(_where(loc) for loc in exp.locations)
                print(f"MISS  {r.name}: {exp.code} at {where}")
        for f in r.false_findings:
            cell = f"cell {f['cell']} " if f.get("cell") else ""
            file = f"{f['file']}:" if f.get("file") else ""
            print(f"FALSE {r.name}: {f['code']} at {cell}{file}{f['line']}: {f['message']}")


def _where(loc: Location) -> str:
    if loc.cell:
        return f"{loc.cell}:{loc.line}"
    return f"{loc.file}:{loc.line}" if loc.file else str(loc.line)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cases", nargs="*", type=Path, help="case files (default: every case)")
    ap.add_argument("--misses", action="store_true", help="list missed expectations and false findings")
    ap.add_argument("--json", type=Path, help="also write the figures as JSON")
    args = ap.parse_args(argv)
    paths = args.cases or sorted(p for p in CASES.iterdir() if p.suffix in (".py", ".ipynb") or p.is_dir())
    findings = run_devicelint(paths)
    results = [score_case(p.name, parse_header(p), findings.get(p.name, [])) for p in paths]
    summary = summarize(results, known_codes())
    audit = load_audit()
    if audit:
        summary.update(audited_precision(results, audit))
    report(summary, results, args.misses)
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
