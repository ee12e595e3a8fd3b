"""Apply the rules' automatic fixes. A fix is a node replacement; all of a file's fixes are
applied by one transformer, the result must parse (LibCST and CPython) or nothing changes,
and files are replaced atomically."""

from __future__ import annotations

import ast
import os
import shutil
import tempfile

import libcst as cst

from devicelint.engine import analyse

MAX_ROUNDS = 3  # a fix can uncover another (nested conversions): re-lint a few times


class _Apply(cst.CSTTransformer):
    def __init__(self, edits: dict) -> None:
        self.edits = edits

    def on_leave(self, original_node, updated_node):
        edit = self.edits.get(id(original_node))
        return edit(updated_node) if edit is not None else updated_node


def _parses(source: bytes, path: str) -> bool:
    try:
        cst.parse_module(source)
        compile(source, path, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
        return True
    except Exception:
        return False


def fix_source(source: bytes, path: str = "<stdin>", select=None, ignore=None) -> tuple[bytes, int]:
    """(the fixed source, how many fixes were applied). Returns the input unchanged when no
    fix applies or when the fixed code would not parse."""
    applied = 0
    for _ in range(MAX_ROUNDS):
        pairs, module = analyse(source, path, select, ignore)
        edits = {}
        for _finding, report in pairs:
            if report is not None and report.edit is not None:
                edits.setdefault(id(report.edit_node or report.node), report.edit)
        if not edits or module is None:
            break
        try:
            new = module.visit(_Apply(edits)).bytes
        except Exception:
            break
        if new == source or not _parses(new, path):
            break
        source, applied = new, applied + len(edits)
    return source, applied


def write_atomically(path: str, data: bytes) -> None:
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".devicelint-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        shutil.copymode(path, tmp)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
