"""Run devicelint over the real corpus and summarise what it finds, for a hand audit.

Usage:
    python benchmarks/audit.py [PATHS...] [--api] [--sample N --seed S] [--json OUT]

PATHS default to the corpus folders of benchmarks/corpus.py (built on demand).
By default runs `devicelint --output-format json --exit-zero PATHS`; with --api it
calls devicelint.engine.lint_source(bytes, path) in-process, file by file.
Prints findings per rule code, files with DL000 (unparseable/unreadable) and any
crash (a traceback on stderr, an exit code other than 0/1, an exception from the API).
--sample N prints N random findings with 3 lines of source above and below each.
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import subprocess
import sys
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import DEFAULT_CACHE, corpus_dirs, py_files  # noqa: E402


def via_cli(paths: list[Path]) -> tuple[list[dict], list[str]]:
    exe = Path(sys.executable).with_name("devicelint")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "devicelint"]
    p = subprocess.run(cmd + ["--output-format", "json", "--exit-zero", *map(str, paths)],
                       capture_output=True, text=True)
    crashes = []
    if p.returncode not in (0, 1) or "Traceback (most recent call last)" in p.stderr:
        crashes.append(f"exit {p.returncode}\n{p.stderr[-5000:]}")
    try:
        data = json.loads(p.stdout or "[]")
    except json.JSONDecodeError as e:
        crashes.append(f"stdout is not JSON ({e}): {p.stdout[:500]!r}")
        data = []
    if isinstance(data, dict):
        data = data.get("findings", [])
    return data, crashes


def via_api(paths: list[Path]) -> tuple[list[dict], list[str]]:
    from devicelint.engine import lint_source

    findings, crashes = [], []
    for root in paths:
        for f in [root] if root.is_file() else py_files(root):
            try:
                findings += [x.to_json() for x in lint_source(f.read_bytes(), str(f))]
            except Exception:
                crashes.append(f"{f}\n{traceback.format_exc()}")
    return findings, crashes


def show(finding: dict, around: int = 3) -> str:
    head = f"{finding['path']}:{finding['line']}:{finding['column']}: {finding['code']} {finding['message']}"
    try:
        src = Path(finding["path"]).read_text(errors="replace").splitlines()
    except OSError as e:
        return f"{head}\n    (cannot read: {e})"
    lo, hi = max(finding["line"] - around, 1), min(finding.get("end_line", finding["line"]) + around, len(src))
    body = [f"{'>' if finding['line'] <= n <= finding.get('end_line', finding['line']) else ' '} {n:5d} | {src[n - 1]}"
            for n in range(lo, hi + 1)]
    return "\n".join([head, *body])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="*", type=Path)
    ap.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="corpus cache folder")
    ap.add_argument("--api", action="store_true", help="use devicelint.engine.lint_source, not the CLI")
    ap.add_argument("--sample", type=int, default=0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path, help="save all findings here")
    args = ap.parse_args()
    paths = args.paths or corpus_dirs(args.cache.expanduser().resolve())

    findings, crashes = (via_api if args.api else via_cli)(paths)
    per_code = collections.Counter(f["code"] for f in findings)
    dl000 = {f["path"] for f in findings if f["code"] == "DL000"}
    print(f"{len(findings)} findings in {len({f['path'] for f in findings})} files")
    for code, n in sorted(per_code.items()):
        name = next(f.get("name", "") for f in findings if f["code"] == code)
        print(f"  {code}  {n:6d}  {name}")
    print(f"files with DL000: {len(dl000)}")
    for p in sorted(dl000)[:20]:
        print(f"  {p}")
    print(f"crashes: {len(crashes)}")
    for c in crashes[:5]:
        print(c)

    if args.sample and findings:
        print(f"\n--- {min(args.sample, len(findings))} random findings (seed {args.seed}) ---")
        for f in random.Random(args.seed).sample(findings, min(args.sample, len(findings))):
            print("\n" + show(f))
    if args.json:
        args.json.write_text(json.dumps({"findings": findings, "crashes": crashes}, indent=1))
        print(f"saved {args.json}")
    if crashes:
        sys.exit(1)


if __name__ == "__main__":
    main()
