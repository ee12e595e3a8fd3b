"""`wastes pageable >= N`: host-to-device copies from memory that is not pinned (DL014)."""

from pathlib import Path

import pytest

pytest.importorskip("torch")

from devicelint.runtime.fixture import parse_outcome  # noqa: E402
from devicelint.runtime.runner import run_script  # noqa: E402

CASES = Path(__file__).parent / "runtime_cases"


def test_pageable_outcome_parses():
    outcome = parse_outcome("wastes pageable >= 8")
    assert (outcome.kind, outcome.name, outcome.minimum) == ("wastes", "pageable", 8)
    assert outcome.describe() == "wastes pageable >= 8"


def test_simulator_counts_copies_from_unpinned_memory_only():
    run = run_script(CASES / "pageable.py", True, 120)
    assert run.record is not None, run.problem
    rec = run.record
    assert rec["exit_code"] == 0 and rec["exception"] is None, rec["exception"]
    # every batch is copied (h2d), but only the unpinned loader's and the fresh tensor's are pageable
    assert rec["copies"]["h2d"] == {"7": 4, "9": 4, "12": 3, "13": 3}
    assert rec["copies"]["pageable"] == {"7": 4, "13": 3}
