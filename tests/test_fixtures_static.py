"""The static half of the fixture protocol: each bad script is flagged at exactly its stated
lines, each fixed script is clean under every rule (default and opt-in)."""

from pathlib import Path

import pytest

from devicelint.engine import lint_source
from devicelint.runtime.fixture import parse_header

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
BAD = sorted(FIXTURES.glob("DL*/bad*.py"))
FIXED = sorted(FIXTURES.glob("DL*/fixed*.py"))


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
    source = path.read_text(encoding="utf-8")
    header = parse_header(source, str(path))
    want = {(code, line) for code, lines in header.expect.items() for line in lines}
    rule = path.parent.name.split("-")[0]
    assert rule in header.expect, f"{path} does not expect its own rule {rule}"
    got = {(f.code, f.line) for f in lint_source(source, str(path), select=["ALL"])}
    assert got == want, f"missing {sorted(want - got)}, unexpected {sorted(got - want)}"


@pytest.mark.parametrize("path", FIXED, ids=_id)
def test_fixed_is_clean(path):
    findings = lint_source(path.read_bytes(), str(path), select=["ALL"])
    assert findings == [], "\n".join(f"{f.line}: {f.code} {f.message}" for f in findings)
