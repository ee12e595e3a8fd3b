"""LibCST helpers the interpreter and the rules share: a fast child walk, the text of an
expression, parameter names, no_grad markers."""

from __future__ import annotations

import dataclasses
import re

import libcst as cst

from devicelint.names import dotted


def param_names(fn: cst.FunctionDef) -> list:
    p = fn.params
    return [x for x in (*p.posonly_params, *p.params)]


def is_string(node) -> str | None:
    if isinstance(node, cst.SimpleString):
        try:
            value = node.evaluated_value
        except Exception:
            return None
        return value if isinstance(value, str) else None
    return None


def expr_text(node) -> str | None:
    """`x`, `self.x`, `batch["label"]`, `batch[0]`: a stable spelling of a storage place."""
    if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
        base = expr_text(node.value)
        idx = node.slice[0].slice.value
        if base is not None and isinstance(idx, (cst.SimpleString, cst.Integer)):
            return f"{base}[{idx.value}]"
        return None
    return dotted(node)


def text_root(text: str) -> str:
    return re.split(r"[.\[]", text, maxsplit=1)[0]


# LibCST's `.children` runs a visitor per call; reading the dataclass fields directly is
# several times faster. Whitespace and punctuation fields never hold code.
_SKIP_FIELD = ("whitespace", "lpar", "rpar", "comma", "semicolon", "colon", "equal", "dot",
               "leading_lines", "lines_after", "header", "footer", "newline", "operator", "lbracket",
               "rbracket", "lbrace", "rbrace", "asynchronous")

_FIELDS: dict = {}

# type -> is it a CSTNode. CSTNode is an ABC, and an ABC's isinstance costs a Python call:
# asked once per type instead of once per field of every node walked.
_IS_NODE: dict = {}


def _is_node(t) -> bool:
    found = _IS_NODE[t] = issubclass(t, cst.CSTNode)
    return found


def child_nodes(node) -> list:
    names = _FIELDS.get(type(node))
    if names is None:
        names = _FIELDS[type(node)] = tuple(
            f.name for f in dataclasses.fields(node) if not f.name.startswith(_SKIP_FIELD)
        )
    out = []
    is_node = _IS_NODE.get
    for name in names:
        v = getattr(node, name)
        t = type(v)
        if is_node(t) or (is_node(t) is None and _is_node(t)):
            out.append(v)
        elif t is tuple or t is list or isinstance(v, (list, tuple)):
            for x in v:
                tx = type(x)
                if is_node(tx) or (is_node(tx) is None and _is_node(tx)):
                    out.append(x)
    return out


def walk(node):
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(child_nodes(n))


_NO_GRAD_NAMES = {"no_grad", "inference_mode", "set_grad_enabled"}


def mentions_no_grad(expr) -> bool:
    """`torch.no_grad()`, `inference_mode()`, `set_grad_enabled(...)` (any argument: we cannot
    tell it is True), also inside `a if b else c`."""
    for n in walk(expr):
        if isinstance(n, cst.Name) and n.value in _NO_GRAD_NAMES:
            return True
        if isinstance(n, cst.Attribute) and n.attr.value in _NO_GRAD_NAMES:
            return True
    return False


def no_grad_decorated(fn: cst.FunctionDef) -> int:
    return int(any(mentions_no_grad(d.decorator) for d in fn.decorators))


