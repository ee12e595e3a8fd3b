"""User classes and functions of the same file, two parts of the interpreter: class
summaries (`Classes`: is it an nn.Module, what its methods build and reach) and the bounded,
context-sensitive inline of calls (`UserCode`)."""

from __future__ import annotations

from typing import Protocol

import libcst as cst

from devicelint import contexts, crossfile
from devicelint import knowledge as kb
from devicelint import naming
from devicelint.names import Imports, dotted
from devicelint.values import OTHER, UNKNOWN, Dev, Instance, Kind, Val, mid_parts
from devicelint.flow import items
from devicelint.flow.facts import PlacedItems
from devicelint.flow.state import Frame
from devicelint.flow.held import handed_model, instances_moved, places_its_inputs
from devicelint.flow.nodes import find, is_string, keyword_value, no_grad_decorated, param_names, walk


MAX_INLINE_DEPTH = 4

STEP_BUDGET = 40_000  # statements executed per run: bounds the cost of inlining on huge files


def _attr_assigned_params(fn: cst.FunctionDef) -> set:
    """Parameters of `fn` whose attributes it assigns (`pipe.unet = ...`)."""
    names = {p.name.value for p in param_names(fn)}
    out = set()
    for n in find(fn, cst.AssignTarget):
        if isinstance(n.target, cst.Attribute):
            root = n.target.value
            if isinstance(root, cst.Name) and root.value in names:
                out.add(root.value)
    return out


def _item_assigned_params(fn: cst.FunctionDef) -> set:
    """Parameters of `fn` whose items it assigns (`batch[k] = v.to(device)`)."""
    names = {p.name.value for p in param_names(fn)}
    return {n.target.value.value for n in find(fn, cst.AssignTarget)
            if isinstance(n.target, cst.Subscript) and isinstance(n.target.value, cst.Name)
            and n.target.value.value in names}


def places_on_device(call: cst.Call) -> bool:
    """`x.cuda()`, `x.to(device)`, `torch.zeros(n, device=device)`: a call that may put a value
    on the accelerator. Casts (`x.to(torch.float32)`, `.to(dtype=...)`) and moves to the host
    (`.to("cpu")`, `device="cpu"`) place nothing there."""
    for a in call.args:
        if a.keyword is not None and a.keyword.value == "device":
            return not _names_the_host(a.value)
    if not isinstance(call.func, cst.Attribute):
        return False
    if call.func.attr.value == "cuda":
        return True
    if call.func.attr.value != "to":
        return False
    first = next((a for a in call.args if a.keyword is None and not a.star), None)
    if first is None:
        return any(a.star for a in call.args)  # `.to(**kw)`: it may name a device
    text = dotted(first.value)
    return not (_names_the_host(first.value) or (text is not None and naming.looks_like_dtype(text)))


def _names_the_host(node: cst.BaseExpression) -> bool:
    return is_string(node) in ("cpu", "CPU")


def _hands_super_a_tensor(cls: cst.ClassDef) -> bool:
    """`super().__init__(weight=w)`, `super().__init__(w)`: the base class is given something,
    which for a loss is a weight tensor it keeps (a reduction alone is a keyword string)."""
    for n in find(cls, cst.Call):
        if isinstance(n.func, cst.Attribute) and n.func.attr.value == "__init__" and \
                isinstance(n.func.value, cst.Call) and dotted(n.func.value.func) == "super":
            return any(not (a.keyword is not None and a.keyword.value in kb.nn.LOSS_OPTION_KEYWORDS) for a in n.args)
    return False


def _item_move(methods: dict) -> cst.Call | None:
    """The first call of `__getitem__` / `__getitems__`, or of a method they call through
    `self.<name>(...)`, that may put a value on the accelerator."""
    names = reachable(methods, "__getitem__") | reachable(methods, "__getitems__")
    for name in sorted(names, key=lambda m: methods[m].name.value not in ("__getitem__", "__getitems__")):
        moves = [n for n in find(methods[name], cst.Call) if places_on_device(n)]
        if moves:
            return moves[-1]  # the walk visits the last statement first: this is the earliest
    return _held_on_device(methods, names)


def _held_on_device(methods: dict, names: set) -> cst.Call | None:
    """The placing call of a `self.<attr> = ...` in `__init__` (`torch.randn(..., device="cuda")`,
    `x.to(device)`) whose attribute `__getitem__` (or a method it calls) reads: the items come
    out of device memory, which a forked DataLoader worker cannot touch either."""
    init = methods.get("__init__")
    if init is None:
        return None
    read = {n.attr.value for name in names for n in find(methods[name], cst.Attribute) if dotted(n.value) == "self"}
    held = [n for n in find(init, cst.Assign)
            if len(n.targets) == 1 and isinstance(n.targets[0].target, cst.Attribute)
            and dotted(n.targets[0].target.value) == "self" and n.targets[0].target.attr.value in read]
    for assign in reversed(held):  # the walk visits the last statement first
        moves = [n for n in find(assign.value, cst.Call) if places_on_device(n)]
        if moves:
            return moves[-1]
    return None


def reachable(methods: dict, start: str) -> set:
    """`start` (when the class has it) and the methods it calls through `self.<name>(...)`,
    transitively."""
    seen: set = {start} if start in methods else set()
    todo = [start]
    while todo:
        fn = methods.get(todo.pop())
        if fn is None:
            continue
        for n in find(fn, cst.Call):
            if (isinstance(n.func, cst.Attribute) and isinstance(n.func.value, cst.Name)
                    and n.func.value.value == "self" and n.func.attr.value in methods
                    and n.func.attr.value not in seen):
                seen.add(n.func.attr.value)
                todo.append(n.func.attr.value)
    return seen


def _registered(methods) -> frozenset:
    """Names a module registers as buffers or parameters (`self.register_buffer("pe", pe)`, or
    through an alias such as lucidrains' `register_buffer = lambda name, val: ...`): `.to()`
    moves them with the module."""
    names = set()
    for fn in methods.values():
        for n in find(fn, cst.Call):
            if (dotted(n.func) or "").endswith(("register_buffer", "register_parameter")) and n.args:
                name = is_string(n.args[0].value)
                if name is not None:
                    names.add(name)
    return frozenset(names)


def _sets_self_attribute(target) -> bool:
    """`self.fc = ...`, or `self.c1, self.c2 = ...`."""
    if isinstance(target, (cst.Tuple, cst.List)):
        return any(_sets_self_attribute(e.value) for e in target.elements)
    return isinstance(target, cst.Attribute) and dotted(target.value) == "self"


def _placeholder_info() -> dict:
    """What a class is taken for while its own summary is being made (a class may build
    instances of itself: trees of blocks): a module that may hold anything."""
    return {"methods": {}, "module": True, "dataset": False, "framework": False,
            "self_moves": False, "places_items": False, "parts": set(), "layers": set(), "has_params": True, "opaque": True,
            "registers_modules": True,
            "init_only": set(), "forward_path": set()}


def _methods_of(cls: cst.ClassDef) -> dict:
    """The class's own methods by name."""
    methods = {}
    for stmt in cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ():
        if isinstance(stmt, cst.FunctionDef):
            methods[stmt.name.value] = stmt
    return methods


def _moves_itself(methods: dict) -> bool:
    """`self.to(device)`, `self.cuda()` in one of its methods."""
    return any(
        isinstance(n.func, cst.Attribute)
        and n.func.attr.value in ("to", "cuda", "to_empty")
        and isinstance(n.func.value, cst.Name)
        and n.func.value.value == "self"
        for fn in methods.values()
        for n in find(fn, cst.Call)
    )


def _self_move_in_init(init: cst.FunctionDef | None) -> cst.Call | None:
    """The `self.to(x)` / `self.cuda()` that places a module its `__init__` moves: the last such
    statement of the body itself, when every move of `self` there is one (a move under an `if`
    or in a loop leaves the place to the run)."""
    if init is None or not isinstance(init.body, cst.IndentedBlock):
        return None
    top = [small.value for stmt in init.body.body if isinstance(stmt, cst.SimpleStatementLine)
           for small in stmt.body if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)]
    moves = [c for c in find(init, cst.Call) if isinstance(c.func, cst.Attribute) and c.func.attr.value in ("to", "cuda")
             and isinstance(c.func.value, cst.Name) and c.func.value.value == "self"]
    if not moves or any(not any(m is t for t in top) for m in moves):
        return None
    return moves[-1]


def _registers_modules(methods: dict) -> bool:
    """Modules registered by name at run time, or a `to()` of its own: a plain list of layers
    may then be moved after all."""
    return any(m in methods for m in ("to", "cuda", "_apply")) or any(
        isinstance(n, cst.Call) and (dotted(n.func) or "").rsplit(".", 1)[-1] in (
            "add_module", "register_module", "setattr", "__setattr__")
        for fn in methods.values() for n in find(fn, cst.Call))


def _assigned_pairs(t: cst.AssignTarget, value) -> list:
    """(target, value) of one assignment target; `a, b = x, y` pairs each name with its value
    (None where the counts differ)."""
    if not isinstance(t.target, (cst.Tuple, cst.List)):
        return [(t.target, value)]
    values = value.elements if isinstance(value, (cst.Tuple, cst.List)) else ()
    return [(e.value, v.value if len(values) == len(t.target.elements) else None)
            for e, v in zip(t.target.elements, values or [None] * len(t.target.elements))]


def _project_base(ext: dict) -> dict:
    """What a base class from another file of the project gives (crossfile's facts of it); we
    do not see it whole, so the class is opaque."""
    return {"module": ext["module"], "has_params": ext["has_params"], "dataset": ext["dataset"],
            "framework": ext["framework"] or ext["self_moves"], "opaque": True}


def _library_base(cls: cst.ClassDef, q: str, lib) -> dict:
    """What a library base class (knowledge's base_class facts) gives: a loss holds a tensor
    only when given one (`CrossEntropyLoss(weight=w)`)."""
    weights = lib.weights and not (kb.nn.is_loss(q.rsplit(".", 1)[-1]) and not _hands_super_a_tensor(cls))
    return {"module": lib.module, "has_params": weights, "dataset": lib.dataset, "framework": lib.framework}


def _is_self_attribute(node) -> bool:
    return isinstance(node, cst.Attribute) and dotted(node.value) == "self"


class ClassHost(Protocol):
    """What the class-summary part asks of the interpreter that holds it: the module (which
    classes it moves), its import table (what a base or a layer is) and the module's frame
    (the classes defined in the file), nothing it runs."""

    module: cst.Module
    imports: Imports
    module_frame: Frame | None


class Classes:
    """A part of the interpreter (not a mixin): the summary of each class of the file (is it
    an nn.Module, with weights, a dataset, a framework class; what it registers, moves and
    places; which methods `__init__` and `forward` reach), made once per class. It owns those
    summaries and reaches the interpreter only through `ClassHost`."""

    def __init__(self, host: ClassHost):
        self.host = host
        self.class_info: dict = {}  # id(ClassDef) -> its summary
        self._owners: dict | None = None  # id(method) -> the top-level class it is written in

    def super_method(self, fn: cst.FunctionDef, name: str) -> cst.FunctionDef | None:
        """`super().name(...)` in method `fn` of a top-level class of this file: the method of
        the first base that has it, when the bases before it are classes of this file (an
        unseen base first in line may define it too: None)."""
        owners = self._owners
        if owners is None:
            owners = self._owners = {
                id(m): c for c in self.host.module.body if isinstance(c, cst.ClassDef) for m in _methods_of(c).values()}
        cls = owners.get(id(fn))
        for base in cls.bases if cls is not None else ():
            local = self.host.module_frame.state.vars.get(dotted(base.value) or "")
            if local is None or local.kind is not Kind.CLASS or local.ref is cls or not isinstance(local.ref, cst.ClassDef):
                return None
            found = self.class_of(local.ref)["methods"].get(name)
            if found is not None:
                return found
        return None

    def class_of(self, cls: cst.ClassDef) -> dict:
        info = self.class_info.get(id(cls))
        if info is None:
            self.class_info[id(cls)] = _placeholder_info()
            info = self._summarise_class(cls)
            self.class_info[id(cls)] = info
        return info

    def _summarise_class(self, cls: cst.ClassDef) -> dict:
        """Is the class a module (with weights), a dataset, a framework class; what it
        registers, moves and places; which methods `__init__` and `forward` reach."""
        methods = _methods_of(cls)
        inherited = self._inherited(cls, methods)
        module, dataset = inherited["module"], inherited["dataset"]
        self_moves = _moves_itself(methods) if module or dataset else False
        has_params = module and (inherited["has_params"] or self._builds_state(methods))
        # a Dataset that places what it holds or returns (`self.x[i].to(device)` in
        # `__getitem__`, `self.x = x.to(device)` in `__init__`): its batches are not host data
        places_items = dataset and any(places_on_device(n) for fn in methods.values() for n in find(fn, cst.Call))
        # the move its `__getitem__` (or a method that one calls) makes: it runs wherever
        # the items are loaded, in a DataLoader's worker processes too
        item_move = _item_move(methods) if places_items else None
        # what it returns, position by position, where `__getitem__` visibly places it
        item = items.of_getitem(methods.get("__getitem__"), places_on_device) if places_items else None
        parts, layers = self._module_parts(methods) if module else (set(), set())
        registers = module and _registers_modules(methods)
        # a class of an unseen base that places its inputs itself and is never moved here:
        # the models it keeps are where it built them (see held.places_its_inputs)
        places_inputs = inherited["opaque"] and not module and places_its_inputs(methods) \
            and not instances_moved(self.host.module, cls)
        return {"methods": methods, "module": module, "dataset": dataset, "framework": inherited["framework"],
                "registers_modules": registers,
                "buffers": _registered(methods) if module else frozenset(),
                "self_moves": self_moves, "places_items": places_items, "item_move": item_move, "item": item, "parts": parts, "layers": layers, "has_params": has_params, "opaque": inherited["opaque"] and not places_inputs,
                "init_only": reachable(methods, "__init__") if module else set(),
                "forward_path": reachable(methods, "forward") if module else set()}

    def _inherited(self, cls: cst.ClassDef, methods: dict) -> dict:
        """What the bases make the class: module, dataset, framework, inherited weights
        (`has_params`), opaque (a base we cannot see). A base class of this file also gives
        its methods (added to `methods` where the class has none of that name)."""
        got = {"module": False, "dataset": False, "framework": False, "has_params": False, "opaque": False}
        for base in cls.bases:
            for k, v in self._base_facts(cls, base, methods).items():
                got[k] |= v
        return got

    def _base_facts(self, cls: cst.ClassDef, base: cst.Arg, methods: dict) -> dict:
        q = self.host.imports.qualname(base.value) or ""
        text = dotted(base.value) or ""
        last = text.rsplit(".", 1)[-1]
        local = self.host.module_frame.state.vars.get(text) if self.host.module_frame else None
        ext = crossfile.base_facts(self.host.imports, base.value) if local is None and self.host.imports.project else None
        if ext is not None:  # a base class from another file of the project
            return _project_base(ext)
        if local is not None and local.kind is Kind.CLASS and local.ref is not cls:
            parent = self.class_of(local.ref)
            for k, v in parent["methods"].items():
                methods.setdefault(k, v)
            return {k: parent[k] for k in ("module", "has_params", "dataset", "framework")}
        lib = kb.base_class(q, last)
        if lib is not None:
            return _library_base(cls, q, lib)
        if not kb.is_plain_base(q, last):
            return {"opaque": True}  # defined elsewhere: it may be an nn.Module, or move what it holds
        return {}

    def _module_parts(self, methods: dict) -> tuple[set, set]:
        """A module's parts (its methods and the `self.<name>` its `__init__` sets) and, of those,
        the torch layers `.to()` moves with it."""
        parts = set(methods) - {"__init__", "to", "cuda", "cpu", "train", "eval"}
        layers = set()
        init = methods.get("__init__")
        if init is None:
            return parts, layers
        for n in find(init, cst.Assign):
            for t in n.targets:
                for target, value in _assigned_pairs(t, n.value):
                    if _is_self_attribute(target):
                        parts.add(target.attr.value)
                        if value is not None and self._torch_layer(value):
                            layers.add(target.attr.value)
        parts.update(n.target.attr.value for n in find(init, cst.AnnAssign) if _is_self_attribute(n.target))
        return parts, layers

    def _torch_layer(self, value) -> bool:
        """`nn.Linear(8, 16)`, `nn.Sequential(...)`: a registered submodule that `.to()` moves
        with its parent (a plain list of layers is not one)."""
        if not isinstance(value, cst.Call):
            return False
        q = self.host.imports.qualname(value.func) or ""
        last = q.rsplit(".", 1)[-1]
        return q.startswith("torch.nn.") and last[:1].isupper() and not q.startswith("torch.nn.Parameter") \
            and last not in ("Parameter", "ParameterList", "ParameterDict")

    def _builds_state(self, methods) -> bool:
        """Does the class create parameters or buffers (so that it needs moving)? Evidence only:
        a layer with weights, a Parameter, a registered buffer, or something we cannot see."""
        for fn in methods.values():
            for n in walk(fn):
                if isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and n.func.attr.value in (
                    "register_buffer", "register_parameter", "add_module", "register_module"
                ):
                    return True
                if isinstance(n, cst.Assign) and any(_sets_self_attribute(t.target) for t in n.targets) \
                        and self._stateful_value(n.value):
                    return True
        return False

    def _stateful_value(self, value) -> bool:
        if isinstance(value, (cst.List, cst.Tuple)):
            return any(self._stateful_value(e.value) for e in value.elements)
        if not isinstance(value, cst.Call):
            return False
        q = self.host.imports.qualname(value.func) or ""
        if q.startswith("torch."):
            last = q.rsplit(".", 1)[-1]
            if q.startswith("torch.nn.") and last[:1].isupper():
                if last in kb.nn.CONTAINERS:
                    return any(self._stateful_value(a.value) for a in value.args) or not value.args
                return last not in kb.nn.PARAM_FREE_LAYERS and not (kb.nn.is_loss(last) and not value.args)
            return False  # a tensor factory: a plain attribute, not a parameter
        text = dotted(value.func) or ""
        local = self.host.module_frame.state.vars.get(text) if self.host.module_frame else None
        if local is not None and local.kind is Kind.CLASS:
            info = self.class_of(local.ref)
            return info["module"] and info.get("has_params", True)
        return True  # a factory we cannot see: assume it builds weights


class ModelMaker(Protocol):
    """What the inline part asks of the model part: a model built by a constructor of this file
    (declared here, not imported: flow/models.py reaches this module through the recording
    part, so importing it back would make a cycle)."""

    def new_model(self, node: cst.Call, built: bool = False, name: str | None = None, kw=None, cls=None) -> Val: ...


class BodyRunner(Protocol):
    """The two things the inline part asks the statement part (flow/statements.py
    Statements), declared here rather than imported: statements.py imports this module (its
    host's interface names the class summaries)."""

    def exec_suite(self, suite) -> None: ...

    def rebind_text(self, node, value: Val) -> None: ...


class UserCodeHost(Protocol):
    """What the inline part asks of the interpreter that holds it: the frame being run (it
    runs a callee in a frame of its own and restores the caller's), the module's frame, the
    statements run so far, whether gradients are off, the class summaries and the models, the
    statement part (run a body, rebind the caller's names), and the transfer functions that
    evaluate arguments and defaults and hand values to code we cannot see."""

    frame: Frame | None
    module_frame: Frame | None
    steps: int
    no_grad: int
    classes: Classes
    models: ModelMaker
    statements: BodyRunner

    def args(self, node: cst.Call) -> tuple: ...

    def eval(self, node) -> Val: ...

    def escape(self, vals) -> None: ...


class UserCode:
    """A part of the interpreter (not a mixin): a call of a function or class of this file run
    inline with its arguments (bounded by depth and the run's step budget), a constructor's
    value, a property's getter; after the call, the caller's arguments are where the callee
    left them. It reaches the interpreter only through `UserCodeHost`."""

    def __init__(self, host: UserCodeHost):
        self.host = host

    def construct(self, node: cst.Call, cls: cst.ClassDef) -> Val:
        info = self.host.classes.class_of(cls)
        if info["module"]:
            pos, kw = self.host.args(node)
            if info["framework"] or info["self_moves"] or any(v.kind is Kind.DEVICE for v in pos + list(kw.values())):
                placed = self._self_placed(info["methods"].get("__init__"), pos, kw) if info["self_moves"] else Dev.UNKNOWN
                return Val(Kind.MODULE, placed, name=cls.name.value, ref=cls)
            if not info["has_params"]:
                # no weights of its own; it may keep those of a model it is handed
                held = handed_model(info["methods"].get("__init__"), pos, kw)
                if held is not None:
                    return held.with_(name=cls.name.value, ref=cls)
                return Val(Kind.MODULE, param_free=True, name=cls.name.value, ref=cls)
            return self.host.models.new_model(node, built=True, name=cls.name.value, cls=cls)
        if info["dataset"]:
            pos, kw = self.host.args(node)
            args = pos + list(kw.values())
            host_told = any(v.kind is Kind.DEVICE and v.dev is Dev.CPU for v in args)  # `Pairs(device="cpu")`
            item = info.get("item") if not host_told and "**" not in kw else None
            if info.get("item_move") is not None and not host_told:
                return Val(Kind.DATASET, Dev.UNKNOWN, ref=PlacedItems(info["item_move"], cls), elem=item)
            if info["self_moves"] or info["places_items"] or \
                    any(v.kind is Kind.DEVICE or v.dev is Dev.ACCEL for v in args):
                return Val(Kind.DATASET, Dev.UNKNOWN, elem=item)
            return Val(Kind.DATASET, Dev.CPU, name=None)
        inst = Instance(cls)
        val = Val(Kind.OBJECT, ref=inst, name=cls.name.value)
        init = info["methods"].get("__init__")
        if init is not None:
            self.inline(node, init, self.host.module_frame, val)
        else:
            pos, kw = self.host.args(node)
        return val

    def _self_placed(self, init: cst.FunctionDef | None, pos: list, kw: dict) -> Dev:
        """Where a module whose `__init__` moves itself is once built: `self.cuda()`, or
        `self.to(device)` with `device` a parameter, as this call gives it (or by its default:
        `device="cuda"`); unknown for anything else."""
        move = _self_move_in_init(init)
        if move is None or move.func.attr.value == "cuda":
            return Dev.ACCEL if move is not None else Dev.UNKNOWN
        arg = keyword_value(move, "device") or next((a.value for a in move.args if a.keyword is None), None)
        params = param_names(init)[1:]
        index = next((i for i, p in enumerate(params) if isinstance(arg, cst.Name) and p.name.value == arg.value), None)
        if index is None:
            return Dev.UNKNOWN
        p = params[index]
        given = pos[index] if index < len(pos) else kw.get(p.name.value)
        if given is None and "**" not in kw and len(pos) <= len(params):
            given = self.host.eval(p.default) if p.default is not None else None
        return given.dev if given is not None and given.kind is Kind.DEVICE else Dev.UNKNOWN

    def inline(self, node: cst.Call, fn: cst.FunctionDef, closure: Frame, self_val: Val | None,
               ctx: Val | None = None) -> Val:
        """Run `fn` for this call. `self_val` binds its first parameter as the object the method
        runs on; `ctx` binds it to a value that is no such object (an autograd Function's context)."""
        pos, kw = self.host.args(node)
        if self._too_deep(fn) or any(d.decorator for d in fn.decorators if not self._harmless_decorator(d)):
            self.host.escape(pos + list(kw.values()))
            return UNKNOWN
        frame = Frame(fn, self.host.frame, node, closure, self_val)
        params = param_names(fn)
        first = self_val if self_val is not None else ctx
        if first is not None and params:
            frame.state.vars[params[0].name.value] = first
            params = params[1:]
        saved = self.host.frame
        self.host.frame = frame
        no_grad = no_grad_decorated(fn)
        self.host.no_grad += no_grad
        try:
            for i, p in enumerate(params):
                if i < len(pos):
                    v = pos[i]
                elif p.name.value in kw:
                    v = kw[p.name.value]
                elif p.default is not None:
                    v = self.host.eval(p.default)
                else:
                    v = UNKNOWN
                frame.state.vars[p.name.value] = v
                if v.mid is not None:
                    frame.param_mids.add(v.mid)
            for p in fn.params.kwonly_params:
                v = kw.get(p.name.value) or (self.host.eval(p.default) if p.default is not None else UNKNOWN)
                frame.state.vars[p.name.value] = v
                if v.mid is not None:
                    frame.param_mids.add(v.mid)
            frame.state.vars.update(contexts.literal_flags(node, fn, first is not None))
            if len(pos) > len(params) or "**" in kw:
                self.host.escape(pos[len(params):] + [kw.get("**", UNKNOWN)])
            self.host.statements.exec_suite(fn.body)
        finally:
            self.host.frame = saved
            self.host.no_grad -= no_grad
        self._forget_rebuilt_args(node, fn, params, pos)
        self._refill_items_of_args(node, fn, frame, params, pos)
        self._moved_args(node, frame, params, pos)
        if frame.generator:
            return UNKNOWN
        out = frame.returned()
        return out if out is not None else OTHER

    def _too_deep(self, fn: cst.FunctionDef) -> bool:
        """Running `fn` here would recurse, nest past MAX_INLINE_DEPTH, or overrun the run's
        step budget."""
        depth, f = 0, self.host.frame
        while f is not None:
            if f.func is fn:
                return True
            depth += 1
            f = f.parent
        return depth >= MAX_INLINE_DEPTH or self.host.steps > STEP_BUDGET

    def property_value(self, node: cst.Attribute, fn: cst.FunctionDef, self_val: Val) -> Val:
        """`self.device` of a class whose `device` is a property (`return next(self.parameters()).device`):
        what its getter returns on this object."""
        if self._too_deep(fn) or not fn.params.params:
            return UNKNOWN
        frame = Frame(fn, self.host.frame, node, self.host.module_frame, self_val)
        frame.state.vars[fn.params.params[0].name.value] = self_val
        saved, self.host.frame = self.host.frame, frame
        try:
            self.host.statements.exec_suite(fn.body)
        finally:
            self.host.frame = saved
        out = frame.returned()
        return out if out is not None and not frame.generator else UNKNOWN

    def _forget_rebuilt_args(self, node: cst.Call, fn: cst.FunctionDef, params: list, pos: list) -> None:
        """`load_adapter(pipe, ...)` doing `pipe.unet = PeftModel.from_pretrained(...)`: the
        caller's moved model now holds a part that may be anywhere."""
        rebuilt = _attr_assigned_params(fn)
        if not rebuilt:
            return
        positional = [a for a in node.args if a.keyword is None and not a.star]
        for i, p in enumerate(params[: len(positional)]):
            v = pos[i] if i < len(pos) else None
            if (p.name.value in rebuilt and v is not None and v.kind in (Kind.MODULE, Kind.OBJECT)
                    and v.moved_at is not None and isinstance(positional[i].value, (cst.Name, cst.Attribute))):
                self.host.statements.rebind_text(positional[i].value, v.with_(moved_at=None, key=None, dev=Dev.UNKNOWN))

    def _moved_args(self, node: cst.Call, frame: Frame, params: list, pos: list) -> None:
        """`place(model, device)` running `model.to(device)`: a module moves in place, so the
        caller's model is where the callee left it (moved on every path), or of unknown place
        (moved on some path only, or wrapped and moved there)."""
        positional = [a for a in node.args if a.keyword is None and not a.star]
        for i, p in enumerate(params[: len(positional)]):
            v = pos[i] if i < len(pos) else None
            if v is None or v.mid is None or v.kind not in (Kind.MODULE, Kind.UNKNOWN) \
                    or not (mid_parts(v.mid) & frame.moved_models) or not isinstance(positional[i].value, cst.Name):
                continue
            after = None if frame.state.dead else frame.state.vars.get(p.name.value)
            if after is not None and after.mid == v.mid and after.moved_at is not None:
                self.host.statements.rebind_text(positional[i].value, after)
            else:
                self.host.statements.rebind_text(positional[i].value, v.with_(dev=Dev.UNKNOWN, moved_at=None, key=None))

    def _refill_items_of_args(self, node: cst.Call, fn: cst.FunctionDef, frame: Frame, params: list,
                              pos: list) -> None:
        """`move_device(batch, keys, device)` doing `x[k] = v.to(device)`: the caller's batch
        or dict is the same object, so after the call it holds what the callee left in it."""
        filled = _item_assigned_params(fn)
        if not filled or frame.state.dead:
            return
        positional = [a for a in node.args if a.keyword is None and not a.star]
        for i, p in enumerate(params[: len(positional)]):
            v = pos[i] if i < len(pos) else None
            after = frame.state.vars.get(p.name.value)
            if (p.name.value in filled and v is not None and after is not None
                    and (v.loader is not None or v.kind is Kind.MAPPING)
                    and isinstance(positional[i].value, cst.Name)):
                self.host.statements.rebind_text(positional[i].value, after)

    def _harmless_decorator(self, d) -> bool:
        text = dotted(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator) or ""
        return text.rsplit(".", 1)[-1] in ("no_grad", "inference_mode", "staticmethod", "classmethod", "enable_grad", "wraps",
                                           "cache", "lru_cache")
