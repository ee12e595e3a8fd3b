"""A rule's automatic fix as data: the JSON `fix` object (DESIGN.md section 2).

The edit is the one `--fix` makes (fix.py replaces the same node by the same callback):
the node's text in the file becomes the code of the replacement node. The node's text is
checked against the file before it is trusted; where it does not match (a block inside a
function: LibCST renders it at its own indentation, not the file's), the edit is read off a
rewrite of the top-level statement around the node, found in the file by its text; only where
that fails too (a byte-order mark, a form feed) off a rewrite of the whole module, which is
exact but costs a codegen of the file (about a third of a 1,000-line file's lint)."""

from __future__ import annotations

import re
from bisect import bisect_right

import libcst as cst


_LINE_END = re.compile(r"\r\n|\r|\n")


def locate(text: str, code: str, guess: int) -> int | None:
    """Where `code` starts in `text`: at `guess`, or the nearest place close to it (LibCST's
    columns do not count what it dropped, e.g. a leading form feed)."""
    if text.startswith(code, guess):
        return guess
    best = None
    end = guess + 64 + len(code)
    at = text.find(code, max(0, guess - 64), end)
    while at != -1:
        if best is None or abs(at - guess) < abs(best - guess):
            best = at
        at = text.find(code, at + 1, end)
    return best


def _covering(text: str, code: str, at: int) -> int | None:
    """Where `code` starts in `text` so that it spans offset `at` (the start of a statement's
    first line, below the comments and blank lines that its code starts with), or None. Not
    merely the nearest copy: two identical loops, each under a long comment, are two copies."""
    if at < 0:
        return None
    start = text.find(code, max(0, at - len(code) + 1))
    return start if start != -1 and start <= at else None


def _trim(before: str, after: str) -> tuple[int, int, int]:
    """(start, end in `before`, end in `after`) of what differs, the common head and tail cut."""
    start, end_old, end_new = 0, len(before), len(after)
    while start < min(end_old, end_new) and before[start] == after[start]:
        start += 1
    while end_old > start and end_new > start and before[end_old - 1] == after[end_new - 1]:
        end_old, end_new = end_old - 1, end_new - 1
    return start, end_old, end_new


class _ReplaceOne(cst.CSTTransformer):
    def __init__(self, target, edit) -> None:
        self.target = target
        self.edit = edit

    def on_leave(self, original_node, updated_node):
        return self.edit(updated_node) if original_node is self.target else updated_node


class FixBuilder:
    """Builds the fix objects of one file (`text`: the source as LibCST decoded it;
    `position(node)`: its CodeRange, to find the top-level statement around a node)."""

    def __init__(self, module: cst.Module, text: str, position=None) -> None:
        self.module = module
        self.position = position
        self.text = text[1:] if text.startswith("\ufeff") else text  # LibCST counts no BOM
        # lines as Python (and LibCST) count them: \r alone ends one too
        self._starts = [0] + [m.end() for m in _LINE_END.finditer(self.text)]

    def _offset(self, line: int, column0: int) -> int:
        return self._starts[line - 1] + column0 if 0 < line <= len(self._starts) else -1

    def _position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column), columns in characters like the findings'."""
        line = bisect_right(self._starts, offset)
        return line, offset - self._starts[line - 1] + 1

    def build(self, node, edit, message, applicability="safe", span=None) -> dict | None:
        """`{"applicability", "message", "edits": [{line, column, end_line, end_column,
        content}]}` for replacing `node` (whose CodeRange is `span`) by `edit(node)`, or
        None when the edit fails or changes nothing."""
        try:
            old = self.module.code_for_node(node)
            new = self.module.code_for_node(edit(node))
        except Exception:  # a fix that cannot be built is no fix; the finding itself stands
            return None
        if new == old:
            return None
        lo = self._offset(span.start.line, span.start.column) if span is not None else -1
        lo = locate(self.text, old, lo) if lo >= 0 else None
        if lo is None:
            return (self._by_statement(node, edit, message, applicability, span)
                    or self._by_rewrite(node, edit, message, applicability))
        return self._object(lo, lo + len(old), new, message, applicability)

    def _top_statement(self, span):
        """The statement of the module's body whose lines hold `span`, with its CodeRange."""
        if span is None or self.position is None:
            return None, None
        for stmt in self.module.body:
            at = self.position(stmt)
            if at is not None and at.start.line <= span.start.line and span.end.line <= at.end.line:
                return stmt, at
        return None, None

    def _by_statement(self, node, edit, message, applicability, span) -> dict | None:
        """The edit read off a rewrite of the top-level statement around `node` (rendered at
        column 0, as it is in the file), found by its text near where its position says."""
        stmt, at = self._top_statement(span)
        if stmt is None:
            return None
        try:
            before = self.module.code_for_node(stmt)
            after = self.module.code_for_node(stmt.visit(_ReplaceOne(node, edit)))
        except Exception:
            return None
        lo = _covering(self.text, before, self._offset(at.start.line, 0))
        if lo is None or after == before:
            return None
        start, end_old, end_new = _trim(before, after)
        return self._object(lo + start, lo + end_old, after[start:end_new], message, applicability)

    def build_parts(self, report) -> dict | None:
        """The fix object of a fix in several parts (a value bound once, its uses rewritten):
        the whole module rewritten with them, one edit per changed run of lines."""
        import difflib

        try:
            edits, inserts, _taken = claim(self.module, [report])
        except Exception:
            return None
        after = self._rewritten(_Apply(edits, inserts))
        if after is None:
            return None
        old, new = self.text.splitlines(keepends=True), after.splitlines(keepends=True)
        out = []
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
            if tag == "equal":
                continue
            lo, hi = sum(map(len, old[:i1])), sum(map(len, old[:i2]))
            out.append(self._object(lo, hi, "".join(new[j1:j2]), report.fix, report.applicability)["edits"][0])
        return {"applicability": report.applicability, "message": report.fix, "edits": out}

    def _by_rewrite(self, node, edit, message, applicability) -> dict | None:
        after = self._rewritten(_ReplaceOne(node, edit))
        if after is None:
            return None
        start, end_old, end_new = _trim(self.text, after)
        return self._object(start, end_old, after[start:end_new], message, applicability)

    def _rewritten(self, visitor) -> str | None:
        """The whole module's code as `visitor` rewrites it; None where the rewrite fails (a
        fix that cannot be built is no fix), where the tree is not of this text (its offsets
        would not hold), or where nothing changes."""
        try:
            before = self.module.code
            after = self.module.visit(visitor).code
        except Exception:
            return None
        return None if before != self.text or after == before else after

    def _object(self, lo: int, hi: int, content: str, message, applicability) -> dict:
        line, column = self._position(lo)
        end_line, end_column = self._position(hi)
        return {
            "applicability": applicability,
            "message": message,
            "edits": [{"line": line, "column": column, "end_line": end_line, "end_column": end_column,
                       "content": content}],
        }


# ---- applying a fix's parts to a module (fix.py applies whole rounds of them) ----------
class _Apply(cst.CSTTransformer):
    """Replaces nodes (`edits`: id(original node) -> callback on the updated node) and inserts
    statements (`inserts`: id(original statement) -> [code, ...]) before statements."""

    def __init__(self, edits: dict, inserts: dict | None = None) -> None:
        self.edits = edits
        self.inserts = inserts or {}
        self.applied: dict = {}  # id(original node) -> (original node, its replacement)
        self.inserted: list = []  # (original statement, code inserted before it)

    def on_leave(self, original_node, updated_node):
        if self.inserts and isinstance(original_node, (cst.IndentedBlock, cst.Module)):
            updated_node = self._insert(original_node, updated_node)
        edit = self.edits.get(id(original_node))
        if edit is None:
            return updated_node
        new = edit(updated_node)
        self.applied[id(original_node)] = (original_node, new)
        return new

    def _insert(self, original, updated):
        if len(original.body) != len(updated.body):
            # a statement was flattened away: the insertion's place is lost, and a fix must
            # never be applied in part (its rewritten uses without their binding)
            raise ValueError("statements of a block changed under an insertion")
        body = []
        for old, new in zip(original.body, updated.body):
            for code in self.inserts.get(id(old), ()):
                body.extend(cst.parse_module(code).body)
                self.inserted.append((old, code))
            body.append(new)
        return updated.with_changes(body=body) if len(body) != len(updated.body) else updated


def parts_key(module: cst.Module, part):
    """What a part of a fix claims: its node (a replacement), or its statement and code (an
    insertion: the same line inserted twice is one insertion)."""
    from devicelint.rules.base import Insert

    if isinstance(part, Insert):
        return ("insert", id(part.before), part.code)
    return ("node", id(part[0]))


def _same_edit(module: cst.Module, a, b) -> bool:
    """Two replacements of one node agree: they give the same code."""
    try:
        return module.code_for_node(a[1](a[0])) == module.code_for_node(b[1](b[0]))
    except Exception:
        return False


def claim(module: cst.Module, reports) -> tuple[dict, dict, int]:
    """(edits, inserts, how many reports) for `_Apply`: each report's parts are taken all
    together or, when one of them replaces a node another report replaces differently, not
    at all (the next round sees it again)."""
    from devicelint.rules.base import Insert

    claimed: dict = {}
    taken = 0
    for report in reports:
        parts = report.edit_parts()
        keys = [parts_key(module, part) for part in parts]
        if any(k in claimed and k[0] == "node" and not _same_edit(module, claimed[k], part)
               for k, part in zip(keys, parts)):
            continue
        for k, part in zip(keys, parts):
            claimed.setdefault(k, part)
        taken += 1
    edits, inserts = {}, {}
    for k, part in claimed.items():
        if isinstance(part, Insert):
            inserts.setdefault(id(part.before), []).append(part.code)
        else:
            edits[id(part[0])] = part[1]
    return edits, inserts, taken
