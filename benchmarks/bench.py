"""Benchmark devicelint against a parse-only floor and TorchFix on the real corpus.

Usage:
    python benchmarks/bench.py [PATHS...] [--rounds 3] [--jobs N] [--torchfix-subset 300]
                               [--only floor,cold,warm,torchfix,one,project] [--limit N] [--json OUT]

PATHS default to the corpus folders of benchmarks/corpus.py (built on demand).
Parts, run round-robin `--rounds` times on the same file set (medians reported):
  floor     LibCST parse_module of every file, multiprocessing pool of --jobs workers
  cold      devicelint --no-cache --jobs N --output-format json --exit-zero FILES
  warm      the same with the cache on (--cache-dir outside the repo; filled once first)
  torchfix  TorchFix 0.7.0 (`torchfix -j N`) on a random --torchfix-subset of the files,
            and devicelint cold on the same subset (if `cold` is selected)
  one       `devicelint FILE` on a typical 300-500-line file, median of 10 (after the rounds)
  project   the incremental case on a generated 300-file training project (project_speed.py
            writes it; --project-files): one script linted alone with the cache filled (as
            pre-commit runs it), and the whole project re-run with the cache after editing one
            model file (each round a content the cache has not seen), checked to report exactly what a --no-cache run reports (after the rounds)
TorchFix is installed into CACHE/torchfix-venv on first use.  Nothing is written into the repo.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import libcst  # imported before the pool forks, as a linter would have it loaded

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import DEFAULT_CACHE, corpus_dirs, count_lines, py_files  # noqa: E402
import project_speed  # noqa: E402

TORCHFIX_VERSION = "0.7.0"
PARTS = ("floor", "cold", "warm", "torchfix", "one", "project")


# --- (a) floor -------------------------------------------------------------

def _parse_one(path: str) -> bool:
    try:
        with open(path, "rb") as f:
            libcst.parse_module(f.read())
        return True
    except Exception:  # ParserSyntaxError, decode errors, recursion...
        return False


# CPU seconds (user + system) of the last floor or subprocess run, its workers included. On a
# machine shared with other work the wall clock of two processes swings with the load; the
# CPU they used swings much less, so the report gives both.
LAST_CPU = [0.0]


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def run_floor(files: list[str], jobs: int) -> tuple[float, int]:
    """Seconds (pool start included) and number of files LibCST failed to parse."""
    c0, t0 = _children_cpu(), time.perf_counter()
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        ok = list(pool.imap_unordered(_parse_one, files, chunksize=8))
        pool.close()
        pool.join()  # reaped: their CPU time is counted
    LAST_CPU[0] = _children_cpu() - c0
    return time.perf_counter() - t0, ok.count(False)


# --- devicelint / torchfix subprocesses -----------------------------------

DEVICELINT: list[str] = []  # --devicelint override


def devicelint_cmd() -> list[str]:
    if DEVICELINT:
        return list(DEVICELINT)
    exe = Path(sys.executable).with_name("devicelint")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "devicelint"]


def timed(cmd: list[str], what: str, cwd: str, ok_codes=(0,)) -> tuple[float, str]:
    c0, t0 = _children_cpu(), time.perf_counter()
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    LAST_CPU[0] = _children_cpu() - c0
    if p.returncode not in ok_codes or "Traceback (most recent call last)" in p.stderr:
        shown = " ".join(cmd[:12]) + (" ..." if len(cmd) > 12 else "")
        hint = ""
        if p.returncode == 2 and ("No such option" in p.stderr or "no such option" in p.stderr):
            hint = ("\n=> the devicelint CLI rejects a flag this benchmark needs "
                    "(--jobs, --no-cache, --cache-dir, --output-format json, --exit-zero).")
        raise SystemExit(f"{what} failed (exit {p.returncode}): {shown}\n"
                         f"--- stderr (tail) ---\n{p.stderr[-3000:]}{hint}")
    return dt, p.stdout


def n_findings(stdout: str) -> int:
    data = json.loads(stdout or "[]")
    if isinstance(data, dict):
        data = data.get("findings", [])
    return len(data)


def dl_lint(files, jobs, tmp, cache_dir=None) -> tuple[float, int]:
    cache = ["--no-cache"] if cache_dir is None else ["--cache-dir", cache_dir]
    cmd = devicelint_cmd() + cache + ["--jobs", str(jobs), "--output-format", "json", "--exit-zero", *files]
    dt, out = timed(cmd, "devicelint", tmp)
    return dt, n_findings(out)


def torchfix_exe(cache: Path) -> str:
    venv = cache / "torchfix-venv"
    exe = venv / "bin" / "torchfix"
    if not exe.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", f"torchfix=={TORCHFIX_VERSION}"], check=True)
    return str(exe)


def run_torchfix(exe: str, files: list[str], jobs: int, tmp: str) -> float:
    # exit 1 = some file failed to parse; diffs for fixable findings go to stdout
    return timed([exe, "-j", str(jobs), *files], "torchfix", tmp, ok_codes=(0, 1))[0]


# --- project: the incremental case ------------------------------------------

def dl_json(args: list[str], cwd: str) -> tuple[float, list]:
    """Seconds and the findings (every field) of one devicelint run in `cwd`."""
    cmd = devicelint_cmd() + args + ["--output-format", "json", "--exit-zero"]
    dt, out = timed(cmd, "devicelint (project)", cwd)
    return dt, sorted(json.dumps(f, sort_keys=True) for f in json.loads(out or "[]"))


def run_project(root: Path, files: int, jobs: int, rounds: int) -> dict:
    """project_speed.measure with this benchmark's devicelint command, every JSON field
    compared: the medians of one script alone (cache filled) and of the re-runs after an
    edit, and whether every run with the cache reported what a --no-cache run reports."""
    m = project_speed.measure(root, files, jobs, rounds, lambda args: dl_json(args, str(root)))
    return {"files": m["files"], "cold_findings": len(m["cold_found"]), "cold": m["cold"], "fill": m["fill"],
            "one": med(m["ones"]), "one_all": m["ones"], "edit": med(m["edits"]), "edit_all": m["edits"],
            "edit_same_as_cold": m["fill_same"] and m["edits_same"]}


# --- main ------------------------------------------------------------------

def pick_one_file(files: list[str], lines: dict[str, int]) -> str:
    mid = sorted((lines[f], f) for f in files if 300 <= lines[f] <= 500)
    if not mid:
        raise SystemExit("no 300-500-line file in the set; pass --one-file")
    return mid[len(mid) // 2][1]


def med(xs):
    return statistics.median(xs) if xs else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="*", type=Path)
    ap.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="corpus cache folder")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    ap.add_argument("--torchfix-subset", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--limit", type=int, help="use a random sample of N files (quick runs)")
    ap.add_argument("--only", default=",".join(PARTS), help="comma-separated parts: " + ",".join(PARTS))
    ap.add_argument("--one-file", type=Path)
    ap.add_argument("--project-files", type=int, default=300, help="size of the generated project (part `project`)")
    ap.add_argument("--json", type=Path, help="save the results here")
    ap.add_argument("--devicelint", help="command to run instead of the venv's devicelint")
    args = ap.parse_args()
    if args.devicelint:
        DEVICELINT[:] = shlex.split(args.devicelint)
    parts = set(args.only.split(","))
    if parts - set(PARTS):
        ap.error(f"unknown parts: {parts - set(PARTS)}")
    cache = args.cache.expanduser().resolve()
    cache.mkdir(parents=True, exist_ok=True)
    rng = random.Random(args.seed)

    roots = args.paths or corpus_dirs(cache)
    files = sorted(str(f.resolve()) for r in roots for f in ([r] if r.is_file() else py_files(r)))
    if args.limit:
        files = sorted(rng.sample(files, min(args.limit, len(files))))
    lines = {f: count_lines(Path(f)) for f in files}
    total = sum(lines.values())
    subset = sorted(rng.sample(files, min(args.torchfix_subset, len(files))))
    sub_lines = sum(lines[f] for f in subset)
    print(f"{len(files)} files, {total} lines, jobs={args.jobs}, rounds={args.rounds}; "
          f"torchfix subset {len(subset)} files, {sub_lines} lines", flush=True)

    work = Path(tempfile.mkdtemp(prefix="bench-", dir=cache))  # cwd for subprocesses, warm cache
    tmp, warm_cache = str(work), str(work / "dl-cache")
    times: dict[str, list[float]] = {p: [] for p in ("floor", "cold", "warm", "torchfix", "dl_subset")}
    cpu: dict[str, list[float]] = {"floor": [], "cold": []}
    info: dict = {}
    try:
        if parts & {"cold", "warm", "one", "project"} or ("torchfix" in parts and "cold" in parts):
            # preflight: fail fast with a clear message if the CLI lacks a flag
            dl_lint(files[:1], 1, tmp)
            dl_lint(files[:1], 1, tmp, cache_dir=str(work / "preflight-cache"))
        if "warm" in parts:
            dl_lint(files, args.jobs, tmp, cache_dir=warm_cache)  # fill the cache
        if "torchfix" in parts:
            tf = torchfix_exe(cache)
            info["torchfix_subset_files_with_torch"] = sum(
                "torch" in Path(f).read_text(errors="replace") for f in subset)

        for r in range(args.rounds):
            if "floor" in parts:
                dt, info["floor_parse_failures"] = run_floor(files, args.jobs)
                times["floor"].append(dt)
                cpu["floor"].append(LAST_CPU[0])
            if "cold" in parts:
                dt, info["cold_findings"] = dl_lint(files, args.jobs, tmp)
                times["cold"].append(dt)
                cpu["cold"].append(LAST_CPU[0])
            if "warm" in parts:
                dt, info["warm_findings"] = dl_lint(files, args.jobs, tmp, cache_dir=warm_cache)
                times["warm"].append(dt)
            if "torchfix" in parts:
                times["torchfix"].append(run_torchfix(tf, subset, args.jobs, tmp))
                if "cold" in parts:
                    times["dl_subset"].append(dl_lint(subset, args.jobs, tmp)[0])
            if any(times.values()):
                print(f"round {r + 1}: " + ", ".join(f"{k} {v[-1]:.2f}s" for k, v in times.items() if v), flush=True)

        one = None
        if "one" in parts:
            one_file = str(args.one_file.resolve()) if args.one_file else pick_one_file(files, lines)
            one_t = [timed(devicelint_cmd() + [one_file], "devicelint one-file", tmp, (0, 1))[0] for _ in range(10)]
            one = {"file": one_file, "lines": count_lines(Path(one_file)), "seconds": med(one_t), "all": one_t}
        project = None
        if "project" in parts:
            project = run_project(work / "project", args.project_files, args.jobs, max(args.rounds, 5))
    finally:
        shutil.rmtree(work, ignore_errors=True)

    m = {k: med(v) for k, v in times.items()}
    res: dict = {
        "files": len(files), "lines": total, "jobs": args.jobs, "rounds": args.rounds,
        "torchfix_subset": {"files": len(subset), "lines": sub_lines},
        "seconds": m, "all_seconds": times, **info, "one_file": one, "project": project,
    }
    lps = {k: (sub_lines if k in ("torchfix", "dl_subset") else total) / v for k, v in m.items() if v}
    res["lines_per_s"] = lps

    def ratio(a, b):
        return m[a] / m[b] if m.get(a) and m.get(b) else None

    mc = {k: med(v) for k, v in cpu.items()}
    res["cpu_seconds"], res["all_cpu_seconds"] = mc, cpu
    res["ratios"] = {
        "cold_over_floor": ratio("cold", "floor"),
        "cold_over_floor_cpu": mc["cold"] / mc["floor"] if mc["cold"] and mc["floor"] else None,
        "warm_over_cold": ratio("warm", "cold"),
        # same files, same jobs: torchfix seconds / devicelint-cold seconds on the subset
        "torchfix_over_devicelint_per_line": ratio("torchfix", "dl_subset"),
    }
    print()
    for k, v in m.items():
        if v:
            used = f"  ({mc[k]:.2f} s CPU)" if mc.get(k) else ""
            print(f"{k:10s} {v:8.2f} s  {lps[k]:10.0f} lines/s{used}")
    for k, v in res["ratios"].items():
        if v is not None:
            print(f"{k:34s} {v:.2f}")
    if one:
        print(f"one-file   {one['seconds']:.3f} s  ({one['lines']} lines, {one['file']})")
    if project:
        p = project
        print(f"project    {p['files']} files, {p['cold_findings']} findings: cold {p['cold']:.2f} s, "
              f"cache filled in {p['fill']:.2f} s")
        print(f"  one script alone, warm cache     {p['one']:.3f} s (median of {len(p['one_all'])})")
        print(f"  edit one file, re-run all        {p['edit']:.3f} s (median of {len(p['edit_all'])}); "
              f"same findings as --no-cache: {p['edit_same_as_cold']}")
    if args.json:
        args.json.write_text(json.dumps(res, indent=2))
        print(f"saved {args.json}")


if __name__ == "__main__":
    main()
