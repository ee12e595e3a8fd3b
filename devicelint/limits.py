"""Bounds on what one file may cost.

LibCST's native parser takes super-linear time and memory on deep expressions (a chain of
3,000 `.to()` calls: 54 s; 3,000 nested lambdas: 1.7 GB) and overflows its stack (a
segfault) on a 10,000-operand `and`. So before LibCST sees a file, CPython's own parser
(fast, and it refuses what it cannot compile) measures it; what is too big or too deep is
reported as `DL000 too-complex` with the reason. While the file is then analysed, a timer
and an address-space limit bound what no pre-check can foresee.
"""

from __future__ import annotations

import ast
import io
import re
import signal
import sys
import threading
import tokenize
import warnings
from contextlib import contextmanager

MAX_BYTES = 4 * 1024 * 1024
MAX_LINES = 200_000
# Nesting as LibCST builds it. Real code stays far below 100; LibCST parses 1,000 levels of
# `+` or `not` in well under a second, while calls, attributes, subscripts, lambdas and
# conditional expressions cost it much more per level: they count twice.
MAX_DEPTH = 1000
FILE_TIMEOUT = 60.0  # seconds for one file, parse and rules together
MAX_MEMORY = 3 * 1024**3  # bytes of address space one file may add to the process

# LibCST's visitors take three Python frames per level of nesting.
RECURSION_LIMIT = 8 * MAX_DEPTH + 2000

_HEAVY = (ast.Call, ast.Attribute, ast.Subscript, ast.Lambda, ast.IfExp)
_STRINGS = (ast.Constant, ast.JoinedStr)
_LINE_END = re.compile(rb"\r\n|\r|\n")  # the line ends of Python's tokenizer (not \f, not U+2028)
LINE_SPLIT = _LINE_END.split


class TooComplex(BaseException):
    """The file went over a limit. A BaseException, so that no `except Exception` in the
    analysis swallows it and carries on with half a result."""

    def __init__(self, reason: str, line: int = 1) -> None:
        super().__init__(reason)
        self.reason = reason
        self.line = line


def count_lines(source: bytes) -> int:
    # the line ends of _LINE_END, counted without a list of matches: \r\n once, a lone \r or \n once
    ends = source.count(b"\n") + source.count(b"\r") - source.count(b"\r\n")
    return ends + (0 if not source or _LINE_END.match(source[-1:]) else 1)


def precheck(source: bytes) -> TooComplex | SyntaxError | None:
    """Why LibCST must not see `source` (a TooComplex), CPython's SyntaxError (the caller
    decides; LibCST may know newer syntax than this interpreter), or None."""
    if len(source) > MAX_BYTES:
        return TooComplex(f"file is {len(source):,} bytes (limit {MAX_BYTES:,})")
    lines = count_lines(source)
    if lines > MAX_LINES:
        return TooComplex(f"file has {lines:,} lines (limit {MAX_LINES:,})")
    if _no_long_statement(source):
        return None
    try:
        with quiet():  # e.g. SyntaxWarning for "\d": not ours to print
            tree = ast.parse(source)
    except SyntaxError as e:
        if "too many nested" in str(e.msg) or "too complex" in str(e.msg):
            return TooComplex(f"Python cannot parse it: {e.msg}", e.lineno or 1)
        return e
    except (RecursionError, MemoryError) as e:
        # CPython's parser gives up on nesting deeper than its own stack allows
        return TooComplex(f"nested too deeply for Python's own parser ({type(e).__name__})")
    except ValueError:  # NUL bytes: reported by the caller
        return None
    return _too_deep(tree, source)


_BRACKET = re.compile(rb"[()\[\]{}]")
_LINE_BREAK = re.compile(rb"\r|\n")
# Every level of nesting takes at least a byte, and a statement starts at most ~110 levels
# deep (CPython allows 100 indented blocks): a shorter statement cannot go over MAX_DEPTH.
_LONG = MAX_DEPTH - 150
# What can add a level as _too_deep counts them (`.` and `lambda`/`if` count twice there)
_NESTING_CHARS = b"+-*/%@&|^~<>()[]{}."
_NESTING_WORDS = re.compile(rb"\b(?:and|or|not|if|lambda|await|yield)\b")
_JOINED_STRINGS = re.compile(rb"['\"]\s*[rRbBfFuU]{0,2}['\"]")  # `'a' 'b'`: one more level


def _no_long_statement(source: bytes) -> bool:
    """True when no statement can nest MAX_DEPTH deep, told from the bytes alone at a tenth
    of the cost of `ast.parse`: most files skip it. A statement is measured where it is
    long (a long line; bracketed spans joined on one line, with their lines): there, its
    operators, brackets, dots, keywords and adjacent string quotes bound its depth. Brackets in strings and
    comments only make it answer False (an unbalanced one leaves a span open or closes one
    too many), apart from a `)` and a `(` both in strings inside one span, which split it.
    A backslash continuation joins its lines: they are measured as one (wherever the
    backslash is, even in a string or a comment, joining only makes a line longer)."""
    if b"\\\n" in source or b"\\\r" in source:
        source = source.replace(b"\\\r\n", b"   ").replace(b"\\\n", b"  ").replace(b"\\\r", b"  ")
    for line in LINE_SPLIT(source):
        if len(line) > _LONG and _depth_bound(line) > _LONG:
            return False
    depth = start = end = 0
    for m in _BRACKET.finditer(source):
        if m.group() in b"([{":
            if not depth and (not end or _LINE_BREAK.search(source, end, m.start())):
                start = m.start()  # a new statement's first span (else: joined to the last)
            depth += 1
        else:
            depth -= 1
            if depth < 0:
                return False
            if not depth:
                end = m.end()
                if end - start > _LONG:
                    lo = max(source.rfind(b"\n", 0, start), source.rfind(b"\r", 0, start)) + 1
                    hi = _LINE_BREAK.search(source, end)
                    if _depth_bound(source[lo : hi.start() if hi else len(source)]) > _LONG:
                        return False
    return depth == 0


def _depth_bound(code: bytes) -> int:
    ops = len(code) - len(code.translate(None, _NESTING_CHARS))
    words = len(_NESTING_WORDS.findall(code)) + code.count(b"lambda") + code.count(b"if")
    return ops + code.count(b".") + words + len(_JOINED_STRINGS.findall(code))


def _too_deep(tree: ast.AST, source: bytes) -> TooComplex | None:
    """The first node nested deeper than MAX_DEPTH, as LibCST would nest it. Every level
    of nesting takes at least one byte of source, so a statement shorter than the depth
    left to it is not walked: that keeps this check at a fraction of a parse."""
    offsets = [0] + [m.end() for m in _LINE_END.finditer(source)]
    stack = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, ast.expr):
            if isinstance(node, ast.BoolOp):
                depth += len(node.values) - 1  # `a and b and c`: one node here, nested pairs in LibCST
            elif isinstance(node, _HEAVY):
                depth += 1
            elif isinstance(node, _STRINGS) and _span(offsets, node) > 2 * (MAX_DEPTH - depth):
                # `"a" "b" "c"`: one node here, nested pairs in LibCST; a part takes two bytes
                depth += _string_parts(source, offsets, node) - 1
            if depth > MAX_DEPTH:
                return TooComplex(f"an expression nested more than {MAX_DEPTH:,} levels deep", node.lineno)
        elif isinstance(node, ast.stmt) and _span(offsets, node) + depth + 8 < MAX_DEPTH:
            continue  # too short to nest deep enough, whatever it holds
        depth += 1
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, list):
                stack.extend((v, depth) for v in value if isinstance(v, ast.AST))
            elif isinstance(value, ast.AST):
                stack.append((value, depth))
    return None


def _span(offsets: list, node) -> int:
    return offsets[node.end_lineno - 1] + node.end_col_offset - offsets[node.lineno - 1] - node.col_offset


def _string_parts(source: bytes, offsets: list, node) -> int:
    start = offsets[node.lineno - 1] + node.col_offset
    text = source[start : start + _span(offsets, node)].decode("utf-8", "replace")
    try:
        tokens = tokenize.generate_tokens(io.StringIO("(" + text + ")").readline)
        return max(1, sum(1 for t in tokens if t.type == tokenize.STRING))
    except (tokenize.TokenError, SyntaxError):
        return 1


# ----------------------------------------------------------------------------- while running


def _address_space() -> int | None:
    try:
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[0])
        import resource

        return pages * resource.getpagesize()
    except (OSError, ValueError, ImportError, IndexError):
        return None


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


@contextmanager
def quiet(*categories):
    """Silence these warnings (all when none is named) for the body. Only in the main thread:
    the filters are the whole process's, and another thread that saved and restored them
    would undo what the main thread set meanwhile (a test runner's own filters)."""
    if not _main_thread():
        yield
        return
    with warnings.catch_warnings():
        for category in categories or (Warning,):
            warnings.simplefilter("ignore", category)
        yield


@contextmanager
def bounded(timeout: float | None = None, memory: int | None = None):
    """Run the body under a wall-clock timer (raises TooComplex), an address-space cap
    (allocation fails with MemoryError) and a recursion limit deep enough for LibCST, all
    undone afterwards. The timer needs the main thread (signals); the cap needs Linux. The
    cap and the recursion limit are the whole process's: changed from another thread they
    would race with the main thread's own (a test runner running beside the runtime checker's
    threads), so only the main thread sets them. The cap binds every thread's allocations, so
    it is set only while no other thread runs: under it the runtime checker's threads would
    fail theirs (an autofix abandoned mid-way). Elsewhere the pre-check is the only bound."""
    timeout = FILE_TIMEOUT if timeout is None else timeout
    memory = MAX_MEMORY if memory is None else memory
    restore_timer = restore_limit = None
    if not _main_thread():
        yield
        return
    if timeout and hasattr(signal, "setitimer"):

        def expired(_signum, _frame):
            raise TooComplex(f"analysis took longer than {timeout:g} s")

        old_handler = signal.signal(signal.SIGALRM, expired)
        signal.setitimer(signal.ITIMER_REAL, timeout)

        def restore_timer():
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old_handler)

    used = _address_space() if memory and threading.active_count() == 1 else None
    if used is not None:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        cap = used + memory
        if (soft == resource.RLIM_INFINITY or cap < soft) and (hard == resource.RLIM_INFINITY or cap <= hard):
            try:
                resource.setrlimit(resource.RLIMIT_AS, (cap, hard))

                def restore_limit():
                    resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
            except (ValueError, OSError):
                pass
    old_recursion = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old_recursion, RECURSION_LIMIT))
    try:
        yield
    finally:
        sys.setrecursionlimit(old_recursion)
        if restore_timer is not None:
            restore_timer()
        if restore_limit is not None:
            restore_limit()
