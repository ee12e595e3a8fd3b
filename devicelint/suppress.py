"""`# noqa: DL003`, `# devicelint: ignore[DL003]`, bare `# noqa`, `# devicelint: ignore-file`."""

from __future__ import annotations

import re

from devicelint.lines import split_lines

_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Za-z0-9_, ]+))?", re.IGNORECASE)
_IGNORE = re.compile(r"#\s*devicelint:\s*ignore(?:\[(?P<codes>[A-Za-z0-9_, ]*)\])?(?![-\w])")
_IGNORE_FILE = re.compile(r"#\s*devicelint:\s*ignore-file\b")

ALL = frozenset({"*"})
_CODE = re.compile(r"\b[A-Z]+[0-9]+\b")


def _codes(match) -> frozenset:
    raw = match.group("codes")
    # codes separated by commas and/or spaces, as flake8 and ruff accept; words after them
    # (`# noqa: DL001 moved by accelerate`) are an explanation, not codes
    codes = _CODE.findall(raw.upper()) if raw else []
    return frozenset(codes) if codes else ALL


class Suppressions:
    def __init__(self, text: str) -> None:
        self.file_ignored = False
        self.by_line: dict[int, frozenset] = {}
        self.comment_only: set[int] = set()
        self.spans: dict[int, tuple] = {}  # line -> (start, end) columns (0-based) of its directives
        self.used: set = set()  # (line, code or "*") of every directive that silenced a finding
        for number, line in enumerate(split_lines(text), start=1):
            if "#" not in line:
                continue
            if _IGNORE_FILE.search(line):
                self.file_ignored = True
            codes = frozenset()
            span = None
            for rx in (_NOQA, _IGNORE):
                for m in rx.finditer(line):
                    codes |= _codes(m)
                    span = (min(span[0], m.start()), max(span[1], m.end())) if span else (m.start(), m.end())
            if codes:
                self.by_line[number] = codes
                self.spans[number] = span
                if line.lstrip().startswith("#"):
                    self.comment_only.add(number)

    def _hit(self, line: int, code: str) -> bool:
        codes = self.by_line.get(line)
        if codes is None:
            return False
        hit = "*" if "*" in codes else next((c for c in codes if code.startswith(c)), None)
        if hit is not None:
            self.used.add((line, hit))
        return hit is not None

    def silences(self, line: int, code: str) -> bool:
        """Does the directive on `line` name `code` (or everything)?"""
        return self._hit(line, code)

    def suppressed(self, code: str, line: int, end_line: int) -> bool:
        if self.file_ignored:
            return True
        if self._hit(line, code) or (end_line != line and self._hit(end_line, code)):
            return True
        # a comment of its own on the line above the statement
        return (line - 1) in self.comment_only and self._hit(line - 1, code)

    def unused(self, ran) -> list:
        """[(line, (start, end) columns, [codes])]: codes named in a directive, of rules that
        ran (`ran`: their codes), that silenced nothing. Bare `# noqa` may be for other tools,
        and prefixes (`DL00`) are meant broadly: neither is judged."""
        if self.file_ignored:
            return []
        out = []
        for line, codes in sorted(self.by_line.items()):
            if "*" in codes:
                continue
            idle = sorted(c for c in codes if c in ran and (line, c) not in self.used)
            if idle:
                out.append((line, self.spans[line], idle))
        return out
