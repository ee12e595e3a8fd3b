"""Verdict logic on synthetic harness records (no subprocess, no torch)."""

from pathlib import Path

import pytest

from devicelint.runtime import runner
from devicelint.runtime.fixture import Header, Outcome, Pair
from devicelint.runtime.runner import Run, grows, judge_pair


def record(**kw):
    base = {"exit_code": 0, "exception": None, "warnings": [], "copies": {"h2d": {}, "d2h": {}, "d2d": {}},
            "syncs": {}, "carry": {}, "optimizer_steps": 4, "backward_calls": 4, "memory_series": []}
    base.update(kw)
    return base


def exc(type_, message, lines):
    return {"type": type_, "qualname": f"builtins.{type_}", "message": message, "traceback": "tb",
            "script_frames": [{"line": n, "function": "f"} for n in lines]}


@pytest.fixture
def pair(tmp_path):
    def make(spec, code="DL002", bad_text="x = 1\n", fixed_text="x = 1\n"):
        (tmp_path / "bad.py").write_text(bad_text)
        (tmp_path / "fixed.py").write_text(fixed_text)
        from devicelint.runtime.fixture import parse_outcome

        header = Header({code: ()}, parse_outcome(spec), spec)
        return Pair(code, tmp_path, tmp_path / "bad.py", tmp_path / "fixed.py", header)

    return make


@pytest.fixture
def flagged(monkeypatch, tmp_path):
    lines = []
    real = runner.flagged_ranges  # the plugin's threads judge the project's own pairs meanwhile
    monkeypatch.setattr(runner, "flagged_ranges", lambda path, code: [(n, n) for n in lines]
                        if Path(path).is_relative_to(tmp_path) else real(path, code))
    return lines


def runs(bad_rec, fixed_rec, p):
    return Run(str(p.bad), bad_rec), Run(str(p.fixed), fixed_rec)


def test_raises_confirmed_when_an_own_frame_is_flagged(pair, flagged):
    p = pair("raises RuntimeError: Expected all tensors | Input type")
    flagged.append(12)
    bad, fixed = judge_pair(p, *runs(record(exit_code=1, exception=exc("RuntimeError", "Expected all tensors x", [40, 12])), record(), p), True)
    assert (bad.verdict, bad.line, fixed.verdict) == ("confirmed", 12, "clean")
    assert bad.simulated and bad.ok and fixed.ok


def test_cross_check_failure_names_the_line_and_the_flags(pair, flagged):
    p = pair("raises RuntimeError: Expected all tensors")
    bad, _ = judge_pair(p, *runs(record(exit_code=1, exception=exc("RuntimeError", "Expected all tensors", [7, 41])), record(), p), True)
    assert bad.verdict == "cross-check-failed" and not bad.ok
    assert "cross-check: blamed line 41 not flagged by DL002 (flagged: [];" in bad.detail


def test_other_failures_are_never_confirmations(pair, flagged):
    p = pair("raises RuntimeError: Expected all tensors")
    flagged.append(3)
    bad, fixed = judge_pair(
        p, *runs(record(exit_code=1, exception=exc("ValueError", "Expected all tensors", [3])),
                 record(exit_code=1, exception=exc("KeyError", "'x'", [9])), p), False)
    assert bad.verdict == "failed-otherwise" and "ValueError" in bad.observed
    assert fixed.verdict == "not-clean" and fixed.line == 9
    bad, _ = judge_pair(p, *runs(record(), record(), p), False)
    assert bad.verdict == "not-confirmed"


def test_timeouts_and_missing_results_are_errors(pair, flagged):
    p = pair("grows memory")
    bad, fixed = judge_pair(p, Run(str(p.bad), None, "timed out after 5s"), Run(str(p.fixed), None, "harness wrote no result (exit code -9)"), True)
    assert (bad.verdict, fixed.verdict) == ("timeout", "error")


def test_warns_needs_the_warning_in_bad_only(pair, flagged):
    p = pair("warns FutureWarning: `torch.cuda.amp.GradScaler(args...)` is deprecated")
    warning = {"category": "FutureWarning", "message": "`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use",
               "filename": "bad.py", "lineno": 5, "line": 5, "count": 1}
    flagged.append(5)
    bad, fixed = judge_pair(p, *runs(record(warnings=[warning]), record(), p), True)
    assert (bad.verdict, bad.line, fixed.verdict) == ("confirmed", 5, "clean")
    bad, fixed = judge_pair(p, *runs(record(warnings=[warning]), record(warnings=[warning]), p), True)
    assert fixed.verdict == "not-clean"
    bad, _ = judge_pair(p, *runs(record(warnings=[dict(warning, category="UserWarning")]), record(), p), True)
    assert bad.verdict == "not-confirmed"


def test_wastes_compares_with_fixed_and_blames_the_extra_line(pair, flagged):
    bad_text = "x = a.to(d)\nw = weights.to(d)\ny = b.to(d)\n"
    fixed_text = "w = weights.to(d)\nx = a.to(d)\ny = b.to(d)\n"
    p = pair("wastes h2d >= 7", code="DL004", bad_text=bad_text, fixed_text=fixed_text)
    bad_rec = record(copies={"h2d": {"1": 8, "2": 8, "3": 8}, "d2h": {}, "d2d": {}})
    fixed_rec = record(copies={"h2d": {"1": 1, "2": 8, "3": 8}, "d2h": {}, "d2d": {}})
    flagged.append(2)
    bad, _ = judge_pair(p, *runs(bad_rec, fixed_rec, p), True)
    assert (bad.verdict, bad.line) == ("confirmed", 2)
    assert "bad 24 vs fixed 17 (+7" in bad.observed and "line 2 (+7)" in bad.observed
    flagged[:] = [1]  # flagged, but it is not where the extra copies are
    bad, _ = judge_pair(p, *runs(bad_rec, fixed_rec, p), True)
    assert bad.verdict == "cross-check-failed"
    p = pair("wastes h2d >= 8", code="DL004", bad_text=bad_text, fixed_text=fixed_text)
    bad, _ = judge_pair(p, *runs(bad_rec, fixed_rec, p), True)
    assert bad.verdict == "not-confirmed" and "+7" in bad.observed


def test_grows_memory(pair, flagged):
    assert grows([10, 100, 200, 300, 400]) and not grows([10, 100, 100, 100, 100]) and not grows([1, 2, 3])
    p = pair("grows memory", code="DL010")
    flagged.append(11)
    bad, fixed = judge_pair(p, *runs(record(memory_series=[[1, 5, 9, 13, 17]], carry={"11": 4}),
                                     record(memory_series=[[1, 5, 5, 5, 5]]), p), True)
    assert (bad.verdict, bad.line, fixed.verdict) == ("confirmed", 11, "clean")
    bad, fixed = judge_pair(p, *runs(record(memory_series=[[1, 5, 5, 5, 5]]),
                                     record(memory_series=[[1, 5, 9, 13, 17]]), p), True)
    assert (bad.verdict, fixed.verdict) == ("not-confirmed", "not-clean")


def test_broken_fixture_is_reported(tmp_path):
    p = Pair("DL001", tmp_path, tmp_path / "bad.py", None, None, "bad.py: no 'runtime:' line in the header")
    bad, fixed = judge_pair(p, None, None, True)
    assert bad.verdict == "fixture-error" and fixed is None and "runtime" in bad.detail
