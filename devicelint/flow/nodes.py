"""LibCST helpers the interpreter and the rules share: a fast child walk, the text of an
expression, parameter names, no_grad markers."""

from __future__ import annotations

import dataclasses
import re
import threading
from bisect import bisect_left
from contextlib import contextmanager

import libcst as cst

from devicelint import knowledge as kb
from devicelint import naming
from devicelint.names import dotted


def param_names(fn: cst.FunctionDef) -> list:
    p = fn.params
    return [x for x in (*p.posonly_params, *p.params)]


def keyword_value(call: cst.Call, name: str):
    """The expression `call` passes as `name=...`, or None."""
    return next((a.value for a in call.args if a.keyword is not None and a.keyword.value == name), None)


def last_name(node) -> str | None:
    """The name a callee is spelled by, its last part: `f` for `f`, `step` for `opt.step`."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return None


def is_string(node) -> str | None:
    if isinstance(node, cst.SimpleString):
        return string_value(node)
    return None


def string_value(node: cst.SimpleString) -> str | None:
    """The str a string literal spells (None for bytes or a literal that does not evaluate).
    LibCST's `evaluated_value` runs ast.literal_eval, a compile per literal; a literal with
    no backslash and no carriage return (nearly all) spells exactly what is between its
    quotes, with a plain, `u` or `r` prefix."""
    text = node.value
    quote = text.find(text[-1])  # the first character of the opening quotes
    if quote <= 1 and text[:quote] in ("", "u", "U", "r", "R") and "\\" not in text and "\r" not in text:
        width = 3 if len(text) - quote >= 6 and text[quote] == text[quote + 1] == text[quote + 2] else 1
        return text[quote + width:len(text) - width]
    try:
        value = node.evaluated_value
    except Exception:
        return None
    return value if isinstance(value, str) else None


def const_key(node: cst.Subscript) -> str | None:
    """`batch["video"]` -> "video": the one string literal a subscript is indexed by."""
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return None
    return is_string(node.slice[0].slice.value)


def key_reads(fn: cst.FunctionDef, param: str) -> tuple | None:
    """The keys function `fn` reads its parameter `param` by (`data["text"]`, `data["video"]`),
    when that is all it does with it; None when it uses it any other way."""
    names = subscripted = 0
    keys = []
    for n in walk(fn.body):
        if isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and n.func.attr.value in ("to", "cuda"):
            return None  # it moves something itself: which items it moves we do not follow
        if isinstance(n, cst.Name) and n.value == param:
            names += 1
        elif isinstance(n, cst.Subscript) and isinstance(n.value, cst.Name) and n.value.value == param:
            subscripted += 1
            key = const_key(n)
            if key is None:
                return None
            keys.append(key)
    if not keys or names != subscripted:
        return None
    # sequence lengths stay on the host on purpose (pack_padded_sequence wants them there)
    return tuple(k for k in dict.fromkeys(keys) if not naming.LENGTHS.search(k))


def spelled(a: cst.Arg) -> str:
    """`input_lengths=preds_size` -> "input_lengths preds_size": what an argument's name and
    text say (sequence lengths, which stay on the host on purpose)."""
    return (a.keyword.value if a.keyword else "") + " " + (expr_text(a.value) or "")


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

# type -> 1 (a CSTNode), 2 (a list or tuple), 0 (anything else). CSTNode is an ABC, and an
# ABC's isinstance costs a Python call: asked once per type instead of once per field of
# every node walked.
_KIND: dict = {}


def _fields(t) -> tuple:
    names = _FIELDS[t] = tuple(f.name for f in dataclasses.fields(t) if not f.name.startswith(_SKIP_FIELD))
    return names


def _kind(t) -> int:
    found = _KIND[t] = 1 if issubclass(t, cst.CSTNode) else 2 if issubclass(t, (list, tuple)) else 0
    return found


def child_nodes(node) -> list:
    t = type(node)
    out = []
    kinds = _KIND
    for name in _FIELDS[t] if t in _FIELDS else _fields(t):
        v = getattr(node, name)
        tv = type(v)
        k = kinds[tv] if tv in kinds else _kind(tv)
        if k == 1:
            out.append(v)
        elif k == 2:
            for x in v:
                tx = type(x)
                if (kinds[tx] if tx in kinds else _kind(tx)) == 1:
                    out.append(x)
    return out


def _walk(node, prune=()):
    """`node` and every node below it, depth-first, the last child's subtree first; without
    the subtrees of the children of a type in `prune` (those children included)."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        if prune:
            stack.extend(c for c in child_nodes(n) if not isinstance(c, prune))
        else:
            stack.extend(child_nodes(n))


_SCOPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


def own_nodes(node):
    """The nodes of a function body (`node` and all below it), not those of the functions,
    classes and lambdas in it."""
    return _walk(node, _SCOPES)


class _Index:
    """Every node of one module in walk order, and where each node's subtree lies in it.
    The order is a depth-first preorder, so a subtree is one contiguous run."""

    __slots__ = ("nodes", "at", "ends", "by_type", "memo")

    def __init__(self, root) -> None:
        self.memo: dict = {}  # (what, id(node)) -> per_lint's answers
        nodes: list = []
        at: dict = {}  # id(node) -> its position in `nodes`
        ends: list = []  # position -> the end of that node's subtree
        by_type: dict = {}  # node type -> positions in `nodes`, ascending
        fields, kinds = _FIELDS, _KIND
        stack = [root]
        push = stack.append
        while stack:
            n = stack.pop()
            t = type(n)
            if t is int:  # the end of a subtree (~its position): every descendant is in
                ends[~n] = len(nodes)
                continue
            i = len(nodes)
            push(~i)
            nodes.append(n)
            ends.append(0)
            at[id(n)] = i
            found = by_type.get(t)
            if found is None:
                by_type[t] = [i]
            else:
                found.append(i)
            # child_nodes(n), inlined: this loop runs once per node of every file
            for name in fields[t] if t in fields else _fields(t):
                v = getattr(n, name)
                tv = type(v)
                k = kinds[tv] if tv in kinds else _kind(tv)
                if k == 1:
                    push(v)
                elif k == 2:
                    for x in v:
                        tx = type(x)
                        if (kinds[tx] if tx in kinds else _kind(tx)) == 1:
                            push(x)
        self.nodes = nodes
        self.at = at
        self.ends = ends
        self.by_type = by_type

    @classmethod
    def joined(cls, root, parts: dict):
        """The index of `root` put together from indexes already made of its children
        (`parts`: {id(child): its _Index}; a child without one is walked here): the same
        preorder, each child's run where the walk would put it (the last child's first),
        its positions moved by where that run starts."""
        self = cls.__new__(cls)
        self.memo = {}
        nodes, ends, at, by_type = [root], [0], {id(root): 0}, {type(root): [0]}
        for child in reversed(child_nodes(root)):
            part = parts.get(id(child))
            if part is None or part.nodes[0] is not child:
                part = cls(child)
            start = len(nodes)
            shift = start.__add__
            nodes.extend(part.nodes)
            ends.extend(map(shift, part.ends))
            # in walk order: a node object found twice keeps its later place, as in the walk
            at.update(zip(map(id, part.nodes), range(start, len(nodes))))
            for t, found in part.by_type.items():
                mine = by_type.get(t)
                if mine is None:
                    by_type[t] = list(map(shift, found))
                else:
                    mine.extend(map(shift, found))  # the runs come in order: still ascending
        ends[0] = len(nodes)
        self.nodes, self.at, self.ends, self.by_type = nodes, at, ends, by_type
        return self

    def span(self, node):
        i = self.at.get(id(node))
        # the identity check: an id alone could belong to a node made after the index
        if i is not None and self.nodes[i] is node:
            return i, self.ends[i]
        return None

    def enclosing(self, root, node):
        """`enclosing(root, node)` (below) from this index; None when it does not hold both."""
        span, at = self.span(root), self.span(node)
        if span is None or at is None:
            return None
        here, ends, nodes = at[0], self.ends, self.nodes
        if not span[0] <= here < span[1]:
            return []
        out, i = [], span[0]
        while i != here:
            out.append(nodes[i])
            i += 1  # the first child's run
            while ends[i] <= here:
                i = ends[i]  # the next child's
        return out


# The index of the module being linted, per thread (the runtime checker lints in threads).
_current = threading.local()


def subtree_index(node) -> _Index:
    """The index of `node`'s subtree, to be joined into its module's (joined_index)."""
    return _Index(node)


def joined_index(module, parts: dict) -> _Index:
    """The index `indexed(module)` makes, from the indexes of its statements (`parts`:
    {id(statement): subtree_index(statement)}) that did not change since they were made:
    the editor keeps them between keystrokes (lsp.incremental), where the whole-module walk
    was a fourteenth of a keystroke's lint."""
    return _Index.joined(module, parts)


@contextmanager
def indexed(module, made: _Index | None = None):
    """While linting `module`, `walk` reads its subtrees from one walk made up front: the
    rules and the inference walk the same functions and classes many times over. `made`:
    that index already made (joined_index)."""
    saved = getattr(_current, "index", None)
    _current.index = made if made is not None else _Index(module)
    try:
        yield
    finally:
        _current.index = saved


def current_index():
    """The index `indexed` made of the module being linted in this thread, or None."""
    return getattr(_current, "index", None)


def per_lint(what: str, node, make):
    """make(node), made once per node of the module being linted: for answers that depend on
    the node's subtree only (trees are immutable) and that several rules ask for again and
    again (`rewrite.bound_names` of a long function, per fix candidate in it). Kept with the
    module's index, so an answer lives exactly as long as the lint and the ids it is keyed
    by stay those of the same nodes (the index holds every node of the module alive); a node
    outside the index (built by a fix) is answered afresh."""
    index = getattr(_current, "index", None)
    if index is None or index.span(node) is None:
        return make(node)
    key = (what, id(node))
    found = index.memo.get(key)
    if found is None:
        found = index.memo[key] = make(node)
    return found


def walk(node):
    """`node` and every node below it (depth-first, the last child's subtree first)."""
    index = getattr(_current, "index", None)
    if index is not None:
        span = index.span(node)
        if span is not None:
            return iter(index.nodes[span[0]:span[1]])
    return _walk(node)


def contains(outer, inner) -> bool:
    """Is `inner` `outer` itself or a node below it?"""
    index = getattr(_current, "index", None)
    if index is not None:
        span, at = index.span(outer), index.span(inner)
        if span is not None and at is not None:
            return span[0] <= at[0] < span[1]
    return any(n is inner for n in _walk(outer))


def enclosing(root, node) -> list:
    """The nodes of `root`'s subtree that hold `node` below them, outermost first (`root`
    itself among them; [] when `node` is not below `root`). With the index, a descent from
    `root`: a node's children are consecutive runs of the preorder (each one its subtree), so
    at each level the one to go down into is found by hopping from run to run. Cheap for the
    few nodes a rule asks about, where a parent map of the whole module would cost a walk of it."""
    index = getattr(_current, "index", None)
    found = index.enclosing(root, node) if index is not None else None
    if found is not None:
        return found
    path: list = []
    stack = [(root, 0)]
    while stack:
        n, depth = stack.pop()
        del path[depth:]
        if n is node:
            return path
        path.append(n)
        stack.extend((c, depth + 1) for c in child_nodes(n))
    return []


def find(node, kind) -> list:
    """The nodes of exactly type `kind` (cst.Call, cst.ClassDef...: a concrete node class)
    in `node`'s subtree, in walk order. An isinstance test on a LibCST class costs a call
    into ABCMeta; the index has them by type already."""
    index = getattr(_current, "index", None)
    if index is not None:
        span = index.span(node)
        if span is not None:
            at = index.by_type.get(kind)
            if not at:
                return []
            nodes = index.nodes
            return [nodes[i] for i in at[bisect_left(at, span[0]):bisect_left(at, span[1])]]
    return [n for n in _walk(node) if type(n) is kind]


def mentions_no_grad(expr) -> bool:
    """`torch.no_grad()`, `inference_mode()`, `set_grad_enabled(...)` (any argument: we cannot
    tell it is True), also inside `a if b else c`."""
    for n in walk(expr):
        if isinstance(n, cst.Name) and n.value in kb.torch_core.NO_GRAD_NAMES:
            return True
        if isinstance(n, cst.Attribute) and n.attr.value in kb.torch_core.NO_GRAD_NAMES:
            return True
    return False


def no_grad_decorated(fn: cst.FunctionDef) -> int:
    return int(any(mentions_no_grad(d.decorator) for d in fn.decorators))


