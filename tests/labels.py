"""Reading the `# expect:` labels of the clean set, the corpus and the fixtures, and scoring."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from devicelint.engine import lint_source

_EXPECT = re.compile(r"^#\s*expect:\s*(?:(?P<clean>clean)\s*$|(?P<code>DL\d{3})\s+at\s+(?P<lines>\d+(?:\s*,\s*\d+)*))")


def expected(source: str) -> set:
    """{(code, line)} from the leading comment block."""
    out = set()
    for line in source.splitlines():
        if not line.startswith("#"):
            break
        m = _EXPECT.match(line)
        if m and m.group("code"):
            out |= {(m.group("code"), int(n)) for n in m.group("lines").split(",")}
    return out


def has_label(source: str) -> bool:
    return any(_EXPECT.match(line) for line in source.splitlines()[:12])


def actual(path: Path, select=("ALL",)) -> set:
    return {(f.code, f.line) for f in lint_source(path.read_bytes(), str(path), select=list(select))}


def score(paths, codes) -> dict:
    """Per-rule true positives, false positives, false negatives over labelled files."""
    tp, fp, fn = Counter(), Counter(), Counter()
    misses = []
    for path in paths:
        source = path.read_text(encoding="utf-8")
        want = {x for x in expected(source) if x[0] in codes}
        got = {x for x in actual(path, codes) if x[0] in codes}
        for code, line in got & want:
            tp[code] += 1
        for code, line in got - want:
            fp[code] += 1
            misses.append(f"FP {path.name}:{line} {code}")
        for code, line in want - got:
            fn[code] += 1
            misses.append(f"FN {path.name}:{line} {code}")
    return {"tp": tp, "fp": fp, "fn": fn, "misses": misses}
