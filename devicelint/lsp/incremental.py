"""A keystroke re-parses the top-level statements it changed, not the whole document.

In the editor a 1,000-line file is linted again after every keystroke, and most of it did
not change. Per open document the server keeps its last tree cut into top-level statements
("pieces": a statement's text from the end of the one before, its leading comments and
blank lines included, as LibCST attaches them), each with the positions of its nodes counted
from its own first line. A new text is matched against the old pieces from the start and
from the end; only the text between (the changed statements) is parsed, and the new tree is
the old statement nodes with the new ones spliced in. Positions of a reused statement are
its recorded ones moved down by the lines inserted above it; the parents of its nodes (the
rules' rewrite.Scopes) are its own map, walked once for as long as the statement lives.

Reuse is taken only where it cannot differ from a full parse (the equivalence tests parse
both ways after every edit and compare the trees, the positions and the diagnostics); on any
doubt the document is parsed whole, as before:
- the changed text parses on its own; a syntax error anywhere goes through the full parse,
  which reports it as the command line does;
- the changed text starts and the reused text after it resumes with a statement at column 0
  or with blank lines and comments at column 0 (an indented comment or a line of spaces
  could belong to the block above it, in LibCST's tree);
- the module header and the first statement are unchanged (LibCST takes the file's newline
  from its first line), the first indented block is indented as before (LibCST takes the
  file's indentation from it), and the text ends with a newline;
- the pieces, put back together, spell the new text exactly.
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, PositionProvider

from devicelint import engine
from devicelint import positions as positions_mod
from devicelint import rewrite
from devicelint.flow import child_nodes, nodes

# How many more statements around the changed ones to re-parse, one on each side per try,
# before parsing the whole text instead.
WIDEN_TRIES = 2


class Piece:
    """One top-level statement as last parsed: its node, its text (leading lines included),
    how many lines that is, and its nodes' ranges counted from its first line."""

    __slots__ = ("node", "text", "lines", "ranges", "_parents", "_index")

    def __init__(self, node, text: str, ranges: dict) -> None:
        self.node, self.text, self.ranges = node, text, ranges
        self.lines = text.count("\n")
        self._parents = None
        self._index = None

    def index(self):
        """The statement's part of the module index (flow.nodes.indexed), walked once for as
        long as the statement is reused: its subtree is the same whatever surrounds it."""
        if self._index is None:
            self._index = nodes.subtree_index(self.node)
        return self._index

    def parents(self) -> dict:
        """{id(node): parent} below the statement, walked once for as long as it is reused:
        a node's parent inside its statement is the same whatever surrounds the statement."""
        if self._parents is None:
            self._parents = rewrite.parent_map(self.node)
        return self._parents


class Parsed:
    """A document's last tree and what it was made of."""

    __slots__ = ("text", "module", "header", "pieces", "footer")

    def __init__(self, text: str, module: cst.Module, header: str, pieces: list, footer: str) -> None:
        self.text, self.module, self.header, self.pieces, self.footer = text, module, header, pieces, footer


def _render(node, module: cst.Module):
    """(the code of `node`, its nodes' (start, end) pairs from line 1, column 0), as the
    module's own code generation would place them (positions.positions' state)."""
    provider = PositionProvider()
    state = positions_mod._PairsState(default_indent=module.default_indent, default_newline=module.default_newline,
                                      provider=provider)
    node._codegen(state)
    return "".join(state.tokens), provider._computed


def _lines_text(lines, module: cst.Module) -> str:
    return "".join(_render(line, module)[0] for line in lines)


def _pieces(statements, module: cst.Module) -> list:
    out = []
    for stmt in statements:
        text, ranges = _render(stmt, module)
        out.append(Piece(stmt, text, ranges))
    return out


def _loose_lines_ok(text: str, start: int) -> bool:
    """Whether the lines from `start` up to the first line of code are all empty or a comment
    at column 0: then none of them can belong to an indented block before them."""
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end == -1 else end + 1
        line = text[start:end]
        if line.strip("\r\n") and not line.startswith("#"):
            return not line[0].isspace()  # the first line of code: a statement at column 0
        start = end
    return True


def _has_block(stmt) -> bool:
    """Does this top-level statement hold an indented block (an INDENT token)?"""
    return not isinstance(stmt, cst.SimpleStatementLine)


class Splice:
    """The new text cut as: old header + old pieces[:head] + middle + old pieces[n - tail:]
    + old footer (when tail is 0, the middle runs to the end of the text, footer included)."""

    def __init__(self, old: Parsed, text: str, head: int, tail: int) -> None:
        self.old, self.text, self.head, self.tail = old, text, head, tail
        pieces = old.pieces
        self.start = len(old.header) + sum(len(p.text) for p in pieces[:head])
        self.end = len(text) - (sum(len(p.text) for p in pieces[len(pieces) - tail:]) + len(old.footer) if tail else 0)
        self.middle = text[self.start:self.end] if self.end >= self.start else None


def _match(old: Parsed, text: str) -> tuple:
    """(how many old pieces the new text starts with, how many it ends with)."""
    pieces, n = old.pieces, len(old.pieces)
    if not text.startswith(old.header):
        return 0, 0
    pos, head = len(old.header), 0
    while head < n and text.startswith(pieces[head].text, pos):
        pos += len(pieces[head].text)
        head += 1
    if not text.endswith(old.footer):
        return head, 0  # the middle then runs to the end and holds the new footer
    end, tail = len(text) - len(old.footer), 0
    while tail < n - head and text.endswith(pieces[n - 1 - tail].text, 0, end) and end - len(pieces[n - 1 - tail].text) >= pos:
        end -= len(pieces[n - 1 - tail].text)
        tail += 1
    return head, tail


class IncrementalParser:
    """parse(source) and positions(module) for engine.analyse(..., reuse=...), one per open
    document. Not shared between threads: the server runs one lint of a document at a time."""

    def __init__(self) -> None:
        self.last: Parsed | None = None
        self.reused = 0  # statements taken from the last tree by the latest parse (tests read it)

    # ------------------------------------------------------------------ parse
    def parse(self, source: bytes) -> cst.Module:
        self.reused = 0
        text = _decoded(source)
        if text is not None and self.last is not None:
            spliced = self._splice(text)
            if spliced is not None:
                return spliced
        module = engine.parse_module(source)  # a syntax error propagates, as from the full parse
        self.last = _record(text, module) if text is not None else None
        return module

    def _splice(self, text: str) -> cst.Module | None:
        old = self.last
        if text == old.text:
            self.reused = len(old.pieces)
            return old.module
        if not text.endswith("\n"):
            return None  # LibCST adds the newline and takes it off again: parse it whole
        head, tail = _match(old, text)
        # a boundary the middle cannot be cut at (a comment that could belong to the statement
        # next to it, a line that continues it): take that statement into the middle too
        for _ in range(WIDEN_TRIES + 1):
            made = _try_splice(Splice(old, text, head, tail))
            if made is not None:
                self.last, self.reused = made, head + tail
                return made.module
            head, tail = head - 1, max(tail - 1, 0)
        return None

    # ------------------------------------------------------------------ parents
    def parents(self, module: cst.Module) -> dict | None:
        """rewrite.Scopes' parent map of `module`, made of its statements' own maps (kept
        with their pieces) and the module's direct children; None for another tree."""
        last = self.last
        if last is None or last.module is not module:
            return None
        out = {id(c): module for c in child_nodes(module)}
        # in the order a walk of the whole tree writes them (its stack takes the last statement
        # first), so that a node object found under two statements gets the same parent
        for piece in reversed(last.pieces):
            out.update(piece.parents())
        return out

    # ------------------------------------------------------------------ index
    def index(self, module: cst.Module):
        """flow.nodes.indexed's index of `module`, joined from its statements' own (kept with
        their pieces); None for another tree."""
        last = self.last
        if last is None or last.module is not module:
            return None
        return nodes.joined_index(module, {id(p.node): p.index() for p in last.pieces})

    # ------------------------------------------------------------------ positions
    def positions(self, module: cst.Module):
        last = self.last
        if last is None or last.module is not module:
            return positions_mod.positions(module)
        return PieceRanges(last, module)


def _decoded(source: bytes) -> str | None:
    """The text as LibCST reads it when that is plain UTF-8 (no BOM, no other coding)."""
    if isinstance(source, str):
        source = source.encode("utf-8")
    if source.startswith(b"\xef\xbb\xbf"):
        return None
    try:
        text = source.decode("utf-8")
    except UnicodeDecodeError:
        return None
    # a lone \r ends a line for LibCST's positions, not for the line counts kept here
    return text if text.count("\r") == text.count("\r\n") else None


def _record(text: str, module: cst.Module) -> Parsed | None:
    """The pieces of a tree parsed whole; None when they do not spell the text (then the
    next keystroke parses whole again)."""
    if module.encoding.lower().replace("_", "-") not in ("utf-8", "utf8") or not module.has_trailing_newline:
        return None
    header, footer = _lines_text(module.header, module), _lines_text(module.footer, module)
    pieces = _pieces(module.body, module)
    if header + "".join(p.text for p in pieces) + footer != text:
        return None
    return Parsed(text, module, header, pieces, footer)


def _try_splice(cut: Splice) -> Parsed | None:
    old, middle = cut.old, cut.middle
    if cut.head < 1 or middle is None or (middle and not middle.endswith("\n")):
        return None
    if not _loose_lines_ok(cut.text, cut.start) or (cut.tail and not _loose_lines_ok(cut.text, cut.end)):
        return None
    sub = _parse_part(middle, old.module)
    if sub is None or not _same_indent(cut, sub):
        return None
    new, footer = _new_statements(sub, cut)
    if new is None:
        return None
    tail = old.pieces[len(old.pieces) - cut.tail:] if cut.tail else []
    pieces = old.pieces[:cut.head] + _pieces(new, old.module) + tail
    footer_text = old.footer if cut.tail else _lines_text(footer, old.module)
    if old.header + "".join(p.text for p in pieces) + footer_text != cut.text:
        return None
    module = old.module.with_changes(body=[p.node for p in pieces], footer=footer)
    return Parsed(cut.text, module, old.header, pieces, footer_text)


def _parse_part(middle: str, module: cst.Module) -> cst.Module | None:
    """The changed text parsed on its own, or None when that cannot stand for the full parse."""
    if not middle:
        return cst.Module(body=[])
    try:
        sub = engine.parse_module(middle)
    except Exception:  # a syntax error, or the parser's own trouble: the full parse decides
        return None
    if sub.default_newline != module.default_newline:
        return None
    return sub


def _same_indent(cut: Splice, sub: cst.Module) -> bool:
    """Whether the new text's first indented block, which sets the file's indentation (and
    what each block records of its own against it), is indented as the old text's was."""
    old = cut.old
    tail = old.pieces[len(old.pieces) - cut.tail:] if cut.tail else []
    if any(_has_block(p.node) for p in old.pieces[:cut.head]):
        return True  # the first block is before the change: the same one
    if any(_has_block(s) for s in sub.body):
        return sub.default_indent == old.module.default_indent  # the first block is in the change
    if any(_has_block(p.node) for p in old.pieces[cut.head:len(old.pieces) - cut.tail]):
        return False  # the old first block was replaced: the new one is further down, unread
    return any(_has_block(p.node) for p in tail)  # the same first block, after the change


def _new_statements(sub: cst.Module, cut: Splice) -> tuple:
    """(the middle's statements as the full parse attaches their lines, the module footer),
    or (None, None) when some of its lines would belong to a reused statement."""
    body = list(sub.body)
    if not body:
        if cut.tail:
            return None, None  # only comments: they would lead the statement after them
        return [], list(sub.header)  # a comment-only end of file: the module's footer
    if sub.footer and cut.tail:
        return None, None  # trailing comments lead the reused statement after them
    if sub.header:
        # at the top of the middle they are the first statement's leading lines, as in the file
        body[0] = body[0].with_changes(leading_lines=[*sub.header, *body[0].leading_lines])
    footer = cut.old.module.footer if cut.tail else list(sub.footer)
    return body, footer


class PieceRanges:
    """positions.Ranges over a spliced tree: a node's range from its statement's piece,
    moved down by the lines above that piece; the module's own nodes (header, footer)
    from a full computation, made only if one is asked about."""

    def __init__(self, parsed: Parsed, module: cst.Module) -> None:
        self._module = module
        self._tables = []
        line = parsed.header.count("\n")
        for piece in parsed.pieces:
            self._tables.append((piece.ranges, line))
            line += piece.lines
        self._full = None
        self._hit = 0  # the piece of the latest answer: rules ask about one function at a time

    def get(self, node, default=None):
        tables = self._tables
        table, shift = tables[self._hit] if tables else ({}, 0)
        found = table.get(node)
        if found is None:
            for i, (table, shift) in enumerate(tables):
                found = table.get(node)
                if found is not None:
                    self._hit = i
                    break
        if found is not None:
            (line, column), (end_line, end_column) = found
            return CodeRange(CodePosition(line + shift, column), CodePosition(end_line + shift, end_column))
        if self._full is None:
            self._full = positions_mod.positions(self._module)
        return self._full.get(node, default)
