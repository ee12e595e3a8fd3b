"""`# noqa: DL003`, `# devicelint: ignore[DL003]`, bare `# noqa`, `# devicelint: ignore-file`."""

from __future__ import annotations

import re

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
        for number, line in enumerate(text.splitlines(), start=1):
            if "#" not in line:
                continue
            if _IGNORE_FILE.search(line):
                self.file_ignored = True
            codes = frozenset()
            for rx in (_NOQA, _IGNORE):
                for m in rx.finditer(line):
                    codes |= _codes(m)
            if codes:
                self.by_line[number] = codes
                if line.lstrip().startswith("#"):
                    self.comment_only.add(number)

    def _hit(self, line: int, code: str) -> bool:
        codes = self.by_line.get(line)
        return codes is not None and (codes is ALL or "*" in codes or any(code.startswith(c) for c in codes))

    def suppressed(self, code: str, line: int, end_line: int) -> bool:
        if self.file_ignored:
            return True
        if self._hit(line, code) or (end_line != line and self._hit(end_line, code)):
            return True
        # a comment of its own on the line above the statement
        return (line - 1) in self.comment_only and self._hit(line - 1, code)
