"""Read + parse once, infer devices once, run the enabled rules, apply suppressions."""

from __future__ import annotations

import ast
import os
import stat
from itertools import accumulate

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from devicelint import rules as registry
from devicelint.findings import Finding
from devicelint.flow import Facts, infer
from devicelint.names import Imports
from devicelint.suppress import Suppressions

# A file that mentions none of these cannot hold a finding: it is not even parsed.
PREFILTER = (b"torch", b"cuda")


class Context:
    """What rules see: the tree, the source, imports, and the device facts (computed once)."""

    def __init__(self, module: cst.Module, source: bytes, path: str) -> None:
        self.module = module
        self.source = source
        self.path = path
        self.imports = Imports(module)
        self._facts: Facts | None = None
        self._positions = None
        self._calls = None

    @property
    def facts(self) -> Facts:
        if self._facts is None:
            self._facts = infer(self.module, self.imports, default_device_set=b"set_default_device" in self.source)
        return self._facts

    @property
    def calls(self) -> list:
        """Every call in the file, gathered by one cheap walk shared by the syntactic rules
        (a LibCST visitor per rule would cost as much as the parse each)."""
        if self._calls is None:
            from devicelint.flow import _walk

            self._calls = [n for n in _walk(self.module) if isinstance(n, cst.Call)]
        return self._calls

    def position(self, node):
        if self._positions is None:
            self._positions = MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(PositionProvider)
        return self._positions.get(node)

    def line(self, node) -> int:
        pos = self.position(node)
        return pos.start.line if pos is not None else 0


def _meta(path: str, name: str, message: str, line: int = 1, column: int = 1) -> Finding:
    return Finding(path, line, column, line, column, "DL000", name, message)


def _line_of_offset(source: bytes, offset: int) -> int:
    return source.count(b"\n", 0, offset) + 1


def _bad_bytes(source: bytes, path: str) -> Finding | None:
    nul = source.find(b"\x00")
    if nul != -1:
        return _meta(path, "syntax-error", "source contains NUL bytes", _line_of_offset(source, nul))
    return None


# CPython refuses more than 200 nested brackets; libcst's native parser takes super-linear
# time on deep nesting and overflows its stack (a segfault) at about 1,500 levels.
MAX_NESTING = 200
_BRACKETS = bytes(range(256)).translate(None, b"()[]{}")


def _too_deep(source: bytes, path: str) -> Finding | None:
    """A DL000 finding when the brackets nest deeper than Python allows (checked with
    CPython's own parser, since a crude count also sees brackets in strings and comments)."""
    brackets = source.translate(None, _BRACKETS)
    if len(brackets) <= MAX_NESTING:
        return None
    depth = max(accumulate(1 if c in b"([{" else -1 for c in brackets))
    if depth <= MAX_NESTING:
        return None
    try:
        compile(source, path, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as e:
        if "too many nested" in str(e.msg) or "too complex" in str(e.msg):
            return _meta(path, "syntax-error", f"cannot parse: {e.msg}", e.lineno or 1, e.offset or 1)
        return None
    except (RecursionError, MemoryError, ValueError):
        return _meta(path, "syntax-error", "too deeply nested to parse")
    return None


def lint_source(source: bytes | str, path: str = "<stdin>", select=None, ignore=None, rule_classes=None) -> list[Finding]:
    return [f for f, _ in analyse(source, path, select, ignore, rule_classes)[0]]


def analyse(source: bytes | str, path: str = "<stdin>", select=None, ignore=None, rule_classes=None):
    """([(Finding, Report | None)], module or None): the findings with the reports behind them."""
    if isinstance(source, str):
        source = source.encode("utf-8")
    bad = _bad_bytes(source, path)
    if bad is not None:
        return [(bad, None)], None
    if not any(tok in source for tok in PREFILTER):
        return [], None
    bad = _too_deep(source, path)
    if bad is not None:
        return [(bad, None)], None
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as e:
        bad = _meta(path, "syntax-error", f"cannot parse: {e.message}", e.raw_line, e.raw_column + 1)
    except UnicodeDecodeError as e:
        bad = _meta(path, "unreadable-file", f"not valid {e.encoding}: {e.reason}", _line_of_offset(source, e.start))
    except (LookupError, SyntaxError) as e:
        bad = _meta(path, "unreadable-file", f"cannot decode: {e}")
    except RecursionError:
        bad = _meta(path, "syntax-error", "too deeply nested to parse")
    if bad is not None:
        return [(bad, None)], None

    classes = rule_classes if rule_classes is not None else registry.resolve(select, ignore)
    ctx = Context(module, source, path)
    reports = []
    try:
        for rule_cls in classes:
            rule = rule_cls()
            for report in rule.check(ctx):
                reports.append((rule_cls, report))
    except RecursionError:
        # The file parsed; only our analysis gave up. Saying nothing beats a false alarm.
        return [], module
    if not reports:
        return [], module

    text = source.decode(module.encoding, errors="replace")
    suppressions = Suppressions(text)
    seen = set()
    findings = []
    for rule_cls, report in reports:
        ident = (rule_cls.code, id(report.node))
        if ident in seen:
            continue
        seen.add(ident)
        pos = ctx.position(report.node)
        if pos is None:
            continue
        if suppressions.suppressed(rule_cls.code, pos.start.line, pos.end.line):
            continue
        finding = Finding(
            path,
            pos.start.line,
            pos.start.column + 1,
            pos.end.line,
            pos.end.column + 1,
            rule_cls.code,
            rule_cls.name,
            report.message,
            report.fix,
        )
        findings.append((finding, report))
    findings.sort(key=lambda fr: fr[0])
    return findings, module


def read_source(path: str):
    """(bytes, None), or (None, a DL000 finding saying why the file cannot be read)."""
    try:
        mode = os.stat(path).st_mode
        if stat.S_ISDIR(mode):
            return None, _meta(path, "unreadable-file", "is a directory")
        if not stat.S_ISREG(mode):  # a FIFO or a device would block or never end
            return None, _meta(path, "unreadable-file", "not a regular file")
        with open(path, "rb") as f:
            return f.read(), None
    except FileNotFoundError:
        return None, _meta(path, "unreadable-file", "no such file or directory")
    except PermissionError:
        return None, _meta(path, "unreadable-file", "permission denied")
    except OSError as e:
        return None, _meta(path, "unreadable-file", e.strerror or str(e))


def lint_file(path: str, select=None, ignore=None, rule_classes=None) -> list[Finding]:
    """Lint one file on disk; anything that stops us reading it is a DL000 finding."""
    source, problem = read_source(path)
    if problem is not None:
        return [problem]
    return lint_source(source, path, select, ignore, rule_classes)
