"""Models: `nn.*` layers and user modules built here, their identity and where each is
placed on each path."""

from __future__ import annotations

from typing import Protocol

import libcst as cst

from devicelint import knowledge as kb
from devicelint.values import Dev, Kind, Val, own_tensor
from devicelint.flow.facts import Facts
from devicelint.flow.library import placed_by_load
from devicelint.flow.state import Frame


def _holds_only_param_free(pos: list, kw: dict) -> bool:
    """A container (`nn.Sequential(...)`) is param-free only when every part is seen to be:
    `ModuleDict(dict(wte=...))` holds layers."""
    parts = [p for a in pos + list(kw.values()) for p in (a.parts or (a.elem,) if a.kind is Kind.SEQ else (a,))]
    return bool(parts) and all(p is not None and p.kind is Kind.MODULE and p.param_free for p in parts)


class ModelHost(Protocol):
    """What the model part asks of the interpreter that holds it: the frame being run, the
    facts of the previous run (`known`, None in the first) and of this one, and four of its
    transfer functions."""

    frame: Frame | None
    known: Facts | None
    facts: Facts

    def args(self, node: cst.Call) -> tuple: ...

    def wrap(self, node: cst.Call, cls: str, pos: list, kw: dict) -> Val | None: ...

    def escape(self, vals) -> None: ...

    def _mod_cls(self): ...

    def device_names(self) -> dict: ...


class Models:
    """A part of the interpreter (not a mixin): a model's identity where it is built (`mid`,
    the call node) and where it is placed, from the moves the previous run saw. It reaches
    the interpreter only through `ModelHost`."""

    def __init__(self, host: ModelHost):
        self.host = host

    def nn_constructor(self, node: cst.Call, cls: str, q: str) -> Val:
        pos, kw = self.host.args(node)
        wrapped = self.host.wrap(node, cls, pos, kw)
        if wrapped is not None:
            return wrapped
        if cls in kb.distributed.WRAPPERS:
            self.host.escape(pos + list(kw.values()))
            return Val(Kind.MODULE)
        if cls in ("Parameter", "Buffer"):
            if self.host._mod_cls() is not None:  # `self.w = nn.Parameter(...)` in a module: moved with it
                return own_tensor(pos[0] if pos else Val(Kind.TENSOR))
            return pos[0].with_(fresh=False) if pos and pos[0].kind is Kind.TENSOR else Val(Kind.TENSOR)
        if cls in kb.nn.PARAM_FREE_LAYERS:
            return Val(Kind.MODULE, param_free=True, name=cls)
        if kb.nn.is_loss(cls):
            return self._loss_module(node, cls, kw)
        if cls in kb.nn.CONTAINERS and _holds_only_param_free(pos, kw):
            return Val(Kind.MODULE, param_free=True, name=cls)
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
