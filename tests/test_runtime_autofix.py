"""The runtime checker's autofix verdict: `--fix --unsafe-fixes` on a copy of a bad script,
run simulated like a fixed script (runner.autofix_run)."""

import shutil
from pathlib import Path

import pytest

pytest.importorskip("torch")

from devicelint.runtime.fixture import discover_pairs  # noqa: E402
from devicelint.runtime.runner import autofix_run, run_script  # noqa: E402

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def pair_of(tmp_path, folder: str, bad: str = "bad.py"):
    dst = tmp_path / folder
    shutil.copytree(FIXTURES / folder, dst)
    return next(p for p in discover_pairs(dst) if p.bad.name == bad)


def test_a_fixed_copy_that_runs_clean_is_proven(tmp_path):
    pair = pair_of(tmp_path, "DL006-discarded-to")
    verdict, detail = autofix_run(pair, True, 120, None)
    assert verdict == "proven", detail
    assert pair.bad.read_text() == (FIXTURES / "DL006-discarded-to" / "bad.py").read_text()  # only a copy changed


def test_a_waste_must_be_gone_from_the_fixed_copy(tmp_path):
    pair = pair_of(tmp_path, "DL008-cpu-alloc-then-move")
    bad = run_script(pair.bad, True, 120)
    verdict, detail = autofix_run(pair, True, 120, None, bad=bad)
    assert verdict == "proven", detail
    # compared with a "bad" run that wastes nothing, the copy's waste cannot be shown gone
    fixed = run_script(pair.fixed, True, 120)
    assert autofix_run(pair, True, 120, None, bad=fixed)[0] == "fails"


def test_no_fix_for_rules_without_one(tmp_path):
    pair = pair_of(tmp_path, "DL016-layer-built-in-forward")
    assert autofix_run(pair, True, 120, None) == ("no-fix", "")


@pytest.mark.parametrize("bad", ["bad.py", "bad_2.py", "bad_3.py"])
def test_model_moved_where_it_is_built_is_proven(tmp_path, bad):
    # DL001's unsafe fix: `.to(device)` on the construction, the device variable in scope
    # there; bad_3 builds the model in `build_model(num_classes)`, with no device in scope:
    # the move goes where `main` calls the helper
    pair = pair_of(tmp_path, "DL001-model-not-moved", bad)
    verdict, detail = autofix_run(pair, True, 120, None)
    assert verdict == "proven", detail


def test_a_fix_that_does_not_repair_fails(tmp_path):
    pair = pair_of(tmp_path, "DL006-discarded-to")

    def wrong(source, path, select=None, ignore=None, unsafe=False):
        # silences the rule without moving anything: the script still fails
        return source.replace(b"inputs.to(device)\n", b"inputs.to(device) if False else None\n"), 1

    # handed in, not patched into devicelint.fix: the runtime plugin's threads fix the
    # project's own pairs with the real fix_source meanwhile
    verdict, detail = autofix_run(pair, True, 120, None, fixer=wrong)
    assert verdict == "fails" and "not-clean" in detail


@pytest.mark.parametrize("bad", ["bad.py", "bad_2.py", "bad_3.py"])
def test_batch_moved_at_the_top_of_the_loop_is_proven(tmp_path, bad):
    # DL002's unsafe fix: `x = x.to(device)` lines at the top of the loader loop; for the
    # dict batch of bad_3, `batch["label"] = batch["label"].to(self.device)` in the step method
    pair = pair_of(tmp_path, "DL002-batch-not-moved", bad)
    verdict, detail = autofix_run(pair, True, 120, None)
    assert verdict == "proven", detail


@pytest.mark.parametrize("bad", ["bad.py", "bad_2.py", "bad_3.py"])
def test_moves_bound_once_remove_the_counted_waste(tmp_path, bad):
    # DL004's unsafe fix: a repeated move bound once (bad, bad_3's dict entry), a parameter
    # moved in every function's loop moved once where main makes it (bad_2); the copies the
    # bad script wastes must be gone from the fixed copy
    pair = pair_of(tmp_path, "DL004-redundant-to", bad)
    run = run_script(pair.bad, True, 120)
    verdict, detail = autofix_run(pair, True, 120, None, bad=run)
    assert verdict == "proven", detail


@pytest.mark.parametrize("bad", ["bad.py", "bad_2.py"])
def test_factory_given_the_device_is_proven(tmp_path, bad):
    # DL011's unsafe fix: `device=device` (bad.py) or `device=x.device` (bad_2.py, in forward)
    pair = pair_of(tmp_path, "DL011-new-tensor-wrong-device", bad)
    verdict, detail = autofix_run(pair, True, 120, None)
    assert verdict == "proven", detail
