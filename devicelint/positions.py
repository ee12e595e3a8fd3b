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
