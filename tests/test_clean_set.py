"""Realistic, correct training and inference scripts written to tempt a naive linter: silence."""

from pathlib import Path

import pytest

from devicelint.engine import lint_source

CLEAN = sorted((Path(__file__).parent / "clean").glob("*.py"))


def test_clean_set_is_big_enough():
    assert len(CLEAN) >= 20


@pytest.mark.parametrize("path", CLEAN, ids=lambda p: p.name)
def test_clean(path):
    findings = lint_source(path.read_bytes(), str(path))
    assert findings == [], "\n".join(f"{f.line}: {f.code} {f.message}" for f in findings)
