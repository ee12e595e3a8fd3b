"""Apply the rules' automatic fixes. A fix is a node replacement; all of a file's fixes are
applied by one transformer, and the new code of the replaced nodes is spliced into the
original bytes (nothing else is re-rendered). The result must parse (LibCST and CPython)
or nothing changes, and files are replaced atomically."""

from __future__ import annotations

import ast
import difflib
import hashlib
import os
import re
import stat

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider, WhitespaceInclusivePositionProvider

from devicelint import limits
from devicelint.edits import _Apply, claim, locate
from devicelint import notebook
from devicelint.engine import analyse_python

MAX_ROUNDS = 3  # a fix can uncover another (nested conversions): re-lint a few times
_PY_LINE_END = re.compile(r"\r\n|\r|\n")


def _parses(source: bytes, path: str) -> bool:
    try:
        cst.parse_module(source)
        with limits.quiet():
            compile(source, path, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
        return True
    except Exception:
        return False


def fix_source(source: bytes, path: str = "<stdin>", select=None, ignore=None, unsafe: bool = False,
               refused: list | None = None, project=None) -> tuple[bytes, int]:
    """(the fixed source, how many fixes were applied). Returns the input unchanged when no
    fix applies or when the fixed code would not parse. Unsafe fixes only with `unsafe`.
    `refused` (a list) gets one line per chosen fix that cannot be applied (a notebook's
    fix that would edit a magic line), `cell N:line:col: DL000 ...`, for the caller to
    print after the path. `project`: the project.FileView to follow imports with (the
    editor's, which sees unsaved documents); by default the files on disk."""
    if path.lower().endswith(".ipynb"):
        return notebook.fix(source, path, select, ignore, unsafe, refused, fix_python=fix_python,
                            max_rounds=MAX_ROUNDS)
    return fix_python(source, path, select, ignore, unsafe, project=project)


def fix_python(source: bytes, path: str = "<stdin>", select=None, ignore=None, unsafe: bool = False,
               accept=None, rounds: int = MAX_ROUNDS, project=None) -> tuple[bytes, int]:
    """`fix_source` for Python source. `accept(finding)`, when given, vetoes the fixes of
    chosen findings (a notebook's fix that its cells cannot take)."""
    applied = 0
    for _ in range(rounds):
        pairs, module = analyse_python(source, path, select, ignore, project=project)
        if module is None:
            break
        chosen = [report for finding, report in pairs
                  if report is not None and report.edit is not None and (unsafe or report.applicability == "safe")
                  and (accept is None or accept(finding))]
        edits, inserts, taken = claim(module, chosen)
        if not edits and not inserts:
            break
        try:
            apply = _Apply(edits, inserts)
            rendered = module.visit(apply).bytes
            new = _splice(source, module, apply.applied, apply.inserted)
        except Exception:
            break
        if new is None:
            # LibCST does not give back every byte (a leading form feed, a last \r): only
            # where it does may its rendering stand for the file
            new = rendered if module.bytes == source else source
        if new == source or not _parses(new, path):
            break
        source, applied = new, applied + taken
    return source, applied


def _splice(source: bytes, module: cst.Module, applied: dict, inserted=()) -> bytes | None:
    """The original bytes with each replaced node's span swapped for its new code, and each
    inserted statement put at the start of the line of the statement it goes before (above
    its comments), at that statement's indentation, so that everything else (line ends,
    form feeds, a BOM) stays byte for byte; None when a node cannot be found where LibCST
    says it is."""
    text = source.decode(module.encoding)
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(WhitespaceInclusivePositionProvider)
    starts = [0] + [m.end() for m in _PY_LINE_END.finditer(text)]
    spans = []
    if inserted:
        own = wrapper.resolve(PositionProvider)
        for stmt, code in inserted:
            pos, at = positions.get(stmt), own.get(stmt)
            if pos is None or at is None or pos.start.column != 0 or at.start.line > len(starts):
                return None
            line_start = starts[at.start.line - 1]
            indent = text[line_start:line_start + at.start.column]
            if indent.strip() or pos.start.line > len(starts):
                return None  # the statement does not begin its line (`if a: b`): no place for a line
            ends = _PY_LINE_END.search(text, line_start)
            newline = ends.group() if ends else module.default_newline
            block = "".join(indent + line + newline for line in code.splitlines())
            at_line = starts[pos.start.line - 1]
            spans.append((at_line, at_line, block))
    for original, replacement in applied.values():
        pos = positions.get(original)
        if pos is None or pos.start.line > len(starts):
            return None
        old = module.code_for_node(original)
        at = locate(text, old, starts[pos.start.line - 1] + pos.start.column)
        if at is None:
            return None
        spans.append((at, at + len(old), module.code_for_node(replacement)))
    # an insertion before a statement goes before a replacement that starts where it does
    spans.sort(key=lambda s: (s[0], s[1] != s[0], -s[1]))
    out, end = [], 0
    for start, stop, code in spans:
        if start < end:
            if stop <= end:
                continue  # inside a node replaced as a whole: its edit is in that code
            return None
        out.append(text[end:start])
        out.append(code)
        end = stop
    out.append(text[end:])
    return "".join(out).encode(module.encoding)


def unified_diff(old: bytes, new: bytes, path: str) -> bytes:
    """A patch that `git apply` and `patch -p1` take: lines end at \n only (as those tools
    split them; a \r stays inside its line), a last line without one is marked."""
    a, b = _patch_lines(old), _patch_lines(new)
    name = path.replace(os.sep, "/").encode("utf-8", "surrogateescape")
    out = []
    for line in difflib.diff_bytes(difflib.unified_diff, a, b, b"a/" + name, b"b/" + name):
        out.append(line)
        if not line.endswith(b"\n"):
            out.append(b"\n\\ No newline at end of file\n")
    return b"".join(out)


def _patch_lines(data: bytes) -> list:
    return re.findall(rb"[^\n]*\n|[^\n]+$", data)


class Changed(Exception):
    """The file changed on disk after it was read: writing would lose that edit."""


def _unchanged(path: str, before: os.stat_result, content: bytes) -> None:
    """Raise Changed unless `path` still has the size, mtime and content it was read with."""
    st = os.stat(path)
    if (st.st_size, st.st_mtime_ns) != (before.st_size, before.st_mtime_ns):
        raise Changed(path)
    with open(path, "rb") as f:
        if hashlib.sha256(f.read()).digest() != hashlib.sha256(content).digest():
            raise Changed(path)


def write_fixed(path: str, old: bytes, new: bytes, before: os.stat_result) -> None:
    """Replace the content of `path` (read as `old`, with stat `before`) by `new`, never
    half-written: the new content goes to a temporary file first. A symlink keeps being a
    link (its target is written); a file with several hard links is rewritten in place, so
    that every link sees the fix; otherwise the temporary file is renamed over it. Owner,
    group and mode are kept where permitted. Raises Changed when the file was edited since
    it was read, OSError when it cannot be written."""
    from devicelint import atomic

    real = os.path.realpath(path)
    with atomic.staged(real, new) as tmp:  # a full disk fails here, before the file is touched
        if before.st_nlink > 1:
            _unchanged(real, before, old)
            _write_in_place(real, new, old)
            return
        try:
            os.chown(tmp, before.st_uid, before.st_gid)
        except (PermissionError, AttributeError):
            pass  # only root may give a file away; the mode is kept all the same
        os.chmod(tmp, stat.S_IMODE(before.st_mode))
        _unchanged(real, before, old)
        os.replace(tmp, real)


def _write_in_place(path: str, data: bytes, old: bytes) -> None:
    """One write over the original inode, then a check; on any failure the old content
    (which fits where it was) is put back."""
    try:
        with open(path, "r+b") as f:
            f.write(data)
            f.truncate()
            f.flush()
            os.fsync(f.fileno())
        with open(path, "rb") as f:
            if f.read() != data:
                raise OSError(f"{path}: content differs after writing")
    except BaseException:
        with open(path, "r+b") as f:
            f.write(old)
            f.truncate()
        raise


def write_atomically(path: str, data: bytes) -> None:
    """`write_fixed` for a file whose current content is the one to replace."""
    with open(path, "rb") as f:
        old = f.read()
    write_fixed(path, old, data, os.stat(os.path.realpath(path)))
