"""Method calls on values: tensor methods (`.numpy()`, `.item()`, `.detach()`...) and module
methods (`.eval()`, `.load_state_dict()`, `.parameters()`...), and usage that proves a value
is a module."""

from __future__ import annotations

import re
from typing import Protocol

import libcst as cst

from devicelint import crossfile
from devicelint import knowledge as kb
from devicelint import naming
from devicelint.names import Imports, dotted
from devicelint.values import (NONE, OTHER, UNKNOWN, Dev, Instance, Kind, Val, contents_on_accel, host_batch_in, join,
                               made_on_host, on_device)
from devicelint.flow import containers
from devicelint.flow.api_calls import ApiCalls
from devicelint.flow.classes import Classes, UserCode
from devicelint.flow.facts import Facts, NumpyConv, OptimizerLoad, OptimizerOf
from devicelint.flow.library import Library
from devicelint.flow.models import Models
from devicelint.flow.moves import Moves
from devicelint.flow.nodes import expr_text, is_string, keyword_value, spelled, walk
from devicelint.flow.recording import Recording
from devicelint.flow.state import Frame
from devicelint.flow.statements import Statements


# Module methods that take tensors without computing with the weights on them.
_NOT_COMPUTE = ("set_", "register_", "load_", "add_", "save", "push_", "resize_", "tie_", "prune_", "get_input",
                "get_output", "to", "cuda", "cpu", "apply", "half", "float", "double", "bfloat16", "share_memory",
                "buffers", "named_", "enable_", "disable_", "gradient_checkpointing", "print", "freeze", "unfreeze",
                "copy_", "update", "log", "configure_", "hook")


# Methods of logging helpers that yield what they are given (DETR / DINO / MAE's MetricLogger).
_LOGGING_ITER = re.compile(r"log_every$|track$|progress$")


# Callees that often hand back host results computed from device tensors: metrics, test and
# evaluation steps, post-processing (`model.test(logits, y)` -> `torch.tensor([mrr, hits])`).
HOST_RESULT = re.compile(r"test|eval|valid|metric|stat|summar|report|predict|infer|detect|nms|non_max|"
                         r"post_?process|cpu", re.IGNORECASE)


# Parts named for placing what they are given (`self.to_device(x)`, `self.move_inputs(batch)`).
_MOVER_NAME = re.compile(r"device|cuda|move|place|^to_|transfer", re.IGNORECASE)


def _dtype_cast(node: cst.Call) -> bool:
    """`.type(torch.long)` / `.type(dtype=x.dtype)`: a cast to a dtype, not to a tensor type.
    A variable (`.type(dtypeFloat)`) may hold `torch.cuda.FloatTensor`, which moves: no cast."""
    a = node.args[0] if len(node.args) == 1 else None
    text = dotted(a.value) if a is not None and not a.star else None
    if text is None:
        return False
    if a.keyword is not None and a.keyword.value == "dtype":
        return True
    return (text.startswith("torch.") and naming.looks_like_dtype(text)) or text.endswith(".dtype")


def _fresh_beside_device(vals: list) -> bool:
    """`actor_critic.act(obs, hidden, masks)` with `masks = torch.FloatTensor(...)` made here on
    the host and `hidden` on the device: the method's inputs meet each other (and its weights)."""
    return any(v.kind is Kind.TENSOR and v.fresh and v.dev is Dev.CPU for v in vals) \
        and any(v.kind is Kind.TENSOR and v.dev is Dev.ACCEL for v in vals)


def _host_tensor_type(node: cst.Call) -> bool:
    """`.type(torch.FloatTensor)`: a cast to a legacy tensor type of the host (`torch.XTensor`;
    `torch.cuda.XTensor` moves, `torch.Tensor` is no cast and a variable may hold either)."""
    a = node.args[0] if len(node.args) == 1 else None
    text = dotted(a.value) if a is not None and a.keyword is None and not a.star else None
    return text is not None and text != "torch.Tensor" and kb.torch_core.legacy_tensor_type_place(text) == "cpu"


def moved_params(fn: cst.FunctionDef, methods: dict | None = None, depth: int = 0) -> frozenset:
    """The parameters `fn` moves itself: `positions = positions.to(device=device)`, through a
    local made from one (`label = torch.cat((a, b)); label = label.cuda()` moves `a` and `b`),
    or through a method of its class (`methods`) that moves what it is handed
    (`self._prep(label)`). The others it is given are used where they are."""
    params = [p.name.value for p in (*fn.params.params[1:], *fn.params.kwonly_params)]
    derived = {p: _derived_from(fn, {p}) for p in params}
    moved_roots: set = set()
    for n in walk(fn):
        if isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute):
            moved_roots |= _moved_roots(n, fn, methods, depth)
    return frozenset(p for p in params if derived[p] & moved_roots)


def _moved_roots(n: cst.Call, fn: cst.FunctionDef, methods: dict | None, depth: int) -> set:
    """The names one call moves: the receiver of `.to()`/`.cuda()`, or the arguments a helper
    method of the class moves (`self._prep(label)` with `_prep` moving its first parameter)."""
    attr = n.func.attr.value
    if attr in ("to", "cuda"):
        root = _root_name(n.func.value)
        return {root} if root is not None else set()
    helper = (methods or {}).get(attr) if dotted(n.func.value) == "self" else None
    if helper is None or helper is fn or depth >= 2:
        return set()
    moved = moved_params(helper, methods, depth + 1)
    positional = [p.name.value for p in helper.params.params[1:]]
    out = set()
    for i, a in enumerate(n.args):
        param = a.keyword.value if a.keyword is not None else positional[i] if not a.star and i < len(positional) else None
        root = _root_name(a.value)
        if root is not None and (param in moved or (param is None and moved)):
            out.add(root)  # handed to `*args` of a helper that moves something: taken as moved
    return out




def _root_name(node) -> str | None:
    """`label`, `label.float()`, `batch.y[0]`: the name a chain of methods, attributes and
    subscripts starts from (None for anything else: `self.fc(x)` computes, it does not move;
    `x.size(0)` is a number)."""
    while not isinstance(node, cst.Name):
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            node = node.func
        elif isinstance(node, (cst.Subscript, cst.Attribute)):
            if isinstance(node, cst.Attribute) and node.attr.value in kb.torch_core.META_READS:
                return None
            node = node.value
        else:
            return None
    return node.value


def _made_from(value, names: set) -> bool:
    """Is `value` one of `names` seen through a chain, or a join of them (`torch.cat((a, b), 0)`):
    the joins' result is made of the tensors they are given."""
    if _root_name(value) in names:
        return True
    if not (isinstance(value, cst.Call) and (dotted(value.func) or "").rsplit(".", 1)[-1] in kb.torch_core.JOINS and value.args):
        return False
    first = value.args[0].value
    parts = [e.value for e in first.elements] if isinstance(first, (cst.Tuple, cst.List)) else [first]
    return any(_root_name(p) in names for p in parts)


def _derived_from(fn: cst.FunctionDef, params: set) -> set:
    """`params` and the locals of `fn` bound to something made of them (`label = torch.cat((n, a), 0)`,
    `y = y.float()`), not to what is computed from them (`h = self.fc(x)`, `n = x.size(0)`)."""
    assigns = [n for n in walk(fn) if isinstance(n, cst.Assign) and len(n.targets) == 1
               and isinstance(n.targets[0].target, cst.Name)]
    out, grew = set(params), True
    while grew:  # to a fixed point: the walk's order is not the body's
        grew = False
        for a in assigns:
            name = a.targets[0].target.value
            if name not in out and _made_from(a.value, out):
                out.add(name)
                grew = True
    return out


def numbers_only(v: Val, depth: int = 0) -> bool:
    """Plain numbers (or lists and tuples of them, nested) with nothing of a tensor left."""
    if v.kind is Kind.OTHER:
        return True
    if v.kind is not Kind.SEQ or depth > 3:
        return False
    inner = [*(v.parts or ()), *([v.elem] if v.elem is not None else [])]
    return bool(inner) and all(numbers_only(x, depth + 1) for x in inner)


def _built_on_host(v: Val) -> bool:
    """Tensors a factory made on the host: one, or a tuple of them (an LSTM's `(h0, c0)`)."""
    if v.kind is Kind.SEQ and v.parts:
        return all(_built_on_host(p) for p in v.parts)
    if v.kind is Kind.SEQ and v.elem is not None and v.parts is None:
        return _built_on_host(v.elem)  # `[torch.zeros(n, b, h) for _ in range(2)]`
    return v.kind is Kind.TENSOR and v.dev is Dev.CPU and (v.fresh or v.empty)


def host_length_params(fn: cst.FunctionDef) -> set:
    """Parameters of `fn` that take sequence lengths, which stay on the host on purpose:
    named so (`lengths`, `seq_lens`) or handed to `pack_padded_sequence` as its lengths."""
    params = {p.name.value for p in (*fn.params.params, *fn.params.kwonly_params)}
    out = {p for p in params if naming.LENGTHS.search(p)}
    for n in walk(fn):
        if not (isinstance(n, cst.Call) and (dotted(n.func) or "").rsplit(".", 1)[-1] == "pack_padded_sequence"):
            continue
        for i, a in enumerate(n.args):
            lengths_arg = (a.keyword is None and i == 1) or (a.keyword is not None and a.keyword.value == "lengths")
            if lengths_arg and isinstance(a.value, cst.Name) and a.value.value in params:
                out.add(a.value.value)
    return out


def _places_inputs(fn: cst.FunctionDef) -> bool:
    """A method that asks where the model is (`next(self.parameters()).is_cuda`, `.device`)
    or moves something itself: what it is given need not be on the device already."""
    for n in walk(fn):
        if isinstance(n, cst.Attribute) and n.attr.value in ("device", "is_cuda"):
            return True
        if isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and n.func.attr.value in ("to", "cuda"):
            return True
    return False


def creates_on_input_device(fn: cst.FunctionDef) -> bool:
    """`torch.zeros(h, w, device=masks.device)`, `.to(logits.device)`: the function makes
    tensors where a tensor it is given lives, so it is written for inputs on the device."""
    for n in walk(fn):
        if not isinstance(n, cst.Call):
            continue
        for a in n.args:
            to_arg = isinstance(n.func, cst.Attribute) and n.func.attr.value == "to" and a.keyword is None
            if (to_arg or (a.keyword is not None and a.keyword.value == "device")) \
                    and isinstance(a.value, cst.Attribute) and a.value.attr.value == "device" \
                    and dotted(a.value.value) not in (None, "self"):
                return True
    return False


def _known_tensor_result(recv: Val, name: str, pos: list, kw: dict) -> Val | None:
    """Tensor methods whose result has a place of its own: `new_*` on the receiver's device,
    `type_as` on the other's, `chunk` a list of parts, a loader batch's full reduction a 0-dim
    tensor; None for the others."""
    if name.startswith("new_") or name in ("type_as",):
        if name == "type_as" and pos:
            return Val(Kind.TENSOR, pos[0].dev, key=pos[0].key, grad=recv.grad, on_module=pos[0].on_module)
        return Val(Kind.TENSOR, recv.dev, key=recv.key, on_module=recv.on_module)
    if name in ("chunk", "split", "unbind", "tensor_split"):
        return Val(Kind.SEQ, elem=recv.with_(fresh=False))
    if name in kb.torch_core.REDUCTIONS and not pos and not kw and recv.loader:
        return Val(Kind.TENSOR, recv.dev)  # 0-dim: mixes with device tensors without error
    if name in ("pin_memory", "share_memory_"):
        return recv
    return None


def _computed_tensor(recv: Val, name: str, pos: list, kw: dict) -> Val:
    """Any other tensor method: a result where the receiver is."""
    # 0-dim results (a full reduction) mix with device tensors without error: no longer "fresh"
    tuple_result = name in kb.torch_core.TUPLE_RESULTS or (name in ("max", "min", "median") and bool(pos or kw))
    # a host tensor made here that may have been 0-dim (`torch.tensor(ids)`) is a batch once
    # it has a dimension for sure (`.unsqueeze(0)`): DL011's evidence from then on
    made_here = recv.born is not None and recv.dev is Dev.CPU and name in kb.torch_core.AT_LEAST_1D_METHODS
    fresh = (recv.fresh or made_here) and not (name in kb.torch_core.REDUCTIONS and not pos and not kw) \
        and not tuple_result
    grad = recv.grad and name not in kb.torch_core.NO_HISTORY_METHODS and not tuple_result
    return recv.with_(fresh=fresh, grad=grad, attr=recv.attr if fresh else None, inplace=False,
                      moved_at=recv.moved_at if name in ("detach", "float", "half", "long", "int", "contiguous") else None)


def _own_tensors(recv: Val, name: str) -> Val:
    """`model.parameters()`, `model.state_dict()`: the model's own tensors, on the device only
    if this code path moved it there; a model built here and not moved yet has them on the
    host, and they remember whose."""
    host = recv.dev is Dev.CPU and recv.mid is not None and not recv.param_free
    # a model of this file whose place is unknown only because code we cannot see is handed it
    # somewhere (`evaluate(model, ...)` after the resume), not moved on this path: its
    # parameters still remember whose, so an optimizer built from a list of them
    # (`params = [p for p in model.parameters() if ...]`) knows its model (DL018 decides)
    unplaced = recv.dev is Dev.UNKNOWN and recv.moved_at is None and recv.mid is not None \
        and not recv.param_free and recv.kind is Kind.MODULE
    t = Val(Kind.TENSOR, Dev.CPU, mid=recv.mid, name=recv.name) if host else \
        Val(Kind.TENSOR, Dev.UNKNOWN, mid=recv.mid, name=recv.name) if unplaced else \
        Val(Kind.TENSOR, recv.dev if recv.moved_at is not None else Dev.UNKNOWN, key=recv.key)
    if name == "state_dict":
        return Val(Kind.MAPPING, elem=t)
    return Val(Kind.SEQ, elem=Val(Kind.SEQ, parts=(OTHER, t)) if name.startswith("named") else t)


class MethodHost(Protocol):
    """What the method-call part asks of the interpreter that holds it: the import table, the
    frames being run (this one and the module's), the facts of the previous run (`known`, None
    in the first) and of this one, whether gradients are off, the per-body cache, the seven
    parts a method call is handed on to (a move, a library object, a class of the file run
    inline, a model's identity, what is recorded where the run stands), the statement part
    (what a container's item is, a name rebound), and the transfer functions that evaluate
    arguments, run a module on them, and hand values to code we cannot see."""

    imports: Imports
    frame: Frame | None
    module_frame: Frame | None
    known: Facts | None
    facts: Facts
    no_grad: int
    body_cache: dict
    api: ApiCalls
    classes: Classes
    user_code: UserCode
    library: Library
    models: Models
    moves: Moves
    recording: Recording
    statements: Statements

    def args(self, node: cst.Call) -> tuple: ...

    def eval(self, node) -> Val: ...

    def escape(self, vals) -> None: ...

    def unseen_call_result(self, node: cst.Call, args: list, kind: str = "other") -> Val | None: ...

    def module_call(self, node: cst.Call, model: Val, forward: bool = True, evaluated: list | None = None,
                    method: str | None = None) -> Val: ...

    def call_value(self, node: cst.Call, v: Val) -> Val: ...



class Methods:
    """A part of the interpreter (not a mixin): method calls on values (`recv.name(...)`):
    tensor methods, module methods, methods of the file's classes and of containers, and what
    a method proves its receiver is. It reaches the interpreter only through `MethodHost`."""

    def __init__(self, host: MethodHost):
        self.host = host

    def note_optimizer_load(self, node: cst.Call, opt: OptimizerOf) -> None:
        """`optimizer.load_state_dict(...)`: record it when the model whose parameters the
        optimizer holds is, here, still on the host and moved to the accelerator later on this
        path (api_calls.host_model_moved_later)."""
        if not opt.stateful:
            return
        model = self.current(opt.model_text)
        if model is not None and model.mid == opt.mid and self.host.api.host_model_moved_later(model):
            self.host.facts.optimizer_loads.append(OptimizerLoad(node, model, opt.model_text))

    def current(self, text: str) -> Val | None:
        """What `model` / `self.model` holds at this point of the path, or None."""
        head, _, attr = text.partition(".")
        if not attr:
            return self.host.frame.lookup(head)
        if "." in attr:
            return None
        owner = self.host.frame.lookup(head)
        if owner is not None and owner.kind is Kind.OBJECT and isinstance(owner.ref, Instance):
            return owner.ref.attrs.get(attr)
        return None

    def call_method(self, node: cst.Call, func: cst.Attribute, recv: Val, name: str, bare: bool) -> Val:
        """`recv.name(...)`: the first handler that knows this receiver and method decides;
        each returns None where it does not apply (they are tried in this order)."""
        if name == "load_state_dict" and isinstance(recv.ref, OptimizerOf):
            self.note_optimizer_load(node, recv.ref)  # DL018 records it; the call goes on as any other
        for handler in (self._logging_iter_call, self._super_call, self._instance_call, self._class_call, self._proven_grad,
                        self._placed_format_call, self._kind_call, self._container_call, self._unknown_receiver_call):
            out = handler(node, func, recv, name, bare)
            if out is not None:
                return out
        self.host.args(node)
        return UNKNOWN

    def _logging_iter_call(self, node, func, recv: Val, name: str, bare: bool) -> Val | None:
        """`metric_logger.log_every(loader, 20, header)`: the loader's batches, with a log line."""
        if not (_LOGGING_ITER.match(name) and node.args and not node.args[0].keyword and not node.args[0].star) or (
                recv.kind is Kind.OBJECT and isinstance(recv.ref, Instance)):
            return None
        first = self.host.eval(node.args[0].value)
        for a in node.args[1:]:
            self.host.eval(a.value)
        return first if first.kind is Kind.LOADER else UNKNOWN

    def _super_call(self, node, func, recv: Val, name: str, bare: bool) -> Val | None:
        """`super().__init__(model, optimizer)` in a plain class of this file whose base is one
        too: the base's method runs on the same object (what it sets on `self` is kept)."""
        frame = self.host.frame
        if not (isinstance(func.value, cst.Call) and dotted(func.value.func) == "super") or frame.func is None:
            return None
        obj = frame.self_val
        if obj is None or obj.kind is not Kind.OBJECT or not isinstance(obj.ref, Instance) \
                or self.host.classes.class_of(obj.ref.cls)["module"]:
            return None  # an nn.Module's `super().__init__()`: torch's own
        fn = self.host.classes.super_method(frame.func, name)
        return self.host.user_code.inline(node, fn, self.host.module_frame, obj) if fn is not None else None

    def _instance_call(self, node, func, recv: Val, name: str, bare: bool) -> Val | None:
        """A method of an object of a class of this file."""
        if not (recv.kind is Kind.OBJECT and isinstance(recv.ref, Instance)):
            return None
        info = self.host.classes.class_of(recv.ref.cls)
        fn = info["methods"].get(name)
        if fn is not None:
            return self.host.user_code.inline(node, fn, self.host.module_frame, recv)
        if name in ("to", "cuda", "cpu") and info["module"]:
            return self.host.moves.move(node, func, recv, name, bare)
        held = recv.ref.attrs.get(name)
        if held is not None:  # self.model(x): calling what the attribute holds
            return self.host.call_value(node, held)
        pos, kw = self.host.args(node)
        if name in ("parameters", "buffers") and info["module"] and self.host.recording.mod_cls() is not None:
            # `next(self.parameters()).device` in the module's own code: where the module is
            return Val(Kind.SEQ, elem=Val(Kind.TENSOR, on_module=True))
        self.host.escape(pos + list(kw.values()))
        if self.host.recording.in_forward() and isinstance(func.value, cst.Name) and func.value.value == "self":
            return self.part_call(node, name, pos + list(kw.values()))
        return UNKNOWN

    def _class_call(self, node, func, recv: Val, name: str, bare: bool) -> Val | None:
        if recv.kind is not Kind.CLASS:
            return None
        if name == "apply" and self._autograd_function(recv.ref):
            # `SpecialSpmmFunction.apply(indices, values, shape, b)`: runs the Function's forward
            # (with a context object we do not follow)
            return self.host.user_code.inline(node, self.host.classes.class_of(recv.ref)["methods"]["forward"], self.host.module_frame, None, ctx=UNKNOWN)
        fn = self.host.classes.class_of(recv.ref)["methods"].get(name)
        if fn is None or _decorated(fn, "property"):
            return None
        # `Trainer.epoch_val(model, loader, loss)`: a function of the class called through the
        # class (a staticmethod, or a plain function of the class body written without `self`):
        # it runs with these arguments, the first one bound to its first parameter; a
        # classmethod's first parameter is the class itself
        return self.host.user_code.inline(node, fn, self.host.module_frame, None, ctx=recv if _decorated(fn, "classmethod") else None)

    def _proven_grad(self, node, func, recv: Val, name: str, bare: bool) -> None:
        """`loss.backward()` proves `loss` carries a graph, whatever built it (decides nothing)."""
        if (name == "backward" and isinstance(func.value, cst.Name) and recv.kind in (Kind.TENSOR, Kind.UNKNOWN)
                and not self.host.no_grad and self.host.frame.state.vars.get(func.value.value) is recv
                and not self._backward_of_argument(node)):
            self.host.frame.state.vars[func.value.value] = recv.with_(kind=Kind.TENSOR, grad=True)

    def _backward_of_argument(self, node: cst.Call) -> bool:
        """`accelerator.backward(loss)`, `fabric.backward(loss)`, `engine.backward(loss)`: a
        training object runs the backward pass of the value it is handed, so the receiver is no
        tensor. A tensor's own `y.backward(v)` takes a gradient, a tensor with no graph: only
        then (or with no argument) is the receiver proven a tensor; a name whose value we cannot
        tell, or that carries a graph itself, leaves the receiver what it was."""
        first = next((a for a in node.args if a.keyword is None or a.keyword.value == "gradient"), None)
        if first is None or first.star or not isinstance(first.value, cst.Name):
            return False
        handed = self.host.frame.lookup(first.value.value)
        return handed is None or handed.kind is not Kind.TENSOR or handed.grad

    def _placed_format_call(self, node, func, recv: Val, name: str, bare: bool) -> Val | None:
        """`ds.with_format("torch", device=device)` / `ds.set_format(..., device=device)` on a
        Hugging Face dataset (kb.hf.DATASET_FORMAT_METHODS): its items are made on that device,
        so its loaders' batches are no host data (unknown, as a dataset that places its items)."""
        returns = kb.hf.DATASET_FORMAT_METHODS.get(name)
        if returns is None or recv.kind not in (Kind.UNKNOWN, Kind.DATASET, Kind.OBJECT):
            return None
        device = keyword_value(node, "device")
        if device is None or is_string(device) in ("cpu", "CPU"):
            return None
        pos, kw = self.host.args(node)
        if kw.get("device", UNKNOWN).dev is Dev.CPU:  # `device=torch.device("cpu")`: as if not given
            return UNKNOWN if returns else NONE
        placed = Val(Kind.DATASET, Dev.UNKNOWN)
        if returns:
            return placed
        if isinstance(func.value, cst.Name):
            self.host.frame.state.vars[func.value.value] = placed
        return NONE

    def _kind_call(self, node, func, recv: Val, name: str, bare: bool) -> Val | None:
        """Moves, and the methods of library objects, modules and tensors."""
        if name in ("to", "cuda", "cpu") and recv.kind not in (Kind.OTHER, Kind.LOADER, Kind.DATASET, Kind.FUNC, Kind.CLASS):
            return self.host.moves.move(node, func, recv, name, bare)
        if recv.kind is Kind.OBJECT and recv.ref in kb.OBJECT_KINDS:
            return self.host.library.call_library_object(node, recv, name)
        if recv.kind is Kind.OBJECT and isinstance(recv.ref, crossfile.Runner):
            return crossfile.runner_method(self.host, node, recv.ref, name)
        if recv.kind is Kind.MODULE:
            return self.module_method(node, func, recv, name)
        if recv.kind is Kind.TENSOR:
            return self.tensor_method(node, recv, name)
        if name in kb.torch_core.NUMBER_METHODS and recv.kind is Kind.UNKNOWN:
            # `out.size(0) / x.size(0)` on what a library layer returned: a number either way
            self.host.args(node)
            return OTHER
        return None

    def _container_call(self, node, func, recv: Val, name: str, bare: bool) -> Val | None:
        """Methods of dicts and lists (what they put in: containers.py), loaders, datasets."""
        if recv.kind is Kind.MAPPING:
            pos, kw = self.host.args(node)
            containers.grow(self.host, func.value, recv, name, pos)
            return containers.mapping_method(recv, name, pos)
        if recv.kind is Kind.SEQ:
            pos, kw = self.host.args(node)
            if name == "append" and len(pos) == 1 and self.host.frame.loops:
                target = expr_text(func.value)
                if target is not None:
                    # `losses.append(loss)` keeps each step's graph alive, as `total += loss` does
                    self.host.recording.note_accum(node, target, pos[0])
            if containers.grow(self.host, func.value, recv, name, pos):
                return OTHER
            return self.host.statements.unpack(recv, None) if name == "pop" else UNKNOWN
        if recv.kind is Kind.LOADER and name == "__iter__":
            return recv
        if recv.kind is Kind.DATASET:
            self.host.args(node)
            return UNKNOWN
        return None

    def _unknown_receiver_call(self, node, func, recv: Val, name: str, bare: bool) -> Val | None:
        """A method of a value we could not place: what it is used like decides."""
        if recv.kind is not Kind.UNKNOWN:
            return None
        if recv.mid is not None and name in kb.nn.MODULE_PROOF:
            # `.eval()`, `.load_state_dict()`, `.parameters()`: only an nn.Module has them all
            model = self.host.models.proven_module(recv)
            if isinstance(func.value, (cst.Name, cst.Attribute)):
                self.host.statements.rebind_text(func.value, model)
            return self.module_method(node, func, model, name)
        moved = recv.dev is Dev.ACCEL and recv.moved_at is not None
        if moved and name in kb.torch_core.TENSOR_ONLY_METHODS:
            # `t = t.to(device)` then `t.detach().numpy()`: only a tensor has these methods
            return self.tensor_method(node, recv.with_(kind=Kind.TENSOR), name)
        if (moved and name not in kb.nn.MODULE_PROOF and not name.startswith(_NOT_COMPUTE)
                and not name.startswith("new_") and not name.endswith("_as")):
            vals = [self.host.eval(a.value) for a in node.args]
            if any(host_batch_in(v) is not None for v in vals) or _fresh_beside_device(vals):
                # `model.cuda(); model.get_intermediate_layers(samples)`: what was moved here meets
                # a host batch (a module's weights, or a tensor's data: an error either way)
                return self.host.module_call(node, recv.with_(kind=Kind.MODULE), forward=False, evaluated=vals, method=name)
            self.host.escape(vals)
            return self.host.unseen_call_result(node, vals) or UNKNOWN
        pos, kw = self.host.args(node)
        args = pos + list(kw.values())
        self.host.escape(args)
        # `attn = model.get_attention_maps(x)` on an object from code we cannot see: what
        # accepts device tensors gives device tensors (unless its name says it converts, or
        # it is a framework preparing models, optimizers and loaders: `accelerator.prepare`)
        if kb.frameworks.FRAMEWORK_CALL.search(expr_text(func) or name):
            return _prepared(node, func, name, pos, kw)
        return self.host.unseen_call_result(node, args) or UNKNOWN

    def part_call(self, node: cst.Call, name: str, args: list) -> Val:
        """`self.time_embedding(t_emb, cond)` in `forward`, a part this file never sets (a
        submodule the library base class built), or `attn(x, mask=mask)` for a block taken from
        `self.layers`: it runs on the module's device. A host tensor made here that it is handed
        with the module's tensors meets them there; handed only host tensors, it fails on its
        weights or gives a host result (`self.time_proj(t)`, a sinusoidal embedding without
        weights), which then meets the device further on."""
        if _MOVER_NAME.search(name) or HOST_RESULT.search(name) or any(naming.LENGTHS.search(spelled(a)) for a in node.args):
            return UNKNOWN
        tensors = [a for a in args if a.kind is Kind.TENSOR]
        made = [a for a in tensors if made_on_host(a)]
        if not made:
            return UNKNOWN
        module_tensors = [a for a in tensors if a.on_module and a.dev is not Dev.CPU]
        if module_tensors:
            self.host.recording.record_mix(node, [*made, *module_tensors])
            return UNKNOWN
        if len(made) == len(tensors) and all(a.kind in (Kind.TENSOR, Kind.OTHER) for a in args):
            return Val(Kind.TENSOR, Dev.CPU, fresh=True, born=made[0].born)
        return UNKNOWN

    def aware_module_input(self, recv: Val) -> str | None:
        """Why an input of a module's method (or what it computed from one) is on the device
        whatever the file moves: "aware" in a module whose forward path makes tensors on its
        inputs' device (`device=masks.device`), "lightning" in a LightningModule's step, which
        the trainer hands batches on the module's device; None otherwise."""
        if recv.kind is not Kind.TENSOR or not recv.on_module or recv.dev is not Dev.UNKNOWN:
            return None
        cls = self.host.recording.mod_cls()
        if cls is None:
            return None
        method = self.host.recording.method_frame().func
        if method is not None and method.name.value in kb.lightning.STEP_HOOKS and self.host.classes.class_of(cls)["framework"]:
            return "lightning"
        if not self.host.recording.in_forward():
            return None
        key = ("aware", id(cls))
        found = self.host.body_cache.get(key)
        if found is None:
            info = self.host.classes.class_of(cls)
            found = self.host.body_cache[key] = any(
                creates_on_input_device(info["methods"][m]) for m in info["forward_path"] if m in info["methods"])
        return "aware" if found else None

    def _autograd_function(self, cls) -> bool:
        """A class of this file deriving from `torch.autograd.Function`, with its own forward."""
        if not isinstance(cls, cst.ClassDef) or "forward" not in self.host.classes.class_of(cls)["methods"]:
            return False
        return any((self.host.imports.qualname(b.value) or "") in ("torch.autograd.Function", "torch.autograd.function.Function")
                   for b in cls.bases)

    def tensor_method(self, node: cst.Call, recv: Val, name: str) -> Val:
        pos, kw = self.host.args(node)
        if name == "numpy":
            if not any(a.keyword is not None and a.keyword.value == "force" for a in node.args):
                self.host.recording.note_numpy(NumpyConv(node, recv, module_input=self.aware_module_input(recv)))
            return OTHER
        if name in ("item", "tolist"):
            self.host.recording.note_sync(node, name, recv)
            self.host.recording.note_back(node, name, recv)
        if name == "type" and _host_tensor_type(node):
            # `img.type(torch.FloatTensor)`: a legacy CPU tensor type, the result is on the host
            return recv if recv.dev is Dev.CPU else Val(Kind.TENSOR, Dev.CPU)
        if name in kb.torch_core.NON_TENSOR_METHODS and not (name == "type" and _dtype_cast(node)):
            # `x.type()` is a string; `x.type(torch.long)` a cast, where x is (but
            # `x.type(torch.cuda.FloatTensor)` may move it)
            return OTHER
        if name in ("items", "values") and recv.loader:  # a dict batch straight from the loader
            elem = recv.with_(fresh=False)
            return Val(Kind.SEQ, elem=Val(Kind.SEQ, parts=(OTHER, elem)) if name == "items" else elem)
        mixed = self._mixing_method(node, recv, pos) if name in kb.torch_core.MIXING_METHODS else None
        if mixed is not None:
            return mixed
        known = _known_tensor_result(recv, name, pos, kw)
        return known if known is not None else _computed_tensor(recv, name, pos, kw)

    def _mixing_method(self, node: cst.Call, recv: Val, pos: list) -> Val | None:
        """`a.add(b)`, `x.gather(1, idx)`: the tensors meet here. A host receiver with a device
        argument gives a device result; None where the usual result rule applies."""
        tensors = [recv] + [a for a in pos if a.kind is Kind.TENSOR]
        if len(tensors) >= 2:
            self.host.recording.record_mix(node, tensors)
        placed = [a for a in tensors[1:] if on_device(a)]
        if recv.dev is Dev.CPU and placed:
            # `host.gather(1, device_idx)` fails right here (the finding), unless the host
            # tensor was 0-dim: either way what follows works with a tensor on the device
            p = placed[0]
            return Val(Kind.TENSOR, p.dev, key=p.key, grad=recv.grad or p.grad, on_module=p.on_module, cond=p.cond)
        return None

    def module_method(self, node: cst.Call, func: cst.Attribute, recv: Val, name: str) -> Val:
        if name in ("forward", "generate", "predict_step", "__call__"):
            return self.host.module_call(node, recv, forward=name in ("forward", "__call__"), method=name)
        if isinstance(recv.ref, cst.ClassDef) and name in self.host.classes.class_of(recv.ref)["parts"]:
            return self._own_module_method(node, recv, name)
        may_compute = not isinstance(recv.ref, cst.ClassDef) and name not in kb.nn.MODULE_PROOF \
            and not name.startswith(_NOT_COMPUTE)
        if may_compute and (recv.mid is not None or self.host.recording.in_forward()):
            return self._held_model_method(node, recv, name)
        if may_compute:
            return self._unseen_model_method(node, recv, name)
        return self._torch_module_method(node, recv, name)

    def _helper_object(self, recv: Val) -> bool:
        """What a builder of any object made (`utils = torch.hub.load(repo, "..._utils")`,
        kb.torch_core.ANY_OBJECT_BUILDERS) that the previous run never saw used as a model: never
        called itself nor moved. Its methods are the helper's own, not a model's weights."""
        mid = recv.mid
        if not isinstance(mid, cst.Call) or (self.host.imports.qualname(mid.func) or "") not in \
                kb.torch_core.ANY_OBJECT_BUILDERS:
            return False
        if self.host.known is None:
            return True  # the first run: nothing seen yet, nothing claimed
        used = mid in self.host.known.model_moves or mid in self.host.known.escaped or any(
            c.model.mid is mid and c.method is None for c in self.host.known.module_calls)
        return not used

    def _unseen_model_method(self, node: cst.Call, recv: Val, name: str) -> Val:
        """`self.model.get_last_selfattention(img)` on a model from code we cannot see."""
        pos, kw = self.host.args(node)
        args = pos + list(kw.values())
        if recv.dev is Dev.ACCEL and not HOST_RESULT.search(name) and not any(a.star for a in node.args) \
                and (any(host_batch_in(v) is not None for v in args) or _fresh_beside_device(args)):
            # `actor_critic.act(obs, hidden, masks)` on a model this code moved: its weights and
            # the device inputs meet the host tensor made here (or the batch not moved)
            return self.host.module_call(node, recv, forward=False, evaluated=[*pos, *kw.values()], method=name)
        if any(v.kind is Kind.DEVICE for v in args) or name.startswith("move"):
            self.host.escape([recv])
        return self.host.unseen_call_result(node, args) or UNKNOWN

    def _torch_module_method(self, node: cst.Call, recv: Val, name: str) -> Val:
        """An `nn.Module` method (`model.eval()`, `model.parameters()`), or one of a class of
        this file that is none of its parts."""
        pos, kw = self.host.args(node)
        if kb.returns_self(name):
            return recv
        if name in ("parameters", "buffers", "state_dict", "named_parameters", "named_buffers"):
            return _own_tensors(recv, name)
        if name in ("load_state_dict", "zero_grad", "modules", "named_modules", "children", "named_children",
                    "register_buffer", "register_forward_hook", "register_forward_pre_hook", "add_module"):
            return OTHER
        # A method of the model we cannot see may well place it (model.setup(device)).
        if any(v.kind is Kind.DEVICE for v in pos + list(kw.values())) or name.startswith(("to_", "move")):
            self.host.escape([recv])
        return UNKNOWN

    def _own_module_method(self, node: cst.Call, recv: Val, name: str) -> Val:
        """A method or part of a module class of this file: `model.encoder(x)`, `model.init_hidden(n)`."""
        fn = self.host.classes.class_of(recv.ref)["methods"].get(name)
        if fn is not None and _places_inputs(fn):
            # `ic.tile_predict(img)` asks where its parameters are and moves the slices itself
            self.host.args(node)
            return UNKNOWN
        if fn is not None and not any(a.star for a in node.args):
            vals = [self.host.eval(a.value) for a in node.args]
            if not any(v.kind in (Kind.TENSOR, Kind.SEQ, Kind.MAPPING) or v.dev is not Dev.UNKNOWN for v in vals):
                # `hidden = model.init_hidden(batch_size)`: given no data, the method may build
                # tensors of its own; run it, on the model as it is here, to see where
                out = self.host.user_code.inline(node, fn, self.host.module_frame, recv)
                if _built_on_host(out):
                    return out
            out = self.host.module_call(node, recv.with_(param_free=False), forward=False, evaluated=vals, method=name)
            # `train_losses, test_losses = model.train_model(X, y)`: a method that hands back
            # only plain numbers (lists of `loss.item()`) does so whatever it is given
            # (what it returns is known from the standalone run: the first pass's, in the second)
            returned = self.host.facts.forward_returns.get(fn) or (self.host.known.forward_returns.get(fn) if self.host.known else None)
            return returned if returned is not None and numbers_only(returned) else out
        # model.encoder(x) / model.encode(x): the model's own weights do the work
        return self.host.module_call(node, recv.with_(param_free=False), forward=False, method=name)

    def _held_model_method(self, node: cst.Call, recv: Val, name: str) -> Val:
        """A method of a model of this file from a class we cannot see (or of one met in `forward`)."""
        vals = [self.host.eval(a.value) for a in node.args]
        if HOST_RESULT.search(name):
            # `model.test(train_z=z, train_y=y)`: an evaluation helper of a library model may
            # move what it is given to the host itself (PyG's Node2Vec fits scikit-learn) and
            # may hand back host numbers (`torch.tensor([mrr, hits])`): nothing sure either way
            return UNKNOWN
        if any(v.kind is Kind.TENSOR or contents_on_accel(v) or host_batch_in(v) is not None for v in vals) \
                and not self._helper_object(recv):
            # model.get_image_features(pixels), model.encode(x): the model's weights meet the data
            return self.host.module_call(node, recv, forward=False, evaluated=vals, method=name)
        if any(v.kind is Kind.DEVICE for v in vals) or name.startswith(("to_", "move")):
            self.host.escape([recv])
        return UNKNOWN


def _prepared(node: cst.Call, func: cst.Attribute, name: str, pos: list, kw: dict) -> Val:
    """`model, optimizer, loader = accelerator.prepare(model, optimizer, loader)`: what a
    framework hands back, in the order it was handed: a model stays a model (the framework
    places it: where, unknown; its calls still build autograd graphs), anything else is not
    followed. Only the preparing calls that return their arguments this way."""
    if kw or not pos or not kb.frameworks.returns_its_arguments(name, expr_text(func.value) or ""):
        return UNKNOWN
    parts = tuple(Val(Kind.MODULE, Dev.UNKNOWN, mid=p.mid, name=p.name) if p.kind is Kind.MODULE else UNKNOWN
                  for p in pos)
    return parts[0] if len(parts) == 1 else Val(Kind.SEQ, parts=parts)


def _decorated(fn: cst.FunctionDef, name: str) -> bool:
    """`@name` (or `@x.name`) among the function's decorators."""
    return any((dotted(d.decorator) or "").rsplit(".", 1)[-1] == name for d in fn.decorators)
