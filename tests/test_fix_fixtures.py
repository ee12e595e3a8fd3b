"""Every bad fixture of a fixable rule is repaired by `devicelint --fix` itself (with
`--unsafe-fixes` where its fixes are unsafe): on a copy, the rule no longer fires and the
file still parses (CPython and LibCST)."""

import ast
import shutil
from pathlib import Path

import libcst as cst
import pytest
from click.testing import CliRunner

from devicelint.cli import cli
from devicelint.engine import analyse, lint_source
from devicelint.rules import ALL_RULES

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
RULES = tuple(sorted(r.code for r in ALL_RULES if r.fixable))
BAD = sorted(p for code in RULES for folder in FIXTURES.glob(f"{code}-*") for p in folder.glob("bad*.py"))
SAFE_RULES = ("DL006", "DL008", "DL009", "DL010", "DL014")


def _fix(path: Path, code: str, *extra) -> str:
    r = CliRunner().invoke(cli, [str(path), "--fix", "--no-cache", "--extend-select", code, "--exit-zero", *extra])
    assert r.exit_code == 0, r.output
    return path.read_text()


def test_every_fixable_rule_has_bad_fixtures():
    assert {p.parent.name[:5] for p in BAD} == set(RULES)


@pytest.mark.parametrize("bad", BAD, ids=lambda p: f"{p.parent.name[:5]}/{p.name}")
def test_fix_repairs_the_bad_fixture(bad, tmp_path):
    code = bad.parent.name[:5]
    copy = tmp_path / bad.name
    shutil.copy(bad, copy)
    original = copy.read_text()
    assert any(f.code == code for f in lint_source(original, copy.name, select=[code]))

    fixed = _fix(copy, code)
    # what plain --fix leaves of this rule must be findings whose fix is marked unsafe
    left = [(f, r) for f, r in analyse(fixed, copy.name, select=[code])[0] if f.code == code]
    assert all(r is not None and r.edit is not None and r.applicability == "unsafe" for _f, r in left), [
        f"{f.line}: {f.message}" for f, _r in left
    ]
    if left:
        fixed = _fix(copy, code, "--unsafe-fixes")
    assert fixed != original
    ast.parse(fixed)
    cst.parse_module(fixed)
    assert not [f for f in lint_source(fixed, copy.name, select=[code]) if f.code == code]
    # converged: another run changes nothing
    assert _fix(copy, code, "--unsafe-fixes") == fixed


def test_fixable_rules_are_those_whose_fixtures_all_get_a_fix():
    # the rules without a fix (DL012, DL013, DL016, DL017-DL021) have bad fixtures too; every other rule's
    # are all repaired above
    with_fixtures = {folder.name[:5] for folder in FIXTURES.iterdir() if folder.is_dir()}
    assert with_fixtures - set(RULES) == {"DL012", "DL013", "DL016", "DL017", "DL018", "DL019", "DL020", "DL021"}


def test_only_the_random_factory_needs_unsafe_fixes(tmp_path):
    """Sanity of the split above: randn's fix is unsafe (other random numbers), the rest safe."""
    unsafe = []
    for bad in (p for p in BAD if p.parent.name[:5] in SAFE_RULES):
        code = bad.parent.name[:5]
        for f, r in analyse(bad.read_bytes(), bad.name, select=[code])[0]:
            if f.code == code and r.edit is not None and r.applicability == "unsafe":
                unsafe.append((bad.parent.name[:5], bad.name, f.line))
    assert unsafe == [("DL008", "bad.py", 31)]
