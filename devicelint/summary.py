"""What one module offers to the files that import it, from its text alone (stdlib `ast`).

A summary depends only on the file's content, so it is cached by content hash. It keeps
names unresolved ("the class `Net` has a base spelled `BaseModel`", "`build` returns the
result of calling `create_model(...)` moved with `.to(device)`): tying names to other files
is project.py's work. Everything here is JSON data (lists, dicts, strings), so a summary can
be stored on disk as it is.

Descriptors of what an expression yields (the first item says which):
    ["call", text, kw_names, arg_descs]   a call of a dotted name, resolved later
    ["move", desc, target]                desc moved with .to()/.cuda()/.cpu()
    ["each_move", param, target]          a comprehension moving every element of a parameter
    ["param", name]                       a parameter, unchanged
    ["global", name]                      a module-level name
    ["device", "accel" | "cpu"]
    ["tuple", [descs]], ["join", [descs]], ["none"], ["self"] (a recursive call), ["unknown"]
Targets of a move: ["param", name], "accel", "cpu", "unknown".

Call sites (`sites`, for contexts.py's top-down parameter values): one
[caller, text, arg_descs, {keyword: desc}, line] per call of a dotted name in a module-level
function (caller: its name) or in the module body (caller: ""), the descriptors taken where
the call runs, before the call lets its arguments escape.

Instances held only to be called (`called`, for contexts.ClassUses): {caller: {name: [line,
text]}}, per scope that records sites (the module body "", a module-level function, a class's
method "Cls.meth"), the local names the scope binds once, to the result of the call of `text`
on `line` (`one_hot = OneHotDistribution(...)`), and otherwise only calls or asks for a method
that neither moves them nor hands them back (`one_hot(target)`, `meter.update(preds)`; not
`one_hot.to(device)`, `f(one_hot)`, nor any use inside a nested function, lambda, class or
comprehension, whose calls have no sites of the scope).
"""

from __future__ import annotations

import ast
import builtins

from devicelint import knowledge as kb
from devicelint import naming

VERSION = 17  # 7: module methods that return self read from knowledge/; 8: a dataset's dtype casts are no moves; 9: call sites; 10: import-time default devices; 11: set_device calls; 12: `super(Cls, self)` is no value read of Cls, and what a dataset's items hold; 13: instances held only to be called (`called`); 14: the constructor parameters a class iterates; 15: the methods that run a module the constructor keeps (`runs`), and whether `__init__` takes `**kwargs`; 16: an element store into a tensor a torch factory made keeps the tensor; 17: calling a name (`f(model(x))`) hands on its result, not the name
KEYS = {"v", "imports", "stars", "all", "classes", "functions", "values", "names", "sites", "refs", "defaults",
        "called"}
MAX_SITES = 400  # call sites kept per file: a script's calls are a few dozen
UNKNOWN = ["unknown"]
# Nodes one descriptor may hold. In a conditional arm a name keeps its earlier values beside
# the new one, so `out = self.act(out)` repeated in an `if` arm doubles the descriptor each
# time (43 MB of summary for a three-layer module with if/elif/else arms, past the memory
# cap for four); a real value is a few dozen nodes, a larger one is read as unknown.
MAX_DESC = 300


def dotted(node) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


_AST = ast.AST
_LIST = list


def _children(node) -> list:
    """ast.iter_child_nodes as a list, in the same order, without a generator per node."""
    out = []
    for name in node._fields:
        v = getattr(node, name, None)
        if isinstance(v, _AST):
            out.append(v)
        elif type(v) is _LIST:
            for x in v:
                if isinstance(x, _AST):
                    out.append(x)
    return out


def _larger_than(d, limit: int) -> bool:
    """Whether the descriptor `d` (nested lists) holds more than `limit` nodes; stops counting
    there, so a huge shared descriptor costs no more than `limit` steps."""
    stack, seen = [d], 0
    while stack:
        x = stack.pop()
        seen += 1
        if seen > limit:
            return True
        if isinstance(x, (list, dict)):
            stack.extend(x.values() if isinstance(x, dict) else x)
    return False


def _walk(node) -> list:
    """ast.walk as a list, in the same (breadth-first) order. Summaries are paid for every
    file a project imports: the generators of ast.walk were a third of their cost."""
    out = [node]
    i = 0
    while i < len(out):
        out.extend(_children(out[i]))
        i += 1
    return out


def summarize(source: bytes) -> dict | None:
    """The module's summary, or None when it does not parse (importers then know nothing)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError, UnicodeDecodeError):
        return None
    out = {"v": VERSION, "imports": {}, "stars": [], "all": None, "classes": {}, "functions": {},
           "values": {}, "names": [], "sites": [], "defaults": []}
    try:
        _module_body(tree.body, out)
        _module_sites(tree.body, out)
        out["refs"] = _refs(tree, out)
        out["sets_device"] = _sets_device(tree, out)
        out["called"] = _called_by_scope(tree)
    except RecursionError:
        return None
    out["names"] = sorted(set(out["names"]))
    return out


def _module_body(body, out) -> None:
    for stmt in body:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.asname:
                    _bind_import(out, alias.asname, [0, alias.name, None])
                else:
                    top = alias.name.split(".")[0]
                    _bind_import(out, top, [0, top, None])
        elif isinstance(stmt, ast.ImportFrom):
            mod = stmt.module or ""
            for alias in stmt.names:
                if alias.name == "*":
                    out["stars"].append([stmt.level, mod])
                else:
                    _bind_import(out, alias.asname or alias.name, [stmt.level, mod, alias.name])
        elif isinstance(stmt, ast.ClassDef):
            _class_entry(stmt, out)
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out["functions"][stmt.name] = _function(stmt, out)
            out["names"].append(stmt.name)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            _module_assign(stmt, out)
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            _default_setter(stmt.value, out)
        elif isinstance(stmt, (ast.If, ast.Try)) or type(stmt).__name__ == "TryStar":
            # `try: import x / except ImportError:` and `if TYPE_CHECKING:` blocks
            for block in (stmt.body, getattr(stmt, "orelse", []), getattr(stmt, "finalbody", [])):
                _module_body(block, out)
            for h in getattr(stmt, "handlers", ()):
                _module_body(h.body, out)


def _default_setter(call: ast.Call, out) -> None:
    """`torch.set_default_tensor_type("torch.cuda.FloatTensor")` / `torch.set_default_device("cuda")`
    run when the module is imported: the device type it sets into `defaults` ("cuda", "mps",
    "cpu", or "unknown" for a value read at run time), for the files that import this one (DL019)."""
    name = dotted(call.func)
    head, _, rest = (name or "").partition(".")
    if out["imports"].get(head) != [0, "torch", None] or ("torch." + rest) not in (
            kb.torch_core.DEFAULT_DEVICE_SETTERS | kb.torch_core.DEFAULT_TENSOR_TYPE_SETTERS):
        return
    arg = call.args[0] if len(call.args) == 1 and not call.keywords else None
    text = arg.value if isinstance(arg, ast.Constant) and isinstance(arg.value, str) else dotted(arg)
    if text is None:
        place = None
    elif ("torch." + rest) in kb.torch_core.DEFAULT_TENSOR_TYPE_SETTERS:
        place = kb.torch_core.legacy_tensor_type_place(text)
    elif isinstance(arg, ast.Constant) and kb.torch_core.parse_device_string(text) is not None:
        place = text.split(":")[0].strip().lower()
    else:
        place = None
    out["defaults"].append(place or "unknown")


def _sets_device(tree, out) -> bool:
    """Does the module call `torch.cuda.set_device(...)` (or the like) anywhere: a helper that
    picks each process's GPU for the distributed scripts that import it (DL020)?"""
    for node in _walk(tree):
        if isinstance(node, ast.Call):
            head, _, rest = (dotted(node.func) or "").partition(".")
            if out["imports"].get(head) == [0, "torch", None] and "torch." + rest in kb.distributed.SET_DEVICE:
                return True
    return False


def _refs(tree, out) -> list:
    """Imported or module-level functions and classes read as values, not called
    (`Thread(target=train)`, `callbacks=[engine.evaluate]`): they run where no site shows."""
    nodes = _walk(tree)
    called = {id(n.func) for n in nodes if isinstance(n, ast.Call)}
    # `super(Net, self).__init__()` names the class it is written in to reach its bases: no use
    # of `Net` as a value (calls of Net itself stay where the sites show them)
    called |= {id(a) for n in nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
               and n.func.id == "super" for a in n.args}
    known = set(out["imports"]) | set(out["functions"]) | set(out["classes"])
    refs = set()
    for n in nodes:
        if isinstance(n, (ast.Name, ast.Attribute)) and isinstance(n.ctx, ast.Load) and id(n) not in called:
            text = dotted(n)
            if text is not None and text.split(".", 1)[0] in known:
                refs.add(text)
    return sorted(refs)


# Methods that move a module or hand it back (`name.half()` may be bound and moved later).
_MOVES_OR_SELF = frozenset(kb.nn.MODULE_MOVES) | frozenset(kb.nn.MODULE_RETURNS_SELF)
# Nodes that open a scope of their own: calls inside them are no call sites of the scope.
_NESTED = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp, ast.SetComp,
                     ast.DictComp, ast.GeneratorExp})
_CALLED_PARTS = frozenset({ast.Call, ast.Attribute, ast.Assign})  # what _called_names reads besides names
_NAME = ast.Name


def _called_by_scope(tree) -> dict:
    """`called` (see the module docstring) for the module body and each function and method,
    from one walk of the tree."""
    keys = {}  # a function or method node -> the caller name its sites are recorded under
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            keys[id(stmt)] = stmt.name
        elif isinstance(stmt, ast.ClassDef):
            keys.update((id(fn), f"{stmt.name}.{fn.name}") for fn in stmt.body
                        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)))
    scopes = {"": ([], set())}  # caller -> (its own nodes that matter, the names spelled in nested scopes)
    module_nested = scopes[""][1]
    stack = [(c, "", False) for c in _children(tree)]
    while stack:
        n, key, inner = stack.pop()
        t = type(n)
        if t is _NAME:  # (its one child is its context: not walked)
            if inner:
                scopes[key][1].add(n.id)
            else:
                scopes[key][0].append(n)
            if key:
                module_nested.add(n.id)  # for the module body, a function's names are nested
            continue
        if not inner and t in _CALLED_PARTS:
            scopes[key][0].append(n)
        if id(n) in keys:
            key, inner = keys[id(n)], False
            scopes[key] = ([], set())
        else:
            inner = inner or t in _NESTED
        stack.extend((c, key, inner) for c in _children(n))
    out = {}
    for caller, (own, nested) in scopes.items():
        names = _called_names(own, nested)
        if names:
            out[caller] = names
    return out


def _called_names(own: list, nested: set) -> dict:
    """name -> [line, text] of the instances a scope (its own nodes, the names spelled in its
    nested scopes) holds only to call them (module docstring)."""
    calls = {id(n.func) for n in own if isinstance(n, ast.Call)}
    receivers = {id(n.value) for n in own if isinstance(n, ast.Attribute) and id(n) in calls
                 and n.attr not in _MOVES_OR_SELF}
    bound, stores, other_uses = {}, {}, set(nested)
    for n in own:
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) \
                and isinstance(n.value, ast.Call) and dotted(n.value.func) is not None:
            bound[n.targets[0].id] = [n.value.lineno, dotted(n.value.func)]
        elif isinstance(n, ast.Name):
            if isinstance(n.ctx, ast.Store):
                stores[n.id] = stores.get(n.id, 0) + 1
            elif id(n) not in calls and id(n) not in receivers:
                other_uses.add(n.id)
    return {name: at for name, at in bound.items() if stores.get(name) == 1 and name not in other_uses}


def _class_entry(stmt: ast.ClassDef, out) -> None:
    out["classes"][stmt.name] = _class(stmt)
    out["names"].append(stmt.name)
    _method_sites(stmt, out)
    init = next((f for f in stmt.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
    if init is not None:
        out["classes"][stmt.name]["init"] = _signature(init, out, skip_self=True)
    getitem = next((f for f in stmt.body if isinstance(f, ast.FunctionDef) and f.name == "__getitem__"), None)
    item = _item(getitem) if getitem is not None else None
    if item is not None:
        out["classes"][stmt.name]["item"] = item


def _item(fn: ast.FunctionDef):
    """Where `__getitem__` visibly places what it returns on every path, for the loaders of
    importing files (flow/items.py reads it, and does the same on LibCST for the file's own
    classes): "accel", ["tuple", ["accel" | None, ...]] or ["dict", "accel"]; None when no
    position is known to be placed."""
    nodes = _walk(fn)
    if any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.Yield, ast.YieldFrom))
           for n in nodes[1:]):
        return None  # nested code or a generator: its returns are not the item's
    returns = [n for n in nodes if isinstance(n, ast.Return)]
    if not returns or any(r.value is None for r in returns):
        return None
    bound: dict = {}
    for n in nodes:
        if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For, ast.NamedExpr)):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            for t in targets:
                for name in (x for x in _walk(t) if isinstance(x, ast.Name)):
                    simple = isinstance(n, ast.Assign) and t is name and name.id not in bound
                    bound[name.id] = n.value if simple else None
    shapes = [_item_shape(r.value, bound) for r in returns]
    if any(sh != shapes[0] for sh in shapes) or shapes[0] in (None, ["dict", None]):
        return None
    sh = shapes[0]
    return sh if sh == "accel" or sh[0] == "dict" or "accel" in sh[1] else None


def _item_shape(e, bound):
    if isinstance(e, (ast.Tuple, ast.List)):
        if any(isinstance(x, ast.Starred) for x in e.elts):
            return None
        return ["tuple", [_item_place(x, bound) for x in e.elts]]
    if isinstance(e, ast.Dict):
        places = {_item_place(v, bound) for v in e.values}
        return ["dict", places.pop()] if len(places) == 1 and None not in e.keys else None
    return _item_place(e, bound)


def _item_place(e, bound):
    if isinstance(e, ast.Name):
        e = bound.get(e.id)
    if not isinstance(e, ast.Call):
        return None
    if any(k.arg == "device" and not _host_literal(k.value) for k in e.keywords):
        return "accel"
    f = e.func
    if isinstance(f, ast.Attribute) and (f.attr == "cuda" or f.attr == "to" and _to_places(e)):
        return "accel"
    return None


def _module_assign(stmt, out) -> None:
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    for t in targets:
        if isinstance(t, ast.Name):
            out["names"].append(t.id)
            if t.id == "__all__" and isinstance(stmt.value, (ast.List, ast.Tuple)):
                names = [e.value for e in stmt.value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
                out["all"] = names if len(names) == len(stmt.value.elts) else None
            elif stmt.value is not None:
                d = _Walker(None, out).desc(stmt.value)
                old = out["values"].get(t.id)
                out["values"][t.id] = d if old is None or old == d else UNKNOWN


def _module_sites(body, out) -> None:
    """The calls the module body runs (`main()`, `train(model, loader)` in a script), walked in
    order so that each argument's descriptor is the one bound where the call runs."""
    w = _Walker(None, out, caller="")
    w.block([s for s in body if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))], conditional=False)


def _method_sites(cls: ast.ClassDef, out) -> None:
    """The calls a class's methods make (a test method calling a helper of the module)."""
    for fn in cls.body:
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            _Walker(fn, out, caller=f"{cls.name}.{fn.name}").block(fn.body, conditional=False)


def _bind_import(out, local: str, spec) -> None:
    old = out["imports"].get(local, spec)
    out["imports"][local] = spec if old == spec else None  # bound twice differently: ambiguous
    out["names"].append(local)


# ----------------------------------------------------------------------------- classes


def _class(cls: ast.ClassDef) -> dict:
    moves = state = any_move = False
    for n in _walk(cls):  # one walk: summaries are paid for every file a project imports
        if isinstance(n, ast.Call):
            if any(k.arg in ("device", "device_map") for k in n.keywords) and not _tensor_factory(n):
                # layers built on a device (`nn.Linear(4, 2, device=...)`): it places itself
                # (`torch.arange(n, device=x.device)` in a forward only follows its input)
                moves = True
            if isinstance(n.func, ast.Attribute):
                attr = n.func.attr
                if attr == "cuda" or attr == "to" and _to_places(n):
                    any_move = True
                if attr in ("to", "cuda", "to_empty") and dotted(n.func.value) == "self":
                    moves = True
                if attr in ("register_buffer", "register_parameter", "add_module", "register_module"):
                    state = True
        elif isinstance(n, ast.Assign) and not state and any(
            isinstance(t, ast.Attribute) and dotted(t.value) == "self" for t in n.targets
        ) and _stateful(n.value):
            state = True
    return {"bases": [dotted(b) or "?" for b in cls.bases], "self_moves": moves, "state": state,
            "any_move": any_move, **_iterated_init_params(cls)}


_ITERATING_WRAPPERS = frozenset({"iter", "enumerate", "tqdm", "zip"})


def _iterated_init_params(cls: ast.ClassDef) -> dict:
    """{"init_params": its own `__init__`'s parameters after self, "iterates": those of them it
    keeps as `self.x = param` that a method iterates (`iter(self.x)`, `for b in self.x`,
    `enumerate(tqdm(self.x))`): a Trainer class handed a DataLoader draws its batches (DL019
    reads where). Nothing when the class has no `__init__` of its own (an inherited one is
    not read)."""
    init = next((f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
    if init is None:
        return {}
    params = [a.arg for a in init.args.posonlyargs + init.args.args][1:] + [a.arg for a in init.args.kwonlyargs]
    kept = _kept_params(init, params)
    if not kept:  # nothing kept from a parameter: no need to walk the class for what it iterates or runs
        return {"init_params": params, "iterates": [], "runs": {}}
    return {"init_params": params, "iterates": sorted({kept[a] for a in _iterated_attrs(cls) if a in kept}),
            "runs": _runs(cls, kept)}


def _kept_params(init: ast.FunctionDef, params: list) -> dict:
    """{attribute: parameter} for each `self.attr = param` of `__init__`."""
    kept = {}
    for n in _walk(init):
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Name) and n.value.id in params:
            for t in n.targets:
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                    kept[t.attr] = n.value.id
    return kept


def _iterated_attrs(cls: ast.ClassDef) -> set:
    """The `self.x` a method of the class iterates (`for b in self.x`, `iter(self.x)`, through
    `enumerate`/`tqdm`/`zip`)."""
    iterated = set()
    for n in _walk(cls):
        over = n.iter if isinstance(n, (ast.For, ast.comprehension)) else None
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "iter" and n.args:
            over = n.args[0]
        while isinstance(over, ast.Call) and (dotted(over.func) or "").rsplit(".", 1)[-1] in _ITERATING_WRAPPERS \
                and over.args:
            over = over.args[0]
        if isinstance(over, ast.Attribute) and isinstance(over.value, ast.Name) and over.value.id == "self":
            iterated.add(over.attr)
    return iterated


# Methods a kept module may be asked that move it, or hand its weights to code we cannot see
_MOVING_METHODS = frozenset({"to", "cuda", "cpu", "to_empty", "xpu", "mps", "apply", "share_memory"})
MAX_RUN_HOPS = 3  # `saliency(image)` -> `self.decompose(image)` -> `self.model.features(image)`


def _runs(cls: ast.ClassDef, kept: dict) -> dict:
    """{method: [init parameter, position]}: calling the method with a tensor at that position
    (after self) runs the module the constructor keeps from that parameter on it
    (`self.model = model`; `self.model(image)` or `self.model.features(image)`, directly or
    through another method of the class given the same parameter). Only for a kept attribute
    the class assigns once and uses only by calling it or a method of it that neither moves it
    nor lets it escape: the instance then holds the caller's module where the caller left it."""
    attrs = _plain_kept(cls, kept)
    if not attrs:
        return {}
    methods = {f.name: f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name != "__init__"}
    runs: dict = {}
    for _ in range(MAX_RUN_HOPS):
        for name, fn in methods.items():
            if name not in runs:
                found = _method_run(fn, attrs, runs)
                if found is not None:
                    runs[name] = found
    return runs


def _plain_kept(cls: ast.ClassDef, kept: dict) -> dict:
    """attr -> init parameter, for the kept attributes used only as `self.a(...)` or
    `self.a.m(...)` with `m` no move, assigned nowhere else."""
    calls, stores, uses = set(), {}, {}
    for n in _walk(cls):
        if isinstance(n, ast.Call):
            f = n.func
            if isinstance(f, ast.Attribute) and f.attr not in _MOVING_METHODS:
                calls.add(id(f.value))  # `self.a.m(...)`: `self.a` is the receiver
            calls.add(id(f))  # `self.a(...)`
        elif isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self":
            if isinstance(n.ctx, ast.Store):
                stores[n.attr] = stores.get(n.attr, 0) + 1
            else:
                uses.setdefault(n.attr, []).append(id(n))
    return {a: p for a, p in kept.items() if stores.get(a) == 1 and uses.get(a) and all(u in calls for u in uses[a])}


def _method_run(fn: ast.FunctionDef, attrs: dict, runs: dict):
    """[init parameter, position] when `fn` runs a kept module on one of its parameters."""
    params = [a.arg for a in fn.args.posonlyargs + fn.args.args][1:]
    plain = {p for p in params if _kept_param(fn, p)}
    for n in _walk(fn):
        if not isinstance(n, ast.Call) or not isinstance(n.func, ast.Attribute):
            continue
        f = n.func
        recv = f.value
        if isinstance(recv, ast.Attribute) and isinstance(recv.value, ast.Name) and recv.value.id == "self" \
                and recv.attr in attrs:
            held = attrs[recv.attr]  # `self.model.features(x)`
        elif isinstance(recv, ast.Name) and recv.id == "self" and f.attr in attrs:
            held = attrs[f.attr]  # `self.model(x)`
        elif isinstance(recv, ast.Name) and recv.id == "self" and f.attr in runs:
            held, at = runs[f.attr]  # `self.decompose(x)`, a method that runs it on its argument `at`
            arg = n.args[at] if at < len(n.args) and not any(isinstance(a, ast.Starred) for a in n.args) else None
            if isinstance(arg, ast.Name) and arg.id in plain:
                return [held, params.index(arg.id)]
            continue
        else:
            continue
        for a in n.args:
            if isinstance(a, ast.Name) and a.id in plain:
                return [held, params.index(a.id)]
    return None


def _kept_param(fn: ast.FunctionDef, name: str) -> bool:
    """The parameter still holds what the caller handed in wherever it is read: never rebound,
    but by an in-place method of itself (`image = image.requires_grad_()`)."""
    nodes = _walk(fn)
    in_place = set()
    for n in nodes:
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) \
                and n.targets[0].id == name and isinstance(n.value, ast.Call) \
                and isinstance(n.value.func, ast.Attribute) and n.value.func.attr.endswith("_") \
                and not n.value.func.attr.startswith("_") and isinstance(n.value.func.value, ast.Name) \
                and n.value.func.value.id == name:
            in_place.add(id(n.targets[0]))
    return not any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, (ast.Store, ast.Del))
                   and id(n) not in in_place for n in nodes)


def _to_places(call: ast.Call) -> bool:
    """`x.to(device)` may place `x` on the accelerator; a cast (`x.to(torch.float32)`,
    `.to(dtype=...)`) or a move to the host (`.to("cpu")`) does not."""
    if any(k.arg == "device" for k in call.keywords):
        return not any(k.arg == "device" and _host_literal(k.value) for k in call.keywords)
    if not call.args:
        return any(k.arg is None for k in call.keywords)  # `.to(**kw)`: it may name a device
    first = call.args[0]
    text = dotted(first)
    return not (_host_literal(first) or (text is not None and naming.looks_like_dtype(text)))


def _host_literal(node) -> bool:
    return isinstance(node, ast.Constant) and node.value in ("cpu", "CPU")


def _tensor_factory(call: ast.Call) -> bool:
    """`torch.zeros(...)`, `torch.rand(...)`, `x.new_zeros(...)`, `freqs.to(device=t.device)`:
    a tensor made or moved, not a layer (a move of `self` is told apart by its receiver)."""
    last = call.func.attr if isinstance(call.func, ast.Attribute) else dotted(call.func) or ""
    return last in kb.torch_core.TENSOR_FACTORIES or last in kb.torch_core.LIKE_FACTORIES or last.startswith("new_") or last in ("to", "cuda")


def _made_tensor(d) -> bool:
    """A descriptor of a tensor a torch factory made (`["call", "torch.zeros", ...]`), maybe
    moved since: its device is the factory's (or the move's), not what is stored in it."""
    while isinstance(d, list) and d[:1] == ["move"] and len(d) == 3:
        d = d[1]
    if not (isinstance(d, list) and d[:1] == ["call"] and len(d) > 1 and isinstance(d[1], str)):
        return False
    root, _, last = d[1].rpartition(".")
    return root == "torch" and (last in kb.torch_core.TENSOR_FACTORIES or last in kb.torch_core.LIKE_FACTORIES)


_BUILTINS = frozenset(dir(builtins))
_PLAIN_MODULES = {"math", "np", "numpy", "os", "re", "json", "random", "itertools", "functools", "collections",
                  "copy", "string", "time", "datetime", "pathlib", "operator", "typing"}


def _stateful(value) -> bool:
    """Evidence that `self.x = value` creates weights: a layer or something we cannot see
    (a tensor factory or a parameter-free layer is not)."""
    if isinstance(value, (ast.List, ast.Tuple)):
        return any(_stateful(e) for e in value.elts)
    if not isinstance(value, ast.Call):
        return False
    text = dotted(value.func) or ""
    last = text.rsplit(".", 1)[-1]
    if text in _BUILTINS or text.split(".", 1)[0] in _PLAIN_MODULES:
        return False  # `self.min_level = int(math.log2(s))`: a number, not a layer
    if text.startswith(("torch.", "nn.")) or "." not in text and last[:1].isupper():
        if last in kb.torch_core.TENSOR_FACTORIES or last in kb.nn.PARAM_FREE_LAYERS or (kb.nn.is_loss(last) and not value.args):
            return False
        if text.startswith("torch.") and last[:1].islower():
            return False
        if last in kb.nn.CONTAINERS:
            # `nn.Sequential(*modules)`: layers we cannot list
            return not value.args or any(isinstance(a, ast.Starred) or _stateful(a) for a in value.args)
    return True


# ----------------------------------------------------------------------------- functions


_HARMLESS_DECORATORS = {"no_grad", "inference_mode", "enable_grad", "staticmethod", "wraps", "cache", "lru_cache"}


def _function(fn, out) -> dict:
    a = fn.args
    params = [p.arg for p in (*a.posonlyargs, *a.args)]
    kwonly = [p.arg for p in a.kwonlyargs]
    if isinstance(fn, ast.AsyncFunctionDef) or any(
        (dotted(d.func if isinstance(d, ast.Call) else d) or "").rsplit(".", 1)[-1] not in _HARMLESS_DECORATORS
        for d in fn.decorator_list
    ):
        # a coroutine, or a decorator that may wrap the result or move the arguments
        return {"params": params, "kwonly": kwonly, "ret": UNKNOWN, "pure": []}
    w = _Walker(fn, out, caller=fn.name)
    try:
        w.block(fn.body, conditional=False)
    except RecursionError:
        return {"params": params, "kwonly": kwonly, "ret": UNKNOWN, "pure": []}
    rets = [r for r in w.returns if r != ["self"]]
    ret = _function_result(rets, w.isinstance_params) if rets and not w.generator else UNKNOWN
    pure = [p for p in params + kwonly if p not in w.impure]
    host, places, calls = _calls_of(fn, params + kwonly)
    return {"params": params, "kwonly": kwonly, "ret": ret, "pure": pure, "host": host,
            "places": places, "calls": calls, "defaults": _defaults(fn, out)}


def _signature(fn, out, skip_self: bool) -> dict:
    """A method's parameters (without `self`) and defaults, for contexts.py."""
    a = fn.args
    params = [p.arg for p in (*a.posonlyargs, *a.args)][1 if skip_self else 0:]
    return {"params": params, "kwonly": [p.arg for p in a.kwonlyargs], "defaults": _defaults(fn, out), "pure": [],
            "varkw": a.kwarg is not None}


def _defaults(fn, out) -> dict:
    """Each parameter's default value, as a descriptor (`device=None` -> ["none"])."""
    a = fn.args
    pos = [*a.posonlyargs, *a.args]
    pairs = list(zip(pos[len(pos) - len(a.defaults):], a.defaults)) + [
        (p, d) for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None]
    w = _Walker(None, out)
    return {p.arg: w.desc(d) for p, d in pairs}


def _calls_of(fn, params) -> tuple[bool, bool, list]:
    """What the function's calls say, in one walk:
    - host: does it copy something to the host (`.cpu()`, `.numpy()`, `to_cpu(x)`)? Then what
      it returns from device tensors may live on the host: the caller must not assume.
    - places: could it decide where what it builds lives? It does when it moves anything,
      passes `device=`/`device_map=`, takes a device-like parameter or a caller's `**kwargs`,
      or restores pickles (`torch.load` keeps the device they were saved from).
    - calls: the dotted names it calls, so the project can ask the same of its callees."""
    host = False
    places = fn.args.kwarg is not None or any(naming.looks_like_device_name(p) for p in params)
    calls = set()
    for n in _walk(fn):
        if not isinstance(n, ast.Call):
            continue
        f = n.func
        if isinstance(f, ast.Attribute):
            host |= f.attr in ("cpu", "numpy")
            places |= f.attr in ("to", "cuda", "to_empty", "load")
        elif isinstance(f, ast.Name) and "cpu" in f.id.lower():
            host = True
        places |= any(k.arg in ("device", "device_map") for k in n.keywords)
        if not places:
            text = dotted(f)
            if text is not None:
                calls.add(text)
    return host, places, [] if places else sorted(calls)


def _function_result(rets, checked) -> list:
    """One descriptor for all return paths. A helper that moves a parameter and returns it
    unchanged on other paths counts as moving it only if it dispatches on the parameter's
    type (`if isinstance(batch, dict): ...`): then the unchanged path is for non-tensors."""
    moved = {}
    for r in rets:
        if r[0] == "each_move" or (r[0] == "move" and r[1][0] == "param"):
            p = r[1] if r[0] == "each_move" else r[1][1]
            moved.setdefault(p, []).append(r[2])
    if len(moved) == 1:
        (p, targets), = moved.items()
        if all(t == targets[0] for t in targets) and all(
            r in (["param", p],) or (r[0] == "each_move" and r[1] == p) or (r[0] == "move" and r[1] == ["param", p])
            for r in rets
        ) and (all(r != ["param", p] for r in rets) or p in checked):
            return ["each_move", p, targets[0]]
    return rets[0] if len(rets) == 1 else ["join", rets]


class _Walker:
    """Runs a function body in order with a descriptor list per local name: an assignment on
    every path replaces it, one under a branch adds to it (the join decides later)."""

    def __init__(self, fn, out, caller: str | None = None):
        self.fn = fn
        self.out = out
        self.caller = caller  # where call sites are recorded from (None: not recorded)
        self.env: dict = {}
        self.returns: list = []
        self.impure: set = set()
        self.held: dict = {}  # a local dict literal -> the names it holds (they escape with it)
        self.isinstance_params: set = set()
        self.generator = False
        self.loops = 0
        if fn is not None:
            a = fn.args
            for p in (*a.posonlyargs, *a.args, *a.kwonlyargs):
                self.env[p.arg] = [["param", p.arg]]
            for p in (a.vararg, a.kwarg):
                if p is not None:
                    self.env[p.arg] = [UNKNOWN]
                    self.impure.add(p.arg)

    # ---- statements

    def block(self, body, conditional: bool) -> None:
        for stmt in body:
            self.stmt(stmt, conditional)

    def stmt(self, s, cond: bool) -> None:
        kind = type(s).__name__
        run = _STATEMENTS.get(kind)
        if run is not None:
            run(self, s, cond)
        elif kind == "TryStar":
            self.try_(s, cond)
        else:
            for child in _children(s):
                if isinstance(child, ast.expr):
                    self.uses(child)

    def assign_(self, s, cond: bool) -> None:
        if isinstance(s, ast.Assign) and self.holder(s, cond):
            return
        if s.value is None:
            return  # `x: int`
        targets = s.targets if isinstance(s, ast.Assign) else [s.target]
        d = self.desc(s.value)
        self.alias(s.value, list(targets))
        for t in targets:
            self.assign(t, d, cond)

    def aug_assign(self, s, cond: bool) -> None:
        self.uses(s.value)
        self.assign(s.target, UNKNOWN, cond)

    def expr_(self, s, cond: bool) -> None:
        v = s.value
        if isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr in kb.nn.MODULE_MOVES and isinstance(v.func.value, ast.Name):
            name = v.func.value.id
            target = self.target(v)
            if target == "dtype":
                return
            self.uses_move_args(v)
            if name in self.env:
                self.impure_params(name)
                self.set(name, ["move", self.current(name), target], cond)
                return
        if isinstance(v, (ast.Yield, ast.YieldFrom)):
            self.generator = True
        if isinstance(v, ast.Call) and self.caller is not None:
            self.sites_only(v)
        self.uses(v)

    def return_(self, s, cond: bool) -> None:
        if s.value is None:
            self.returns.append(["none"])
            return
        if isinstance(s.value, ast.Name) and s.value.id in self.held:
            self.escape(s.value.id)  # the caller gets what the dict holds
        d = self.desc(s.value)
        self.returns.append(UNKNOWN if self.loops else d)

    def if_(self, s, cond: bool) -> None:
        self.note_isinstance(s.test)
        self.uses(s.test)
        self.block(s.body, True)
        self.block(s.orelse, True)

    def loop(self, s, cond: bool) -> None:
        if isinstance(s, ast.While):
            self.uses(s.test)
        else:
            self.uses(s.iter)
            self.assign(s.target, UNKNOWN, True)
        self.loops += 1
        self.block(s.body, True)
        self.loops -= 1
        self.block(s.orelse, True)

    def with_(self, s, cond: bool) -> None:
        for item in s.items:
            self.uses(item.context_expr)
            if item.optional_vars is not None:
                self.assign(item.optional_vars, UNKNOWN, cond)
        self.block(s.body, cond)

    def try_(self, s, cond: bool) -> None:
        self.block(s.body, True)
        for h in s.handlers:
            self.block(h.body, True)
        self.block(s.orelse, True)
        self.block(s.finalbody, cond)

    def match_(self, s, cond: bool) -> None:
        self.uses(s.subject)
        for case in s.cases:
            self.block(case.body, True)

    def definition(self, s, cond: bool) -> None:
        for n in _walk(s):
            if isinstance(n, ast.Name) and n.id in self.env:
                self.escape(n.id)  # a closure may do anything with it later
        self.env[s.name] = [UNKNOWN]

    def sites_only(self, call: ast.Call) -> None:
        """Record the call sites of a call run as a statement (`train(model, loader)`), leaving
        the walk's own reading of it (`uses`) unchanged: what desc lets escape is undone."""
        saved = ({k: list(v) for k, v in self.env.items()}, set(self.impure), dict(self.held), self.generator)
        self.desc(call)
        self.env, self.impure, self.held, self.generator = saved

    def alias(self, value, targets) -> None:
        """`net = model`, `net = model.eval()`, `self.model = model`: two names for one module,
        so what happens through one happens to the other; we stop following it."""
        root = value
        while isinstance(root, ast.Call) and isinstance(root.func, ast.Attribute) and (root.func.attr in kb.nn.MODULE_MOVES or kb.returns_self(root.func.attr)):
            root = root.func.value
        if isinstance(root, ast.Name) and root.id in self.env and any(
            not (isinstance(t, ast.Name) and t.id == root.id) for t in targets
        ):
            self.escape(root.id)

    def note_isinstance(self, test) -> None:
        for n in _walk(test):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "isinstance" and n.args:
                if isinstance(n.args[0], ast.Name):
                    self.isinstance_params.add(n.args[0].id)

    def assign(self, target, d, cond: bool) -> None:
        if isinstance(target, ast.Name):
            self.set(target.id, d, cond)
        elif isinstance(target, (ast.Tuple, ast.List)):
            parts = d[1] if d[0] == "tuple" and len(d[1]) == len(target.elts) else None
            for i, el in enumerate(target.elts):
                self.assign(el, parts[i] if parts else UNKNOWN, cond)
        elif isinstance(target, ast.Starred):
            self.assign(target.value, UNKNOWN, cond)
        elif isinstance(target, ast.Subscript) and self.holds_tensor(target.value):
            # `out[:, y:y + h] = patch`: an element store copies into `out`'s own storage, so
            # `out` keeps its device whatever the stored value's (only the index is read)
            self.uses(target.slice)
        else:
            # `self.x = model`, `d[k] = model`: stored where we cannot follow it
            self.uses(target)

    def holds_tensor(self, e) -> bool:
        """Is `e` a local name every path binds to a tensor made by a torch factory
        (`torch.zeros(...)`, `torch.empty_like(x)`), moved or not?"""
        ds = self.env.get(e.id) if isinstance(e, ast.Name) else None
        return bool(ds) and all(_made_tensor(d) for d in ds)

    def set(self, name: str, d, cond: bool) -> None:
        if _larger_than(d, MAX_DESC):
            d = UNKNOWN  # `out = f(out)` again and again in an arm: see MAX_DESC
        if cond and name in self.env:
            self.env[name] = self.env[name] + [d]
        else:
            self.env[name] = [d]

    def current(self, name: str):
        ds = self.env.get(name)
        if not ds:
            return ["global", name]
        return ds[0] if all(x == ds[0] for x in ds) else ["join", list(ds)]

    def impure_params(self, name: str) -> None:
        for d in self.env.get(name, ()):
            if d[0] == "param":
                self.impure.add(d[1])

    def escape(self, name: str, why=UNKNOWN) -> None:
        ds = self.env.get(name)
        if ds is None:
            return
        for d in ds:
            if d[0] == "param":
                self.impure.add(d[1])
        self.env[name] = ds + [why]
        for inner in self.held.pop(name, ()):
            self.escape(inner)

    def holder(self, s: ast.Assign, cond: bool) -> bool:
        """`state = {"epoch": epoch, "encoder": encoder}`: a checkpoint dict holding names; they
        escape only when it does (`torch.save(state, path)` moves nothing)."""
        v = s.value
        if not (isinstance(v, ast.Dict) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)
                and all(isinstance(k, ast.Constant) for k in v.keys)
                and all(isinstance(x, (ast.Name, ast.Constant)) for x in v.values)):
            return False
        name = s.targets[0].id
        self.escape(name)  # what an earlier binding held goes with it
        self.set(name, UNKNOWN, cond)
        self.held[name] = [x.id for x in v.values if isinstance(x, ast.Name) and x.id in self.env]
        return True

    # ---- expressions

    def desc(self, e):
        """What `e` yields; names it hands on to code we cannot see escape."""
        if isinstance(e, ast.Name):
            return self.current(e.id)
        if isinstance(e, ast.Constant):
            if isinstance(e.value, str):
                where = kb.torch_core.parse_device_string(e.value)
                return ["device", where] if where else UNKNOWN
            if isinstance(e.value, bool):
                return ["const", e.value]  # a flag's value (`use_gpu=False`), for contexts.py
            return ["none"] if e.value is None else UNKNOWN
        if isinstance(e, ast.IfExp):
            self.uses(e.test)
            return ["join", [self.desc(e.body), self.desc(e.orelse)]]
        if isinstance(e, ast.Tuple):
            return ["tuple", [self.desc(x) for x in e.elts]]
        if isinstance(e, ast.Call):
            return self.call(e)
        if isinstance(e, (ast.DictComp, ast.ListComp, ast.GeneratorExp, ast.SetComp)):
            return self.comprehension(e)
        if isinstance(e, ast.Subscript) and self.holds_tensor(e.value):
            self.uses(e.slice)
            return self.current(e.value.id)  # `out[:, :h]`: a view of `out`, on its device
        if isinstance(e, (ast.Yield, ast.YieldFrom)):
            self.generator = True
        self.uses(e)
        return UNKNOWN

    def call(self, e: ast.Call):
        f = e.func
        if isinstance(f, ast.Attribute):
            d = self.method_call(e, f)
            if d is not None:
                return d
        text = dotted(f)
        if text is not None and self.fn is not None and text == self.fn.name:
            self.uses_args(e)
            return ["self"]
        if text in ("tuple", "list") and len(e.args) == 1 and not e.keywords and isinstance(e.args[0], (ast.GeneratorExp, ast.ListComp)):
            return self.comprehension(e.args[0])
        if text in naming.NON_ESCAPING_BUILTINS or text == "getattr":
            for a in e.args:
                if not isinstance(a, ast.Name):
                    self.uses(a)
            return UNKNOWN
        if text is None:
            self.uses(f)
            self.uses_args(e)
            return UNKNOWN
        if isinstance(f, ast.Attribute):
            self.uses(f.value)
        return self.named_call(e, text)

    def method_call(self, e: ast.Call, f: ast.Attribute):
        """A move (`x.to(d)`), a method returning its receiver (`model.eval()`) or a harmless
        one (`model.parameters()`); None for any other method call."""
        if f.attr in kb.nn.MODULE_MOVES:
            target = self.target(e)
            self.uses_move_args(e)
            inner = self.desc(f.value) if isinstance(f.value, (ast.Name, ast.Call)) else self.desc_use(f.value)
            if isinstance(f.value, ast.Name):
                self.impure_params(f.value.id)  # the helper moves what it was given
            return inner if target == "dtype" else ["move", inner, target]
        if kb.returns_self(f.attr) and isinstance(f.value, (ast.Name, ast.Call)):
            self.uses_args(e)
            return self.desc(f.value)
        if f.attr in kb.nn.MODULE_SAFE_METHODS and isinstance(f.value, ast.Name):
            self.uses_args(e)
            return UNKNOWN
        return None

    def named_call(self, e: ast.Call, text: str):
        """["call", text, ...] for a call of a dotted name; its arguments escape, and the site
        is recorded with their descriptors from before that."""
        args = [self.desc(a) if not isinstance(a, ast.Starred) else self.desc_use(a) for a in e.args]
        for i, (a, d) in enumerate(zip(e.args, args)):
            self.escape_desc(a, ["escaped", text, i] if isinstance(a, ast.Name) else UNKNOWN)
        kws, kw_descs = [], {}
        for k in e.keywords:
            kw_descs[k.arg or "**"] = self.desc(k.value)
            kws.append(k.arg or "**")
        for k in e.keywords:
            self.escape_desc(k.value, ["escaped", text, k.arg] if isinstance(k.value, ast.Name) and k.arg else UNKNOWN)
        self.site(text, e, args, kw_descs)
        return ["call", text, kws, args[:8]]

    def site(self, text: str, e: ast.Call, args: list, kw_descs: dict) -> None:
        """Record a call site (see the module docstring): a star argument ends the positions."""
        sites = self.out["sites"]
        if self.caller is None or len(sites) >= MAX_SITES:
            return
        star = next((i for i, a in enumerate(e.args) if isinstance(a, ast.Starred)), len(e.args))
        sites.append([self.caller, text, args[:star], kw_descs, e.lineno, star < len(e.args)])

    def escape_desc(self, node, why) -> None:
        """An argument to a call: whatever it names may be moved or kept by the callee. `why`,
        for a name handed on as it is: ["escaped", callee, position or keyword], which reads as
        unknown (project.py resolves no such tag) unless contexts.py finds the callee leaves
        that parameter alone."""
        nodes = _walk(node)
        # `SGD(model.parameters())`: handing on what a harmless method returns leaves the model alone
        safe = {id(n.func.value) for n in nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                and n.func.attr in kb.nn.MODULE_SAFE_METHODS and isinstance(n.func.value, ast.Name)}
        # `torch.sigmoid(model(x))`: what a called name returns is handed on, not the name itself
        safe |= {id(n.func) for n in nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
        for n in nodes:
            if isinstance(n, ast.Name) and n.id in self.env and id(n) not in safe:
                self.escape(n.id, why)

    def desc_use(self, e):
        self.uses(e)
        return UNKNOWN

    def comprehension(self, e):
        found = self.each_move(e)
        if found is not None:
            return found
        for n in _walk(e):
            if isinstance(n, ast.Name) and n.id in self.env and isinstance(n.ctx, ast.Load):
                self.escape(n.id)
        return UNKNOWN

    def each_move(self, e):
        """`[x.to(d) for x in param]` (or `{k: v.to(d) for k, v in param.items()}`, or this
        function called on each element): ["each_move", param, target], else None."""
        gens = e.generators
        if len(gens) != 1 or gens[0].ifs:
            return None
        src, var = _comprehension_source(e)
        elt = e.value if isinstance(e, ast.DictComp) else e.elt
        if not (isinstance(src, ast.Name) and isinstance(var, ast.Name) and ["param", src.id] in self.env.get(src.id, [])
                and len(self.env[src.id]) == 1 and isinstance(elt, ast.Call)):
            return None
        target = self.element_move(elt, var.id)
        if target is None:
            return None
        self.impure.add(src.id)
        return ["each_move", src.id, target]

    def element_move(self, elt: ast.Call, var: str):
        """Where `elt`, the element expression of a comprehension over `var`, moves `var`:
        `var.to(d)`, or this very function called on it (`to_device(v, device)`); else None."""
        f = elt.func
        if isinstance(f, ast.Attribute) and f.attr in ("to", "cuda") and isinstance(f.value, ast.Name) and f.value.id == var:
            target = self.target(elt)
            self.uses_move_args(elt)
            if target != "dtype":
                return target
        if self.fn is not None and dotted(f) == self.fn.name and elt.args and isinstance(elt.args[0], ast.Name) \
                and elt.args[0].id == var:
            return self.target_of_recursion(elt)
        return None

    def target_of_recursion(self, call: ast.Call):
        """`to_device(v, device)` inside `to_device(batch, device)`: the same move, if the
        device argument is passed on unchanged."""
        params = [p.arg for p in self.fn.args.args]
        if len(call.args) != len(params) or any(
            not (isinstance(a, ast.Name) and a.id == p) for a, p in list(zip(call.args, params))[1:]
        ):
            return None
        for stmt in _walk(self.fn):
            if isinstance(stmt, ast.Return) and isinstance(stmt.value, ast.Call):
                f = stmt.value.func
                if isinstance(f, ast.Attribute) and f.attr in ("to", "cuda") and isinstance(f.value, ast.Name) and f.value.id == params[0]:
                    t = self.target(stmt.value)
                    return t if t != "dtype" else None
        return None

    def target(self, call: ast.Call):
        """Where a .to()/.cuda()/.cpu() call moves to: ["param", p], "accel", "cpu", "unknown",
        or "dtype" for a cast."""
        method = call.func.attr
        if method == "cpu":
            return "cpu"
        arg = _move_arg(call)
        if method == "cuda":
            return "accel" if arg is None or isinstance(arg, (ast.Constant, ast.Name, ast.Attribute)) else "unknown"
        if arg is None:
            return "dtype"
        if isinstance(arg, ast.Constant):
            return _constant_target(arg.value)
        text = dotted(arg)
        if text is not None and "." in text and naming.looks_like_dtype(text) and text.split(".")[0] in ("torch", "th"):
            return "dtype"
        if isinstance(arg, ast.Name):
            found = self.name_target(arg.id)
            if found is not None:
                return found
        if isinstance(arg, ast.Call) and (dotted(arg.func) or "").rsplit(".", 1)[-1] == "device":
            return "accel"
        return _target_by_name(text)

    def name_target(self, name: str):
        """The target a `.to(name)` moves to, as `name`'s assignments say; None: they do not."""
        ds = self.env.get(name)
        if ds is None:
            g = self.out["values"].get(name)
            return g[1] if g is not None and g[0] == "device" else None
        if ds == [["param", name]]:
            return ["param", name]
        if all(d[0] == "device" for d in ds):
            return "accel" if any(d[1] == "accel" for d in ds) else "cpu"
        if len(ds) == 1 and ds[0][0] == "call" and ds[0][1].rsplit(".", 1)[-1] == "device":
            return "accel"
        return None

    def uses_move_args(self, call: ast.Call) -> None:
        """The device (or dtype) given to `.to()` is only read."""
        for a in [*call.args, *(k.value for k in call.keywords)]:
            if not isinstance(a, ast.Name):
                self.uses(a)

    def uses_args(self, call: ast.Call) -> None:
        for a in call.args:
            self.uses(a)
        for k in call.keywords:
            self.uses(k.value)

    def uses(self, e) -> None:
        """Names read by `e`: harmless reads (`model.fc`, `model(x)`, `model.eval()`) keep the
        value; anything else (an argument, an alias, a container) lets it escape."""
        if e is None:
            return
        stack = [e]
        while stack:
            n = stack.pop()
            if isinstance(n, ast.Name):
                if n.id in self.env and isinstance(n.ctx, ast.Load):
                    self.escape(n.id)
                continue
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name):
                continue  # `model.fc`, `batch.shape`: reading an attribute moves nothing
            if isinstance(n, ast.Call):
                f = n.func
                if isinstance(f, ast.Name) and f.id in self.env:
                    stack.extend(n.args)  # calling it (a model's forward) moves nothing
                    stack.extend(k.value for k in n.keywords)
                    continue
                if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in self.env:
                    if f.attr not in kb.nn.MODULE_SAFE_METHODS:
                        self.escape(f.value.id)  # `model.setup(device)`: it may place itself
                    stack.extend(n.args)
                    stack.extend(k.value for k in n.keywords)
                    continue
                if dotted(f) == "torch.save" and n.args:
                    # pickling an object moves nothing: only the path (and options) are read
                    stack.extend(n.args[1:])
                    stack.extend(k.value for k in n.keywords)
                    continue
                if isinstance(f, ast.Name) and f.id in naming.NON_ESCAPING_BUILTINS:
                    stack.extend(a for a in n.args if not isinstance(a, ast.Name))
                    continue
            if isinstance(n, (ast.Yield, ast.YieldFrom)):
                self.generator = True
            stack.extend(_children(n))


# statement kind -> the _Walker method that runs it (anything else: its expressions are read)
_STATEMENTS = {
    "Assign": _Walker.assign_, "AnnAssign": _Walker.assign_, "AugAssign": _Walker.aug_assign,
    "Expr": _Walker.expr_, "Return": _Walker.return_, "If": _Walker.if_,
    "For": _Walker.loop, "AsyncFor": _Walker.loop, "While": _Walker.loop,
    "With": _Walker.with_, "AsyncWith": _Walker.with_, "Try": _Walker.try_, "Match": _Walker.match_,
    "FunctionDef": _Walker.definition, "AsyncFunctionDef": _Walker.definition, "ClassDef": _Walker.definition,
}


def _comprehension_source(e):
    """A one-generator comprehension's (iterated container, element variable); `d.items()` and
    `d.values()` iterate `d`, and a dict comprehension's element is the value of `k, v`."""
    gen = e.generators[0]
    src = it = gen.iter
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and it.func.attr in ("items", "values") and not it.args:
        src = it.func.value
    var = gen.target
    if isinstance(var, ast.Tuple) and len(var.elts) == 2 and isinstance(e, ast.DictComp):
        var = var.elts[1]
    return src, var


def _move_arg(call: ast.Call):
    """The device (or dtype) a `.to()`/`.cuda()` call is given: `device=`, else the first
    positional argument; None when there is none."""
    arg = next((k.value for k in call.keywords if k.arg == "device"), None)
    if arg is None and call.args and not isinstance(call.args[0], ast.Starred):
        arg = call.args[0]
    return arg


def _constant_target(value):
    """The target of `.to(<literal>)`: an int is a CUDA ordinal, a string is parsed."""
    if isinstance(value, int) and not isinstance(value, bool):
        return "accel"
    where = kb.torch_core.parse_device_string(value) if isinstance(value, str) else None
    return where or "unknown"


def _target_by_name(text):
    """The target of `.to(x)` read from the spelling of `x` (`args.device`, `torch.float16`)."""
    if text is not None:
        if naming.looks_like_dtype(text):
            return "dtype"
        if naming.looks_like_device_name(text) and (
            "." not in text or text.split(".")[0] in naming.CONFIG_OBJECTS
        ):
            return "accel"
    return "unknown"
