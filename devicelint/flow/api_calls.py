"""Calls of torch (and NumPy/einops) functions by qualified name: factories, tensor
functions, model builders."""

from __future__ import annotations

from typing import Protocol

import libcst as cst

from devicelint import knowledge as kb
from devicelint import naming
from devicelint.names import Imports, dotted
from devicelint.values import (NCCL_GROUP, NDARRAY, NONE, OTHER, UNKNOWN, Dev, Kind, PresetFactory, Val, join, mid_parts,
                               ndarray, places_or_holds)
from devicelint.flow import items
from devicelint.flow.facts import Facts, ModuleCall, NumpyConv, OptimizerOf
from devicelint.flow.expressions import result_of
from devicelint.flow.flags import DeviceFlags
from devicelint.flow.library import Library
from devicelint.flow.models import Models
from devicelint.flow.moves import Moves
from devicelint.flow.recording import Recording
from devicelint.flow.state import Frame
from devicelint.flow.nodes import keyword_value, walk


def _maybe_model_builder(q: str) -> bool:
    """A class (`models.Teacher`) or an architecture function (`rc.wide_resnet`) imported from
    code we cannot see. Factories named like verbs (`build_model`, `load_model`) often move what
    they build, so they stay unknown."""
    if "." not in q or any(q == r or q.startswith(r + ".") for r in kb.frameworks.NOT_MODEL_ROOTS):
        return False  # a whole dotted part: `torch` excludes `torch.nn.X`, not `torch_geometric.X`
    last = q.rsplit(".", 1)[-1]
    if not last or last.startswith("_"):
        return False
    return last[0].isupper() or not naming.BUILDER_VERBS.match(last)


def _factory_name(node: cst.Call) -> str:
    """`zeros` for `torch.zeros(...)`, `FloatTensor` for `torch.FloatTensor(...)`."""
    return node.func.attr.value if isinstance(node.func, cst.Attribute) else dotted(node.func) or ""


def _surely_not_0dim(node: cst.Call, name: str) -> bool:
    """A factory call that certainly builds a tensor with at least one dimension (eager CUDA
    lets 0-dim host tensors such as `torch.tensor(2.0)` mix with device tensors)."""
    positional = [a for a in node.args if a.keyword is None]
    first = positional[0] if positional else None
    if name in kb.torch_core.LIST_FACTORIES:
        return _data_has_dims(first, name)
    if first is None:
        # `torch.ones(size=(N, 1))`: the shape given by keyword
        first = next((a for a in node.args if a.keyword is not None and a.keyword.value == "size"), None)
        if first is not None and not (isinstance(first.value, (cst.List, cst.Tuple)) and first.value.elements):
            return False
    return _shape_has_dims(node, name, first)


def _data_has_dims(first: cst.Arg | None, name: str) -> bool:
    """`torch.tensor(data)` / `torch.FloatTensor(data)` with data that surely has a dimension."""
    data = first.value if first is not None and not first.star else None
    if isinstance(data, (cst.List, cst.Tuple)):
        return bool(data.elements)
    if name in kb.torch_core.LEGACY_TENSOR_TYPES and data is not None and not isinstance(data, cst.Float) \
            and not (isinstance(data, cst.Integer) and data.value == "0"):
        # `torch.FloatTensor(img)`: the legacy constructors take a sequence or sizes,
        # never a number, so they never make a 0-dim tensor (`FloatTensor(0)` is empty)
        return True
    return isinstance(data, cst.ListComp)


def _shape_has_dims(node: cst.Call, name: str, first: cst.Arg | None) -> bool:
    """`torch.zeros(n)`, `torch.full((n,), v)`: a shape argument that surely has a dimension."""
    if first is None:
        return False
    if not first.star and isinstance(first.value, (cst.List, cst.Tuple)) and not first.value.elements:
        return False
    if _empty_placeholder(node, name):
        return False  # its own kind of value: see `Val.empty`
    return name not in ("complex", "polar", "normal", "full") or (name == "full" and isinstance(first.value, (cst.List, cst.Tuple)))


def _copies_a_tensor(name: str, pos: list) -> bool:
    """`torch.tensor(t)` / `torch.as_tensor(t)` of a value known to be a tensor."""
    return name in kb.torch_core.DATA_KEEPING_FACTORIES and bool(pos) and pos[0].kind is Kind.TENSOR


def _holds_a_list(node: cst.Call, pos: list, name: str) -> bool:
    """`torch.tensor(alpha)` with `alpha=(0.25, 0.5, 0.25)`: data that is a non-empty list or
    tuple makes a tensor with dimensions."""
    data = pos[0] if pos and node.args and not node.args[0].star else None
    return name in kb.torch_core.LIST_FACTORIES and data is not None and data.kind is Kind.SEQ and bool(data.parts or data.elem)


def _empty_placeholder(node: cst.Call, name: str) -> bool:
    """`torch.empty(0)`, `torch.zeros(0, dim)`, `torch.tensor([])`, `torch.Tensor()`: a tensor
    with no elements, kept to be replaced or concatenated onto."""
    positional = [a for a in node.args if a.keyword is None]
    if name in kb.torch_core.LIST_FACTORIES:
        if not node.args:
            return name[0].isupper()  # `torch.Tensor()`; `torch.tensor()` needs data
        data = positional[0].value if positional and not positional[0].star else None
        return isinstance(data, (cst.List, cst.Tuple)) and not data.elements
    return name in ("empty", "zeros", "ones") and bool(positional) and not positional[0].star \
        and _zero_size(positional[0].value)


def _zero_size(node) -> bool:
    if isinstance(node, (cst.List, cst.Tuple)) and len(node.elements) == 1:
        node = node.elements[0].value
    return isinstance(node, cst.Integer) and node.value == "0"


# Calls known by their exact qualified name: the method of ApiCalls that evaluates each (None
# from it: not this shape, the families in `call_api` decide). Library names are in
# knowledge (kb.NAMED_CALLS, by meaning: torch's, apex's); the standard library's are here. None of
# these names belongs to a family checked after them, so looking them up first keeps the
# order of the if-chain they replace.
_TORCH_CALL_METHODS = {
    "device": "_torch_device",
    "current_device": "_current_device",
    "save": "_torch_save",
    "returns_argument": "_first_argument",
    "from_host_data": "_from_host_data",
    "returns_arguments": "_returned_arguments",
    "wraps_in_place": "_wrapper_in_place",
}
_STDLIB_CALL_METHODS = {
    "copy.deepcopy": "_deepcopy_call",
    "functools.partial": "_partial_call",
    "collections.OrderedDict": "_ordered_dict",
}


def _method_for_name(q: str) -> str | None:
    meaning = kb.NAMED_CALLS.get(q)
    return _TORCH_CALL_METHODS[meaning] if meaning is not None else _STDLIB_CALL_METHODS.get(q)


# `torch.Tensor.cpu(loss)` is `loss.cpu()`: a tensor method called on the class with the
# tensor as its first argument (what each of these methods does to where the tensor is)
_UNBOUND = "torch.Tensor."
_UNBOUND_SAME_PLACE = frozenset({"detach", "clone", "contiguous"})


class HeldValues(Protocol):
    """The one question this part asks the method-call part (flow/methods.py Methods),
    declared here rather than imported: methods.py imports this module for its own host's
    interface."""

    def current(self, text: str) -> Val | None: ...


class ApiHost(Protocol):
    """What the library-call part asks of the interpreter that holds it: the import table, the
    frame being run, the facts of the previous run (`known`, None in the first) and of this
    one, what the run has seen so far (models handed to code we cannot see, the default device
    and its `with torch.device(...)` scopes, gradients off), the five other parts it hands
    calls to or records through, the method-call part (what `self.model` holds here), and the
    transfer functions that evaluate a call's arguments and hand values to code we cannot see."""

    imports: Imports
    frame: Frame | None
    known: Facts | None
    facts: Facts
    escaped_so_far: set
    default_device_set: bool
    device_scopes: list
    no_grad: int
    flags: DeviceFlags
    models: Models
    moves: Moves
    library: Library
    recording: Recording
    methods: HeldValues

    def args(self, node: cst.Call) -> tuple: ...

    def eval(self, node) -> Val: ...

    def qual(self, node) -> str | None: ...

    def txt_key(self, scope, text: str) -> tuple: ...

    def iter_elem(self, v: Val) -> Val: ...

    def device_names(self) -> dict: ...

    def escape(self, vals) -> None: ...

    def unseen_call_result(self, node: cst.Call, args: list, kind: str = "other") -> Val | None: ...

    def run_module_on_inputs(self, node: cst.Call, spec: tuple, pos: list, kw: dict, via: str | None = None) -> bool: ...


class ApiCalls:
    """A part of the interpreter (not a mixin): calls of torch, NumPy and other libraries by
    their qualified name (factories, tensor functions, optimizers, model builders, copies),
    and the record of what they do for the rules. It reaches the interpreter only through
    `ApiHost`; the calls of library objects and DataLoaders are the library part's."""

    def __init__(self, host: ApiHost):
        self.host = host

    def _unbound_tensor_method(self, node: cst.Call, method: str) -> Val | None:
        """`Tensor.cpu(x)`, `torch.Tensor.detach(x)`: where `x.cpu()` / `x.detach()` leave it;
        None for the other methods (the generic handling of `torch.*` calls)."""
        if method != "cpu" and method not in _UNBOUND_SAME_PLACE:
            return None
        if not node.args or node.args[0].keyword is not None or node.args[0].star:
            return None
        pos, _ = self.host.args(node)
        recv = pos[0]
        if method == "cpu":
            if recv.kind not in (Kind.TENSOR, Kind.SEQ, Kind.MAPPING):
                return UNKNOWN
            return self.host.moves.moved_value(node, recv, Val(Kind.DEVICE, Dev.CPU, key=("lit", "cpu")), "cpu")
        if recv.kind is not Kind.TENSOR:
            return UNKNOWN
        return recv.with_(grad=recv.grad and method != "detach", fresh=False, inplace=False)

    def call_api(self, node: cst.Call, q: str) -> Val:
        self._note_api_call(node, q)
        parts = q.split(".")
        if q.startswith(_UNBOUND):
            v = self._unbound_tensor_method(node, parts[-1])
            if v is not None:
                return v
        named = _method_for_name(q)
        if named is not None:
            v = getattr(self, named)(node)
            if v is not None:
                return v
        for family in (self._plain_value_call, self._torch_constructor):
            v = family(node, q, parts)
            if v is not None:
                return v
        lib = kb.kind_of_call(q)
        if lib is not None:
            return self.host.library.library_call(node, lib, q)
        if parts[0] == "tqdm":
            pos, kw = self.host.args(node)
            return pos[0] if pos else kw.get("iterable", UNKNOWN)
        if parts[0] == "torch":
            return self.torch_function(node, q, parts)
        return self._unseen_api_call(node, q, parts)

    def _note_api_call(self, node: cst.Call, q: str) -> None:
        """What the rules read of any call by name: the call itself, where `torch.load` runs
        (DL009), where `random_split` runs (its generator's device)."""
        self.host.facts.api_calls.append((node, q))
        if q in kb.torch_core.LOADS:
            self.host.facts.load_scopes.setdefault(node, []).append(self.host.device_names())
        if q in kb.data.RANDOM_SPLIT:
            self.host.facts.random_splits.append((node, self.host.device_scopes[-1] if self.host.device_scopes else None))

    def _torch_device(self, node: cst.Call) -> Val:
        pos, kw = self.host.args(node)
        v = pos[0] if pos else kw.get("type", UNKNOWN)
        if v.kind is Kind.DEVICE:
            return self.host.flags.flagged_device(v.with_(key=("dev", id(node))))
        return Val(Kind.DEVICE, Dev.ACCEL, key=("dev", id(node)))  # torch.device(args.device): may be an accelerator

    def _current_device(self, node: cst.Call) -> Val:
        return Val(Kind.DEVICE, Dev.ACCEL, key=("lit", "cuda:current"))

    def _deepcopy_call(self, node: cst.Call) -> Val | None:
        return self.deep_copy(node) if len(node.args) == 1 else None

    def _partial_call(self, node: cst.Call) -> Val | None:
        """`partial(torch.zeros, device=d)`: a factory with preset keywords; any other partial
        is an ordinary call."""
        if not node.args or node.args[0].keyword:
            return None
        made = self.host.qual(node.args[0].value) or ""
        if made.startswith("torch.") and made.count(".") == 1 and made[6:] in kb.torch_core.TENSOR_FACTORIES:
            return self.partial_factory(node, made[6:])
        return None

    def _ordered_dict(self, node: cst.Call) -> Val:
        pos, kw = self.host.args(node)
        return self.mapping_of(pos[0]) if len(pos) == 1 and not kw else UNKNOWN

    def _torch_save(self, node: cst.Call) -> Val:
        pos, kw = self.host.args(node)
        self.host.facts.saves.append((node, pos[0] if pos else kw.get("obj", UNKNOWN)))
        return OTHER

    def _first_argument(self, node: cst.Call) -> Val:
        pos, kw = self.host.args(node)
        return pos[0] if pos else UNKNOWN

    def _returned_arguments(self, node: cst.Call) -> Val:
        """`model, optimizer = amp.initialize(model, optimizer, opt_level="O1")`: the models and
        optimizers it was handed, where they are (the model alone without optimizers)."""
        pos, kw = self.host.args(node)
        model = pos[0] if pos else kw.get("models", UNKNOWN)
        optimizers = pos[1] if len(pos) > 1 else kw.get("optimizers")
        return model if optimizers is None else Val(Kind.SEQ, parts=(model, optimizers))

    def _wrapper_in_place(self, node: cst.Call) -> Val | None:
        """apex's `DistributedDataParallel(model)`: a wrapper that moves nothing, as torch's."""
        pos, kw = self.host.args(node)
        return self.host.models.wrap(node, "DistributedDataParallel", pos, kw)

    def _from_host_data(self, node: cst.Call) -> Val:
        """`torch.from_numpy(a)`: a tensor sharing host memory (unknown where a function may
        have set a default device)."""
        self.host.args(node)
        return Val(Kind.TENSOR, Dev.UNKNOWN if self.host.frame.default_device_unknown else Dev.CPU, fresh=True)

    def _plain_value_call(self, node: cst.Call, q: str, parts: list) -> Val | None:
        """Calls that make no tensor: optimizers and schedules, `math`, `np.array(t)` (which
        converts its argument)."""
        last = parts[-1]
        if q.startswith("torch.optim.") or kb.optim.OPTIMIZER.search(last):
            # an optimizer or a schedule holds the model's parameters but is no tensor itself
            pos, kw = self.host.args(node)
            return self.optimizer_of(node, last, pos, kw)
        if parts[0] == "math":  # `math.log(10000) / half_dim`: plain numbers, never tensors
            self.host.args(node)
            return OTHER
        if q in kb.consumers.ARRAY_CONSTRUCTORS:
            pos, kw = self.host.args(node)
            if pos:
                self.host.recording.note_numpy(NumpyConv(node, pos[0]))
            return NDARRAY
        return None

    def _torch_constructor(self, node: cst.Call, q: str, parts: list) -> Val | None:
        """Tensors, loaders, datasets and modules that torch builds; None for other calls.
        (`DataLoader`: torch's, or a library's subclass of it, by the import; a class of the
        same name from anywhere else is unknown.)"""
        last = parts[-1]
        if q in kb.data.DATALOADERS or q in kb.data.TORCH_DATALOADER_SUBCLASSES:
            return self.host.library.dataloader(node, q)
        if parts[0] != "torch":
            return None
        if len(parts) == 2 and last in kb.torch_core.TENSOR_FACTORIES:
            return self.factory(node)
        if kb.torch_core.legacy_tensor_type_place(q) == "cuda":
            self.host.args(node)
            return Val(Kind.TENSOR, Dev.ACCEL, key=("lit", "cuda"))
        if last in kb.torch_core.LIKE_FACTORIES:
            return self._like_factory(node)
        if parts[1:3] == ["utils", "data"] and last in kb.data.DATASET_VIEWS:
            return self._dataset_view(last, node)
        if last == "TensorDataset":
            return self._tensor_dataset(node)
        if parts[1:2] == ["nn"] and last[:1].isupper():
            return self.host.models.nn_constructor(node, last, q)
        return None

    def _like_factory(self, node: cst.Call) -> Val:
        """`torch.zeros_like(t, device=d)`: on `d` if given, else where `t` is."""
        pos, kw = self.host.args(node)
        if "device" in kw:
            d = kw["device"]
            return Val(Kind.TENSOR, d.dev if d.kind is Kind.DEVICE else Dev.UNKNOWN, key=d.key)
        return Val(Kind.TENSOR, pos[0].dev, key=pos[0].key) if pos and pos[0].kind is Kind.TENSOR else UNKNOWN

    def _tensor_dataset(self, node: cst.Call) -> Val:
        """`TensorDataset(x, y)`: its items are where its tensors are (all on one place, or unknown)."""
        pos, kw = self.host.args(node)
        out = None
        for p in pos:
            out = join(out, p) if out is not None else p
        dev = out.dev if out is not None and out.kind is Kind.TENSOR else Dev.UNKNOWN
        # `TensorDataset(x.to(device), y)`: the moved position is known even where the whole is not
        return Val(Kind.DATASET, dev, elem=items.of_tensors(pos) if dev is Dev.UNKNOWN and not kw else None)

    def _unseen_api_call(self, node: cst.Call, q: str, parts: list) -> Val:
        """A call of a library we have no table for, or of code we cannot see: its arguments
        escape, NumPy consumers convert them, and a class imported from elsewhere may be a model."""
        last = parts[-1]
        pos, kw = self.host.args(node)
        if kb.consumers.converts_to_numpy(q):
            return self._consumer_call(node, parts, pos, kw)
        runs = kb.runs_module_on_made_inputs(q)
        if runs is not None and self._runs_on_made_inputs(node, runs, pos, kw):
            return UNKNOWN
        tensors = [v for v in _tensor_inputs(pos, kw) if v.kind is Kind.TENSOR]
        if len(tensors) >= 2 and kb.combines_its_tensors(q):
            self.host.recording.record_mix(node, tensors)
        self.host.escape(pos + list(kw.values()))
        if parts[0] == "numpy":
            return OTHER
        if parts[0] == "einops" and pos and pos[0].kind is Kind.TENSOR and last in kb.einops.RESHAPES:
            return pos[0].with_(inplace=False)  # a view or copy of the tensor, where the tensor is
        args = pos + list(kw.values())
        if _maybe_model_builder(q) and not any(places_or_holds(v) or v.kind is Kind.TENSOR for v in args) and not (
            "**" in kw or any(k in kw for k in kb.hf.PLACING_KEYWORDS)  # `Backend(w, device=select_device(d))`
        ):
            # `Teacher(...)` from a file we cannot see: a model only if the code proves it (below);
            # a call handed tensors computes with them (`interpolate(masks, size)`)
            return Val(Kind.UNKNOWN, mid=node, name=last)
        return self.host.unseen_call_result(node, args) or UNKNOWN

    def _runs_on_made_inputs(self, node: cst.Call, runs: tuple, pos: list, kw: dict) -> bool:
        """`summary(model, (3, 224, 224))`: the model run on inputs the function builds on its
        `device=` (default `"cuda"`), the model left where it is. False when those inputs may
        not be on the accelerator (the caller then treats the call as code we cannot see, as
        before: nothing to say of a run on the host)."""
        at, keyword, default = runs
        model = pos[at] if len(pos) > at else None
        told = kw.get(keyword)
        dev = Dev.ACCEL if told is None and default != "cpu" else told.dev if told is not None \
            and told.kind is Kind.DEVICE else Dev.UNKNOWN
        if model is None or "**" in kw or dev is not Dev.ACCEL:
            return False
        inputs = Val(Kind.TENSOR, dev, key=told.key if told is not None else ("lit", default))
        self.host.facts.module_calls.append(ModuleCall(node, model, [inputs], node, runner=dotted(node.func)))
        self.host.escape([v for v in pos + list(kw.values()) if v is not model])
        return True

    def torch_function(self, node: cst.Call, q: str, parts) -> Val:
        pos, kw = self.host.args(node)
        wrapped = self.host.models.wrap(node, parts[-1], pos, kw)
        if wrapped is not None:
            return wrapped
        if parts[1:2] == ["distributed"] and parts[-1] in kb.distributed.COLLECTIVES:
            self._collective(node, pos, kw)
        if q in kb.torch_core.TRACING_FUNCTIONS:
            spec = kb.torch_core.MODULE_RUNNERS.get(q)
            if spec is not None:
                self.host.run_module_on_inputs(node, spec, pos, kw)
            return UNKNOWN
        if q.startswith(kb.torch_core.ESCAPING_TORCH_PREFIXES) or parts[-1] in kb.distributed.WRAPPERS:
            self.host.escape(pos + list(kw.values()))
            return Val(Kind.MODULE) if parts[-1] in kb.distributed.WRAPPERS else UNKNOWN
        last = parts[-1]
        flat = _tensor_inputs(pos, kw)
        tensors = [v for v in flat if v.kind is Kind.TENSOR]
        if len(tensors) >= 2 and _mixes_its_inputs(parts):
            self.host.recording.record_mix(node, tensors)
        if not tensors:
            return UNKNOWN if parts[1:2] not in (["cuda"], ["backends"]) else OTHER
        if last in ("save", "is_tensor", "numel", "equal", "allclose"):
            return OTHER
        out = result_of(flat)
        if last in kb.torch_core.AT_LEAST_1D_FUNCTIONS and out.kind is Kind.TENSOR and not out.fresh \
                and all(v.dev is Dev.CPU and v.born is not None for v in tensors):
            # host tensors made here, of unknown rank (`torch.tensor(ids)`), stacked or padded
            # into a batch: a tensor with a dimension for sure (DL011's evidence)
            out = out.with_(fresh=True, born=tensors[0].born)
        return self._torch_result(out, last, pos, kw)

    def _torch_result(self, out: Val, last: str, pos: list, kw: dict) -> Val:
        """What a torch function computes from inputs joined into `out`: a full reduction is a
        new tensor; results without history (argmax, a tuple of values and indices, anything
        under no_grad) carry no graph."""
        if last in kb.torch_core.REDUCTIONS and len(pos) == 1 and not kw:
            return Val(Kind.TENSOR, out.dev, grad=out.grad)
        tuple_result = last in kb.torch_core.TUPLE_RESULTS or (last in ("max", "min", "median") and len(pos) + len(kw) > 1)
        if out.kind is Kind.TENSOR and (last in kb.torch_core.NO_HISTORY_METHODS or tuple_result or self.host.no_grad):
            out = out.with_(grad=False, fresh=out.fresh and not tuple_result)
        return out

    def deep_copy(self, node: cst.Call) -> Val:
        """`ema = deepcopy(model)`: a new model where the original is now (copying hands the
        original to no one); a copy of a host model built here is a model of its own, on the
        host until something moves it."""
        src = self.host.eval(node.args[0].value)
        if src.kind is Kind.MODULE and src.dev is Dev.ACCEL:
            return src.with_(mid=None, moved_at=None)
        if (src.kind is Kind.MODULE and src.dev is Dev.CPU and src.mid is not None and not src.param_free) \
                or self._not_moved_yet(src):
            return self.host.models.new_model(node, built=True, name=src.name,
                                  cls=src.ref if isinstance(src.ref, cst.ClassDef) else None).with_(ref=src.ref)
        if src.kind is Kind.UNKNOWN and src.mid is not None and src.dev is Dev.UNKNOWN:
            # a copy of a model candidate from code we cannot see: a candidate of its own
            return Val(Kind.UNKNOWN, mid=node, name=src.name)
        if src.kind in (Kind.TENSOR, Kind.MODULE):
            return src.with_(mid=None, moved_at=None, fresh=False)
        return UNKNOWN

    def _not_moved_yet(self, src: Val) -> bool:
        """A model built here that this path has not moved nor handed to anyone yet, and that
        no other function moves: on the host here, whatever happens to it later
        (`ema = deepcopy(model)` before `model = DDP(model.to(device))`)."""
        if src.kind is not Kind.MODULE or src.mid is None or src.moved_at is not None or src.param_free:
            return False
        if any(m in self.host.escaped_so_far or m in self.host.frame.moved_models for m in mid_parts(src.mid)):
            return False
        known = self.host.known or self.host.facts
        return all(known.move_funcs.get(m, set()) <= {self.host.frame.func} for m in mid_parts(src.mid))

    def mapping_of(self, pairs: Val) -> Val:
        """`dict(model.named_parameters())`, `OrderedDict(pairs)`: a mapping of the pairs' values."""
        row = self.host.iter_elem(pairs) if pairs.kind is Kind.SEQ else None
        if row is not None and row.kind is Kind.SEQ and row.parts and len(row.parts) == 2:
            return Val(Kind.MAPPING, elem=row.parts[1])
        return pairs if pairs.kind is Kind.MAPPING else UNKNOWN

    def _collective(self, node: cst.Call, pos, kw) -> None:
        """`dist.all_reduce(num_boxes)` in code that runs on the GPU (a module's `forward`, a
        file that moves its model there), where the process group is NCCL's: the tensors it
        is handed must be on the GPU, so a host tensor meets the device here."""
        known = self.host.known or self.host.facts
        on_gpu = self.host.recording.in_forward() or any(
            d is Dev.ACCEL for moves in known.model_moves.values() for d, _ in moves)
        if not on_gpu:
            return
        handed = []
        for v in pos + list(kw.values()):
            if v.kind is Kind.SEQ:  # `all_gather(outputs, t)`: the list's tensors too
                handed.extend(v.parts or ((v.elem,) if v.elem is not None else ()))
            else:
                handed.append(v)
        tensors = [v for v in handed if v.kind is Kind.TENSOR]
        if tensors:
            self.host.recording.record_mix(node, [*tensors, NCCL_GROUP])

    def partial_factory(self, node: cst.Call, factory: str) -> Val:
        """`arange = partial(torch.arange, device=device)`: a factory with its keywords set."""
        _, kw = self.host.args(node)
        return Val(Kind.OBJECT, ref=PresetFactory(factory, tuple(kw.items())), name=factory)

    def _consumer_call(self, node: cst.Call, parts: list, pos: list, kw: dict) -> Val:
        """A NumPy, scikit-learn, pyplot or pandas call that converts its arguments to NumPy,
        except the NumPy functions that call a tensor's own method (`np.mean(t)` is `t.mean()`,
        `np.squeeze(t)` is `t.squeeze()`, which gives the tensor back where it was)."""
        last = parts[-1]
        numpy = parts[0] == "numpy"
        if numpy and last in kb.consumers.NUMPY_FORWARDING and len(pos) == 1 and pos[0].kind is Kind.TENSOR and not kw:
            return pos[0].with_(inplace=False)
        delegates = numpy and last in kb.consumers.NUMPY_DELEGATING
        self.host.library.note_converted_args(node, pos, kw, tensors_delegate=delegates,
                                              item_keywords=kb.consumers.ITEM_KEYWORDS.get(parts[0], ()))
        return ndarray(_built_dims(node, parts[-1])) if ".".join(parts) in kb.consumers.ARRAY_BUILDERS else OTHER

    def optimizer_of(self, node: cst.Call, last: str, pos: list, kw: dict) -> Val:
        """An optimizer built from the parameters of a model of this file still on the host
        (`Adam(model.parameters())`, parameter groups naming one model, a factory such as
        timm's `create_optimizer(args, model)`) carries that model (OptimizerOf), for
        `load_state_dict` (DL018); anything else is just no tensor."""
        factory = kb.optim.OPTIMIZER_FACTORY.match(last) is not None
        if not node.args or "lr_scheduler" in (self.host.imports.qualname(node.func) or "") or not (
                factory or kb.optim.STATEFUL_OPTIMIZER.match(last)):
            return OTHER
        first = node.args[0].value
        if isinstance(first, cst.Call) and isinstance(first.func, cst.Attribute) and first.func.attr.value == "parameters":
            owner = dotted(first.func.value)
            v = self.host.frame.lookup(owner) if owner and "." not in owner else self.host.methods.current(owner) if owner else None
            models = {v.mid: owner} if self.host_model_moved_later(v) else {}
        else:
            # parameter groups (`[{"params": conv_weights(net.model)}, ...]`), or a factory's
            # arguments: the one host model of this file they name
            models = {}
            for a in node.args if factory else node.args[:1]:
                for n in walk(a.value):
                    v = self.host.frame.lookup(n.value) if isinstance(n, cst.Name) else None
                    v, text = self._parameters_owner(v) or (v, n.value if isinstance(n, cst.Name) else None)
                    if self.host_model_moved_later(v):
                        models[v.mid] = text
        if len(models) != 1:
            return OTHER
        (mid, text), = models.items()
        return Val(Kind.OTHER, ref=OptimizerOf(mid, text, factory or _stateful(last, node)))

    def _parameters_owner(self, v: Val | None):
        """(model, its name) for a list of one host model's parameters made before
        (`params = [p for p in model.parameters() if p.requires_grad]`, the torchvision
        references' shape): its tensors remember whose they are, and the first name of this
        function bound to that model gives it; None otherwise."""
        elem = v.elem if v is not None and v.kind is Kind.SEQ else None
        if elem is None or elem.kind is not Kind.TENSOR or elem.mid is None:
            return None
        named = [(k, m) for k, m in self.host.frame.state.vars.items() if m.mid is elem.mid and m.kind is not Kind.TENSOR]
        # aliases of one model (`model_without_ddp = model`, the torchvision references) name
        # the same identity: the first binding names it (the load checks it still holds it)
        return named[0][::-1] if named else None

    def host_model_moved_later(self, v: Val | None) -> bool:
        """A model of this file on the host at this point that this file moves to the accelerator
        afterwards on this path: known to be on the host here (a model moved only by the code
        that builds it is, until that move runs), or one from code we cannot see that only
        this function moves and has not moved yet."""
        if v is None or v.mid is None or v.param_free or self.host.known is None \
                or v.kind not in (Kind.MODULE, Kind.UNKNOWN):
            return False
        # a model built on either branch (`if args.refine: model = A(cfg) else: model = A()`) is
        # moved as the join of both: its facts are the join's
        parts = mid_parts(v.mid)
        # handed to code we cannot see before this point, it may have been moved there; handed
        # to a training function after the load, the order here still holds
        if (parts | {v.mid}) & self.host.escaped_so_far \
                or not any(d is Dev.ACCEL for d, _ in self.host.known.model_moves.get(v.mid, ())):
            return False
        if v.kind is Kind.MODULE and v.dev is Dev.CPU:
            return True
        return v.dev is Dev.UNKNOWN and v.moved_at is None and self.host.known.move_funcs.get(v.mid) == {self.host.frame.func} \
            and not parts & self.host.frame.moved_models

    def _dataset_view(self, last: str, node: cst.Call) -> Val:
        """`random_split(ds, ...)` (a list of parts), `Subset(ds, idx)`, `ConcatDataset([a, b])`:
        their items are where the wrapped datasets' items are; a dataset we cannot see stays
        unknown, which a DataLoader takes for host data as before."""
        pos, kw = self.host.args(node)
        inner = pos[0] if pos else kw.get("dataset", kw.get("datasets", UNKNOWN))
        if last == "ConcatDataset" or last == "ChainDataset":
            inner = _joined_datasets(inner)
        if inner.kind is not Kind.DATASET:
            return UNKNOWN
        return Val(Kind.SEQ, elem=inner) if last == "random_split" else inner

    def factory(self, node: cst.Call, preset: "PresetFactory | None" = None) -> Val:
        pos, kw = self.host.args(node)
        name = _factory_name(node) if preset is None else preset.name
        if preset is not None:
            kw = {**dict(preset.keywords), **kw}
        d = kw.get("device")
        if d == NONE:
            d = None  # `device=device` where the caller left `device=None`: the default device
        if d is None and "**" in kw:
            return Val(Kind.TENSOR, Dev.UNKNOWN)  # `torch.tensor(x, **dd)`: the mapping may hold a device
        if d is None and _copies_a_tensor(name, pos):
            # `torch.tensor(betas, dtype=torch.float64)` of a tensor: a copy where the tensor is
            return pos[0].with_(inplace=False)
        if d is None:
            dev = Dev.UNKNOWN if (self.host.frame.default_device_unknown or self.host.default_device_set) else Dev.CPU
            fresh = dev is Dev.CPU and (_surely_not_0dim(node, name) or _holds_a_list(node, pos, name))
            empty = dev is Dev.CPU and not fresh and _empty_placeholder(node, name)
            if fresh or empty:
                self.host.facts.factory_scopes.setdefault(node, []).append(self.host.device_names())
            # `born` also marks a 0-dim host tensor made here: it mixes with device tensors in
            # eager ops, but not in a NCCL collective (`dist.all_reduce(torch.tensor(n))`)
            return Val(Kind.TENSOR, dev, fresh=fresh, empty=empty, born=node if dev is Dev.CPU else None)
        if d.kind is Kind.DEVICE:
            self.host.frame.placed.add(id(node))
            return Val(Kind.TENSOR, d.dev, key=d.key, moved_at=node if d.key is not None else None, cond=d.cond,
                       on_module=d.on_module)
        text = dotted(keyword_value(node, "device"))
        if text and naming.looks_like_device_name(text):
            self.host.frame.placed.add(id(node))
            return Val(Kind.TENSOR, Dev.ACCEL, key=self.host.txt_key(self.host.frame.func, text), moved_at=node)
        return Val(Kind.TENSOR, Dev.UNKNOWN)


def _mixes_its_inputs(parts: list) -> bool:
    """`F.conv2d(x, w)`, `torch.cat([a, b])`: the tensors handed in must share a device."""
    functional = len(parts) >= 3 and parts[1] == "nn" and parts[2] == "functional"
    return functional or parts[-1] in kb.torch_core.MIXING_FUNCTIONS


def _tensor_inputs(pos: list, kw: dict) -> list:
    """The values a torch function computes with: its arguments, the elements of a list handed
    to it (`torch.cat([a, b])`), less `out=` and option keywords that are no tensor (`dtype=`)."""
    flat = []
    for v in pos + [v for k, v in kw.items() if k != "out" and not (k in kb.torch_core.OPTION_KEYWORDS and v.kind is not Kind.TENSOR)]:
        if v.kind is Kind.SEQ and (v.parts or v.elem is not None):
            flat.extend(v.parts if v.parts else (v.elem,))
        else:
            flat.append(v)
    return flat


def _joined_datasets(seq: Val) -> Val:
    """The datasets of `ConcatDataset([a, b])` joined: each part's place, or the list's element."""
    vals = list(seq.parts) if seq.kind is Kind.SEQ and seq.parts else [seq.elem] if seq.kind is Kind.SEQ and seq.elem else []
    if not vals or any(v is None or v.kind is not Kind.DATASET for v in vals):
        return UNKNOWN
    dev = vals[0].dev if all(v.dev is vals[0].dev for v in vals) else Dev.UNKNOWN
    return Val(Kind.DATASET, dev, elem=items.joined([v.elem for v in vals]))


def _stateful(last: str, node: cst.Call) -> bool:
    """Does the optimizer keep tensors per parameter? `SGD` only with a momentum that is not a
    literal 0 (its state is empty otherwise: nothing to misplace)."""
    needs = kb.optim.STATE_ONLY_WITH.get(last)
    if needs is None:
        return True
    value = next((a.value for a in node.args if a.keyword is not None and a.keyword.value == needs), None)
    return value is not None and not (isinstance(value, (cst.Integer, cst.Float)) and float(value.value) == 0)


def _built_dims(node: cst.Call, name: str) -> int | None:
    """How many dimensions the array a NumPy builder makes has, where the call shows it:
    `np.zeros((n, 1))` 2, `np.zeros(n)` or `np.zeros(len(data) // 8)` 1 (a number, not a
    shape held in a name), `np.arange(...)` 1, `np.eye(n)` 2; None otherwise."""
    dims = kb.consumers.BUILDER_DIMS.get(name)
    if dims is not None:
        return dims
    if name not in kb.consumers.SHAPE_BUILDERS or not node.args or node.args[0].keyword is not None:
        return None
    shape = node.args[0].value
    if isinstance(shape, (cst.Tuple, cst.List)):
        return None if any(e.__class__.__name__ == "StarredElement" for e in shape.elements) else len(shape.elements)
    return 1 if _a_number(shape) else None


def _a_number(expr) -> bool:
    """An expression that is one number, not a shape: a literal, `len(...)`/`int(...)`, or
    arithmetic on those."""
    if isinstance(expr, cst.Integer):
        return True
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value in ("len", "int"):
        return True
    if isinstance(expr, cst.BinaryOperation):
        return _a_number(expr.left) or _a_number(expr.right)
    return False
