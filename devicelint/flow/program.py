"""Is the file a program that runs on the host only? A notebook or script that never names a
device and runs its own code: what its modules would do once moved cannot happen in it."""

from __future__ import annotations

import libcst as cst

from devicelint import knowledge as kb
from devicelint.flow.classes import places_on_device
from devicelint.flow.nodes import walk



def host_only_program(module: cst.Module, path: str) -> bool:
    """A notebook, or a script with top-level loops or calls (not only definitions and a
    `__main__` smoke test), in which nothing is placed on a device and no device is named.
    A file of definitions may be imported by one that moves its modules: never host-only."""
    if not (path.lower().endswith(".ipynb") or _runs_at_top_level(module)):
        return False
    return not _names_a_device(module)


def _runs_at_top_level(module: cst.Module) -> bool:
    for stmt in module.body:
        if isinstance(stmt, (cst.For, cst.While)):
            return True
        if isinstance(stmt, cst.SimpleStatementLine) and any(
                isinstance(s, cst.Expr) and isinstance(s.value, cst.Call) for s in stmt.body):
            return True
    return False


def _names_a_device(module: cst.Module) -> bool:
    for n in walk(module):
        if isinstance(n, cst.Call) and places_on_device(n):
            return True
        if isinstance(n, cst.Name) and n.value in kb.torch_core.DEVICE_WORDS:
            return True  # `torch.cuda.is_available()`, `x.cuda()`
        if isinstance(n, cst.SimpleString) and any(w in n.value.lower() for w in kb.torch_core.DEVICE_WORDS):
            return True
    return False
