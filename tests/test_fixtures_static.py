"""The static half of the fixture protocol: each bad script is flagged at exactly its stated
lines, each fixed script is clean under every rule (default and opt-in). The checks are
devicelint.runtime.static's, the same ones `devicelint verify` makes."""

from pathlib import Path

import pytest

from devicelint.runtime.static import check_bad, check_fixed
from pairs import FLAGGED_LINE, make_pair

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
# scripts and notebooks (a notebook's header states `cell N:line` places)
BAD = sorted(FIXTURES.glob("DL*/bad*.py")) + sorted(FIXTURES.glob("DL*/bad*.ipynb"))
FIXED = sorted(FIXTURES.glob("DL*/fixed*.py")) + sorted(FIXTURES.glob("DL*/fixed*.ipynb"))


def _id(p: Path) -> str:
    return f"{p.parent.name}/{p.name}"


def test_every_rule_folder_has_two_pairs():
    folders = sorted(p for p in FIXTURES.glob("DL*") if p.is_dir())
    assert len(folders) >= 5
    for folder in folders:
        bads = sorted(folder.glob("bad*.py"))
        assert len(bads) >= 2, f"{folder.name} needs at least two bad/fixed pairs"
        for bad in bads:
            assert (folder / bad.name.replace("bad", "fixed")).exists(), f"{bad} has no fixed twin"


@pytest.mark.parametrize("path", BAD, ids=_id)
def test_bad_flagged_at_exactly_the_stated_lines(path):
    assert check_bad(path) == []


@pytest.mark.parametrize("path", FIXED, ids=_id)
def test_fixed_is_clean(path):
    assert check_fixed(path) == []


def test_checks_name_the_lines(tmp_path):
    """The shared check itself: the right header passes, an off-by-one header names both
    lines, a header without its own rule is refused, and a flagged fixed script is named."""
    assert check_bad(make_pair(tmp_path / "ok") / "bad.py") == []
    assert check_fixed(make_pair(tmp_path / "ok2") / "fixed.py") == []
    (problem,) = check_bad(make_pair(tmp_path / "off", FLAGGED_LINE - 1) / "bad.py")
    assert problem == (f"header expects DL003 at {FLAGGED_LINE - 1}; the linter flags {FLAGGED_LINE}; "
                       f"missing {FLAGGED_LINE - 1}; unexpected {FLAGGED_LINE}")
    wrong = make_pair(tmp_path / "other", folder="DL001-model-not-moved")
    assert any("does not expect its own rule DL001" in p for p in check_bad(wrong / "bad.py"))
    (flagged,) = check_fixed(wrong / "bad.py")
    assert flagged.startswith(f"flagged at {FLAGGED_LINE}: DL003 ")
