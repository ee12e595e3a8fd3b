"""``devicelint verify [--simulate] [DIR]``: run the runtime checks on a folder of pairs.

Public API (torch is only needed by the scripts' subprocesses; this module imports it
lazily, and only to check for a GPU):

``verify_folder(path, simulate: bool, timeout: float = 120, jobs: int | None = None, memory_mb: int | None = None) -> list[Result]``
    Find every ``<CODE>-<name>/bad*.py`` + ``fixed*.py`` pair under ``path`` (or treat
    ``path`` as one such folder), run each script in its own subprocess — on the real
    GPU, or on the simulated device when ``simulate``, in a session of its own that is
    killed when it ends, under a memory cap of ``memory_mb`` (default
    ``runner.default_memory_mb()``) — and return one ``Result`` per
    script (``runner.Result``: fixture, role, code, expected, observed, line, verdict,
    detail, simulated, flagged, lint; ``.ok`` is True for "confirmed"/"clean"). Each
    script also gets the static checks of ``runtime.static`` (bad: flagged at exactly its
    ``expect:`` lines; fixed: clean under every rule); a script that fails them gets the
    verdict "lint-mismatch" and its problems in ``lint``. Raises
    ``VerifyError`` (message meant for the user; exit 2) when torch is missing, when
    ``simulate`` is False and torch sees no CUDA device, or when no pairs are found.

``format_table(results) -> str``
    A plain-text verdict table, one row per script, titled "SIMULATED" when the runs
    were simulated, with the reason under every failing row and a pass count.

``results_to_report(results, simulated, env=None) -> dict``
    The JSON report (``--cuda-report``, ``fixtures/cuda-report.json``): ``device``,
    ``driver``, ``cuda``, ``torch``, ``python``, ``date``, ``simulated``, ``summary``
    and ``results`` (per script: expected, observed, blamed line, verdict, autofix, and
    on a real GPU ``cost``: a waste pair's ms per step, bad and fixed; steptime.py).
    ``env`` is the device/version dict seen inside the runs (``PairRunner.env``); when
    absent it is looked up here.
"""

from __future__ import annotations

import datetime as _dt
import importlib.util
import platform
from pathlib import Path

from devicelint.runtime.fixture import discover_pairs
from devicelint.runtime.runner import PASSING, PairRunner, Result
from devicelint.runtime.static import check_bad, check_fixed
from devicelint.runtime.steptime import NO_STEP

__all__ = ["VerifyError", "verify_folder", "format_table", "results_to_report", "check_runtime"]


class VerifyError(Exception):
    """A reason the runtime checks cannot run at all (message is for the user)."""


def check_runtime(simulate: bool) -> None:
    """Raise VerifyError unless torch (and, for real runs, a CUDA device) is usable."""
    if importlib.util.find_spec("torch") is None:
        raise VerifyError(
            "the runtime checker needs PyTorch, which is not installed in this environment "
            "(pip install -e '.[runtime]' -c constraints.txt from a devicelint checkout); linting itself does not need it"
        )
    if simulate:
        return
    import torch  # lazily: only the real-GPU path needs it in this process

    if not torch.cuda.is_available():
        raise VerifyError(
            f"no CUDA device: torch.cuda.is_available() is False (torch {torch.__version__}, "
            f"built with CUDA {torch.version.cuda}). Run with the simulated device instead "
            "(`devicelint verify --simulate`, `pytest --simulate-cuda`)"
        )


def verify_folder(path, simulate: bool, timeout: float = 120, jobs: int | None = None,
                  memory_mb: int | None = None) -> list[Result]:
    check_runtime(simulate)
    pairs = discover_pairs(path)
    if not pairs:
        raise VerifyError(f"no fixture pairs (<CODE>-<name>/bad.py + fixed.py) found under {path}")
    runner = PairRunner(simulate, timeout, jobs, memory_mb=memory_mb)
    try:
        runner.prefetch(pairs)
        results: list[Result] = []
        for pair in pairs:
            try:
                bad, fixed = runner.results(pair)
            except Exception as exc:  # noqa: BLE001 - one pair's failure must not cost the table
                bad, fixed = _internal_error(pair, exc, simulate), None
            results.append(bad)
            if fixed is not None:
                results.append(fixed)
            if pair.header is not None and not pair.error:
                # the static half of the protocol: the same checks as the project's tests
                _add_lint(bad, check_bad(pair.bad, pair.code, pair.header))
                if fixed is not None:
                    _add_lint(fixed, check_fixed(pair.fixed))
    finally:
        runner.close()
    verify_folder.last_env = runner.env  # type: ignore[attr-defined]  # for results_to_report
    return results


def _internal_error(pair, exc: Exception, simulate: bool) -> Result:
    expected = pair.header.outcome.describe() if pair.header else "?"
    return Result(pair.name, "bad", code=pair.code, expected=expected, observed="", line=None, verdict="error",
                  detail=f"internal error while running the pair: {type(exc).__name__}: {exc}", simulated=simulate)


def _add_lint(result: Result, problems: list[str]) -> None:
    """A script the linter does not flag as its header says fails, whatever the runtime saw:
    verdict `lint-mismatch` (a runtime failure keeps its own verdict), the problems first
    in the detail."""
    if not problems:
        return
    result.lint = problems
    if result.ok:
        result.verdict = "lint-mismatch"
    result.detail = "\n".join(["lint: " + p for p in problems] + ([result.detail] if result.detail else []))


def format_table(results: list[Result]) -> str:
    simulated = any(r.simulated for r in results)
    title = (
        "devicelint runtime verdicts - SIMULATED device on CPU (not real CUDA)"
        if simulated
        else "devicelint runtime verdicts - real CUDA"
    )
    lines = [title, "", *_verdict_rows(results)]
    passed = sum(r.ok for r in results)
    lines += ["", f"{passed}/{len(results)} scripts passed" + (" (simulated)" if simulated else "")]
    lines += _cost_lines(results)
    lines += _autofix_lines(results)
    return "\n".join(lines)


def _verdict_rows(results: list[Result]) -> list[str]:
    """The table itself: one row per script, a failure's first detail lines under it."""
    rows = [("fixture", "expected", "observed", "line", "verdict")]
    for r in results:
        rows.append((r.fixture, _cut(r.expected, 40), _cut(r.observed, 60), "" if r.line is None else str(r.line),
                     r.verdict))
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    lines = []
    for n, row in enumerate(rows):
        lines.append("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
        elif not results[n - 1].ok and results[n - 1].detail:
            for detail_line in results[n - 1].detail.strip().splitlines()[:4]:
                lines.append("    " + _cut(detail_line, 160))
    return lines


def _cost_lines(results: list[Result]) -> list[str]:
    costs = [r for r in results if getattr(r, "cost", None)]
    if not costs:
        return []
    lines = ["", "what each waste costs on this GPU (median ms per training step, bad vs fixed):"]
    for r in costs:
        lines.append(f"    {r.fixture}: {format_cost(r.cost)}")
    return lines


def _autofix_lines(results: list[Result]) -> list[str]:
    auto = [r for r in results if getattr(r, "autofix", None)]
    if not auto:
        return []
    counts = {v: sum(r.autofix == v for r in auto) for v in ("proven", "fails", "no-fix")}
    lines = [f"autofix (devicelint --fix --unsafe-fixes on the bad scripts): {counts['proven']} proven, "
             f"{counts['fails']} fail, {counts['no-fix']} without a fix"]
    for r in auto:
        if r.autofix == "fails":
            lines.append(f"    {r.fixture}: " + _cut(r.autofix_detail, 160))
    return lines


def format_cost(cost: dict) -> str:
    if "error" in cost:
        return f"not timed: {cost['error']}"
    if not any(cost.get("steps", []) + cost.get("steps_unsynchronized", [])):
        return f"not timed: {NO_STEP}"  # a report written before cost_record said so

    def ms(value):
        return "?" if value is None else f"{value:.3f}"

    return (f"{ms(cost.get('bad_ms_per_step'))} vs {ms(cost.get('fixed_ms_per_step'))} synchronized, "
            f"{ms(cost.get('bad_ms_per_step_unsynchronized'))} vs {ms(cost.get('fixed_ms_per_step_unsynchronized'))} "
            "unsynchronized")


def _cut(text: str, width: int) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= width else text[: width - 3] + "..."


def _env(simulated: bool) -> dict:
    from importlib import metadata

    env = {"device": None, "driver": None, "cuda": None, "torch": None, "python": platform.python_version()}
    try:
        env["torch"] = metadata.version("torch")
    except metadata.PackageNotFoundError:
        pass
    if simulated:
        env["device"] = "Simulated CUDA device (devicelint, CPU)"
        return env
    try:
        import torch

        env["cuda"] = torch.version.cuda
        if torch.cuda.is_available():
            env["device"] = torch.cuda.get_device_name(0)
    except ImportError:
        pass
    return env


def results_to_report(results: list[Result], simulated: bool, env: dict | None = None) -> dict:
    env = dict(env or getattr(verify_folder, "last_env", None) or _env(simulated))
    report = {
        "tool": "devicelint",
        "device": env.get("device"),
        "driver": env.get("driver"),
        "cuda": env.get("cuda"),
        "torch": env.get("torch"),
        "python": env.get("python"),
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "simulated": bool(simulated),
        "summary": {"scripts": len(results), "passed": sum(r.ok for r in results),
                    "failed": sum(not r.ok for r in results)},
        "results": [r.to_json() for r in results],
    }
    return report


_SAME_RUN = ("tool", "device", "driver", "cuda", "torch", "python", "simulated")


def _fixture_order(result: dict) -> tuple:
    """`DL001-x/bad.py`, `fixed.py`, `bad_2.py`, ...: folder, pair, bad before fixed."""
    folder, _, name = result["fixture"].rpartition("/")
    stem = name.split(".")[0]
    number = int(stem.rpartition("_")[2]) if stem.rpartition("_")[2].isdigit() else 1
    return folder, number, not stem.startswith("bad")


def merge_reports(base: dict, newer: dict) -> dict:
    """`base` with the scripts of `newer` (a run of added or changed fixtures on the same
    machine and software) put in: a script in both takes `newer`'s entry. `runs` lists each
    run's date and scripts, so that a merged report says what ran when."""
    differ = [k for k in _SAME_RUN if base.get(k) != newer.get(k)]
    if differ:
        raise VerifyError(f"reports of different set-ups cannot be merged (they differ in {', '.join(differ)})")
    fresh = {r["fixture"] for r in newer["results"]}
    results = sorted([r for r in base["results"] if r["fixture"] not in fresh] + list(newer["results"]),
                     key=_fixture_order)
    runs = list(base.get("runs") or [{"date": base["date"], "scripts": len(base["results"])}])
    runs.append({"date": newer["date"], "scripts": len(newer["results"])})
    merged = {k: base[k] for k in _SAME_RUN}
    merged.update(date=newer["date"], runs=runs, summary={
        "scripts": len(results), "passed": sum(r["verdict"] in PASSING for r in results),
        "failed": sum(r["verdict"] not in PASSING for r in results)}, results=results)
    return merged


def default_fixtures_dir() -> Path:
    return Path.cwd() / "fixtures"
