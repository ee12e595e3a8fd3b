"""The committed real-GPU report, what it is held against, and what the README says of it
(lint-only: reads JSON, runs no script)."""

import copy
import json
import re
from pathlib import Path

import pytest

from devicelint.runtime import compare
from devicelint.runtime.steptime import NO_STEP, cost_record
from devicelint.runtime.verify import format_cost

ROOT = Path(__file__).resolve().parent.parent
REAL = json.loads((ROOT / "fixtures" / "cuda-report.json").read_text())
SIMULATED = json.loads((ROOT / "fixtures" / "simulated-report.json").read_text())
PASSING = {"bad": {"confirmed", "no-runtime-proof"}, "fixed": {"clean"}}


def test_the_real_report_comes_from_an_nvidia_gpu_and_every_script_passed():
    assert REAL["simulated"] is False and "NVIDIA" in REAL["device"]
    assert REAL["driver"] and REAL["cuda"] and "+cu" in REAL["torch"]
    assert not any(r["simulated"] for r in REAL["results"])
    assert REAL["summary"]["failed"] == 0 and REAL["summary"]["passed"] == len(REAL["results"])
    for r in REAL["results"]:
        assert r["verdict"] in PASSING[r["role"]] or _needs_more_gpus(r), r["fixture"]
        assert r["autofix"] != "fails", r["fixture"]


def _needs_more_gpus(result) -> bool:
    """A script declared for several ranks (DL020's `# ranks: 2`) is not run on a one-GPU
    machine, bad or fixed, and the report says so instead of a verdict."""
    return result["verdict"] == "no-runtime-proof" and result["detail"].startswith("needs 2 GPUs")


def _runs_an_optimizer_step(fixture: str) -> bool:
    return re.search(r"\.step\(", (ROOT / "fixtures" / fixture).read_text()) is not None


def test_every_waste_pair_was_timed_bad_against_fixed():
    wastes = [r for r in REAL["results"] if r["role"] == "bad" and r["expected"].startswith("wastes")]
    assert {r["code"] for r in wastes} >= {"DL004", "DL008", "DL013", "DL014"}
    for r in wastes:
        cost = r["cost"]
        if not _runs_an_optimizer_step(r["fixture"]):
            # an evaluation-only waste: nothing per step to time, and the report says so
            assert cost.get("error") == NO_STEP or not any(cost["steps"] + cost["steps_unsynchronized"])
            assert f"not timed: {NO_STEP}" == format_cost(cost)
            continue
        assert "error" not in cost, r["fixture"]
        assert min(cost["steps"] + cost["steps_unsynchronized"]) >= 20
        assert cost["bad_ms_per_step"] > 0 and cost["fixed_ms_per_step"] > 0
    assert sum(_runs_an_optimizer_step(r["fixture"]) for r in wastes) >= 10


def test_a_pair_with_no_optimizer_step_is_said_to_be_untimed():
    untimed = {"synchronized": {"steps": 0, "median_ms": None}, "unsynchronized": {"steps": 0, "median_ms": None}}
    timed = {"synchronized": {"steps": 21, "median_ms": 1.2}, "unsynchronized": {"steps": 21, "median_ms": 1.1}}
    assert cost_record(untimed, untimed) == {"error": NO_STEP}
    assert cost_record(timed, timed)["steps"] == [21, 21]


# The one difference the simulator is known to leave, with its cause: DDP in a world of one
# copies and syncs in its C++ internals (the parameter-shape check, the bucket rebuild), on
# tensors the simulator cannot see (benchmarks/README §6). Any other difference fails.
KNOWN_DIFFERENCES = {("DL012-data-parallel/fixed_2.py", "observed")}


def test_the_simulator_agrees_with_real_cuda_script_by_script():
    assert REAL["torch"] == SIMULATED["torch"] and REAL["python"] == SIMULATED["python"]
    found = {(d.fixture, d.field) for d in compare.differences(REAL, SIMULATED)}
    assert found <= KNOWN_DIFFERENCES, found - KNOWN_DIFFERENCES
    # every verdict, blamed line and autofix verdict agrees, the known one included
    assert all(field == "observed" for _, field in found)
    assert compare.main([str(ROOT / "fixtures" / "cuda-report.json"), str(ROOT / "fixtures" / "simulated-report.json")]) == (1 if found else 0)


def _result(report, fixture):
    return next(r for r in report["results"] if r["fixture"] == fixture)


def test_compare_names_a_changed_verdict_line_count_or_a_missing_script():
    sim = copy.deepcopy(REAL)
    _result(sim, "DL001-model-not-moved/bad.py")["line"] = 36
    _result(sim, "DL013-sync-in-loop/bad.py")["observed"] = "sync: bad 3 vs fixed 1 (+2)"
    _result(sim, "DL002-batch-not-moved/fixed.py")["verdict"] = "not-clean"
    sim["results"] = [r for r in sim["results"] if r["fixture"] != "DL009-load-without-map-location/bad.py"]
    found = {(d.fixture, d.field) for d in compare.differences(REAL, sim)}
    assert found == {("DL001-model-not-moved/bad.py", "line"), ("DL013-sync-in-loop/bad.py", "observed"),
                     ("DL002-batch-not-moved/fixed.py", "verdict"),
                     ("DL009-load-without-map-location/bad.py", "present")}


def test_compare_does_not_hold_the_simulator_to_a_script_the_real_run_had_too_few_gpus_for(tmp_path, capsys):
    from devicelint.runtime.ranks import NEEDS

    real, sim = copy.deepcopy(REAL), copy.deepcopy(REAL)
    before = compare.not_compared(REAL)  # the one-GPU machine's DL020 pairs
    for name in ("DL001-model-not-moved/bad.py", "DL002-batch-not-moved/fixed.py"):
        _result(real, name).update(observed=NEEDS.format(2, 1), verdict="no-runtime-proof", line=None)
    _result(sim, "DL001-model-not-moved/fixed.py")["observed"] = NEEDS.format(2, 1)  # the simulator needs no GPU
    assert set(compare.not_compared(real)) - set(before) == {"DL001-model-not-moved/bad.py",
                                                             "DL002-batch-not-moved/fixed.py"}
    assert {(d.fixture, d.field) for d in compare.differences(real, sim)} == {
        ("DL001-model-not-moved/fixed.py", "observed")}
    sim = copy.deepcopy(REAL)
    (tmp_path / "real.json").write_text(json.dumps(real))
    (tmp_path / "sim.json").write_text(json.dumps(sim))
    assert compare.main([str(tmp_path / "real.json"), str(tmp_path / "sim.json")]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if "not compared" in x)
    assert line.startswith(f"{len(before) + 2} scripts not compared: the real run had too few GPUs (")
    assert "DL001-model-not-moved/bad.py" in line and "DL002-batch-not-moved/fixed.py" in line


def test_compare_notes_a_torch_or_python_version_unlike_the_real_runs():
    sim = dict(copy.deepcopy(REAL), torch="9.9.0+cpu")
    assert compare.environment_notes(REAL, REAL) == []
    assert compare.environment_notes(REAL, sim) == [
        f"note: torch {REAL['torch']} on the real run, 9.9.0+cpu on the simulated one: "
        "what the library's own code does may differ"]


def test_compare_accepts_another_wording_of_the_same_exception():
    sim = copy.deepcopy(REAL)
    bad = _result(sim, "DL001-model-not-moved/bad.py")
    assert bad["observed"].startswith("raises RuntimeError: Expected all tensors")
    bad["observed"] = "raises RuntimeError: Expected all tensors to be on the same device, but found at least two devices"
    assert compare.differences(REAL, sim) == []


def test_the_readme_quotes_the_latest_real_report():
    readme = (ROOT / "README.md").read_text()
    m = re.search(r"\*\*Latest real-GPU report\*\* \(`fixtures/cuda-report.json`\): (.*?)\n- ", readme, re.S)
    assert m, "README lost its summary of the real-GPU report"
    text = " ".join(m.group(1).split())
    s = REAL["summary"]
    for fact in (REAL["device"], f"driver {REAL['driver']}", f"CUDA {REAL['cuda']}", f"torch {REAL['torch']}",
                 REAL["date"][:10], f"{s['passed']}/{s['scripts']} scripts passed"):
        assert fact in text, fact
    proven = sum(r["autofix"] == "proven" for r in REAL["results"])
    assert f"autofix {proven} proven" in text


def test_merging_a_later_run_replaces_and_adds_scripts_and_lists_both_runs():
    from devicelint.runtime.verify import VerifyError, merge_reports

    base = copy.deepcopy(REAL)
    base.pop("runs", None)
    base["results"] = [r for r in base["results"] if not r["fixture"].startswith("DL011")]
    newer = copy.deepcopy(REAL)
    newer.pop("runs", None)
    newer["date"] = "2026-12-01T10:00:00+00:00"
    newer["results"] = [r for r in newer["results"] if r["fixture"].startswith(("DL011", "DL001-model-not-moved/bad.py"))]
    _result(newer, "DL001-model-not-moved/bad.py")["verdict"] = "not-confirmed"
    merged = merge_reports(base, newer)
    assert [r["fixture"] for r in merged["results"]] == [r["fixture"] for r in REAL["results"]]
    assert _result(merged, "DL001-model-not-moved/bad.py")["verdict"] == "not-confirmed"
    assert merged["summary"] == {"scripts": len(REAL["results"]), "passed": len(REAL["results"]) - 1, "failed": 1}
    assert merged["runs"] == [{"date": base["date"], "scripts": len(base["results"])},
                              {"date": "2026-12-01T10:00:00+00:00", "scripts": len(newer["results"])}]
    other = copy.deepcopy(newer)
    other["torch"] = "2.12.0+cu130"
    with pytest.raises(VerifyError, match="torch"):
        merge_reports(base, other)
    assert merge_reports(base, newer)["date"] == newer["date"]


def _unreported_folders() -> dict:
    """Fixture folders with scripts the real-GPU report has no verdict for: folder -> count."""
    from devicelint.runtime.fixture import discover_pairs

    reported = {r["fixture"] for r in REAL["results"]}
    missing: dict = {}
    for pair in discover_pairs(ROOT / "fixtures"):
        for script in (pair.bad, pair.fixed):
            if script is not None and f"{pair.folder.name}/{script.name}" not in reported:
                missing[pair.folder.name] = missing.get(pair.folder.name, 0) + 1
    return missing


def test_fixtures_without_a_real_gpu_verdict_are_named_in_the_readme():
    """A fixture added after the last real-GPU run is allowed, but never silently: the
    README's GPU paragraph names each such folder with its script count, and names no folder
    the report already covers."""
    readme = (ROOT / "README.md").read_text()
    m = re.search(r"\*\*Fixtures with no real-GPU verdict yet\*\*(.*?)\n- ", readme, re.S)
    missing = _unreported_folders()
    if not missing:
        assert m is None, "README lists fixtures without a real-GPU verdict, but the report covers every one"
        return
    assert m, f"fixtures without a real-GPU verdict, not named in the README: {missing}"
    text = " ".join(m.group(1).split())
    for folder, count in missing.items():
        assert f"`{folder}` ({count} scripts)" in text, (folder, count)
    named = set(re.findall(r"`(DL\d{3}-[a-z0-9-]+)`", text))
    assert named == set(missing), named ^ set(missing)
