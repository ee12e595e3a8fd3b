"""Read + parse once, infer devices once, run the enabled rules, apply suppressions."""

from __future__ import annotations

import ast
import gc
import os
import re
import stat
import sys
import threading

import libcst as cst

from devicelint import limits
from devicelint import rules as registry
from devicelint.findings import Finding, meta as _meta
from devicelint.flow import Facts, infer
from devicelint.flow.nodes import current_index, indexed
from devicelint.names import Imports
from devicelint.positions import LazyRanges
from devicelint.source import meta as _meta
from devicelint.source import read_source  # noqa: F401  (engine.read_source: the API of old)
from devicelint.suppress import Suppressions

# A file that mentions none of these cannot hold a finding: it is not even parsed.
PREFILTER = (b"torch", b"cuda")


# `torch.set_default_device("cuda")`, or the older `torch.set_default_tensor_type(
# 'torch.cuda.FloatTensor')`: factories without `device=` may then make device tensors
_DEFAULT_DEVICE = re.compile(rb"set_default_device|set_default_tensor_type\([^)\n]*cuda")


def sets_default_device(source: bytes) -> bool:
    return _DEFAULT_DEVICE.search(source) is not None


class Context:
    """What rules see: the tree, the source, imports, and the device facts (computed once)."""

    def __init__(self, module: cst.Module, source: bytes, path: str, project=None, reuse=None) -> None:
        self.module = module
        self._reuse = reuse
        self.source = source
        self.path = path
        self.imports = Imports(module, project)
        self._facts: Facts | None = None
        self._host_only: bool | None = None
        self._positions = None
        self._calls = None
        self._scopes = None

    @property
    def facts(self) -> Facts:
        if self._facts is None:
            self._facts = infer(self.module, self.imports, default_device_set=sets_default_device(self.source),
                                budget=limits.step_budget(self.source))
        return self._facts

    @property
    def host_only(self) -> bool:
        """A notebook or script that runs on the host only (flow.program): a module of it
        is never moved, so what would break once it is moved cannot happen here."""
        if self._host_only is None:
            from devicelint.flow.program import host_only_program

            self._host_only = host_only_program(self.module, self.path, self.imports.project)
        return self._host_only

    @property
    def scopes(self):
        """The parents of the tree's nodes (rewrite.Scopes), one map for all the rules that
        ask: a walk of the whole tree each would cost as much as the parse. The editor's
        parser hands in the parts of the statements a keystroke left alone."""
        if self._scopes is None:
            from devicelint.rewrite import Scopes

            self._scopes = Scopes(self.module, getattr(self._reuse, "parents", None))
        return self._scopes

    @property
    def calls(self) -> list:
        """Every call in the file, gathered by one cheap walk shared by the syntactic rules
        (a LibCST visitor per rule would cost as much as the parse each)."""
        if self._calls is None:
            from devicelint.flow.nodes import find

            self._calls = find(self.module, cst.Call)
        return self._calls

    def position(self, node):
        if self._positions is None:
            if self._reuse is not None:
                self._positions = self._reuse.positions(self.module)
            else:  # only the statements holding what is asked about are code-generated
                self._positions = LazyRanges(self.module, self.source, current_index())
        return self._positions.get(node)

    def line(self, node) -> int:
        pos = self.position(node)
        return pos.start.line if pos is not None else 0


def _no_validation(self) -> None:
    pass


def parse_module(source: bytes) -> cst.Module:
    """cst.parse_module without LibCST's per-node validation. Every node the parser builds
    runs `_validate` (whitespace around keywords, balanced parentheses...) as if a person had
    built it: about a sixth of the parse's time for checks the grammar already made (LibCST's
    own comment on CSTNode.__post_init__ says so). Nodes built after the parse (fixes) are
    validated as usual."""
    node_class = cst.CSTNode
    validate = node_class.__dict__.get("__post_init__")
    if validate is None or threading.active_count() != 1:
        # not the LibCST we know, or other threads (the runtime checker's) that may be
        # building nodes of their own right now, which must be validated: parse as usual
        return cst.parse_module(source)
    node_class.__post_init__ = _no_validation
    try:
        return cst.parse_module(source)
    finally:
        node_class.__post_init__ = validate




def _line_of_offset(source: bytes, offset: int) -> int:
    return source.count(b"\n", 0, offset) + 1


def _bad_bytes(source: bytes, path: str) -> Finding | None:
    nul = source.find(b"\x00")
    if nul != -1:
        return _meta(path, "syntax-error", "source contains NUL bytes", _line_of_offset(source, nul))
    return None


def _unparsable(path: str, e: SyntaxError) -> Finding:
    version = f"Python {sys.version_info[0]}.{sys.version_info[1]}"
    message = f"cannot parse: {e.msg} ({version}; not tried with LibCST's newer grammar: it may nest too deeply for it)"
    return _meta(path, "syntax-error", message, e.lineno or 1, e.offset if e.offset and e.offset > 0 else 1)


def _too_complex(path: str, reason: str, line: int = 1) -> Finding:
    return _meta(path, "too-complex", f"not analysed: {reason}", line)


_LIBCST_AT = re.compile(r"^(?:parser error: )?error at \d+:\d+: ")


def _syntax_error(source: bytes, path: str, e: cst.ParserSyntaxError) -> Finding:
    """One DL000 finding with one position: CPython's (its messages and 1-based columns are
    what users know from tracebacks); LibCST's own when CPython accepts the file (syntax
    newer than LibCST's grammar). The message carries no second position that could
    disagree with the finding's."""
    try:
        compile(source, path, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as se:
        if se.lineno:
            line = se.lineno
            column = se.offset if se.offset and se.offset > 0 else 1
            return _meta(path, "syntax-error", f"cannot parse: {se.msg}", line, column)
    except (ValueError, RecursionError, MemoryError):
        pass
    message = _LIBCST_AT.sub("", e.message)
    return _meta(path, "syntax-error", f"cannot parse: {message}", e.raw_line, e.raw_column + 1)


def lint_source(source: bytes | str, path: str = "<stdin>", select=None, ignore=None, rule_classes=None,
                project=None) -> list[Finding]:
    return [f for f, _ in analyse(source, path, select, ignore, rule_classes, project)[0]]


def project_view(path: str, store=None):
    """The rest of the project as seen from `path` (read from disk), when `path` is a file
    there; None for stdin and made-up names."""
    if not os.path.isfile(path):
        return None
    from devicelint.project import FileView

    return FileView(path, store)


def analyse(source: bytes | str, path: str = "<stdin>", select=None, ignore=None, rule_classes=None, project=None,
            deferred: list | None = None, reuse=None):
    """([(Finding, Report | None)], module or None): the findings with the reports behind them.
    `project` (a project.FileView) lets the inference follow imports into other files; by
    default one is made for a path that exists on disk. `deferred` (Python source only): a
    list that gets the Fixer of the findings, which are then made without their fix (the
    editor builds a fix when a code action asks for it); nothing is added when no finding
    came from a rule. `reuse` (Python source only; the editor's lsp.incremental.IncrementalParser):
    an object whose parse(source) stands for parse_module and positions(module) for
    positions.positions, both giving what they would, from the document's previous tree."""
    if path.lower().endswith(".ipynb"):
        from devicelint import notebook  # not imported for a .py file

        return notebook.analyse(source, path, select, ignore, rule_classes, project, analyse_python=analyse_python)
    return analyse_python(source, path, select, ignore, rule_classes, project, deferred, reuse)


def analyse_python(source: bytes | str, path: str = "<stdin>", select=None, ignore=None, rule_classes=None,
                   project=None, deferred: list | None = None, reuse=None):
    """`analyse` for Python source. The file is analysed within limits.step_budget steps,
    limits.CPU_BACKSTOP seconds of CPU and limits.MAX_MEMORY bytes; over a limit it is one
    `DL000 too-complex` finding."""
    if isinstance(source, str):
        source = source.encode("utf-8")
    bad = _bad_bytes(source, path)
    if bad is not None:
        return [(bad, None)], None
    if not any(tok in source for tok in PREFILTER):
        return [], None
    problem = limits.precheck(source)
    if isinstance(problem, limits.TooComplex):
        return [(_too_complex(path, problem.reason, problem.line), None)], None
    if isinstance(problem, SyntaxError) and limits.may_nest_too_deep(source):
        # LibCST may know newer syntax than this Python, but not on input that can crash it
        return [(_unparsable(path, problem), None)], None
    try:
        # reading the user's literals (`"\d"`) warns as compiling them would: not ours to print
        with limits.bounded(), limits.quiet(SyntaxWarning, DeprecationWarning):
            return _analyse(source, path, select, ignore, rule_classes, project, deferred, reuse)
    except limits.TooComplex as e:
        return [(_too_complex(path, e.reason, e.line), None)], None
    except MemoryError:
        return [(_too_complex(path, f"analysis needed more than {limits.MAX_MEMORY // 2**20:,} MiB of memory"), None)], None
    except RecursionError:
        return [(_too_complex(path, "nested too deeply for the analysis"), None)], None


def _analyse(source: bytes, path: str, select, ignore, rule_classes, project, deferred=None, reuse=None):
    bad = None
    freeze = FREEZE_TREES  # read once: the unfreeze below must match this parse
    try:
        parse = reuse.parse if reuse is not None else parse_module
        module = _parse_out_of_gc(source, parse) if freeze else parse(source)
    except cst.ParserSyntaxError as e:
        bad = _syntax_error(source, path, e)
    except UnicodeDecodeError as e:
        bad = _meta(path, "unreadable-file", f"not valid {e.encoding}: {e.reason}", _line_of_offset(source, e.start))
    except (LookupError, SyntaxError) as e:
        bad = _meta(path, "unreadable-file", f"cannot decode: {e}")
    if bad is not None:
        return [(bad, None)], None

    try:
        # the editor's parser keeps each unchanged statement's part of the index
        made = reuse.index(module) if reuse is not None and hasattr(reuse, "index") else None
        with indexed(module, made):
            return _check(module, source, path, select, ignore, rule_classes, project, deferred, reuse)
    finally:
        if freeze:
            gc.unfreeze()


# Set by lint.py in the processes it runs files in (the CLI's, its pool's workers): see
# _parse_out_of_gc. Off for programs that call the API, whose own objects it would freeze.
FREEZE_TREES = False
_a_file_before = False  # has this process parsed a file out of the collector's sight yet?


def _parse_out_of_gc(source: bytes, parse=parse_module) -> cst.Module:
    """Parse with the cyclic collector off, then freeze what exists (the tree among it) until
    the file is done. A tree of a hundred thousand nodes, all alive until the rules are done
    and freed by reference counting after, would otherwise be walked by collection after
    collection as it ages through the generations: most of the collector's time."""
    # the young garbage of the file before (the analysis makes cycles) goes now: frozen, it
    # would come back among the old objects, which are collected only rarely. Before the
    # first file there is none, only what the imports made, which lives on anyway.
    global _a_file_before
    if _a_file_before:
        gc.collect(1)
    _a_file_before = True
    enabled = gc.isenabled()
    gc.disable()
    try:
        module = parse(source)
    finally:
        if enabled:
            gc.enable()
    gc.freeze()
    return module


def _check(module, source: bytes, path: str, select, ignore, rule_classes, project, deferred=None, reuse=None):
    classes = rule_classes if rule_classes is not None else registry.resolve(select, ignore)
    ctx = Context(module, source, path, project if project is not None else project_view(path), reuse)
    reports = []
    for rule_cls in classes:
        rule = rule_cls()
        for report in rule.check(ctx):
            reports.append((rule_cls, report))
    unused_noqa = any(r.code == UNUSED_NOQA for r in classes) and (b"noqa" in source or b"devicelint:" in source)
    if not reports and not unused_noqa:
        return [], module

    text = source.decode(module.encoding, errors="replace")
    fixer = Fixer(module, text, ctx.position)
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
            fixer(report) if deferred is None else None,
            report.fix,
        )
        findings.append((finding, report))
    if deferred is not None:
        # the positions (every report asked for its own) are all a Fixer keeps of the
        # Context: not the device facts, which an open document would hold on to
        deferred.append(Fixer(module, text, ctx._positions.get))
    if unused_noqa:
        findings.extend(_unused_noqa(path, suppressions, {r.code for r in classes}))
    findings.sort(key=lambda fr: fr[0])
    return findings, module


class Fixer:
    """Builds the JSON fix object of a report whose edit `--fix` applies (else None), when
    asked: the command line asks for every finding as it is made, the editor only for the
    findings a code action is asked about (`analyse(..., deferred=[])`)."""

    def __init__(self, module: cst.Module, text: str, position) -> None:
        self.module, self.text, self.position = module, text, position
        self._builder = None

    def __call__(self, report):
        if report is None or report.edit is None:
            return None
        if self._builder is None:
            from devicelint.edits import FixBuilder

            self._builder = FixBuilder(self.module, self.text, self.position)
        if report.more_edits:
            return self._builder.build_parts(report)
        node = report.edit_node or report.node
        return self._builder.build(node, report.edit, report.fix, report.applicability, self.position(node))


UNUSED_NOQA = "DL100"


def _unused_noqa(path: str, suppressions: Suppressions, ran: set) -> list:
    """DL100 findings: directives naming a code of a rule that ran and silenced nothing."""
    out = []
    for line, (start, end), codes in suppressions.unused(ran - {UNUSED_NOQA}):
        if suppressions.silences(line, UNUSED_NOQA):
            continue  # `# noqa: DL003, DL100`: told to keep it
        listed = ", ".join(codes)
        finding = Finding(path, line, start + 1, line, end + 1, UNUSED_NOQA, "unused-noqa",
                          f"unused suppression of {listed}: nothing on this line is flagged for it",
                          None, f"remove {listed} from the directive")
        out.append((finding, None))
    return out


def lint_file(path: str, select=None, ignore=None, rule_classes=None) -> list[Finding]:
    """Lint one file on disk; anything that stops us reading it is a DL000 finding."""
    source, problem = read_source(path)
    if problem is not None:
        return [problem]
    return lint_source(source, path, select, ignore, rule_classes)
