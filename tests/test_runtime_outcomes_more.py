"""The outcome kinds added with DL006-DL012: `raises-without-cuda`, `none (reason)`, and the
blame-through-a-name cross-check of DL006 / DL007 (verdict logic on synthetic records, plus
one real subprocess to show that CUDA is hidden and the simulator is not used)."""

import sys
import textwrap
from pathlib import Path

import pytest

from devicelint.runtime import runner
from devicelint.runtime.fixture import FixtureError, Header, Pair, discover_pairs, parse_outcome
from devicelint.runtime.runner import PASSING, REAL_RUNS, Run, blame_via_name, judge_pair


def record(**kw):
    base = {"exit_code": 0, "exception": None, "warnings": [], "copies": {"h2d": {}, "d2h": {}, "d2d": {}},
            "syncs": {}, "carry": {}, "optimizer_steps": 0, "backward_calls": 0, "memory_series": []}
    base.update(kw)
    return base


def exc(type_, message, lines):
    return {"type": type_, "qualname": f"builtins.{type_}", "message": message, "traceback": "tb",
            "script_frames": [{"line": n, "function": "f"} for n in lines]}


@pytest.fixture
def pair(tmp_path):
    def make(spec, code, bad_text="x = 1\n"):
        (tmp_path / "bad.py").write_text(bad_text)
        (tmp_path / "fixed.py").write_text("x = 1\n")
        return Pair(code, tmp_path, tmp_path / "bad.py", tmp_path / "fixed.py", Header({code: ()}, parse_outcome(spec), spec))

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


def test_parse_new_kinds():
    o = parse_outcome("raises-without-cuda AssertionError, RuntimeError: Torch not compiled | No CUDA GPUs")
    assert o.kind == "raises-without-cuda" and o.types == ("AssertionError", "RuntimeError")
    assert o.texts == ("Torch not compiled", "No CUDA GPUs")
    assert o.describe() == "raises-without-cuda AssertionError, RuntimeError: Torch not compiled | No CUDA GPUs"
    n = parse_outcome("none (DataParallel runs; nothing to prove)")
    assert n.kind == "none" and n.texts == ("DataParallel runs; nothing to prove",)
    assert n.describe() == "none (DataParallel runs; nothing to prove)"
    for bad in ("none", "none ()", "none reason without parentheses", "raises-without-cuda 3x: y"):
        with pytest.raises(FixtureError):
            parse_outcome(bad)
    assert set(REAL_RUNS) == {"raises-without-cuda"} and REAL_RUNS["raises-without-cuda"] == {"CUDA_VISIBLE_DEVICES": ""}


def test_raises_without_cuda_accepts_any_listed_type(pair, flagged):
    p = pair("raises-without-cuda AssertionError, RuntimeError: Torch not compiled with CUDA enabled | No CUDA GPUs are available", "DL007")
    flagged.append(4)
    for type_, msg in (("AssertionError", "Torch not compiled with CUDA enabled"), ("RuntimeError", "No CUDA GPUs are available")):
        bad, fixed = judge_pair(p, *runs(record(exit_code=1, exception=exc(type_, msg, [4])), record(), p), False)
        assert (bad.verdict, bad.line, fixed.verdict) == ("confirmed", 4, "clean")
        assert "not simulated" in bad.observed and not bad.simulated
    bad, _ = judge_pair(p, *runs(record(exit_code=1, exception=exc("ValueError", "No CUDA GPUs are available", [4])), record(), p), False)
    assert bad.verdict == "failed-otherwise"
    bad, _ = judge_pair(p, *runs(record(), record(), p), False)
    assert bad.verdict == "not-confirmed"
    bad, fixed = judge_pair(p, *runs(record(exit_code=1, exception=exc("AssertionError", "Torch not compiled with CUDA enabled", [4])),
                                     record(exit_code=1, exception=exc("AssertionError", "Torch not compiled with CUDA enabled", [9])), p), False)
    assert fixed.verdict == "not-clean"


def test_none_is_no_runtime_proof_never_confirmed(pair, flagged):
    p = pair("none (nothing fails)", "DL012")
    bad, fixed = judge_pair(p, *runs(record(), record(), p), False)
    assert (bad.verdict, fixed.verdict) == ("no-runtime-proof", "clean")
    assert "no runtime proof: nothing fails" in bad.observed and bad.ok and "no-runtime-proof" in PASSING
    bad, _ = judge_pair(p, *runs(record(exit_code=1, exception=exc("RuntimeError", "boom", [3])), record(), p), False)
    assert bad.verdict == "failed-otherwise" and not bad.ok


DL006_SRC = textwrap.dedent("""\
    import torch
    x = torch.randn(3)
    x.to(device)
    y = model(w)
    out = model(x)
""")


def test_dl006_blames_the_line_that_uses_the_discarded_tensor(pair, flagged, tmp_path):
    p = pair("raises RuntimeError: Expected all tensors", "DL006", bad_text=DL006_SRC)
    flagged.append(3)
    bad, _ = judge_pair(p, *runs(record(exit_code=1, exception=exc("RuntimeError", "Expected all tensors", [5])), record(), p), True)
    assert (bad.verdict, bad.line) == ("confirmed", 5)
    assert "line 5 uses `x`, made wrong on flagged line 3" in bad.observed
    # a failing line that does not use `x` is not blamed on the discarded move
    bad, _ = judge_pair(p, *runs(record(exit_code=1, exception=exc("RuntimeError", "Expected all tensors", [4])), record(), p), True)
    assert bad.verdict == "cross-check-failed"
    # the policy is per rule: DL002 keeps the strict "the blamed line is flagged" check
    p2 = pair("raises RuntimeError: Expected all tensors", "DL002", bad_text=DL006_SRC)
    bad, _ = judge_pair(p2, *runs(record(exit_code=1, exception=exc("RuntimeError", "Expected all tensors", [5])), record(), p2), True)
    assert bad.verdict == "cross-check-failed"


def test_blame_via_name_matches_whole_names_only(tmp_path):
    src = tmp_path / "s.py"
    src.write_text('device = torch.device("cuda")\nm.to(device_ids)\nm.to(device)  # device\nself.x.cuda()\nz = self.x + 1\n')
    assert blame_via_name("DL007", [2], [(1, 1)], src) is None  # `device_ids` is another name
    assert blame_via_name("DL007", [2, 3], [(1, 1)], src) == (3, 1, "device")
    assert blame_via_name("DL006", [5], [(4, 4)], src) == (5, 4, "self.x")
    assert blame_via_name("DL001", [3], [(1, 1)], src) is None  # no policy for other rules


def test_generator_scripts_are_not_fixtures(tmp_path):
    folder = tmp_path / "DL009-load-without-map-location"
    folder.mkdir()
    (folder / "make_checkpoint.py").write_text("print('not a fixture')\n")
    (folder / "bad.py").write_text("# devicelint-fixture\n# expect: DL009 at 4\n# runtime: none (x)\nx = 1\n")
    (folder / "fixed.py").write_text("x = 1\n")
    assert [p.bad.name for p in discover_pairs(tmp_path)] == ["bad.py"]


def test_real_run_hides_cuda_and_skips_the_simulator(tmp_path):
    script = tmp_path / "probe.py"
    script.write_text(textwrap.dedent("""\
        import os
        import torch
        assert os.environ["CUDA_VISIBLE_DEVICES"] == ""
        assert not torch.cuda.is_available()
        raise RuntimeError("probe ran for real")
    """))
    run = runner.run_script(script, simulate=False, timeout=120, env_extra=REAL_RUNS["raises-without-cuda"])
    assert run.record is not None, run.stderr_tail
    assert run.record["simulated"] is False
    assert run.exception["type"] == "RuntimeError" and "probe ran for real" in run.exception["message"], run.exception
    assert sys.executable  # the harness ran under this interpreter


def test_a_none_pair_runs_simulated_under_simulate_so_its_fixed_script_counts_what_cuda_would(tmp_path, flagged):
    """`runtime: none` (DL012) pairs are no longer run for real on the host when simulating:
    on a CPU-only machine that counted no copy at all, where real CUDA counts the model's."""
    folder = tmp_path / "DL012-data-parallel"
    folder.mkdir()
    body = textwrap.dedent("""\
        import torch
        import torch.nn as nn

        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        inputs = torch.randn(16, 4, device=device)
        model = {model}
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        for step in range(3):
            optimizer.zero_grad()
            loss = model(inputs).pow(2).mean()
            loss.backward()
            optimizer.step()
        print(f"loss {{loss.item():.3f}}")
    """)
    header = "# devicelint-fixture\n# expect: DL012 at 9\n# runtime: none (DataParallel runs on one GPU)\n"
    (folder / "bad.py").write_text(header + body.format(model="nn.DataParallel(nn.Linear(4, 2)).to(device)"))
    (folder / "fixed.py").write_text(body.format(model="nn.Linear(4, 2).to(device)"))
    flagged.append(9)
    (pair,) = discover_pairs(tmp_path)
    pairs = runner.PairRunner(simulate=True, warm=False, autofix=False)
    try:
        bad, fixed = pairs.results(pair)
    finally:
        pairs.close()
    assert (bad.verdict, bad.simulated) == ("no-runtime-proof", True), bad
    assert (fixed.verdict, fixed.observed, fixed.simulated) == ("clean", "exit 0 (h2d 2, syncs 1, warnings 0)", True)
