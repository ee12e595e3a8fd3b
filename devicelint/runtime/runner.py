"""Launch the harness per script, read its JSON, and turn runs into verdicts.

Verdicts (``Result.verdict``); only the first two count as a pass:

* ``confirmed``         bad script showed its declared outcome and the blamed line is
                        one the linter flags for the rule
* ``clean``             fixed script exited 0 with none of the bad script's symptom
* ``no-runtime-proof``  bad script of a ``runtime: none (reason)`` fixture exited 0: the
                        pitfall has no runtime symptom, so nothing is confirmed; it passes
                        only in the sense that the script runs
* ``cross-check-failed`` outcome seen, but the runtime blames a line the linter does not flag
* ``not-confirmed``     bad script ran without the declared outcome
* ``failed-otherwise``  a script died of something other than the declared outcome
* ``not-clean``         fixed script failed, or showed the bad script's symptom
* ``timeout`` / ``error`` / ``fixture-error``  nothing trustworthy to judge
* ``lint-mismatch``     (``devicelint verify``) the run passed, but the linter does not flag
                        the bad script at exactly its ``expect:`` lines, or flags the fixed one

Each bad script also gets an ``autofix`` verdict: ``devicelint --fix --unsafe-fixes`` is
applied to a copy of it (beside copies of its helper files), which then runs as a fixed
script would: ``proven`` (the rule no longer fires and the copy runs clean), ``fails``
(it does not: ``autofix_detail`` says why), ``no-fix`` (devicelint has no edit for the
rule's findings there, or for some of them: ``autofix_detail`` says "partial").

New outcome kinds: add a parser in fixture.PARSERS and a judge in JUDGES below.

Outcome kinds in ``REAL_RUNS`` never use the simulator: ``raises-without-cuda`` runs both
scripts for real with CUDA hidden (``CUDA_VISIBLE_DEVICES=""``), which on a CPU-only box is
simply the truth. Their results say ``simulated: false``. A ``none`` pair runs like any
other (simulated under ``--simulate``, which models ``nn.DataParallel`` on its GPUs): its
fixed script's copies and syncs are held to real CUDA's, wherever the simulation runs.
"""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from devicelint.lines import split_lines
from devicelint.runtime.fixture import Outcome, Pair
from devicelint.runtime.ranks import NEEDS, real_gpu_count, run_ranks
from devicelint.runtime.warm import WarmServer, root_on_path

PASSING = ("confirmed", "clean", "no-runtime-proof")

# outcome kind -> environment for a real (never simulated) run of both scripts
REAL_RUNS = {
    "raises-without-cuda": {"CUDA_VISIBLE_DEVICES": ""},
}


@dataclass
class Run:
    """One harness subprocess: ``record`` is its JSON, or None with ``problem`` saying why."""

    script: str
    record: dict | None
    problem: str | None = None
    returncode: int | None = None
    stderr_tail: str = ""
    seconds: float = 0.0

    @property
    def exception(self) -> dict | None:
        return self.record.get("exception") if self.record else None

    @property
    def exited_clean(self) -> bool:
        return bool(self.record) and self.record["exit_code"] == 0 and not self.exception

    def describe_failure(self) -> str:
        exc = self.exception
        if exc:
            first = exc["message"].strip().splitlines()[0] if exc["message"].strip() else ""
            return f"raises {exc['type']}: {first[:300]}"
        return f"exit code {self.record['exit_code']}"


@dataclass
class Result:
    fixture: str  # "<CODE>-<name>/bad.py"
    role: str  # "bad" | "fixed"
    code: str
    expected: str
    observed: str
    line: int | None  # the line the runtime blames (bad scripts)
    verdict: str
    detail: str = ""
    simulated: bool = False
    flagged: list[int] = field(default_factory=list)  # lines the linter flags for `code`
    lint: list[str] = field(default_factory=list)  # static protocol problems (verify.py)
    autofix: str | None = None  # bad scripts: "proven" | "fails" | "no-fix"
    autofix_detail: str = ""
    cost: dict | None = None  # real-CUDA waste pairs: ms per step, bad and fixed (steptime.py)

    @property
    def ok(self) -> bool:
        return self.verdict in PASSING

    def to_json(self) -> dict:
        return asdict(self)


def default_memory_mb() -> int:
    """The memory cap of one script (MB): ``DEVICELINT_SCRIPT_MEMORY_MB`` (0 turns it off),
    else half of this machine's memory, generous for a fixture script (seconds of a tiny
    model) yet short of what would take the machine down with it."""
    given = os.environ.get("DEVICELINT_SCRIPT_MEMORY_MB", "").strip()
    if given:
        try:
            return max(0, int(given))
        except ValueError:
            pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // (2 * 1024 * 1024)
    except (ValueError, OSError, AttributeError):
        return 0


def run_script(script: str | Path, simulate: bool, timeout: float = 120.0, env_extra: dict | None = None,
               server=None, memory_mb: int | None = None) -> Run:
    """Run one script through the harness in its own process (``env_extra`` is added to
    its environment, e.g. ``CUDA_VISIBLE_DEVICES=""``): a child forked by ``server`` (a
    warm.WarmServer that has imported torch already) or, without one, a fresh
    ``sys.executable``. A server that fails is not trusted with a verdict: the script
    runs again in a fresh process. Either way the script runs in a session of its own,
    which is killed when it ends (child processes and DataLoader workers with it), and
    under a memory cap of ``memory_mb`` (default: ``default_memory_mb()``; 0: none)."""
    script = str(Path(script).resolve())
    cap = default_memory_mb() if memory_mb is None else memory_mb
    args = (["--simulate"] if simulate else []) + ["--max-memory", str(cap), script]
    with tempfile.TemporaryDirectory(prefix="devicelint-") as tmp:
        out = os.path.join(tmp, "result.json")
        log = os.path.join(tmp, "output.log")
        start = time.monotonic()
        if server is not None:
            env = dict(env_extra or {}, PYTHONUNBUFFERED="1")
            try:
                code, timed_out = server.run(args + ["--out", out], tmp, env, log, timeout)
            except OSError:
                code, timed_out = "fallback", False
            if code != "fallback":
                return _finish(script, out, code, timed_out, _read_log(log), timeout, time.monotonic() - start)
        cmd = [sys.executable, "-X", "faulthandler", "-m", "devicelint.runtime.harness", *args, "--out", out]
        env = root_on_path(dict(os.environ, PYTHONUNBUFFERED="1", **(env_extra or {})))
        # the output goes to a file, not a pipe: a child the script leaves behind holding
        # the pipe open would keep us waiting after the script is done
        with open(log, "wb") as output:
            proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT, cwd=tmp,
                                    env=env, start_new_session=True)
        timed_out = False
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:
            _kill_group(proc)  # what the script started ends with it, on a normal exit too
            proc.wait()
        return _finish(script, out, proc.returncode, timed_out, _read_log(log), timeout, time.monotonic() - start)


def _read_log(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return b""


def _finish(script: str, out: str, code, timed_out: bool, output: bytes, timeout: float, seconds: float) -> Run:
    tail = _tail(output)
    if timed_out:
        return Run(script, None, f"timed out after {timeout:g}s", None, tail, seconds)
    if not os.path.exists(out):
        return Run(script, None, f"harness wrote no result (exit code {code})", code, tail, seconds)
    if isinstance(code, int) and code < 0:
        # the harness's guard ends as the script's process ended: a signal here is the
        # script's death or the guard's own (a script that kills its parent, whose result
        # may still come in before its session is killed): not a finished run either way
        return Run(script, None, f"the run was killed (exit code {code})", code, tail, seconds)
    try:
        with open(out, encoding="utf-8") as fh:
            record = json.load(fh)
    except (OSError, ValueError) as e:  # the script wrote over it, or died while it was written
        return Run(script, None, f"harness result unreadable ({e})", code, tail, seconds)
    return Run(script, record, None, code, tail, seconds)


def _kill_group(proc: subprocess.Popen) -> None:
    """Kill the script's session (its process group: the harness started it with
    ``start_new_session``). The group outlives its leader while any member lives, and
    its id cannot be given to a new process meanwhile."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        try:
            proc.kill()
        except OSError:
            pass


def _tail(output: bytes | None, limit: int = 4000) -> str:
    text = (output or b"").decode("utf-8", "replace")
    return text[-limit:]


# ---- the cross-check with the linter ------------------------------------------------
def flagged_ranges(path: Path, code: str) -> list[tuple[int, int]]:
    from devicelint.engine import lint_source

    data = path.read_bytes()
    findings = lint_source(data, str(path), select=[code])  # off-by-default rules too
    if path.suffix == ".ipynb":  # back to lines of the joined cells, which the harness ran
        from devicelint.notebook import Notebook

        nb = Notebook(data)
        findings = [replace(f, line=nb.row(f.cell, f.line), end_line=nb.row(f.cell, f.end_line)) for f in findings if f.cell]
    return sorted({(f.line, max(f.end_line, f.line)) for f in findings if f.code == code})


def _is_flagged(line: int | None, ranges) -> bool:
    return line is not None and any(lo <= line <= hi for lo, hi in ranges)


# ---- judges: did the bad script show the declared outcome? ----------------------------
@dataclass
class Observation:
    matched: bool
    observed: str
    candidates: list[int] = field(default_factory=list)  # blamable lines, best first
    extra_check: object = None  # callable(ranges) -> str|None (an extra cross-check failure)


def _judge_raises(outcome: Outcome, bad: Run, fixed: Run | None, src: Path) -> Observation:
    exc = bad.exception
    if not exc:
        return Observation(False, f"exit code {bad.record['exit_code']}, no exception")
    type_ok = outcome.name in (exc["type"], exc["qualname"]) or exc["qualname"].endswith("." + outcome.name)
    text_ok = not outcome.texts or any(t in exc["message"] for t in outcome.texts)
    frames = [f["line"] for f in reversed(exc["script_frames"])]  # innermost first
    return Observation(type_ok and text_ok, bad.describe_failure(), frames)


def _matching_warnings(outcome: Outcome, run: Run) -> list[dict]:
    text = outcome.texts[0] if outcome.texts else ""
    return [w for w in run.record["warnings"] if w["category"] == outcome.name.rsplit(".", 1)[-1]
            and text in w["message"]]


def _judge_warns(outcome: Outcome, bad: Run, fixed: Run | None, src: Path) -> Observation:
    if not bad.exited_clean:
        return Observation(False, bad.describe_failure())
    hits = _matching_warnings(outcome, bad)
    if not hits:
        seen = sorted({f"{w['category']}: {w['message'][:80]}" for w in bad.record["warnings"]})
        return Observation(False, "exit 0, no matching warning" + (f" (saw {seen[:3]})" if seen else ""))
    first = hits[0]
    return Observation(True, f"warns {first['category']}: {first['message'][:200]}", [w["line"] for w in hits])


def _per_line(run: Run, kind: str) -> Counter:
    rec = run.record
    data = rec["syncs"] if kind == "sync" else rec["copies"].get(kind, {})
    return Counter({int(k): v for k, v in data.items()})


def _line_texts(path: Path) -> list[str]:
    try:
        if path.suffix == ".ipynb":
            from devicelint.notebook import script

            return split_lines(script(path.read_bytes()))
        return split_lines(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):  # UnicodeDecodeError and a broken notebook are ValueErrors
        return []


def _judge_wastes(outcome: Outcome, bad: Run, fixed: Run | None, src: Path) -> Observation:
    if not bad.exited_clean:
        return Observation(False, bad.describe_failure())
    if fixed is None or not fixed.exited_clean:
        why = fixed.problem or fixed.describe_failure() if fixed else "no fixed script"
        return Observation(False, f"cannot compare: fixed script did not run clean ({why})")
    kind = outcome.name
    b, f = _per_line(bad, kind), _per_line(fixed, kind)
    diff = sum(b.values()) - sum(f.values())
    # Which bad lines hold the extra copies: match lines by their text against the fixed
    # script, so that a copy both scripts make (moving the batch) is not blamed.
    bad_text, fixed_text = _line_texts(src), _line_texts(Path(fixed.script))
    fixed_by_text: Counter = Counter()
    for line, n in f.items():
        if 0 < line <= len(fixed_text):
            fixed_by_text[fixed_text[line - 1].strip()] += n
    excess = {}
    for line, n in b.items():
        text = bad_text[line - 1].strip() if 0 < line <= len(bad_text) else ""
        excess[line] = n - fixed_by_text.get(text, 0)
    candidates = [ln for ln, e in sorted(excess.items(), key=lambda kv: (-kv[1], kv[0])) if e > 0 and ln > 0]
    steps = bad.record.get("optimizer_steps") or bad.record.get("backward_calls") or 0
    observed = (f"{kind}: bad {sum(b.values())} vs fixed {sum(f.values())} ({diff:+d}"
                + (f", {diff / steps:.1f}/step over {steps} steps" if steps and diff > 0 else "") + ")")
    if candidates:
        observed += "; extra on line " + ", ".join(f"{ln} (+{excess[ln]})" for ln in candidates[:3])

    def flagged_total(ranges):
        on_flagged = sum(n for line, n in b.items() if _is_flagged(line, ranges))
        if on_flagged < outcome.minimum:
            return f"only {on_flagged} of the {kind} counts lie on flagged lines (need >= {outcome.minimum})"
        return None

    return Observation(diff >= outcome.minimum, observed, candidates, flagged_total)


def grows(samples: list[int]) -> bool:
    """True when memory climbs step after step (the first sample is warm-up)."""
    s = samples[1:]
    if len(s) < 3:
        return False
    deltas = [b - a for a, b in zip(s, s[1:])]
    return s[-1] > s[0] and sum(d > 0 for d in deltas) >= 0.75 * len(deltas)


def _growing_series(run: Run) -> list[int] | None:
    series = run.record["memory_series"]
    return next((s for s in series if grows(s)), None)


def _judge_grows(outcome: Outcome, bad: Run, fixed: Run | None, src: Path) -> Observation:
    if not bad.exited_clean:
        return Observation(False, bad.describe_failure())
    growing = _growing_series(bad)
    samples = growing or next(iter(bad.record["memory_series"]), [])
    carry = Counter({int(k): v for k, v in bad.record["carry"].items()})
    candidates = [ln for ln, _ in carry.most_common() if ln > 0]
    show = samples if len(samples) <= 6 else samples[:3] + ["..."] + samples[-2:]
    observed = f"memory per step {show}" + (f"; graph kept across steps on line {candidates[0]}" if candidates else "")
    return Observation(growing is not None, observed, candidates)


def _judge_raises_without_cuda(outcome: Outcome, bad: Run, fixed: Run | None, src: Path) -> Observation:
    exc = bad.exception
    real = "real run, CUDA hidden (CUDA_VISIBLE_DEVICES=''), not simulated"
    if not exc:
        return Observation(False, f"exit code {bad.record['exit_code']}, no exception ({real})")
    type_ok = any(t in (exc["type"], exc["qualname"]) or exc["qualname"].endswith("." + t) for t in outcome.types)
    text_ok = not outcome.texts or any(t in exc["message"] for t in outcome.texts)
    frames = [f["line"] for f in reversed(exc["script_frames"])]  # innermost first
    return Observation(type_ok and text_ok, f"{bad.describe_failure()} ({real})", frames)


def _judge_none(outcome: Outcome, bad: Run, fixed: Run | None, src: Path) -> Observation:
    if not bad.exited_clean:
        return Observation(False, bad.describe_failure())
    return Observation(True, f"exit 0; no runtime proof: {outcome.texts[0] if outcome.texts else 'none declared'}")


JUDGES = {
    "raises": _judge_raises,
    "warns": _judge_warns,
    "wastes": _judge_wastes,
    "grows": _judge_grows,
    "raises-without-cuda": _judge_raises_without_cuda,
    "none": _judge_none,
}


# ---- blame through a name ---------------------------------------------------------------
# Some pitfalls crash on a later line than the one at fault: a discarded `x.to(device)`
# (DL006) fails where `x` is next used beside device tensors; a hard-coded `device = "cuda"`
# (DL007) fails where `device` is first used. For these rules a blamed line is accepted when
# it uses the name that a flagged line is about: the receiver of the discarded move, or the
# variable the hard-coded device is assigned to. A DataLoader over a dataset that moves its
# items (DL017) fails where the loader is iterated (the worker's or pin thread's error is
# re-raised there): the loader's variable. An optimizer whose state was loaded before its
# model moved (DL018) fails at its `step()`: the optimizer's variable. The name is read from
# the flagged line's own text, so the check stays tied to what the linter reported.
_NAME = r"[A-Za-z_][\w.]*"
_ASSIGNED = re.compile(rf"^\s*({_NAME})\s*(?::[^=]*)?=(?!=)")  # `name = ...`, `name: T = ...`
BLAME_VIA_NAME = {
    "DL006": re.compile(rf"^\s*({_NAME})\s*\.\s*(?:to|cuda|cpu)\s*\("),
    "DL007": _ASSIGNED,
    "DL017": _ASSIGNED,
    "DL018": re.compile(rf"^\s*({_NAME})\s*\.\s*load_state_dict\s*\("),
    # `model = Net().cuda()` on GPU 0 in every rank: NCCL fails where the model first meets the
    # group (`DDP(model, ...)`, a collective), a line that uses `model`
    "DL020": _ASSIGNED,
    # `loader = DataLoader(..., shuffle=True)` is flagged where `generator=` goes; the sampler
    # fails where the loader is iterated (`for x, y in loader`, `iter(loader)`), a line that uses `loader`
    "DL019": _ASSIGNED,
}


def blame_via_name(code: str, candidates: list[int], ranges, src: Path) -> tuple[int, int, str] | None:
    """(blamed line, flagged line, name) for the first candidate line that uses a name a
    flagged line of ``code`` is about, or None (also for rules without such a policy)."""
    pattern = BLAME_VIA_NAME.get(code)
    if pattern is None:
        return None
    lines = _line_texts(src)
    names = []
    for lo, hi in ranges:
        m = pattern.match(lines[lo - 1]) if 0 < lo <= len(lines) else None
        if m:
            names.append((lo, m.group(1)))
    for cand in candidates:
        text = lines[cand - 1] if 0 < cand <= len(lines) else ""
        text = text.split("#", 1)[0]
        for flagged_line, name in names:
            if cand != flagged_line and re.search(rf"(?<![\w.]){re.escape(name)}(?![\w])", text):
                return cand, flagged_line, name
    return None


def _fixed_symptom(outcome: Outcome, fixed: Run) -> str | None:
    """The bad script's symptom showing up in the fixed script, or None."""
    if outcome.kind == "warns" and _matching_warnings(outcome, fixed):
        return "emits the warning too"
    if outcome.kind == "grows" and _growing_series(fixed):
        return f"memory grows too: {_growing_series(fixed)[:8]}"
    return None


# ---- verdicts -------------------------------------------------------------------------
def judge_pair(pair: Pair, bad: Run | None, fixed: Run | None, simulated: bool) -> tuple[Result, Result | None]:
    """Verdicts for a pair's bad and fixed script from their runs."""
    expected = pair.header.outcome.describe() if pair.header else "?"
    base = dict(code=pair.code, simulated=simulated)
    if pair.error or bad is None:
        err = Result(pair.name, "bad", expected=expected, observed="", line=None, verdict="fixture-error",
                     detail=pair.error or "not run", **base)
        return err, None
    return _judge_bad(pair, bad, fixed, expected, base), _judge_fixed(pair, fixed, expected, base)


def _run_problem(run: Run) -> tuple[str, str]:
    if run.problem and run.problem.startswith("needs "):
        # a multi-rank pair on a machine with too few GPUs (runtime/ranks.py): not run, and said so
        return "no-runtime-proof", run.problem
    verdict = "timeout" if run.problem and run.problem.startswith("timed out") else "error"
    return verdict, f"{run.problem}\n--- output tail ---\n{run.stderr_tail}"


def _judge_bad(pair: Pair, bad: Run, fixed: Run | None, expected: str, base: dict) -> Result:
    outcome = pair.header.outcome
    if bad.record is None:
        verdict, detail = _run_problem(bad)
        return Result(pair.name, "bad", expected=expected, observed=bad.problem, line=None, verdict=verdict,
                      detail=detail, **base)
    obs = JUDGES[outcome.kind](outcome, bad, fixed, pair.bad)
    if outcome.kind == "none" and obs.matched:
        return Result(pair.name, "bad", expected=expected, observed=obs.observed, line=None,
                      verdict="no-runtime-proof", detail="", **base)
    if not obs.matched:
        verdict = "failed-otherwise" if bad.exception else "not-confirmed"
        line = obs.candidates[0] if obs.candidates else None
        return Result(pair.name, "bad", expected=expected, observed=obs.observed, line=line, verdict=verdict,
                      detail=(bad.exception or {}).get("traceback", "") or bad.stderr_tail[-1500:], **base)
    try:
        ranges = flagged_ranges(pair.bad, pair.code)
    except Exception as exc:  # noqa: BLE001 - a linter crash must show up as a failed check
        return Result(pair.name, "bad", expected=expected, observed=obs.observed, line=None,
                      verdict="cross-check-failed", detail=f"cross-check: linter raised {exc!r}", **base)
    flagged = sorted({ln for lo, hi in ranges for ln in range(lo, hi + 1)})
    blamed = next((ln for ln in obs.candidates if _is_flagged(ln, ranges)), None)
    header_lines = list(pair.header.expect.get(pair.code, ()))
    problem = None
    via = blame_via_name(pair.code, obs.candidates, ranges, pair.bad) if blamed is None else None
    if via is not None:
        blamed = via[0]
        obs.observed += f"; line {via[0]} uses `{via[2]}`, made wrong on flagged line {via[1]}"
    if blamed is not None and pair.bad.suffix == ".ipynb":
        obs.observed += f"; line {blamed} of the joined cells is {_notebook_place(pair.bad, blamed)}"
    if blamed is None:
        blamed = obs.candidates[0] if obs.candidates else None
        what = f"blamed line {blamed}" if blamed is not None else "no script line to blame"
        problem = (f"cross-check: {what} not flagged by {pair.code} (flagged: {flagged}; "
                   f"header expects {header_lines})")
    elif obs.extra_check is not None:
        problem = obs.extra_check(ranges)
        if problem:
            problem = f"cross-check: {problem} (flagged: {flagged})"
    return Result(pair.name, "bad", expected=expected, observed=obs.observed, line=blamed,
                  verdict="cross-check-failed" if problem else "confirmed", detail=problem or "",
                  flagged=flagged, **base)


def _notebook_place(path: Path, row: int) -> str:
    """`cell 9:8` for a line of a notebook's joined code cells (the lines the harness runs)."""
    from devicelint.notebook import Notebook

    cell = Notebook(path.read_bytes()).cell_at(row)
    return f"cell {cell.index}:{row - cell.start + 1}"


def _judge_fixed(pair: Pair, fixed: Run | None, expected: str, base: dict) -> Result | None:
    if fixed is None:
        return None
    expect_fixed = "exit 0, clean"
    if fixed.record is None:
        verdict, detail = _run_problem(fixed)
        return Result(pair.fixed_name, "fixed", expected=expect_fixed, observed=fixed.problem, line=None,
                      verdict=verdict, detail=detail, **base)
    if not fixed.exited_clean:
        exc = fixed.exception
        line = exc["script_frames"][-1]["line"] if exc and exc["script_frames"] else None
        return Result(pair.fixed_name, "fixed", expected=expect_fixed, observed=fixed.describe_failure(),
                      line=line, verdict="not-clean",
                      detail=(exc or {}).get("traceback", "") or fixed.stderr_tail[-1500:], **base)
    symptom = _fixed_symptom(pair.header.outcome, fixed)
    counts = (f"h2d {sum(fixed.record['copies']['h2d'].values())}, syncs {sum(fixed.record['syncs'].values())}, "
              f"warnings {len(fixed.record['warnings'])}")
    return Result(pair.fixed_name, "fixed", expected=expect_fixed,
                  observed=f"exit 0 ({counts})" + (f"; {symptom}" if symptom else ""), line=None,
                  verdict="not-clean" if symptom else "clean", detail=symptom or "", **base)


def autofix_run(pair: Pair, simulate: bool, timeout: float, env_extra: dict | None, server=None,
                bad: Run | None = None, fixer=None, memory_mb: int | None = None) -> tuple[str, str]:
    """(verdict, detail) for the bad script of `pair` after `devicelint --fix --unsafe-fixes`
    (the default rules and the pair's own). For a counted waste, `bad` (the bad script's
    run) must show that waste over the fixed copy, as over the hand-fixed script. `fixer`
    stands in for fix_source (tests: a patched module would reach the other pairs' threads)."""
    import shutil

    from devicelint.engine import analyse
    from devicelint.fix import fix_source
    from devicelint.rules import ALL_RULES

    source = pair.bad.read_bytes()
    select = sorted({r.code for r in ALL_RULES if r.default} | {pair.code})
    before = [r for f, r in analyse(source, str(pair.bad), select=select)[0] if f.code == pair.code]
    if not any(r is not None and r.edit is not None for r in before):
        return "no-fix", ""
    new, count = (fixer or fix_source)(source, str(pair.bad), select=select, unsafe=True)
    after = [(f.line, r) for f, r in analyse(new, str(pair.bad), select=[pair.code])[0] if f.code == pair.code]
    if any(r is not None and r.edit is not None for _line, r in after):
        return "fails", f"{pair.code} still offers fixes after --fix at lines {[ln for ln, _r in after]}"
    if after:
        return "no-fix", (f"partial: {len(after)} of {len(before)} {pair.code} findings have no automatic fix "
                          f"(lines {[ln for ln, _r in after]})")
    with tempfile.TemporaryDirectory(prefix="devicelint-autofix-") as tmp:
        folder = Path(tmp) / pair.folder.name
        shutil.copytree(pair.folder, folder, ignore=shutil.ignore_patterns("__pycache__"))
        copy = folder / pair.bad.name
        copy.write_bytes(new)
        run = run_script(copy, simulate, timeout, env_extra, server, memory_mb)
    result = _judge_fixed(pair, run, "", dict(code=pair.code, simulated=simulate))
    if result.verdict != "clean":
        return "fails", f"{result.verdict}: {result.observed} {result.detail}".strip()
    outcome = pair.header.outcome
    if outcome.kind.startswith("wastes"):
        if bad is None or bad.record is None:
            return "fails", "no run of the bad script to compare the waste with"
        obs = JUDGES[outcome.kind](outcome, bad, run, pair.bad)
        if not obs.matched:
            return "fails", f"the fixed copy still wastes: {obs.observed}"
    return "proven", f"{count} fix{'es' if count > 1 else ''} applied; {result.observed}"


class PairRunner:
    """Runs each pair once (bad + fixed) and caches the verdicts, so that the bad and
    the fixed test of a pair, the report, and ``verify`` all share one pair of runs.
    ``prefetch`` runs pairs in background threads (each run is its own process)."""

    def __init__(self, simulate: bool, timeout: float = 120.0, jobs: int | None = None, warm: bool | None = None,
                 autofix: bool = True, memory_mb: int | None = None):
        self.simulate = simulate
        self.memory_mb = memory_mb  # each script's cap, MB (None: default_memory_mb())
        self.autofix = autofix
        self.timeout = timeout
        self.jobs = jobs or (min(4, os.cpu_count() or 1) if simulate else 1)
        # Simulated runs fork from warm servers (warm.py); real-CUDA runs keep one fresh
        # process per script, so no CUDA state can ever be inherited through a fork.
        if warm is None:
            warm = simulate and os.environ.get("DEVICELINT_FRESH_PROCESSES", "") in ("", "0")
        self.warm = warm
        self._servers: queue.SimpleQueue = queue.SimpleQueue()
        self._all_servers: list[WarmServer] = []
        self.env: dict | None = None  # device/versions as seen inside the first run
        self._futures: dict[Path, Future] = {}
        self._lock = threading.Lock()
        self._executor: ThreadPoolExecutor | None = None

    def _compute(self, pair: Pair) -> tuple[Result, Result | None]:
        bad = fixed = auto = None
        simulate, env_extra = self.simulate, None
        if pair.header is not None and pair.header.outcome.kind in REAL_RUNS:
            simulate, env_extra = False, REAL_RUNS[pair.header.outcome.kind]
        if not pair.error:
            server = self._take_server()
            try:
                bad = self._run(pair, pair.bad, simulate, env_extra, server)
                fixed = self._run(pair, pair.fixed, simulate, env_extra, server) if pair.fixed else None
                if self.autofix and pair.header is not None and pair.header.ranks == 1:
                    try:
                        auto = autofix_run(pair, simulate, self.timeout, env_extra, server, bad,
                                           memory_mb=self.memory_mb)
                    except Exception as exc:  # noqa: BLE001 - a crash of --fix is a failed autofix
                        auto = ("fails", f"--fix raised {exc!r}")
            finally:
                self._give_back(server)
            for run in (bad, fixed):
                # the session's device/versions come from runs made in the session's own mode
                if run is not None and run.record and self.env is None and simulate == self.simulate:
                    keys = ("device", "driver", "cuda", "torch", "python", "simulated")
                    self.env = {k: run.record.get(k) for k in keys}
        bad_result, fixed_result = judge_pair(pair, bad, fixed, simulate)
        if auto is not None:
            bad_result.autofix, bad_result.autofix_detail = auto
        return bad_result, fixed_result

    def _run(self, pair: Pair, script: Path, simulate: bool, env_extra, server) -> Run:
        ranks = pair.header.ranks if pair.header is not None else 1
        if ranks > 1:
            have = None if simulate else real_gpu_count()
            if have is not None and have < ranks:
                return Run(str(script), None, NEEDS.format(ranks, have))
            return run_ranks(script, simulate, ranks, self.timeout, env_extra, self.memory_mb, run_script)
        return run_script(script, simulate, self.timeout, env_extra, server, self.memory_mb)

    def _take_server(self) -> WarmServer | None:
        if not self.warm:
            return None
        try:
            return self._servers.get_nowait()
        except queue.Empty:
            pass
        try:
            server = WarmServer(root_on_path(os.environ))
        except OSError:
            return None
        with self._lock:
            self._all_servers.append(server)
        return server

    def _give_back(self, server: WarmServer | None) -> None:
        if server is not None and server.alive:
            self._servers.put(server)

    def _submit(self, pair: Pair) -> Future:
        with self._lock:
            if pair.bad not in self._futures:
                if self._executor is None:
                    self._executor = ThreadPoolExecutor(max_workers=self.jobs, thread_name_prefix="devicelint")
                self._futures[pair.bad] = self._executor.submit(self._compute, pair)
            return self._futures[pair.bad]

    def prefetch(self, pairs) -> None:
        for pair in pairs:
            self._submit(pair)

    def results(self, pair: Pair) -> tuple[Result, Result | None]:
        return self._submit(pair).result()

    def all_results(self) -> list[Result]:
        """Results of every pair whose runs have finished, in submission order."""
        out = []
        for future in list(self._futures.values()):
            if future.done() and not future.cancelled() and future.exception() is None:
                bad, fixed = future.result()
                out.append(bad)
                if fixed is not None:
                    out.append(fixed)
        return out

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
        for server in self._all_servers:
            server.close()
