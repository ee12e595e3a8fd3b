"""The harness subprocess, `verify_folder`, and the pytest flags, on tests/runtime_cases/."""

import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

pytest.importorskip("torch")

from devicelint.runtime import runner  # noqa: E402
from devicelint.runtime.runner import run_script  # noqa: E402
from devicelint.runtime.verify import format_table, results_to_report, verify_folder  # noqa: E402

CASES = Path(__file__).parent / "runtime_cases"
ROOT = Path(__file__).parent.parent


@pytest.fixture(scope="module")
def sim_runs():
    names = ["copies", "raises", "warns", "grows_bad", "grows_fixed", "exit3"]
    with ThreadPoolExecutor(max_workers=3) as pool:
        runs = dict(zip(names, pool.map(lambda n: run_script(CASES / f"{n}.py", True, 120), names)))
    for name, run in runs.items():
        assert run.record is not None, f"{name}: {run.problem}\n{run.stderr_tail}"
        assert run.record["simulated"] is True
    return runs


def test_copies_and_syncs_per_line(sim_runs):
    rec = sim_runs["copies"].record
    assert rec["exit_code"] == 0 and rec["exception"] is None
    assert rec["copies"]["h2d"] == {"6": 4, "7": 4}
    assert rec["copies"]["d2h"] == {"8": 4}
    assert rec["syncs"] == {"8": 4, "9": 4}


def test_exception_with_the_script_frames(sim_runs):
    exc = sim_runs["raises"].record["exception"]
    assert exc["type"] == "RuntimeError" and "Expected all tensors to be on the same device" in exc["message"]
    assert [f["line"] for f in exc["script_frames"]] == [11, 6]  # outermost first, innermost last


def test_warning_line_category_and_text(sim_runs):
    warnings = sim_runs["warns"].record["warnings"]
    hits = [w for w in warnings if w["category"] == "FutureWarning" and "torch.cuda.amp.GradScaler(args...)" in w["message"]]
    assert hits and hits[0]["line"] == 3


def test_memory_growth_and_the_line_that_carries_the_graph(sim_runs):
    bad, fixed = sim_runs["grows_bad"].record, sim_runs["grows_fixed"].record
    assert any(runner.grows(s) for s in bad["memory_series"])
    assert fixed["memory_series"] and not any(runner.grows(s) for s in fixed["memory_series"])
    assert bad["carry"] == {"11": 11} and fixed["carry"] == {}


def test_sys_exit_code_is_kept(sim_runs):
    rec = sim_runs["exit3"].record
    assert rec["exit_code"] == 3 and rec["exception"] is None


def test_a_hanging_script_is_killed():
    run = run_script(CASES / "hang.py", True, timeout=8)
    assert run.record is None and run.problem == "timed out after 8s"


def test_a_killed_script_leaves_no_working_folder_behind(tmp_path, monkeypatch):
    # the script's working folder lives in the runner's temporary folder, which the runner
    # removes whatever happened to the script (killed on timeout, it cannot clean up itself)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    monkeypatch.setattr("tempfile.tempdir", str(scratch))
    run = run_script(CASES / "hang.py", True, timeout=8)
    assert run.problem == "timed out after 8s"
    assert list(scratch.iterdir()) == []


@pytest.fixture
def pair_dir(tmp_path):
    shutil.copytree(CASES / "DL002-batch-not-moved", tmp_path / "DL002-batch-not-moved")
    return tmp_path


def test_verify_folder_confirms_and_cross_checks(pair_dir, monkeypatch):
    flagged = {"bad.py": [(12, 12)]}
    real = runner.flagged_ranges  # the plugin's threads judge the project's own pairs meanwhile
    monkeypatch.setattr(runner, "flagged_ranges", lambda path, code: flagged.get(Path(path).name, [])
                        if Path(path).is_relative_to(pair_dir) else real(path, code))
    results = verify_folder(pair_dir, simulate=True, timeout=120)
    assert [(r.fixture, r.verdict, r.line) for r in results] == [
        ("DL002-batch-not-moved/bad.py", "confirmed", 12),
        ("DL002-batch-not-moved/fixed.py", "clean", None),
    ]
    table = format_table(results)
    assert "SIMULATED" in table and "2/2 scripts passed (simulated)" in table
    report = results_to_report(results, simulated=True)
    assert report["simulated"] is True and "Simulated" in report["device"] and report["torch"]
    assert report["results"][0]["observed"].startswith("raises RuntimeError: Expected all tensors")
    flagged["bad.py"] = [(5, 5)]
    results = verify_folder(pair_dir, simulate=True, timeout=120)
    assert results[0].verdict == "cross-check-failed"
    assert "blamed line 12 not flagged by DL002 (flagged: [5]" in results[0].detail


def _pytest(*args, cwd=ROOT):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


def test_pytest_flags(pair_dir):
    fixtures = ["--devicelint-fixtures", str(pair_dir), "tests/test_runtime_fixtures.py"]
    plain = _pytest("-q", "-rs", *fixtures)
    assert plain.returncode == 0 and "2 skipped" in plain.stdout and "--simulate-cuda" in plain.stdout
    import torch

    if not torch.cuda.is_available():
        cuda = _pytest("-q", "--cuda", *fixtures)
        assert cuda.returncode != 0 and "--cuda: no CUDA device" in cuda.stderr + cuda.stdout
    report = pair_dir / "report.json"
    sim = _pytest("-v", "--simulate-cuda", "--cuda-report", str(report), *fixtures)
    assert "bad.py-simulated" in sim.stdout and "fixed.py-simulated] PASSED" in sim.stdout
    assert "SIMULATED device on CPU" in sim.stdout  # the verdict table
    data = json.loads(report.read_text())
    assert data["simulated"] is True and [r["fixture"] for r in data["results"]] == [
        "DL002-batch-not-moved/bad.py", "DL002-batch-not-moved/fixed.py"]
    bad = data["results"][0]
    assert bad["observed"].startswith("raises RuntimeError: Expected all tensors") and bad["line"] == 12
    # the real linter decides the cross-check here; either way the verdict says which
    assert bad["verdict"] in ("confirmed", "cross-check-failed")


def test_real_mode_probes_run_on_cpu_too():
    # without --simulate the harness uses the real-device probes; on a CPU-only machine
    # the script picks the CPU, which still exercises them (graph carry is device-free)
    run = run_script(CASES / "grows_bad.py", False, 120)
    assert run.record is not None, run.stderr_tail
    rec = run.record
    assert rec["simulated"] is False and rec["exit_code"] == 0 and rec["carry"] == {"11": 11}


def test_verify_fails_a_header_one_line_off(tmp_path):
    """`devicelint verify` checks the whole protocol: the runtime half passes here (the bad
    script raises where the linter flags it, the fixed one runs clean), but the header names
    line 20 while the linter flags 21, so the bad script fails, naming both lines."""
    from click.testing import CliRunner

    from devicelint.cli import cli
    from pairs import FLAGGED_LINE, make_pair

    make_pair(tmp_path, FLAGGED_LINE - 1)
    r = CliRunner().invoke(cli, ["verify", "--simulate", str(tmp_path), "--report", str(tmp_path / "r.json")])
    assert r.exit_code == 1, r.output
    rows = {line.split()[0]: line.split()[-1] for line in r.stdout.splitlines() if line.startswith("DL003-")}
    assert rows == {"DL003-numpy-on-cuda/bad.py": "lint-mismatch", "DL003-numpy-on-cuda/fixed.py": "clean"}
    want = f"lint: header expects DL003 at {FLAGGED_LINE - 1}; the linter flags {FLAGGED_LINE}"
    assert want in r.stdout
    assert "1/2 scripts passed (simulated)" in r.stdout
    bad = json.loads((tmp_path / "r.json").read_text())["results"][0]
    assert bad["verdict"] == "lint-mismatch" and bad["line"] == FLAGGED_LINE and bad["lint"]
