"""Where each node of a module is (LibCST's PositionProvider ranges), for a few cents less.

A finding needs the line and column of its node; LibCST computes them by generating the
code of the whole module once, recording a CodeRange per node. Asked through
MetadataWrapper, a visit of the whole tree comes first (for providers of other kinds), and
the code generation itself builds two CodePosition objects and a CodeRange per node and runs
a generator-based context manager per syntactic node. Here the provider's own code
generation runs directly, with a state that records plain (line, column) pairs; a CodeRange is
made only for the nodes a finding asks about. The ranges are the provider's: same starts,
same ends (tests/test_fast_paths.py compares them on every node).
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import CodePosition, CodeRange
from libcst.metadata import MetadataWrapper, PositionProvider

try:
    from libcst.metadata.position_provider import NEWLINE_RE, PositionProvidingCodegenState
except ImportError:  # a LibCST laid out otherwise: the wrapper's way below
    PositionProvidingCodegenState = None


class Ranges:
    """node -> CodeRange, made on demand from the recorded pairs."""

    __slots__ = ("_raw",)

    def __init__(self, raw: dict) -> None:
        self._raw = raw

    def get(self, node, default=None):
        found = self._raw.get(node)
        if found is None:
            return default
        (line, column), (end_line, end_column) = found
        return CodeRange(CodePosition(line, column), CodePosition(end_line, end_column))


class _Syntactic:
    """PositionProvidingCodegenState.record_syntactic_position, without a generator."""

    __slots__ = ("state", "node", "start_node", "end_node", "start")

    def __init__(self, state, node, start_node, end_node) -> None:
        self.state, self.node, self.start_node, self.end_node = state, node, start_node, end_node

    def __enter__(self) -> None:
        self.start = (self.state.line, self.state.column)

    def __exit__(self, *exc) -> bool:
        state = self.state
        computed = state.provider._computed
        start = computed[self.start_node][0] if self.start_node is not None else self.start
        end = computed[self.end_node][1] if self.end_node is not None else (state.line, state.column)
        computed[self.node] = (start, end)
        return False


if PositionProvidingCodegenState is not None:

    class _PairsState(PositionProvidingCodegenState):
        """The provider's code generation state, recording ((line, col), (line, col))."""

        def _update_position(self, value: str) -> None:
            if "\n" not in value and "\r" not in value:
                self.column += len(value)
                return
            segments = NEWLINE_RE.split(value)
            self.line += len(segments) - 1
            self.column = len(segments[-1])

        def before_codegen(self, node) -> None:
            self._stack.append((self.line, self.column))

        def after_codegen(self, node) -> None:
            start = self._stack.pop()
            computed = self.provider._computed
            if node not in computed:  # a syntactic position recorded already wins
                computed[node] = (start, (self.line, self.column))

        def record_syntactic_position(self, node, *, start_node=None, end_node=None):
            return _Syntactic(self, node, start_node, end_node)


def positions(module: cst.Module):
    """An object whose .get(node) is the node's CodeRange (PositionProvider's), or None."""
    if PositionProvidingCodegenState is not None:
        try:
            provider = PositionProvider()
            state = _PairsState(default_indent=module.default_indent, default_newline=module.default_newline,
                                provider=provider)
            module._codegen(state)
            return Ranges(provider._computed)
        except (AttributeError, TypeError):  # internals that moved: the slow, public way
            pass
    return MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)


class LazyRanges:
    """positions(module)'s ranges, worked out one statement at a time: only the innermost
    statement holding a node that is asked about is code-generated (a file's findings lie in
    a few lines; the whole module's code generation was about a twentieth of a cold one-file
    run, that of the top-level statements holding the findings still about 3 %). A statement
    of the module's or of a block's body starts a line, and its own code generation, started
    at line 1 with the indentation of the blocks around it, gives its nodes' ranges relative
    to that line: the line is found where that code (indentation included) begins a line of
    the source, exactly once. A statement whose code is not found once (two statements
    spelled alike): the one around it, up to the top level. A node outside every statement
    (the module, its header and footer lines, a node the module index does not hold), a
    top-level statement not found once, or a LibCST whose internals moved: the whole module,
    as positions() does it."""

    __slots__ = ("_module", "_source", "_text", "_index", "_parts", "_done", "_whole")

    def __init__(self, module: cst.Module, source: bytes, index=None) -> None:
        self._module, self._source, self._text = module, source, None
        # the module index of the file (flow.nodes.indexed), taken now: a deferred fix may
        # ask for a position after the file's index is gone
        self._index = index
        self._parts: list = []  # (the statement's raw pairs, its first line - 1)
        self._done: set = set()  # id() of the statements code-generated
        self._whole = None  # positions(module), once anything needed it

    def get(self, node, default=None):
        if self._whole is None:
            found = self._find(node)
            if found is not None:
                return found
            for stmt, indents in self._statements_of(node):
                if id(stmt) not in self._done and self._add(stmt, indents):
                    found = self._find(node)
                    if found is not None:
                        return found
            # outside every statement, or a statement whose place is not known for sure
            self._whole = positions(self._module)
        return self._whole.get(node, default)

    def _find(self, node):
        for raw, shift in self._parts:
            found = raw.get(node)
            if found is not None:
                (line, column), (end_line, end_column) = found
                return CodeRange(CodePosition(line + shift, column), CodePosition(end_line + shift, end_column))
        return None

    def _add(self, stmt, indents: tuple) -> bool:
        """Code-generate `stmt` alone; False when that cannot place it."""
        part = self._generate(stmt, indents) if PositionProvidingCodegenState is not None else None
        if part is None:
            return False
        self._parts.append(part)
        self._done.add(id(stmt))
        return True

    def _statements_of(self, node) -> list:
        """(statement, the indentation its lines are generated with) for every statement of a
        body (the module's, a block's) that holds `node` or is `node`, innermost first."""
        module = self._module
        around = self._index.enclosing(module, node) if self._index is not None else None
        if not around:
            return []
        found, indents = [], []
        for parent, child in zip(around, [*around[1:], node]):
            kind = type(parent)
            if kind is cst.IndentedBlock or kind is cst.Match:  # the two that indent what they hold
                indents.append(module.default_indent if parent.indent is None else parent.indent)
            if (kind is cst.Module or kind is cst.IndentedBlock) and any(s is child for s in parent.body):
                found.append((child, tuple(indents)))
        return found[::-1]

    def _generate(self, stmt, indents: tuple):
        """(raw pairs of `stmt`'s nodes, lines before its first), or None when its place in
        the source is not known for sure."""
        module = self._module
        try:
            provider = PositionProvider()
            state = _PairsState(default_indent=module.default_indent, default_newline=module.default_newline,
                                provider=provider, indent_tokens=list(indents))
            stmt._codegen(state)
        except (AttributeError, TypeError):  # internals that moved
            return None
        if self._text is None:
            self._text = self._source.decode(module.encoding, errors="replace")
        code = "".join(state.tokens)
        if stmt is module.body[-1] and not module.has_trailing_newline and not module.footer:
            # the module drops the last newline it generates: a file whose last line has none
            code = code[:-len(module.default_newline)] if code.endswith(module.default_newline) else code
        start = _line_start_of(self._text, code)
        if start is None:
            return None
        before = self._text[:start]
        # LibCST counts "\r\n", "\r" and "\n" as one line break each (NEWLINE_RE)
        return provider._computed, before.count("\n") + before.count("\r") - before.count("\r\n")


def _line_start_of(text: str, code: str):
    """The one offset at which `code` begins a line of `text`; None when it begins none or
    several (two statements spelled alike: which one is which, only the whole module tells)."""
    found = None
    i = text.find(code) if code else -1
    while i != -1:
        if i == 0 or (text[i - 1] == "\n" or (text[i - 1] == "\r" and text[i] != "\n")):
            if found is not None:
                return None
            found = i
        i = text.find(code, i + 1)
    return found
