"""The static half of the fixture protocol (DESIGN.md section 3), shared by the project's
tests (tests/test_fixtures_static.py) and `devicelint verify`:

- a bad script is flagged, under every rule, at exactly the lines its `expect:` header
  names, by the rules it names, and its header names its own folder's rule;
- a fixed script is clean under every rule (default and opt-in).

Each check returns a list of problems in words (empty: the script passes)."""

from __future__ import annotations

from pathlib import Path

from devicelint.runtime.fixture import FixtureError, Header, header_source, parse_header


def _lint(path: Path) -> list:
    from devicelint.engine import lint_source

    return lint_source(path.read_bytes(), str(path), select=["ALL"])


def _place(f):
    """A finding's place as a header states it: its line, or (cell, line) in a notebook."""
    return f.line if f.cell is None else (f.cell, f.line)


def _show(place) -> str:
    return f"cell {place[0]}:{place[1]}" if isinstance(place, tuple) else str(place)


def _lines(pairs, code: str) -> str:
    return ", ".join(_show(line) for c, line in sorted(pairs, key=lambda p: (p[0], _key(p[1]))) if c == code)


def _key(place) -> tuple:
    return place if isinstance(place, tuple) else (0, place)


def check_bad(path: Path, code: str | None = None, header: Header | None = None) -> list[str]:
    """Problems with a bad script: its header, or lines flagged other than the header says.
    `code` defaults to the rule of the folder (`DL003-numpy-on-cuda` -> DL003)."""
    path = Path(path)
    code = code or path.parent.name.split("-")[0]
    try:
        header = header or parse_header(header_source(path), str(path))
    except (FixtureError, OSError, ValueError) as exc:  # a broken notebook is a ValueError too
        return [f"unreadable header: {exc}"]
    problems = []
    if code not in header.expect:
        problems.append(f"the header does not expect its own rule {code} (`# expect: {code} at LINE, ...`)")
    want = {(c, line) for c, lines in header.expect.items() for line in lines}
    got = {(f.code, _place(f)) for f in _lint(path)}
    for c in sorted({c for c, _ in want ^ got}):
        missing, unexpected = _lines(want - got, c), _lines(got - want, c)
        flagged = _lines(got, c) or "no line"
        parts = [f"header expects {c} at {_lines(want, c) or 'no line'}", f"the linter flags {flagged}"]
        if missing:
            parts.append(f"missing {missing}")
        if unexpected:
            parts.append(f"unexpected {unexpected}")
        problems.append("; ".join(parts))
    return problems


def check_fixed(path: Path) -> list[str]:
    """Problems with a fixed script: every finding any rule makes in it."""
    return [f"flagged at {_show(_place(f))}: {f.code} {f.message}" for f in _lint(Path(path))]
