"""The abstract values device inference computes for names, attributes and expressions."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, fields, replace

import libcst as cst


class Dev(enum.Enum):
    CPU = "cpu"
    ACCEL = "accelerator"  # is, or may be, on an accelerator ("cuda" if available else "cpu")
    UNKNOWN = "unknown"


class Kind(enum.Enum):
    MODULE = "module"
    TENSOR = "tensor"
    LOADER = "loader"  # iterating it yields host batches
    DATASET = "dataset"
    DEVICE = "device"
    SEQ = "seq"  # list / tuple / generator of `elem`
    MAPPING = "mapping"  # dict batch: values are `elem`
    FUNC = "func"
    CLASS = "class"
    OBJECT = "object"  # instance of a class defined in the file
    OTHER = "other"  # known not to be any of the above (numbers, strings, ndarrays)
    UNKNOWN = "unknown"


@dataclass(eq=False)
class Instance:
    """Mutable state of one object of a file-local class (`self.model`, `self.device`)."""

    cls: cst.ClassDef
    attrs: dict = field(default_factory=dict)


@dataclass(frozen=True)
class PresetFactory:
    """`partial(torch.arange, device=device)`: a torch factory (`name`) with keywords set."""

    name: str
    keywords: tuple  # ((keyword, Val), ...)


@dataclass(frozen=True)
class Val:
    kind: Kind = Kind.UNKNOWN
    dev: Dev = Dev.UNKNOWN
    # Flow-sensitive "definitely moved here": the textual device key and the moving node.
    key: str | None = None
    moved_at: cst.CSTNode | None = None
    # For host tensors that came straight out of a data loader and were never moved.
    loader: str | None = None
    # Identity of a model built in this file (its construction node).
    mid: cst.CSTNode | None = None
    param_free: bool = False  # a module with no parameters (a loss, an activation)
    fresh: bool = False  # a host tensor created here by a factory with no device= (or ops on one), not 0-dim
    # an empty host placeholder (`torch.empty(0)`, `torch.tensor([])`): meets device tensors
    # harmlessly in no operation it can take part in, except a join (`torch.cat`), which fails
    empty: bool = False
    grad: bool = False  # carries autograd history: a model output, or computed from one, with grad enabled
    on_module: bool = False  # inside a module method: an input or a submodule output (lives where the module lives)
    attr: str | None = None  # a fresh tensor kept as a plain attribute `self.<attr>` of an nn.Module
    src: object = None  # LOADER and its batches: the DataLoader(...) call that built it
    elem: "Val | None" = None
    parts: tuple | None = None
    ref: object = None  # FunctionDef / ClassDef / Instance for FUNC, CLASS, OBJECT; a knowledge.kind_of_call kind for library objects
    # `.to()` moves it in place and returns it (a BatchEncoding, a PyG graph, the whole object
    # a loader yields, which may be such a batch): a bare `x.to(d)` moves `x`
    inplace: bool = False
    # moved by a `.to()` that named the attributes to move (PyG's `data.to(device, "x")`): an
    # attribute read off it may be one left where it was
    partial: bool = False
    # on the accelerator only when a device flag has this truth value: (flag, bool), from a
    # move under `if args.cuda:` / `if torch.cuda.is_available():`
    cond: tuple | None = None
    # a truth value that is a device condition: (flag, truth value it has when this is true),
    # as `train_on_gpu = torch.cuda.is_available()` or a `gpu_mode=torch.cuda.is_available()` default
    flag: tuple | None = None
    name: str | None = None  # how the code spells it, for messages
    # a moved model one of whose layers was then replaced by a new one on the host
    # (`model.fc = nn.Linear(512, 10)` after `model.to(device)`): that layer's name
    replaced: str | None = None
    # a fresh tensor: the factory call that made it (for DL011's `device=` fix); not part of
    # equality, so values from different factories still join as before
    born: cst.Call | None = field(default=None, compare=False)
    # an item of a dataset taken without a collate (`x, t = ds[i]`, `for x, t in ds`): its
    # label positions are what `__getitem__` returns (a Python int, a NumPy scalar), which
    # PyTorch compares with a device tensor as a number; only a loader's collate makes them
    # 1-dim host tensors
    item: bool = False
    # an element of iterating a tensor (`for t, p in zip(labels.view(-1), preds.view(-1))`):
    # the tensor less its first dimension, 0-dim where that tensor was 1-D. Its rank is
    # unknown, and a 0-dim integer index is read as a number on any device: as an index it
    # says nothing sure
    row: bool = False
    # a dict batch some of whose keys were rebound by name since the loader gave it
    # (`batch["text"] = batch["text"].to(device)`): (the loader's host batch, which every other
    # key still holds; ((key, what it holds now), ...)). The value itself is no host batch
    # (which of its items a consumer reads, we cannot tell), only its items read by key are.
    keyed: tuple | None = None

    def with_(self, **changes) -> "Val":
        # dataclasses.replace, without its __init__ of 26 frozen fields (object.__setattr__
        # each): the inference makes hundreds of these per file. Val has no __post_init__.
        if not changes.keys() <= _VAL_FIELDS:
            return replace(self, **changes)  # its TypeError names the field
        new = object.__new__(type(self))
        d = new.__dict__
        d.update(self.__dict__)
        d.update(changes)
        return new

    @property
    def on_accel(self) -> bool:
        return self.dev is Dev.ACCEL

    @property
    def host_batch(self) -> bool:
        """A loader tensor still on the host."""
        return self.loader is not None and self.dev is Dev.CPU


_VAL_FIELDS = frozenset(f.name for f in fields(Val))
UNKNOWN = Val()
OTHER = Val(Kind.OTHER)
NONE = Val(Kind.OTHER, name="None")  # `x = None` then set on one path: the other path decides
# a number literal (`total = 0`): joined with a tensor (`total += loss` in a loop, the loop run
# or not) the tensor decides, as Python makes `0 + t` that tensor where it lives
NUMBER = Val(Kind.OTHER, name="<number>")

# a NumPy array (`np.zeros(n)`): a tensor stored into several of its elements (`arr[i] = t`
# for a row, `arr[:] = t`) is converted to NumPy; its number of dimensions, when the code
# shows it (`np.zeros((n, 1))`), is in `ndarray(ndim)`'s ref
NDARRAY = Val(Kind.OTHER, ref="ndarray")


def ndarray(ndim: int | None) -> Val:
    """A NumPy array of `ndim` dimensions (NDARRAY where the code does not show how many)."""
    return NDARRAY if ndim is None else Val(Kind.OTHER, ref=f"ndarray/{ndim}")


def ndarray_dims(v: Val) -> int | None:
    """The dimensions of a NumPy array value, None where unknown; -1 for no NumPy array."""
    if v.kind is not Kind.OTHER or not isinstance(v.ref, str) or not v.ref.startswith("ndarray"):
        return -1
    _, _, n = v.ref.partition("/")
    return int(n) if n else None
# what a torch.distributed collective meets on the GPU: NCCL's process group, which takes GPU tensors only
NCCL_GROUP = Val(Kind.TENSOR, Dev.ACCEL, name="the NCCL process group")


def mid_parts(mid) -> set:
    """The models a model identity stands for: itself, or each model of a join."""
    return set(mid) if isinstance(mid, frozenset) else {mid}


def _built_here_on_one_path(a: Val, b: Val) -> Val | None:
    """`encoder = Encoder()` on a fresh run, `encoder = checkpoint["encoder"]` on a resumed
    one: where the model is built here and nothing in the file moves it (a host model with an
    identity), that path keeps it on the host whatever the other path restores."""
    if a.kind is Kind.MODULE and a.mid is not None and a.dev is Dev.CPU and not a.param_free and \
            b.kind is Kind.UNKNOWN and b.mid is None and b.dev is Dev.UNKNOWN:
        return a
    if a.kind is Kind.UNKNOWN and a.mid is not None and a.dev is Dev.UNKNOWN and b == UNKNOWN:
        return a  # a model candidate from code we cannot see (`Encoder()`), the same on that path
    if a.kind is Kind.MODULE and a.mid is not None and a.dev is Dev.CPU and not a.param_free and \
            b.kind is Kind.MODULE and b.mid is None and b.param_free:
        # `CrossEntropyLoss(weight=w)` when class weights are asked for, `CrossEntropyLoss()`
        # otherwise: a module without parameters lives on no device, so the joined module is
        # wherever the one with weights is (on the host on the path that builds it)
        return a
    return None


def _tensor_or_tensors(t: Val, s: Val) -> Val | None:
    """`if not isinstance(x, list): x = [x]`: a tensor on one path, a list of tensors on the
    other. Either way indexing, slicing or concatenating it gives tensors on the device they
    share, so it is kept as a list of such tensors."""
    if t.kind is not Kind.TENSOR or s.kind is not Kind.SEQ:
        return None
    items = s.parts if s.parts else (s.elem,) if s.elem is not None else ()
    if not items or any(i.kind is not Kind.TENSOR for i in items):
        return None
    elem = t
    for i in items:
        elem = join(elem, i)
    return Val(Kind.SEQ, elem=elem) if elem.kind is Kind.TENSOR else None


def join(a: Val | None, b: Val | None) -> Val:
    """The value that holds on either path (after if/else, loop back edges)."""
    if a is None:
        return b or UNKNOWN
    if b is None or a is b or a == b:
        return a
    if a == NONE:
        return b
    if b == NONE:
        return a
    either = _number_or_keyed(a, b)
    if either is not None:
        return either
    if (a.mid is None) is not (b.mid is None):
        one_path = _built_here_on_one_path(a, b) or _built_here_on_one_path(b, a)
        if one_path is not None:
            return one_path
    if {a.kind, b.kind} == {Kind.MODULE, Kind.UNKNOWN} and a.mid is not None and b.mid is not None:
        # a model proven on one path (`model.load_state_dict(...)` after a refined build), a build
        # from code we cannot see on the other: one model candidate, the code's use decides
        return Val(Kind.UNKNOWN, a.dev if a.dev == b.dev else Dev.UNKNOWN,
                   mid=frozenset(mid_parts(a.mid) | mid_parts(b.mid)))
    if a.kind is not b.kind:
        either = _tensor_or_tensors(a, b) or _tensor_or_tensors(b, a)
        return either if either is not None else UNKNOWN
    if a.kind in (Kind.FUNC, Kind.CLASS, Kind.OBJECT) and a.ref is not b.ref:
        return UNKNOWN  # two different callables: we cannot say which runs
    return _join_same_kind(a, b)


def _number_or_keyed(a: Val, b: Val) -> Val | None:
    """`join` where one side is a Python number beside a tensor (the tensor), or a dict batch
    with rebound keys (`_join_keyed`); None otherwise."""
    if a == NUMBER and b.kind is Kind.TENSOR:
        return b
    if b == NUMBER and a.kind is Kind.TENSOR:
        return a
    return _join_keyed(a, b) if a.keyed is not None or b.keyed is not None else None


def _join_keyed(a: Val, b: Val) -> Val | None:
    """A dict batch with keys rebound on one path (`if tok: batch["text"] = tok(...)`) and the
    same batch on the other: each key holds either; None when the two are no one batch."""
    rest_a, keys_a = a.keyed if a.keyed is not None else (a, ())
    rest_b, keys_b = b.keyed if b.keyed is not None else (b, ())
    if rest_a != rest_b:
        return None
    da, db = dict(keys_a), dict(keys_b)
    keys = tuple((k, join(da.get(k, rest_a), db.get(k, rest_b))) for k in dict.fromkeys([*da, *db]))
    return keyed_batch(rest_a, keys)


def keyed_batch(rest: Val, keys: tuple) -> Val:
    """The dict batch `rest` with `keys` rebound (Val.keyed): a tensor of unknown place, as
    any batch partly moved, whose items read by key are known."""
    return Val(Kind.TENSOR, keyed=(rest, keys))


def keyed_item(v: Val, key: str) -> Val:
    """`batch["video"]` of a dict batch with rebound keys: what that key holds now."""
    rest, keys = v.keyed
    return dict(keys).get(key, rest)


def _join_same_kind(a: Val, b: Val) -> Val:
    """`join` of two values of one kind: each field kept where both paths agree."""
    same = lambda attr: getattr(a, attr) if getattr(a, attr) == getattr(b, attr) else None  # noqa: E731
    elem = join(a.elem, b.elem) if (a.elem is not None or b.elem is not None) else None
    mid = same("mid")
    if mid is None and a.kind in (Kind.MODULE, Kind.UNKNOWN) and a.mid is not None and b.mid is not None:
        # `model = torch.hub.load(...)` on one path, `models.__dict__[arch](...)` on another:
        # one of the models built here, whichever it is (also two builds from code we cannot see,
        # before the code proves them modules)
        mid = frozenset(mid_parts(a.mid) | mid_parts(b.mid))
    return Val(
        kind=a.kind,
        dev=_join_dev(a, b),
        key=same("key"),
        moved_at=same("moved_at"),
        loader=same("loader"),
        mid=mid,
        param_free=a.param_free and b.param_free,
        fresh=a.fresh and b.fresh,
        grad=a.grad and b.grad,
        on_module=a.on_module and b.on_module,
        attr=same("attr"),
        src=same("src"),
        elem=elem,
        parts=same("parts"),
        ref=same("ref"),
        name=same("name"),
        inplace=a.inplace and b.inplace,
        partial=a.partial or b.partial,
        row=a.row or b.row,
        cond=same("cond"),
        flag=same("flag"),
        keyed=same("keyed"),
    )


def _join_dev(a: Val, b: Val) -> Dev:
    if a.dev == b.dev:
        return a.dev
    if a.kind is Kind.DEVICE and Dev.ACCEL in (a.dev, b.dev):
        return Dev.ACCEL  # "cuda" on one path, "cpu" on another: the code is device-aware
    return Dev.UNKNOWN


def own_tensor(v: "Val") -> "Val":
    """A module's own parameter or registered buffer made from `v`: `.to()` of the module
    moves it, so in its methods it lives where the module lives (a tensor already on the
    device stays known as such)."""
    if v.kind is Kind.TENSOR and v.dev is Dev.ACCEL:
        return v.with_(fresh=False, on_module=True)
    return Val(Kind.TENSOR, on_module=True)


def made_on_host(v: Val, joined: bool = False, any_size: bool = False) -> bool:
    """A host tensor a factory made here (not kept as a module attribute, not a batch), with
    dimensions; an empty placeholder counts only where it is `joined` (`torch.cat`), and a
    0-dim one only where `any_size` (a NCCL collective takes no host tensor at all)."""
    made = v.fresh or (joined and v.empty) or (any_size and v.born is not None)
    return v.kind is Kind.TENSOR and made and v.dev is Dev.CPU and v.attr is None and v.loader is None


def on_device(v: Val) -> bool:
    """A tensor on the accelerator, or one of a module's own tensors not known to be on the
    host (it lives wherever the module lives)."""
    return v.kind is Kind.TENSOR and (v.dev is Dev.ACCEL or (v.on_module and v.dev is not Dev.CPU))


def contents_on_accel(v: Val) -> bool:
    """A tensor, or a container of tensors, that is on the accelerator."""
    if v.kind in (Kind.TENSOR, Kind.UNKNOWN):  # an unknown value moved with .to() counts
        return v.on_accel
    if v.kind in (Kind.SEQ, Kind.MAPPING):
        if v.parts:
            return any(contents_on_accel(p) for p in v.parts)
        return v.elem is not None and contents_on_accel(v.elem)
    return False


def places_or_holds(v: Val) -> bool:
    """An argument that lets the callee place the model (a device) or wrap another model."""
    return v.kind in (Kind.DEVICE, Kind.MODULE) or (v.kind is Kind.UNKNOWN and v.mid is not None) or v.dev is Dev.ACCEL


def host_batch_in(v: Val) -> Val | None:
    """The loader tensor still on the host inside v (itself or a container), if any."""
    if v.kind is Kind.TENSOR:
        return v if v.host_batch else None
    if v.kind in (Kind.SEQ, Kind.MAPPING):
        for p in v.parts or ():
            found = host_batch_in(p)
            if found:
                return found
        if v.elem is not None:
            return host_batch_in(v.elem)
    return None


def surely_on_host(v: Val) -> bool:
    """A tensor, or a container of tensors, known to be on the host (numbers count)."""
    if v.kind is Kind.OTHER:
        return True
    if v.kind is Kind.TENSOR:
        return v.dev is Dev.CPU
    if v.kind in (Kind.SEQ, Kind.MAPPING):
        items = [p for p in (v.parts or ()) if p is not None] + ([v.elem] if v.elem is not None else [])
        return bool(items) and all(surely_on_host(p) for p in items)
    return False


# The `ref` mark of what a wrapper that keeps placement returns (kb.distributed.KEEPS_PLACEMENT,
# flow/models.wrap_in_place): calling it scatters host inputs to the module's device.
SCATTERS = "scatters-inputs"
