"""Device parameters whose default is CUDA and that a call runs with.

`def get_evaluator(task, device="cuda:0")` puts the work on CUDA whenever a caller leaves
`device` out. The default decides the device only where it is used: a function every call
of this file hands a device to (`UniEvaluator(..., device=device)`) does not decide, its
callers do. A module-level function no call of this file reaches is an entry point for other
files and users, who get the default unless they pass one (a method or class nobody here
calls is left alone: its package's other files drive it); one called here without the
argument runs with it. Those defaults are flagged, each as one hard-coded `"cuda"` device.
"""

from __future__ import annotations

import libcst as cst

from devicelint import naming
from devicelint.flow.nodes import find, last_name


def _params(fn: cst.FunctionDef) -> list:
    p = fn.params
    return [*p.posonly_params, *p.params]


def _callee_name(fn: cst.FunctionDef, cls: cst.ClassDef | None) -> tuple[str, int]:
    """The name calls of `fn` spell (a constructor is called by its class's name) and how
    many leading parameters no positional argument fills (`self`)."""
    if cls is None:
        return fn.name.value, 0
    static = any(last_name(d.decorator) == "staticmethod" for d in fn.decorators)
    name = cls.name.value if fn.name.value == "__init__" else fn.name.value
    return name, 0 if static else 1


def _passes(call: cst.Call, name: str, index: int) -> bool:
    """Does `call` give the parameter `name` (at positional `index`) a value, or may it
    (`*args`, `**kwargs`)?"""
    positional = 0
    for a in call.args:
        if a.star or (a.keyword is not None and a.keyword.value == name):
            return True
        if a.keyword is None:
            positional += 1
    return positional > index


def _default_used(calls: list, name: str, index: int, entry: bool) -> bool:
    """A call of this file leaves the argument out, or none reaches the function and it is an
    entry point (a module-level function: its callers elsewhere get the default; a method or
    a class is mostly driven by the other files of its package, which may pass a device)."""
    if not calls:
        return entry
    return any(not _passes(c, name, index) for c in calls)


def _calls_by_name(module: cst.Module) -> dict:
    out: dict = {}
    for n in find(module, cst.Call):
        name = last_name(n.func)
        if name is not None:
            out.setdefault(name, []).append(n)
    return out


def cuda_defaults(module: cst.Module, is_cuda_string, gpu_only) -> list:
    """The default values (string nodes) of device parameters that are `"cuda"` and that some
    run of the function uses, outside GPU-only functions and classes."""
    calls = _calls_by_name(module)
    found = []
    stack = [(module, None, False)]
    while stack:
        node, cls, guarded = stack.pop()
        for stmt in node.body:
            stack.extend(_scope_children(stmt, node, cls, guarded, gpu_only))
            if isinstance(stmt, cst.FunctionDef) and not guarded and not gpu_only(stmt):
                found += _function_defaults(stmt, cls, calls, is_cuda_string)
    return found


def _scope_children(stmt, parent, cls, guarded, gpu_only) -> list:
    """The class and function bodies to look into next, with their class and guard."""
    if isinstance(stmt, cst.ClassDef):
        return [(stmt.body, stmt, guarded or gpu_only(stmt))]
    if isinstance(stmt, cst.FunctionDef):
        return [(stmt.body, None, guarded or gpu_only(stmt))]
    if isinstance(stmt, (cst.If, cst.Try, cst.With)):
        return [(stmt.body, cls, guarded)]
    return []


def _function_defaults(fn: cst.FunctionDef, cls, calls: dict, is_cuda_string) -> list:
    callee, skipped = _callee_name(fn, cls)
    found = []
    params = _params(fn)
    for i, p in enumerate([*params, *fn.params.kwonly_params]):
        if p.default is None or not is_cuda_string(p.default) or not naming.looks_like_device_name(p.name.value):
            continue
        index = i - skipped if i < len(params) else 1 << 30  # keyword-only: never positional
        if _default_used(calls.get(callee, []), p.name.value, index, cls is None):
            found.append(p.default)
    return found
