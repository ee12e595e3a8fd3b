"""Timing what a waste costs (steptime.py). On this CPU-only machine the fixture scripts
run on the CPU (they fall back by design), which exercises everything but the GPU."""

from pathlib import Path

from devicelint.runtime import steptime
from devicelint.runtime.fixture import discover_pairs
from devicelint.runtime.runner import Result
from devicelint.runtime.verify import format_cost, format_table

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def test_each_script_gets_both_medians_over_enough_steps():
    pair = discover_pairs(FIXTURES / "DL013-sync-in-loop")[1]  # bad_2: 8 steps per run
    times = steptime.time_scripts([str(pair.bad), str(pair.fixed)], repeats=1)
    for script in (pair.bad, pair.fixed):
        entry = times[str(script.resolve())]
        for mode in ("synchronized", "unsynchronized"):
            assert entry[mode]["steps"] >= steptime.MIN_STEPS, entry
            assert 0 < entry[mode]["q1_ms"] <= entry[mode]["median_ms"] <= entry[mode]["q3_ms"]


def test_a_script_that_raises_is_an_error_not_a_figure(tmp_path):
    broken = tmp_path / "train.py"
    broken.write_text("import torch\nraise RuntimeError('CUDA out of memory')\n")
    times = steptime.time_scripts([str(broken)], repeats=1)
    assert times[str(broken)] == {"error": "RuntimeError: CUDA out of memory"}


def test_only_waste_pairs_are_timed_and_the_figures_land_on_the_bad_result():
    pairs = discover_pairs(FIXTURES / "DL013-sync-in-loop")[:1] + discover_pairs(FIXTURES / "DL003-numpy-on-cuda")[:1]
    results = [Result(p.name, "bad", p.code, "", "", None, "confirmed") for p in pairs]
    steptime.measure_costs(pairs, results)
    waste, crash = results
    assert crash.cost is None
    assert waste.cost["steps"][0] >= steptime.MIN_STEPS and waste.cost["bad_ms_per_step"] > 0
    assert waste.cost["fixed_ms_per_step_unsynchronized"] > 0
    table = format_table(results)
    assert f"{waste.fixture}: {format_cost(waste.cost)}" in table and " vs " in format_cost(waste.cost)


def test_a_timing_error_is_shown_as_such():
    assert format_cost({"error": "timed out after 600s"}) == "not timed: timed out after 600s"
