"""Lines as Python counts them: only \\n, \\r\\n and \\r end a line. `str.splitlines` also
breaks at \\f, \\v, \\x1c-\\x1e, \\x85, U+2028 and U+2029, which would shift every line number
after such a character (and put a `# noqa` on the wrong line)."""

from __future__ import annotations

import re

_LINE_END = re.compile(r"\r\n|\r|\n")


def split_lines(text: str, keepends: bool = False) -> list[str]:
    if not text:
        return []
    if keepends:
        parts = [m.group() for m in re.finditer(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$", text)]
        return parts
    lines = _LINE_END.split(text)
    if lines and lines[-1] == "":
        lines.pop()  # text ending with a line end has no empty last line
    return lines
