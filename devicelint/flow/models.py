"""Models: `nn.*` layers and user modules built here, their identity and where each is
placed on each path."""

from __future__ import annotations

from typing import Protocol

import libcst as cst

from devicelint import knowledge as kb
from devicelint.values import NONE, SCATTERS, Dev, Kind, Val, mid_parts, own_tensor
from devicelint.flow.facts import Facts
from devicelint.flow.recording import Recording
from devicelint.flow.state import Frame


def wrap_in_place(cls: str, pos: list) -> Val | None:
    """`nn.DataParallel(net)` / `DistributedDataParallel(net, device_ids=[rank])` move
    nothing: the module must already be on the first device, so the wrapper is where the
    wrapped model (or a moved unknown) is, and a model never moved stays unmoved behind it.
    None for other calls."""
    inner = pos[0] if cls in kb.distributed.KEEPS_PLACEMENT and pos else None
    if inner is None or not (inner.kind is Kind.MODULE or (inner.kind is Kind.UNKNOWN and inner.dev is not Dev.UNKNOWN)):
        return None
    return inner.with_(kind=Kind.MODULE, param_free=False, ref=SCATTERS)


def placed_by_load(kw: dict) -> Val | None:
    """Where `from_pretrained(...)` puts the model it loads, when its keywords say for sure:
    `device=d` / `device_map=d` naming one device (a single-device map gets no accelerate hooks
    that would move the inputs). None: not sure (`device_map="auto"`, a mapping, `**options`,
    a bitsandbytes 4-/8-bit load: accelerate dispatches quantized models with hooks that move
    the inputs to the weights and the outputs back)."""
    if any(k in kw for k in kb.hf.QUANTIZING_KEYWORDS):
        return None
    for k in ("device", "device_map"):
        d = kw.get(k)
        if d is not None:
            return d if d.kind is Kind.DEVICE else None
    return None


def _container_parts(pos: list, kw: dict) -> list:
    """The layers a container is given: its arguments, or the parts of a list handed in."""
    return [p for a in pos + list(kw.values()) for p in (a.parts or (a.elem,) if a.kind is Kind.SEQ else (a,))]


def _holds_only_param_free(pos: list, kw: dict) -> bool:
    """A container (`nn.Sequential(...)`) is param-free only when every part is seen to be:
    `ModuleDict(dict(wte=...))` holds layers."""
    parts = _container_parts(pos, kw)
    return bool(parts) and all(p is not None and p.kind is Kind.MODULE and p.param_free for p in parts)


def _holds_only_placed_layers(pos: list, kw: dict) -> bool:
    """A container whose every layer with weights was moved as it was built
    (`nn.Sequential(nn.Dropout(0.2), nn.Linear(1280, 3).to(device))`): none of its weights is
    on the host, so it is no new host layer; where it is as a whole we do not claim."""
    parts = _container_parts(pos, kw)
    if any(p is None for p in parts):
        return False
    weighted = [p for p in parts if not (p.kind is Kind.MODULE and p.param_free)]
    return bool(weighted) and all(p.kind is Kind.MODULE and p.dev is Dev.ACCEL for p in weighted)


class ModelHost(Protocol):
    """What the model part asks of the interpreter that holds it: the frame being run, the
    facts of the previous run (`known`, None in the first) and of this one, the models handed
    to code we cannot see so far, where it stands (the recording part), and three of its
    transfer functions."""

    frame: Frame | None
    known: Facts | None
    facts: Facts
    escaped_so_far: set  # models handed to code we cannot see, in this run, up to here
    recording: Recording  # where the interpreter stands (a module class's method or not)

    def args(self, node: cst.Call) -> tuple: ...

    def escape(self, vals) -> None: ...

    def device_names(self) -> dict: ...


class Models:
    """A part of the interpreter (not a mixin): a model's identity where it is built (`mid`,
    the call node) and where it is placed, from the moves the previous run saw. It reaches
    the interpreter only through `ModelHost`."""

    def __init__(self, host: ModelHost):
        self.host = host

    def nn_constructor(self, node: cst.Call, cls: str, q: str) -> Val:
        pos, kw = self.host.args(node)
        wrapped = self.wrap(node, cls, pos, kw)
        if wrapped is not None:
            return wrapped
        if cls in kb.distributed.WRAPPERS:
            self.host.escape(pos + list(kw.values()))
            return Val(Kind.MODULE)
        if cls in ("Parameter", "Buffer"):
            if self.host.recording.mod_cls() is not None:  # `self.w = nn.Parameter(...)` in a module: moved with it
                return own_tensor(pos[0] if pos else Val(Kind.TENSOR))
            return pos[0].with_(fresh=False) if pos and pos[0].kind is Kind.TENSOR else Val(Kind.TENSOR)
        if cls in kb.nn.PARAM_FREE_LAYERS:
            return Val(Kind.MODULE, param_free=True, name=cls)
        if kb.nn.is_loss(cls):
            return self._loss_module(node, cls, kw)
        if cls in kb.nn.CONTAINERS and _holds_only_param_free(pos, kw):
            return Val(Kind.MODULE, param_free=True, name=cls)
        if cls in kb.nn.CONTAINERS and _holds_only_placed_layers(pos, kw):
            return Val(Kind.MODULE, name=cls)
        if cls in ("Module",):
            return Val(Kind.MODULE)
        return self.new_model(node, built=True, name=cls, kw=kw)

    def _loss_module(self, node: cst.Call, cls: str, kw: dict) -> Val:
        """`nn.CrossEntropyLoss(weight=w)`: a module holding `w` (a model of its own when `w` is
        a host tensor); without a weight, nothing to place."""
        weights = [kw[k] for k in ("weight", "pos_weight") if k in kw]
        if not weights:
            return Val(Kind.MODULE, param_free=True, name=cls)
        w = weights[0]
        if w.kind is Kind.TENSOR and w.dev is Dev.CPU:
            return self.new_model(node, built=True, name=cls)
        return Val(Kind.MODULE, w.dev if w.kind is Kind.TENSOR else Dev.UNKNOWN, key=w.key, name=cls)

    def wrap(self, node: cst.Call, cls: str, pos: list, kw: dict) -> Val | None:
        """wrap_in_place, noting a DistributedDataParallel told which GPU to run on."""
        if cls in kb.distributed.KEEPS_PLACEMENT and pos and pos[0].kind is Kind.UNKNOWN and pos[0].mid is not None:
            pos = [self.proven_module(pos[0])] + pos[1:]  # only an nn.Module can be wrapped
        wrapped = wrap_in_place(cls, pos)
        # noted in the first run only: the second one sees a model handed to unknown code
        # anywhere (even later) as placed nowhere in particular
        if wrapped is not None and self.host.known is None and cls == "DistributedDataParallel" and (
            len(pos) > 1 or kw.get("device_ids", NONE) is not NONE
        ):
            escaped = any(m in self.host.escaped_so_far for m in mid_parts(pos[0].mid) | {pos[0].mid})
            self.host.facts.gpu_wraps.append((node, pos[0], escaped))
        return wrapped

    def new_model(self, node: cst.Call, built: bool = False, name: str | None = None, kw=None, cls=None) -> Val:
        if not built:
            pos, kw = self.host.args(node)
        kw = kw or {}
        # `from_pretrained(name, **model_kwargs)`: the unpacked mapping may place it (device_map)
        if any(k in kw for k in kb.hf.PLACING_KEYWORDS) or (not built and "**" in kw):
            d = placed_by_load(kw)
            if d is not None:
                return Val(Kind.MODULE, d.dev, key=d.key, moved_at=node, name=name)
            return Val(Kind.MODULE, name=name)
        if cls is not None:
            self.host.facts.mid_class[node] = cls
        self.host.facts.build_scopes.setdefault(node, []).append(self.host.device_names())
        if self.host.known is not None and node not in self.host.known.escaped and (
                self.host.known.move_funcs.get(node) in ({self.host.frame.func}, self._builder_caller())
                or self._moved_only_downstream(node)):
            # moved only by the code that builds it: on the host until that move runs (a shape
            # probe, a use in `__init__` or an earlier notebook cell sees it there); or only by
            # the function a factory of this file (`model = create_model(args)`) returned it to
            return Val(Kind.MODULE, Dev.CPU, mid=node, name=name, ref=cls)
        return Val(Kind.MODULE, self.model_dev(node), key=self.model_key(node), mid=node, name=name, ref=cls,
                   cond=self.model_cond(node))

    def _moved_only_downstream(self, mid) -> bool:
        """Every move of this model ran while the function building it was on the call path:
        its own code, or a helper it hands the model to (`do_train(model, ...)` whose
        `create_trainer` runs `model.to(device)`): on the host until that call runs."""
        paths = self.host.known.move_paths.get(mid)
        func = self.host.frame.func
        return bool(paths) and func is not None and all(func in path for path in paths)

    def _builder_caller(self):
        """{the function} this frame was inlined into, when it is one (a factory called from
        `main`, or from the module's top level: `net = make_net()` ... `net = make_net().to(device)`):
        the set a model's movers must equal for the build to be on the host; None at an entry point."""
        parent = self.host.frame.parent
        return {parent.func} if parent is not None else None

    def proven_module(self, candidate: Val) -> Val:
        """A value from code we cannot see (`mid` set) that usage proves to be an nn.Module:
        where it is, as far as this file's moves of it tell."""
        if candidate.moved_at is not None or candidate.dev is not Dev.UNKNOWN:
            return candidate.with_(kind=Kind.MODULE)
        mid = candidate.mid
        if self.host.known is not None and mid not in self.host.known.escaped and mid not in self.host.frame.moved_models \
                and self.host.known.move_funcs.get(mid) == {self.host.frame.func}:
            # moved only by the function that builds it, and not yet: on the host until that move
            # runs, as new_model has it for a model of this file (`models.__dict__[arch]()`, then
            # the optimizer's state loaded before `model.cuda()`: DL018)
            return Val(Kind.MODULE, Dev.CPU, mid=mid, name=candidate.name)
        return Val(Kind.MODULE, self.model_dev(mid), key=self.model_key(mid), mid=mid, name=candidate.name,
                   cond=self.model_cond(mid))

    def model_dev(self, mid) -> Dev:
        if self.host.known is None:
            return Dev.CPU
        if mid in self.host.known.escaped:
            return Dev.UNKNOWN
        moves = self.host.known.model_moves.get(mid)
        if not moves:
            return Dev.CPU
        devs = {d for d, _ in moves}
        return devs.pop() if len(devs) == 1 else Dev.UNKNOWN

    def model_cond(self, mid):
        conds = self.host.known.move_conds.get(mid) if self.host.known is not None else None
        return next(iter(conds)) if conds and len(conds) == 1 else None

    def one_placement(self, mid) -> bool:
        """Every move of this model in the file goes to the same device (no `.cpu()` round trip
        in a checkpoint helper between two moves)."""
        moves = (self.host.known or self.host.facts).model_moves.get(mid)
        return not moves or len(moves) == 1

    def model_key(self, mid):
        if self.host.known is None:
            return None
        moves = self.host.known.model_moves.get(mid)
        if moves and len({k for _, k in moves}) == 1:
            return next(iter(moves))[1]
        return None
