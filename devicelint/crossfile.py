"""The inference's side of project-wide imports: a call to a class or function of another
file of the project becomes the abstract value its summary promises (project.py).

A model class from `models.py` is built on the host, as a class of the file itself would be;
a factory that returns `Net().to(device)` gives a model on the device; `to_device(batch,
device)` gives the batch on the device. Whatever the summary cannot tell stays UNKNOWN.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from devicelint.names import dotted
from devicelint import naming
from devicelint.values import SCATTERS
from devicelint.values import NONE, OTHER, UNKNOWN, Dev, Kind, Val, places_or_holds


# A damaged cache entry or a summary of an unexpected shape must not crash the linter. Each
# `try` below covers only the reading of summary data (the project view, names.Imports'
# project symbols, the facts' shapes): the interpreter's own work (`interp...`) runs outside
# it, so that a programming error there (a renamed method is an AttributeError) is the lint's
# "internal error" line, not a silent UNKNOWN and a lost finding.
_DAMAGE = (KeyError, TypeError, ValueError, IndexError, AttributeError, OSError)


def symbol(interp, func):
    """The project symbol a called name means here, unless a local name shadows it."""
    node = func
    while type(node) is cst.Attribute:  # exact types: see names.dotted
        node = node.value
    if type(node) is not cst.Name or not interp.imports.from_project(node.value):
        return None  # the common case, decided without spelling the name out
    text = dotted(func)
    head = node.value
    if text is None or interp.frame.lookup(head) is not None or (
        interp.module_frame is not None and head in interp.module_frame.state.vars
    ):
        return None
    imports = interp.imports
    try:
        return imports.project_symbol(text)
    except _DAMAGE:
        return None


def base_facts(imports, base):
    """Facts about a base class imported from another file of the project, or None."""
    text = dotted(base)
    try:
        sym = imports.project_symbol(text) if text else None
        if sym is None or sym[0] != "class":
            return None
        return imports.project.class_facts(sym[1], sym[2])
    except _DAMAGE:
        return None


def builds_host_models(interp, path) -> bool:
    view = interp.imports.project
    try:
        return view.builds_host_models(path)
    except _DAMAGE:
        return False


def _function_symbol(interp, name: cst.Name):
    sym = symbol(interp, name)
    return sym if sym is not None and sym[0] == "function" else None


def never_places(interp, name: cst.Name) -> bool:
    """A function of another project file handed on by name (`collate_fn=pad_batch`) that
    decides no device, nor does anything it calls (project.FileView.never_places)."""
    sym = _function_symbol(interp, name)
    view = interp.imports.project
    try:
        return sym is not None and view.never_places(sym[1], sym[2])
    except _DAMAGE:
        return False


def collated(interp, name: cst.Name) -> Val | None:
    """The batch a collate function of another project file returns, where its summary's
    return visibly moves it (`return xs.to(device), ys.to(device)`)."""
    sym = _function_symbol(interp, name)
    view = interp.imports.project
    try:
        fn = view.function(sym[1], sym[2]) if sym is not None else None
        ret = fn["ret"] if fn is not None else None
    except _DAMAGE:
        return None
    return item_of_summary(_placed_positions(ret))


def _placed_positions(ret):
    """A return descriptor as an item descriptor (summary._item): moves to the accelerator
    are "accel", anything else None."""
    if isinstance(ret, list) and ret[:1] == ["tuple"] and len(ret) == 2 and isinstance(ret[1], list):
        return ["tuple", [_placed_positions(r) for r in ret[1]]]
    return "accel" if isinstance(ret, list) and len(ret) == 3 and ret[0] == "move" and ret[2] == "accel" else None


def call(interp, node, sym) -> Val | None:
    """The value of calling `sym`; None when the caller's own handling should decide."""
    view = interp.imports.project
    if sym[0] == "lib":
        return interp.api.call_api(node, sym[1])
    if sym[0] == "class":
        try:
            facts = view.class_facts(sym[1], sym[2])
            if facts is not None and not _class_facts_ok(facts):
                return None
        except _DAMAGE:
            return None
        if facts is not None and facts["iterates"]:
            _note_iterated_loaders(interp, node, facts)
        if facts is not None and not (facts["module"] or facts["dataset"]) and facts["runs"]:
            return _runner_call(interp, node, facts)
        if facts is None or not (facts["module"] or facts["dataset"]):
            return None
        return _class_call(interp, node, sym, facts)
    if sym[0] != "function":
        return None
    try:
        fn = view.function(sym[1], sym[2])
        if fn is None:
            return None
        fact = view.returns(sym[1], sym[2])
        params, kwonly, pure = list(fn["params"]), list(fn["kwonly"]), set(fn["pure"])
    except _DAMAGE:
        return None
    return _function_call(interp, node, sym, fn, fact, params, kwonly, pure)


@dataclass(frozen=True)
class Runner:
    """An instance of a project class that keeps modules its constructor was handed and runs
    them in its methods (summary `runs`): `models` holds (init parameter, the caller's name for
    the module, the module's identity), `runs` (method, init parameter, position)."""
    models: tuple
    runs: tuple


def _runner_call(interp, node, facts) -> Val | None:
    """`explainer = Saliency(model)`: the instance keeps the caller's model where it is (the
    class neither moves it nor hands it on), so it does not escape. Only a model handed as a
    plain name of the caller, known to be a module, is kept; otherwise None (as before)."""
    if facts["any_move"] or facts["self_moves"] or any(a.star for a in node.args):
        return None
    params = facts["init_params"] or []
    wanted = {held for held, _ in facts["runs"].values()}
    models = []
    for i, a in enumerate(node.args):
        param = a.keyword.value if a.keyword is not None else params[i] if i < len(params) else None
        v = interp.frame.lookup(a.value.value) if isinstance(a.value, cst.Name) else None
        if param in wanted and v is not None and v.kind is Kind.MODULE and v.mid is not None:
            models.append((param, a.value.value, v.mid))
    if not models:
        return None  # as before: the caller's handling of code it cannot see
    pos, kw = interp.args(node)
    kept = {mid for _, _, mid in models}
    interp.escape([v for v in pos + list(kw.values()) if not (v.kind is Kind.MODULE and v.mid in kept)])
    runs = tuple((m, held, at) for m, (held, at) in sorted(facts["runs"].items()))
    return Val(Kind.OBJECT, ref=Runner(tuple(models), runs))


def runner_method(interp, node: cst.Call, ref: Runner, method: str) -> Val:
    """`explainer.saliency(images)`: a method that runs the kept model on its argument is a
    meeting of the two, as `model(images)` is. The model is looked up again by the caller's
    name (moved since, or rebound: the current value, or silence when it is another model)."""
    pos, kw = interp.args(node)
    spec = next(((held, at) for m, held, at in ref.runs if m == method), None)
    kept = {param: (name, mid) for param, name, mid in ref.models}
    if spec is None or spec[0] not in kept or "**" in kw or len(pos) <= spec[1]:
        interp.escape(pos + list(kw.values()))
        return UNKNOWN
    name, mid = kept[spec[0]]
    model = interp.frame.lookup(name)
    if model is None or model.kind is not Kind.MODULE or model.mid is not mid:
        interp.escape(pos + list(kw.values()))
        return UNKNOWN
    interp.run_module_on_inputs(node, (0, "model", 1, "inputs"), [model, pos[spec[1]]], {}, via=name)
    interp.escape([v for i, v in enumerate(pos) if i != spec[1]] + list(kw.values()))
    return UNKNOWN


def _note_iterated_loaders(interp, node, facts) -> None:
    """`Trainer(net, optimizer, dataloader, args)`, a project class whose methods iterate what
    it keeps of that argument: the loader is iterated (DL019 asks where). Only a loader named
    by a variable is looked up, without evaluating the arguments (the caller does that)."""
    params = facts["init_params"] or []
    for i, a in enumerate(node.args):
        if a.star:
            return  # `*args` shifts the positions: which parameter gets what is unknown
        param = a.keyword.value if a.keyword is not None else params[i] if i < len(params) else None
        if param in facts["iterates"] and isinstance(a.value, cst.Name):
            v = interp.frame.lookup(a.value.value)
            if v is not None and v.kind is Kind.LOADER:
                interp.statements.note_loader_iteration(node, v)


def _class_call(interp, node, sym, facts) -> Val:
    """An instance of a project class that is an `nn.Module` or a Dataset."""
    pos, kw = interp.args(node)
    given = pos + list(kw.values())
    if facts["module"]:
        if facts["framework"] or facts["self_moves"] or any(v.kind is Kind.DEVICE for v in given) or "**" in kw:
            return Val(Kind.MODULE, name=sym[2])
        if not facts["has_params"] and not any(_host_model(v) for v in given):
            return Val(Kind.MODULE, param_free=True, name=sym[2])
        return interp.models.new_model(node, built=True, name=sym[2])
    if facts["any_move"] or any(v.kind is Kind.DEVICE or v.dev is Dev.ACCEL for v in given):
        host_told = any(v.kind is Kind.DEVICE and v.dev is Dev.CPU for v in given)  # `Pairs(device="cpu")`
        item = None if host_told or "**" in kw else item_of_summary(facts.get("item"))
        return Val(Kind.DATASET, Dev.UNKNOWN, elem=item)
    return Val(Kind.DATASET, Dev.CPU)


def _host_model(v: Val) -> bool:
    """A model of this file still on the host, handed to a module class whose summary shows
    no weights of its own (`FasterRCNN(backbone=backbone)` keeps it as `self.backbone` through
    `super().__init__`): the instance holds that model's weights, on the host too."""
    return v.kind is Kind.MODULE and v.mid is not None and v.dev is Dev.CPU and not v.param_free \
        and v.moved_at is None


def item_of_summary(desc) -> Val | None:
    """The item value a summary's `item` descriptor (summary._item: "accel", ["tuple",
    ["accel" | None, ...]] or ["dict", "accel"]) stands for; flow/items.py reads the file's own
    classes the same way."""
    on_device = Val(Kind.TENSOR, Dev.ACCEL)
    if desc == "accel":
        return on_device
    if desc == ["dict", "accel"]:
        return Val(Kind.MAPPING, elem=on_device)
    if isinstance(desc, list) and len(desc) == 2 and desc[0] == "tuple" and isinstance(desc[1], list) \
            and "accel" in desc[1]:
        return Val(Kind.SEQ, parts=tuple(on_device if d == "accel" else UNKNOWN for d in desc[1]))
    return None


def _function_call(interp, node, sym, fn, fact, params, kwonly, pure) -> Val:
    """What a project function returns here, its parameters bound to this call's arguments."""
    pos, kw = interp.args(node)
    argmap = dict(zip(params, pos))
    for k, v in kw.items():
        if k in params or k in kwonly:
            argmap[k] = v
    # what the helper moves or keeps, code we cannot see may move again
    interp.escape([v for i, v in enumerate(pos) if i >= len(params) or params[i] not in pure])
    interp.escape([v for k, v in kw.items() if k not in pure])
    # a return fact of a damaged shape tells nothing: as a summary that says nothing of it
    out = _value(interp, node, fact if _fact_ok(fact) else None, argmap, sym[2])
    if out == UNKNOWN and _unplaced_build(interp, sym, pos, kw):
        # `get_model(cfg["model"], n_classes)`: a registry we cannot follow, but nothing it runs
        # places anything. A model only if the code proves it (`.parameters()`, `.eval()`...)
        return Val(Kind.UNKNOWN, mid=node, name=sym[2])
    if out == UNKNOWN and not fn.get("host") and interp.unseen_call_result(node, pos + list(kw.values())) is not None:
        # `normalize_batch(style)`: a helper whose summary says nothing, given device tensors,
        # returns device tensors (or it would have failed right there)
        return Val(Kind.TENSOR, Dev.ACCEL)
    return out


def _unplaced_build(interp, sym, pos, kw) -> bool:
    if "**" in kw or any(places_or_holds(v) or v.kind is Kind.TENSOR for v in pos + list(kw.values())):
        return False  # it is handed a device, a model or tensors: not a fresh model on the host
    if naming.looks_like_loader_name(sym[2]):
        return False  # `get_loader(root, vocab, transform, ...)` builds data, not a model
    view = interp.imports.project
    try:
        return view.never_places(sym[1], sym[2])
    except _DAMAGE:
        return False


def _class_facts_ok(facts) -> bool:
    """Are the parts of a class's facts that come straight from its summary (project.
    class_facts copies them) of the shapes _note_iterated_loaders and _runner_call read?"""
    params, iterates, runs = facts["init_params"], facts["iterates"], facts["runs"]
    return (params is None or isinstance(params, list)) and isinstance(iterates, (list, dict)) \
        and isinstance(runs, dict) and all(
            isinstance(r, list) and len(r) == 2 and _hashable(r[0]) and type(r[1]) is int for r in runs.values())


def _hashable(x) -> bool:
    try:
        hash(x)
    except TypeError:
        return False
    return True


def _target_ok(t) -> bool:
    """A target _target can read: `["param", name]` needs its name."""
    return not (isinstance(t, list) and t[:1] == ["param"]) or (len(t) > 1 and _hashable(t[1]))


# tag -> the length a return fact of that tag needs for _value to read it (unknown tags: 1)
_FACT_LENGTH = {"module": 2, "tensor": 2, "device": 2, "dataset": 2, "moved": 2, "moved_param": 3,
                "param": 2, "seq": 2}


def _fact_ok(fact) -> bool:
    """Is a summary's return fact (project._resolve) of the shape _value reads? Checked before
    _value runs, so that _value's calls into the interpreter need no guard (see _DAMAGE)."""
    if fact is None:
        return True
    if not isinstance(fact, (list, tuple)) or not fact:
        return False
    tag = fact[0]
    if not _hashable(tag) or len(fact) < _FACT_LENGTH.get(tag, 1):
        return False
    if tag == "module":
        return fact[1] != "moved" or (len(fact) > 2 and _target_ok(fact[2]))
    if tag == "tensor":
        return fact[1] == "cpu" or _target_ok(fact[1])
    if tag == "moved":
        return _target_ok(fact[1])
    if tag == "moved_param":
        return _hashable(fact[1]) and _target_ok(fact[2])
    if tag == "param":
        return _hashable(fact[1])
    if tag == "seq":
        return isinstance(fact[1], (list, tuple)) and all(_fact_ok(f) for f in fact[1])
    return True


def _target(t, argmap):
    if isinstance(t, list) and t[:1] == ["param"]:
        arg = argmap.get(t[1])
        if arg is not None and arg.kind in (Kind.DEVICE, Kind.TENSOR):
            return arg.dev, arg.key if arg.kind is Kind.DEVICE else None
        return Dev.UNKNOWN, None
    if t == "accel":
        return Dev.ACCEL, None
    if t == "cpu":
        return Dev.CPU, ("lit", "cpu")
    return Dev.UNKNOWN, None


def _value(interp, node, fact, argmap, name) -> Val:
    """The abstract value of a summary's return fact (project._resolve), its parameters
    bound to this call's arguments in `argmap`."""
    if fact is None:
        return UNKNOWN
    tag = fact[0]
    if tag == "module":
        return _module_value(interp, node, fact, argmap, name)
    if tag == "tensor":
        if fact[1] == "cpu":
            unsure = interp.frame.default_device_unknown or interp.default_device_set
            return Val(Kind.TENSOR, Dev.UNKNOWN if unsure else Dev.CPU)
        dev, key = _target(fact[1], argmap)
        return Val(Kind.TENSOR, dev, key=key)
    if tag == "device":
        if fact[1] == "cpu":
            return Val(Kind.DEVICE, Dev.CPU, key=("lit", "cpu"))
        return Val(Kind.DEVICE, Dev.ACCEL, key=("dev", id(node)))
    if tag == "loader":
        return Val(Kind.LOADER, Dev.CPU)
    if tag == "dataset":
        return Val(Kind.DATASET, Dev.UNKNOWN if fact[1] else Dev.CPU)
    if tag == "moved":
        dev, key = _target(fact[1], argmap)
        return Val(Kind.UNKNOWN, dev, key=key)
    if tag == "moved_param":
        return _moved_param_value(fact, argmap)
    if tag == "param":
        return argmap.get(fact[1], UNKNOWN)
    if tag == "seq":
        return Val(Kind.SEQ, parts=tuple(_value(interp, node, f, argmap, name) for f in fact[1]))
    if tag == "none":
        return NONE
    return OTHER if tag == "other" else UNKNOWN


def _module_value(interp, node, fact, argmap, name) -> Val:
    if fact[1] == "host":
        return interp.models.new_model(node, built=True, name=name)
    if fact[1] == "param_free":
        return Val(Kind.MODULE, param_free=True, name=name)
    if fact[1] == "moved":
        dev, key = _target(fact[2], argmap)
        return Val(Kind.MODULE, dev, key=key, name=name)
    if fact[1] == "scatters":  # a `DataParallel` wrapper built there: host inputs are fine
        return Val(Kind.MODULE, name=name, ref=SCATTERS)
    return Val(Kind.MODULE, name=name)


def _moved_param_value(fact, argmap) -> Val:
    """The argument handed in for parameter fact[1], moved to fact[2] by the function."""
    arg = argmap.get(fact[1])
    if arg is None:
        return UNKNOWN
    dev, key = _target(fact[2], argmap)
    if arg.kind is Kind.MODULE:
        return arg.with_(dev=dev, key=key, moved_at=None, mid=None)
    if arg.kind in (Kind.SEQ, Kind.MAPPING):
        return arg.with_(elem=Val(Kind.TENSOR, dev, key=key), parts=None, loader=None)
    if arg.kind in (Kind.TENSOR, Kind.UNKNOWN):
        return arg.with_(dev=dev, key=key, moved_at=None, loader=None, fresh=False, attr=None)
    return UNKNOWN
