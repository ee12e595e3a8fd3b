"""Every rule's VALID / INVALID examples are tests (the examples in the docs cannot rot)."""

import inspect

import pytest

from devicelint.engine import lint_source
from devicelint.rules import ALL_RULES

MARK = "# <--"

CASES = [
    pytest.param(rule, kind, i, code, id=f"{rule.code}-{kind}-{i}")
    for rule in ALL_RULES
    for kind, examples in (("valid", rule.VALID), ("invalid", rule.INVALID))
    for i, code in enumerate(examples)
]


def expected_lines(code: str) -> list:
    return [n for n, line in enumerate(code.splitlines(), start=1) if line.rstrip().endswith(MARK)]


@pytest.mark.parametrize("rule, kind, index, code", CASES)
def test_example(rule, kind, index, code):
    code = inspect.cleandoc(code) + "\n" if not code.startswith("\n") else code[1:]
    findings = [f for f in lint_source(code, "example.py", select=["ALL"]) if f.code == rule.code]
    got = sorted(f.line for f in findings)
    if kind == "valid":
        assert got == [], f"{rule.code} flagged a VALID example at lines {got}:\n{code}"
    else:
        want = expected_lines(code)
        assert want, "an INVALID example must mark its flagged lines with `# <--`"
        assert got == want, f"{rule.code}: expected lines {want}, got {got}:\n{code}"


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.code)
def test_rule_has_docs_and_examples(rule):
    docs = rule.docs()
    for section in ("## What it does", "## Why is this bad?", "## Example", "## Use instead"):
        assert section in docs, f"{rule.code} docs lack {section!r}"
    assert rule.VALID and rule.INVALID
    assert rule.name == rule.name.lower() and " " not in rule.name


FIX_CASES = [
    pytest.param(rule, before, after, id=f"{rule.code}-fix-{i}")
    for rule in ALL_RULES
    for i, (before, after) in enumerate(rule.FIXES)
]


def _example(code: str) -> str:
    return code[1:] if code.startswith("\n") else code


@pytest.mark.parametrize("rule, before, after", FIX_CASES)
def test_fix_example(rule, before, after):
    """A fixable rule's FIXES: `--fix --unsafe-fixes` turns the first code into the second,
    which the rule no longer flags, and a second run changes nothing."""
    from devicelint.fix import fix_source

    before, after = _example(before), _example(after)
    assert any(f.code == rule.code for f in lint_source(before, "example.py", select=["ALL"]))
    new, count = fix_source(before.encode(), "example.py", select=[rule.code], unsafe=True)
    assert new.decode() == after
    assert count >= 1
    assert not [f for f in lint_source(new, "example.py", select=["ALL"]) if f.code == rule.code]
    assert fix_source(new, "example.py", select=[rule.code], unsafe=True) == (new, 0)


_DOCS_PENDING: set = set()


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.code)
def test_fixable_rules_document_fix_safety_and_show_a_fix(rule):
    if rule.fixable and rule.code not in _DOCS_PENDING:
        assert "## Fix safety" in rule.docs(), f"{rule.code} fixes but its docs lack '## Fix safety'"
        assert rule.FIXES, f"{rule.code} fixes but has no FIXES examples"
    else:
        assert not rule.FIXES


def test_the_readme_fix_table_lists_every_fixable_rule_and_its_safety():
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    table = readme.split("| rule | fix | applicability |", 1)[1].split("\n\n", 1)[0]
    rows = {line.split("|")[1].strip(): line.split("|")[-2] for line in table.splitlines() if line.startswith("| DL")}
    fixable = {rule.code: rule for rule in ALL_RULES if rule.fixable}
    assert sorted(rows) == sorted(fixable)
    for code, rule in fixable.items():
        for kind in rule.fix_applicability:
            assert kind in rows[code], f"{code}: the README says {rows[code].strip()!r}, the rule {rule.fix_applicability}"
