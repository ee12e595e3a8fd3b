"""Bounds on what one file may cost.

LibCST's native parser takes super-linear time and memory on deep expressions (a chain of
3,000 `.to()` calls: 54 s; 3,000 nested lambdas: 1.7 GB), overflows its stack (a
segfault) on a 10,000-operand `and`, and needs about 2.5 KB per token (a 1.3 M-item list:
an abort in its allocator under the 3 GB cap). None of that can be interrupted once it
has started, so before LibCST sees a file its size, its token count and its nesting are
measured: by CPython's own parser (fast, and it refuses what it cannot compile), or, for
syntax newer than the running Python, by its tokenizer. What is too big or too deep is
reported as `DL000 too-complex` with the reason.

The analysis that follows is bounded by a count of its own steps (see `step_budget`), not
by a clock: the same file gives the same findings however busy the machine is. A CPU-time
backstop far above any real file, and an address-space cap, bound what no count foresees.
"""

from __future__ import annotations

import ast
import io
import itertools
import re
import signal
import sys
import threading
import tokenize
import warnings
from contextlib import contextmanager
from tokenize import COMMENT, DEDENT, INDENT, NAME, NEWLINE, NL, OP, STRING

MAX_BYTES = 4 * 1024 * 1024
MAX_LINES = 200_000
# Nesting as LibCST builds it. Real code stays far below 100; LibCST parses 1,000 levels of
# `+` or `not` in well under a second, while calls, attributes, subscripts, lambdas and
# conditional expressions cost it much more per level: they count twice.
MAX_DEPTH = 1000
# LibCST keeps about 2.5 KB per token (4 KB with the analysis): under MAX_MEMORY with room.
# Real files stay far below (torch's 1.4 MB common_methods_invocations.py: 230,000).
MAX_TOKENS = 600_000
# Steps the analysis may take (expressions evaluated): STEP_BASE, and STEPS_PER_BYTE more
# for each byte of source. Real code takes at most 2.5 a byte (1,383 files: 1,199 of training
# repositories, torch's own largest; the most: 7 % of the budget).
STEP_BASE = 200_000
STEPS_PER_BYTE = 20
# CPU seconds for one file, parse and rules together: a last resort, far above what the
# counts above let a file take (the largest real files: ~15 s). CPU, not wall-clock time, so
# that a busy machine does not change the findings.
CPU_BACKSTOP = 300.0
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
    if _token_count(source, lines) > MAX_TOKENS:
        return TooComplex(f"file has more than {MAX_TOKENS:,} tokens")
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


# Every token but a DEDENT (one per INDENT at most) or the end takes at least a byte.
_FEW_TOKENS = MAX_TOKENS // 2 - 1
# An estimate at C speed: a word, or a character of punctuation (every token has one;
# words in comments and strings make it too high, which the exact count then corrects).
_TOKENISH = re.compile(rb"\w+|[^\w\s]")


def _token_count(source: bytes, lines: int) -> int:
    """As many tokens as LibCST will make of `source`, counted up to MAX_TOKENS + 1: exact
    (Python's tokenizer) only where a cheap estimate says it may be over the limit, which
    almost no file is."""
    if len(source) <= _FEW_TOKENS:
        return len(source)  # a bound, below the limit: not worth measuring
    estimate = _TOKENISH.subn(b"", source)[1] + 2 * lines  # NEWLINE, INDENT/DEDENT
    if estimate <= MAX_TOKENS:
        return estimate
    try:
        return sum(1 for _ in itertools.islice(tokenize.tokenize(io.BytesIO(source).readline), MAX_TOKENS + 1))
    except (tokenize.TokenError, SyntaxError, UnicodeDecodeError, LookupError):
        return estimate  # LibCST will refuse it too; the estimate still says what it costs


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


# How much one token can nest an expression, as LibCST builds it (see _too_deep): a binary
# or comparison operator, a boolean word, a unary prefix: one level; a `.`, a `lambda` or an
# `if`: two. Others (`=`, `:`, `->`, `;`) nest nothing. A comma separates siblings.
_OP_LEVELS = {op: 1 for op in "+ - * / % @ & | ^ ~ < > == != <= >= ** // << >> := *= ".split()}
_OP_LEVELS["."] = 2
_WORD_LEVELS = {"and": 1, "or": 1, "not": 1, "in": 1, "is": 1, "await": 1, "yield": 1,
                "if": 2, "lambda": 2}
_GROUP = 3  # a bracket: the call, subscript or literal, its argument or element, and the value
_BLOCK = 2  # an indented block: the compound statement and its body


def may_nest_too_deep(source: bytes) -> bool:
    """Whether some statement may nest deeper than MAX_DEPTH, told from tokens alone: for
    syntax newer than the running Python, whose parser cannot measure it (`type X = int`
    under 3.11), so that the native parser never sees what can crash it. An upper bound:
    along any path from a statement down to a leaf, the levels are those of the tokens
    before it in its comma-separated part of each bracket it enters, plus the brackets;
    the deepest path is taken. What cannot be tokenized counts as too deep."""
    try:
        return _deepest_statement(_tokens(source)) > MAX_DEPTH
    except (SyntaxError, UnicodeDecodeError, LookupError):  # a bad indent, an unknown coding...
        return True


def _tokens(source: bytes):
    try:
        yield from tokenize.tokenize(io.BytesIO(source).readline)
    except tokenize.TokenError:
        return  # the end came inside brackets or a string: every token before it was seen


def _deepest_statement(tokens) -> int:
    deepest = indent = 0
    stack = [[0, 0, 0]]  # per open bracket: [levels so far in this part, its deepest bracket, deepest part]
    after_string = False
    for tok in tokens:
        kind, text = tok.type, tok.string
        if kind in (NL, COMMENT):
            continue
        top = stack[-1]
        if kind == OP and text in "([{":
            stack.append([0, 0, 0])
        elif kind == OP and text in ")]}" and len(stack) > 1:
            inner = stack.pop()
            top = stack[-1]
            top[1] = max(top[1], _part_depth(inner) + _GROUP)
            top[0] += 1  # a call or subscript wraps what it is applied to
        elif kind == OP and text == ",":
            top[2] = _part_depth(top)
            top[0] = top[1] = 0
        elif kind == OP:
            top[0] += _OP_LEVELS.get(text, 0)
        elif kind == NAME:
            top[0] += _WORD_LEVELS.get(text, 0)
        elif kind == STRING and after_string:
            top[0] += 1  # `"a" "b"`: LibCST nests each joined pair
        elif kind == NEWLINE:
            deepest = max(deepest, _open_depth(stack) + _BLOCK * indent)
            if deepest > MAX_DEPTH:
                break
            stack = [[0, 0, 0]]
        elif kind == INDENT:
            indent += 1
        elif kind == DEDENT:
            indent -= 1
        after_string = kind == STRING
    return max(deepest, _open_depth(stack) + _BLOCK * indent)


def _part_depth(group: list) -> int:
    return max(group[2], group[0] + group[1])


def _open_depth(stack: list) -> int:
    """The statement's depth so far, brackets still open included."""
    depth = 0
    for group in reversed(stack):
        depth = max(group[2], group[0] + max(group[1], depth)) + _GROUP
    return depth - _GROUP


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


def step_budget(source: bytes) -> int:
    """The steps the analysis of `source` may take: a function of its size only, so that a
    file's findings never depend on how fast the machine runs."""
    return STEP_BASE + STEPS_PER_BYTE * len(source)


def over_budget(steps: int) -> TooComplex:
    return TooComplex(f"analysis needed more than {steps:,} steps (the limit for a file of this size)")


@contextmanager
def bounded(cpu: float | None = None, memory: int | None = None):
    """Run the body under a CPU-time backstop (raises TooComplex), an address-space cap
    (allocation fails with MemoryError) and a recursion limit deep enough for LibCST, all
    undone afterwards. The backstop counts the process's CPU time, not wall-clock time: a
    loaded machine slows a file down without changing its result. It needs the main thread
    (signals); the cap needs Linux. The cap and the recursion limit are the whole process's:
    changed from another thread they would race with the main thread's own (a test runner
    running beside the runtime checker's threads), so only the main thread sets them. The
    cap binds every thread's allocations, so it is set only while no other thread runs:
    under it the runtime checker's threads would fail theirs (an autofix abandoned mid-way).
    Elsewhere the pre-check and the step budget are the bounds."""
    cpu = CPU_BACKSTOP if cpu is None else cpu
    memory = MAX_MEMORY if memory is None else memory
    if not _main_thread():
        yield
        return
    restore_timer = _cpu_timer(cpu) if cpu and hasattr(signal, "setitimer") else None
    restore_limit = _address_cap(memory) if memory and threading.active_count() == 1 else None
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


def _cpu_timer(seconds: float):
    """SIGPROF after `seconds` of this process's CPU time; returns what undoes it."""

    def expired(_signum, _frame):
        raise TooComplex(f"analysis took more than {seconds:g} s of CPU time")

    old_handler = signal.signal(signal.SIGPROF, expired)
    signal.setitimer(signal.ITIMER_PROF, seconds)

    def restore():
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old_handler)

    return restore


def _address_cap(memory: int):
    """Cap the address space at what is used now plus `memory`; returns what undoes it."""
    used = _address_space()
    if used is None:
        return None
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = used + memory
    if (soft != resource.RLIM_INFINITY and cap >= soft) or (hard != resource.RLIM_INFINITY and cap > hard):
        return None
    try:
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    except (ValueError, OSError):
        return None
    return lambda: resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
