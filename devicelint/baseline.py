"""A baseline: the findings a project has accepted for now, so that only new ones are reported.

Each finding is keyed by what survives unrelated edits: the file (relative to the baseline
file's folder), the code, the flagged line's text with its whitespace normalised, and a
short hash of the non-blank lines around it. Line numbers are not part of the key, so
code added or removed above a finding does not bring it back; changing the flagged line
does. The context hash tells copies of the same line apart: keys are counted, so a new
copy of a baselined mistake is still reported, and an edit beside a baselined finding
does not bring it back (what the full key leaves unmatched matches on the line alone).
A notebook's finding is keyed the same way within its cell (the cell's flagged line and the
lines around it there), never on the cell's number: a cell added above changes nothing.

The file is JSON:

    {"devicelint_baseline": 1,
     "findings": [{"path": "src/train.py", "code": "DL003", "name": "numpy-on-cuda",
                   "text": "preds = logits.argmax(1).numpy()", "context": "3f1c0a9b2e7d",
                   "count": 1}, ...]}
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections import Counter

FORMAT = 1
AROUND = 2  # non-blank lines hashed on each side of the flagged line
_LINE_END = re.compile(r"\r\n|\r|\n")


class BaselineError(Exception):
    pass


def _norm(line: str) -> str:
    return " ".join(line.split())


def _lines(path: str) -> list:
    try:
        with open(path, "rb") as f:
            text = f.read().decode("utf-8", "replace")
    except OSError:
        return []
    return _LINE_END.split(text)


def _where(path: str, root: str) -> str:
    if path == "-" or path.startswith("<"):
        return path
    return os.path.relpath(os.path.abspath(path), root).replace(os.sep, "/")


class _Keys:
    """Computes finding keys, reading each file once."""

    def __init__(self, root: str, sources=None) -> None:
        self.root = root
        self.sources = sources or {}  # path -> bytes, for sources not on disk (stdin)
        self.cache: dict = {}

    def lines(self, path: str) -> list:
        if path not in self.cache:
            given = self.sources.get(path)
            self.cache[path] = _LINE_END.split(given.decode("utf-8", "replace")) if given is not None else _lines(path)
        return self.cache[path]

    def cell_lines(self, path: str, cell: int) -> list:
        """The source lines of a notebook's cell (lines count within the cell); [] when the
        notebook cannot be read."""
        from devicelint.notebook import Notebook, NotebookError

        if (path, None) not in self.cache:
            given = self.sources.get(path)
            try:
                if given is None:
                    with open(path, "rb") as f:
                        given = f.read()
                cells = {c.index: _LINE_END.split(c.text) for c in Notebook(given).cells}
            except (OSError, NotebookError):
                cells = {}
            self.cache[path, None] = cells
        return self.cache[path, None].get(cell, [])

    def key(self, f) -> tuple:
        cell = getattr(f, "cell", None)
        lines = self.lines(f.path) if cell is None else self.cell_lines(f.path, cell)
        i = f.line - 1
        text = _norm(lines[i]) if 0 <= i < len(lines) else ""
        before = [n for n in (_norm(x) for x in reversed(lines[:max(i, 0)])) if n][:AROUND]
        after = [n for n in (_norm(x) for x in lines[i + 1:]) if n][:AROUND]
        digest = hashlib.sha1("\n".join([*reversed(before), "\0", *after]).encode("utf-8")).hexdigest()[:12]
        return (_where(f.path, self.root), f.code, text, digest)


def write(path: str, findings, sources=None) -> int:
    """Record `findings` (DL000, bad input, is never recorded); returns how many."""
    keys = _Keys(os.path.dirname(os.path.abspath(path)), sources)
    counts: Counter = Counter()
    names = {}
    for f in findings:
        if f.code == "DL000":
            continue
        k = keys.key(f)
        counts[k] += 1
        names[k] = f.name
    entries = [
        {"path": p, "code": c, "name": names[(p, c, t, h)], "text": t, "context": h, "count": n}
        for (p, c, t, h), n in sorted(counts.items())
    ]
    data = json.dumps({"devicelint_baseline": FORMAT, "findings": entries}, indent=2) + "\n"
    from devicelint import atomic

    try:
        atomic.write(path, data.encode("utf-8"))  # a full disk keeps the old baseline whole
    except OSError as e:
        raise BaselineError(f"cannot write baseline {path}: {e.strerror or e}") from None
    return sum(counts.values())


def load(path: str) -> Counter:
    try:
        with open(path, "rb") as f:
            data = json.loads(f.read().decode("utf-8"))
    except OSError as e:
        raise BaselineError(f"cannot read baseline {path}: {e.strerror or e}") from None
    except (ValueError, UnicodeDecodeError) as e:
        raise BaselineError(f"baseline {path} is not valid JSON: {e}") from None
    if not isinstance(data, dict) or data.get("devicelint_baseline") != FORMAT or not isinstance(data.get("findings"), list):
        raise BaselineError(f"baseline {path} is not a devicelint baseline (format {FORMAT})")
    counts: Counter = Counter()
    for entry in data["findings"]:
        try:
            key = (str(entry["path"]), str(entry["code"]), str(entry["text"]), str(entry["context"]))
            counts[key] += int(entry.get("count", 1))
        except (KeyError, TypeError, ValueError):
            raise BaselineError(f"baseline {path}: malformed entry {entry!r}") from None
    return counts


def apply(path: str, findings, linted_paths, sources=None) -> tuple[list, int]:
    """(the findings not in the baseline at `path`, how many baseline entries matched
    nothing: stale, for files linted in this run).

    Two passes: first on the whole key; then what is left matches on path, code and line
    text alone, so that an edit next to a baselined finding does not bring it back. The
    context hash thus decides only between copies of the same line."""
    left = load(path)
    keys = _Keys(os.path.dirname(os.path.abspath(path)), sources)
    keyed = [(f, None if f.code == "DL000" else keys.key(f)) for f in findings]
    unmatched = []
    for f, k in keyed:
        if k is not None and left[k] > 0:
            left[k] -= 1
        else:
            unmatched.append((f, k))
    loose: Counter = Counter()
    for (p, c, t, _h), n in left.items():
        if n > 0:
            loose[p, c, t] += n
    new = []
    for f, k in unmatched:
        if k is not None and loose[k[:3]] > 0:
            loose[k[:3]] -= 1
        elif f.cell is not None and loose[k[0], f.code, _norm(f.message)] > 0:
            loose[k[0], f.code, _norm(f.message)] -= 1  # a notebook entry written before cells had line keys
        else:
            new.append(f)
    linted = {_where(p, keys.root) for p in linted_paths}
    stale = sum(n for (p, _c, _t), n in loose.items() if n > 0 and p in linted)
    return new, stale
