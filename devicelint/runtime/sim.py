"""A simulated CUDA device on the CPU build of torch.

Every tensor physically lives on the CPU; its *logical* device ("cpu" or "cuda:0") is
kept per storage, because a device is a property of the storage: views, ``.data``,
``param.data = moved`` (what ``Module.to`` does) all share one, so the tag follows
them for free. Two modes cooperate:

* ``_SimFunctionMode`` (torch-function level, sees what the user's code calls):
  rewrites ``device=`` arguments to the CPU and tags the result with the requested
  device, implements ``.to`` / ``.cuda`` / ``.cpu`` as a real copy when the logical
  device changes (and counts it), answers ``.device`` / ``.is_cuda`` with the logical
  device, and raises the ``.numpy()`` error.
* ``_SimDispatchMode`` (aten level, also sees autograd's backward and optimizer
  kernels): checks that the operands of every op share a device, as CUDA kernels do,
  raising PyTorch's own texts, and tags each fresh output with the operands' device,
  which is how gradients and optimizer state end up on "cuda".

FakeTensorMode is not used: on CPU-only builds autograd aborts on fake CUDA tensors.

Usage (also in-process, as the unit tests do)::

    with Simulator(recorder) as sim:
        runpy.run_path(script)
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
import types
import warnings

import torch
from torch.multiprocessing.reductions import StorageWeakRef
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

from devicelint.runtime.simdist import Gpus
from devicelint.runtime.simdist import patches as dist_patches

CPU = "cpu"
CUDA = "cuda:0"
# Created inside a C++ composite with no tensor operand (e.g. at::empty(opts)): its
# device is whatever the surrounding call decides, so it must not trip the check.
FLOAT = "floating"
DEVICE_NAME = "Simulated CUDA device (devicelint, CPU)"
TOTAL_MEMORY = 16 * 2**30

aten = torch.ops.aten
T = torch.Tensor

# torch.cuda._lazy_init in a child forked after the parent initialised CUDA (a DataLoader worker)
REINIT_IN_FORK = ("Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, "
                  "you must use the 'spawn' start method")
# at::_pin_memory on a tensor that is not on the host
PIN_NOT_CPU = "cannot pin '{}' only dense CPU tensors can be pinned"
SAME_DEVICE = "Expected all tensors to be on the same device, but found at least two devices, {} and {}!"
# ATen's check_generator: a random op on one device type given a generator of another
GENERATOR_ERROR = "Expected a '{}' device type for generator but found '{}'"
NUMPY_ERROR = (
    "can't convert {} device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first."
)
# ops that legitimately move data between devices; the copy itself is counted
_CROSS_OK = {aten.copy_, aten._to_copy, aten.copy, aten._copy_from, aten._copy_from_and_resize, aten.lift_fresh}
_CONV = {aten.convolution, aten._convolution, aten.convolution_overrideable}
# eager CUDA accepts CPU index tensors here (advanced indexing moves them)
_INDEX_ARG = {aten.index: 1, aten.index_put_: 1, aten.index_put: 1, aten._index_put_impl_: 1}
# joining ops check every operand's device, 0-dim ones too (only element-wise kernels take
# a CPU scalar): `torch.stack([torch.tensor(1.0), loss])` fails on CUDA
_JOIN = {aten.stack, aten.cat, aten._stack}


# the simulated GPUs of the Simulator now running (simdist.Gpus): which one is current
_GPUS = None


def _current() -> str:
    """The current device: what `"cuda"` with no index means (GPU 0 until `set_device`)."""
    return f"cuda:{_GPUS.current if _GPUS is not None else 0}"


def _logical(spec) -> str | None:
    """'cpu' / 'cuda:N' for a device spec; None for devices we do not simulate (meta)."""
    if isinstance(spec, int) and not isinstance(spec, bool):
        return f"cuda:{spec}"
    dev = torch.device(spec)
    if dev.type == "cpu":
        return CPU
    if dev.type == "cuda":
        return _current() if dev.index is None else f"cuda:{dev.index}"
    return None


def _torch_device(logical: str) -> torch.device:
    return torch.device(CPU if logical == FLOAT else logical)


def _tensors(obj) -> list[torch.Tensor]:
    return [t for t in tree_flatten(obj)[0] if isinstance(t, torch.Tensor)]


class _StorageTags:
    """storage -> logical device. Holding a weak ref pins the StorageImpl's address
    (only its data is freed), so a key can never be reused by a different storage."""

    def __init__(self):
        self._tags: dict[int, tuple[StorageWeakRef, str, int]] = {}
        self._purge_at = 4096
        self.peak = 0

    @staticmethod
    def _storage(t):
        try:
            return t.untyped_storage()
        except (RuntimeError, NotImplementedError):  # sparse / storage-less tensors
            return None

    def get(self, t) -> str | None:
        s = self._storage(t)
        entry = self._tags.get(s._cdata) if s is not None else None
        return entry[1] if entry is not None else None

    def set(self, t, device: str) -> None:
        s = self._storage(t)
        if s is None:
            return
        old = self._tags.get(s._cdata)
        self._tags[s._cdata] = (old[0] if old else StorageWeakRef(s), device, s.nbytes())
        if len(self._tags) > self._purge_at:
            self._tags = {k: v for k, v in self._tags.items() if not v[0].expired()}
            self._purge_at = max(4096, 2 * len(self._tags))

    def key(self, t):
        s = self._storage(t)
        return None if s is None else s._cdata

    def of_storage(self, storage) -> str | None:
        entry = self._tags.get(storage._cdata)
        return entry[1] if entry is not None else None

    def live_bytes(self) -> int:
        total = sum(n for ref, dev, n in self._tags.values() if dev.startswith("cuda") and not ref.expired())
        self.peak = max(self.peak, total)
        return total


def _type_string(t: torch.Tensor, device: str) -> str:
    with torch._C.DisableTorchFunction():  # the physical type, not the simulated answer
        name = t.type()  # e.g. torch.FloatTensor
    return name.replace("torch.", "torch.cuda.", 1) if device.startswith("cuda") else name


class Simulator:
    """Context manager: patches torch.cuda to report one device and pushes both modes."""

    def __init__(self, recorder=None):
        self.recorder = recorder
        self.gpus = Gpus()
        self.tags = _StorageTags()
        self._stack = None
        self._pinned: dict = {}  # storage key -> weak ref: host tensors pinned by pin_memory()
        # CUDA is initialised lazily, by the first tensor placed there (or a query that needs
        # the runtime); a process forked after that cannot use CUDA again ("bad fork")
        self.cuda_initialized = False
        self.bad_fork = False

    # ---- CUDA initialisation and fork -------------------------------------------
    def lazy_init(self) -> None:
        """What torch.cuda._lazy_init does on the way to a CUDA tensor: fail in a bad fork."""
        if self.bad_fork:
            raise RuntimeError(REINIT_IN_FORK)
        self.cuda_initialized = True

    def _after_fork_in_child(self) -> None:
        self.bad_fork = self.cuda_initialized

    # ---- pinned host memory (counted, never real: pinning needs a CUDA runtime) --------
    def mark_pinned(self, obj):
        for t in _tensors(obj):
            dev = self.device_str(t)
            if dev != CPU:
                raise RuntimeError(PIN_NOT_CPU.format(_type_string(t, dev)))
        for t in _tensors(obj):
            s = self.tags._storage(t)
            if s is not None:
                self._pinned[s._cdata] = StorageWeakRef(s)
        if len(self._pinned) > 4096:
            self._pinned = {k: r for k, r in self._pinned.items() if not r.expired()}
        return obj

    def is_pinned(self, t) -> bool:
        ref = self._pinned.get(self.tags.key(t))
        return ref is not None and not ref.expired()

    # ---- logical devices -------------------------------------------------------
    def raw_device(self, t) -> str:
        return self.tags.get(t) or CPU

    def device_str(self, t) -> str:
        dev = self.raw_device(t)
        return CPU if dev == FLOAT else dev

    def device_of(self, t) -> torch.device:
        with torch._C.DisableTorchFunction():
            return _torch_device(self.device_str(t))

    def live_bytes(self) -> int:
        return self.tags.live_bytes()

    def _line(self):
        return self.recorder.line() if self.recorder is not None else 0

    def _count_copy(self, src: str, dst: str, source=None) -> None:
        if self.recorder is None or src == dst:
            return
        kind = "h2d" if dst.startswith("cuda") and src == CPU else "d2h" if src.startswith("cuda") and dst == CPU else "d2d"
        self.recorder.copy(kind)
        if kind == "h2d" and source is not None and not self.is_pinned(source):
            self.recorder.copy("pageable")

    # ---- aten level ------------------------------------------------------------
    def dispatch(self, func, args, kwargs):
        with torch._C.DisableTorchFunction():
            return self._dispatch(func, args, kwargs)

    def _dispatch(self, func, args, kwargs):
        packet = func.overloadpacket
        tensors = _tensors((args, kwargs))
        devs = [self.raw_device(t) for t in tensors]
        if packet in _CROSS_OK:
            # a tensor whose device no one decided (FLOAT: made by C++ with no operand, such
            # as DDP's gradient buckets) is where the copy's other side is: nothing crosses
            if packet is aten.copy_ and len(tensors) >= 2 and FLOAT not in devs[:2]:
                self._count_copy(self.device_str(args[1]), self.device_str(args[0]), args[1])
            out = func(*args, **kwargs)
            self._tag_fresh(out, devs[0] if devs else FLOAT)
            return out
        if packet in _CONV:
            self._check_conv(args)
        exempt = set()
        if packet in _INDEX_ARG and len(args) > _INDEX_ARG[packet]:
            exempt = {id(t) for t in _tensors(args[_INDEX_ARG[packet]])}
        seen: list[str] = []
        for t, dev in zip(tensors, devs):
            if dev == FLOAT or (dev == CPU and ((t.dim() == 0 and packet not in _JOIN) or id(t) in exempt)):
                continue  # CUDA kernels accept CPU scalars (and CPU indices) as operands
            if dev not in seen:
                seen.append(dev)
        if len(seen) > 1:
            raise RuntimeError(SAME_DEVICE.format(seen[0], seen[1]))
        real = [d for d in devs if d != FLOAT]
        common = next((d for d in real if d.startswith("cuda")), real[0] if real else FLOAT)
        out = func(*args, **kwargs)
        self._tag_fresh(out, common)
        return out

    def _check_conv(self, args):
        inp, weight = args[0], args[1]
        bias = args[2] if len(args) > 2 else None
        di, dw = self.device_str(inp), self.device_str(weight)
        # CPU input reaches the MKLDNN check, which words it longer
        tail = "" if di.startswith("cuda") else " or input should be a MKLDNN tensor and {} is a dense tensor"
        if di != dw:
            raise RuntimeError(
                f"Input type ({_type_string(inp, di)}) and weight type ({_type_string(weight, dw)}) "
                "should be the same" + tail.format("weight")
            )
        if isinstance(bias, torch.Tensor) and self.device_str(bias) != di:
            raise RuntimeError(
                f"Input type ({_type_string(inp, di)}) and bias type ({_type_string(bias, self.device_str(bias))}) "
                "should be the same" + tail.format("bias")
            )

    def _tag_fresh(self, out, device: str) -> None:
        for t in _tensors(out):
            if self.tags.get(t) is None:
                self.tags.set(t, device)

    # ---- torch-function level --------------------------------------------------
    def function(self, func, args, kwargs):
        kwargs = _with_default_device(func, kwargs)
        self._check_generator(args, kwargs)
        handler = _HANDLERS.get(func)
        pre = self.recorder.before(func, args) if self.recorder is not None else None
        out = handler(self, func, args, kwargs) if handler else self._generic(func, args, kwargs)
        if self.recorder is not None:
            self.recorder.after(func, args, out, pre, self.device_of)
        return out

    def _check_generator(self, args, kwargs) -> None:
        """A random op given `generator=` of another device type fails on real CUDA, as
        `RandomSampler`'s CPU generator does under `torch.set_default_device("cuda")`: the op
        runs where its `device=` (or its tensor operand) is."""
        gen = kwargs.get("generator")
        if not isinstance(gen, torch._C.Generator):  # torch.Generator is _SimGenerator in here
            return
        if kwargs.get("device") is not None:
            where = _logical(kwargs["device"])
        else:
            where = next((self.device_str(t) for t in _tensors(args)), CPU)
        if where is None:
            return  # meta & co: not simulated
        op_type, gen_type = where.split(":")[0], gen.device.type
        if op_type != gen_type:
            raise RuntimeError(GENERATOR_ERROR.format(op_type, gen_type))

    def _generic(self, func, args, kwargs):
        target = None
        if kwargs.get("device") is not None:
            target = _logical(kwargs["device"])
            if target is not None:
                kwargs = {**kwargs, "device": CPU}
            if target is not None and target.startswith("cuda"):
                self.lazy_init()
        inputs = _tensors((args, kwargs))
        out = func(*args, **kwargs)
        input_keys = {self.tags.key(t) for t in inputs}
        if target is not None and isinstance(out, torch.Tensor) and self.tags.key(out) in input_keys:
            if self.raw_device(out) != target:  # e.g. as_tensor(cpu_t, device="cuda") returned its input
                out = out.clone()
        if target is None:
            devs = [self.raw_device(t) for t in inputs]
            target = next((d for d in devs if d.startswith("cuda")), CPU)
            for t in _tensors(out):  # resolve only what nobody decided yet
                if self.tags.get(t) in (None, FLOAT):
                    self.tags.set(t, target)
            return out
        for t in _tensors(out):
            if self.tags.key(t) not in input_keys:
                self.tags.set(t, target)
        return out

    def _move(self, func, self_t, target, dtype=None, non_blocking=False, copy=False, memory_format=None):
        src = self.device_str(self_t)
        if target is None:
            target = src
        extra = {} if memory_format is None else {"memory_format": memory_format}
        crossing = target != src
        if crossing and target.startswith("cuda"):
            self.lazy_init()
        out = T.to(self_t, device=CPU, dtype=dtype, non_blocking=non_blocking, copy=copy or crossing, **extra)
        if crossing:
            self.tags.set(out, target)
            self._count_copy(src, target, self_t)
        return out

    # ---- install ---------------------------------------------------------------
    def __enter__(self):
        global _GPUS, _ACTIVE
        self._stack = contextlib.ExitStack()
        _GPUS = self.gpus
        self._stack.callback(_forget_gpus)
        _ACTIVE = self
        self._stack.callback(_deactivate, self)
        try:
            _patch_torch(self, self._stack)
            self._stack.enter_context(_SimDispatchMode(self))
            self._stack.enter_context(_SimFunctionMode(self))
        except BaseException:
            self._stack.close()
            raise
        return self

    def __exit__(self, *exc):
        self._stack.close()
        return False


# The simulator in force, for the fork hook: os.register_at_fork cannot be undone, so it is
# registered once and asks whichever simulator is active.
_ACTIVE: "Simulator | None" = None


def _deactivate(sim) -> None:
    global _ACTIVE
    if _ACTIVE is sim:
        _ACTIVE = None


def _child_after_fork() -> None:
    if _ACTIVE is not None:
        _ACTIVE._after_fork_in_child()


# CPython 3.12+ warns when a multi-threaded process forks; an initialised CUDA runtime keeps
# threads of its own, so a DataLoader forking its workers after CUDA is in use warns on real
# CUDA. The simulated runtime starts no thread: the warning is CPython's, given here.
FORK_WARNS = sys.version_info >= (3, 12)
FORK_WARNING = "This process (pid={}) is multi-threaded, use of fork() may lead to deadlocks in the child."


def _parent_after_fork() -> None:
    if _ACTIVE is None or not (FORK_WARNS and _ACTIVE.cuda_initialized) or _threads() > 1:
        return  # (with threads of its own, the process gets CPython's warning already)
    # stacklevel 2: the frame that called os.fork, as CPython's own warning names
    warnings.warn(FORK_WARNING.format(os.getpid()), DeprecationWarning, stacklevel=2)


def _threads() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        import threading

        return threading.active_count()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_child_after_fork, after_in_parent=_parent_after_fork)


class _SimFunctionMode(TorchFunctionMode):
    def __init__(self, sim):
        super().__init__()
        self.sim = sim

    def __torch_function__(self, func, types, args=(), kwargs=None):
        return self.sim.function(func, args, dict(kwargs or {}))


class _SimDispatchMode(TorchDispatchMode):
    def __init__(self, sim):
        super().__init__()
        self.sim = sim

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        return self.sim.dispatch(func, args, dict(kwargs or {}))


# ---- handlers for the calls whose answer depends on the logical device ----------
def _h_to(sim, func, args, kwargs):
    self_t, rest = args[0], args[1:]
    device, dtype = kwargs.get("device"), kwargs.get("dtype")
    flags = [a for a in rest if isinstance(a, bool)]  # positional non_blocking, copy
    for a in rest:
        if isinstance(a, torch.Tensor):
            device, dtype = sim.device_str(a), a.dtype
        elif isinstance(a, torch.dtype):
            dtype = a
        elif isinstance(a, (str, torch.device)) or (isinstance(a, int) and not isinstance(a, bool)):
            device = a
    target = _logical(device) if device is not None else None
    if device is not None and target is None:
        return func(*args, **kwargs)  # meta & co: not simulated
    return sim._move(
        func,
        self_t,
        target,
        dtype=dtype,
        non_blocking=kwargs.get("non_blocking", flags[0] if flags else False),
        copy=kwargs.get("copy", flags[1] if len(flags) > 1 else False),
        memory_format=kwargs.get("memory_format"),
    )


def _h_cuda(sim, func, args, kwargs):
    device = args[1] if len(args) > 1 else kwargs.get("device")
    target = _current() if device is None else _logical(device)
    return sim._move(func, args[0], target, non_blocking=kwargs.get("non_blocking", False),
                     memory_format=kwargs.get("memory_format"))


def _h_cpu(sim, func, args, kwargs):
    return sim._move(func, args[0], CPU, memory_format=kwargs.get("memory_format"))


def _h_numpy(sim, func, args, kwargs):
    dev = sim.device_str(args[0])
    if dev != CPU:
        raise TypeError(NUMPY_ERROR.format(dev))
    return func(*args, **kwargs)


def _h_repr(sim, func, args, kwargs):
    text = func(*args, **kwargs)
    dev = sim.device_str(args[0])
    if dev == CPU or not isinstance(text, str) or not text.endswith(")"):
        return text
    # real CUDA tensors print their device right after the data
    cut = min((i for i in (text.find(k) for k in (", size=", ", dtype=", ", grad_fn=", ", requires_grad=", ", layout=")) if i > 0), default=len(text) - 1)
    return f"{text[:cut]}, device='{dev}'{text[cut:]}"


def _h_type(sim, func, args, kwargs):
    if len(args) == 1 and not kwargs:
        return _type_string(args[0], sim.device_str(args[0]))
    return func(*args, **kwargs)


_HANDLERS = {
    T.to: _h_to,
    T.cuda: _h_cuda,
    T.cpu: _h_cpu,
    T.numpy: _h_numpy,
    T.__array__: _h_numpy,
    T.__repr__: _h_repr,
    T.type: _h_type,
    T.device.__get__: lambda sim, f, a, k: _torch_device(sim.device_str(a[0])),
    T.is_cuda.__get__: lambda sim, f, a, k: sim.device_str(a[0]).startswith("cuda"),
    T.is_cpu.__get__: lambda sim, f, a, k: sim.device_str(a[0]) == CPU,
    T.get_device: lambda sim, f, a, k: int(sim.device_str(a[0]).split(":")[1]) if sim.device_str(a[0]) != CPU else -1,
    # pinning needs a real CUDA runtime: the tensor stays as it is, but is remembered as
    # pinned, so that copies from pageable memory can be counted
    T.pin_memory: lambda sim, f, a, k: sim.mark_pinned(a[0]),
    T.is_pinned: lambda sim, f, a, k: sim.is_pinned(a[0]),
}


# ---- torch.cuda stand-ins -------------------------------------------------------
class _Event:
    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        self.t = None

    def record(self, stream=None):
        self.t = time.perf_counter()

    def synchronize(self):
        pass

    def wait(self, stream=None):
        pass

    def query(self):
        return True

    def elapsed_time(self, end):
        return (end.t - self.t) * 1000.0


class _Stream:
    def __init__(self, device=None, priority=0, **kw):
        self.device = torch.device(CUDA)

    def synchronize(self):
        pass

    def wait_stream(self, other):
        pass

    def wait_event(self, event):
        pass

    def record_event(self, event=None):
        event = event or _Event()
        event.record()
        return event

    def query(self):
        return True

    def is_capturing(self):
        return False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _with_default_device(func, kwargs: dict) -> dict:
    """`torch.set_default_device("cuda")` / `with torch.device("cuda"):` push a DeviceContext
    at the bottom of the mode stack, under the simulator's modes: a factory without `device=`
    reaches the simulator first. Give it the default device here, as the DeviceContext
    would, so that it is simulated instead of asking the CPU build for CUDA."""
    from torch.utils import _device

    default = getattr(_device, "CURRENT_DEVICE", None)
    if default is None or kwargs.get("device") is not None or func not in _device._device_constructors():
        return kwargs
    return {**kwargs, "device": default}


class _SimGenerator(torch.Generator):
    """`torch.Generator(device="cuda")`: a CPU generator (a CPU build has no CUDA one) that
    reports its logical device, so that the generator-device check sees what CUDA would."""

    def __new__(cls, device="cpu"):
        return super().__new__(cls, device="cpu")

    def __init__(self, device="cpu"):
        self._logical = _logical(device) or CPU

    @property
    def device(self):
        return _torch_device(self._logical)


def _forget_gpus() -> None:
    global _GPUS
    _GPUS = None


def _noop(*args, **kwargs):
    return None


def _fresh_noop():
    # one function object per patched name: torch._dynamo's rule map rejects the same
    # object registered under two torch names
    def noop(*args, **kwargs):
        return None

    return noop


def _patch_torch(sim, stack):
    props = types.SimpleNamespace(
        name=DEVICE_NAME, total_memory=TOTAL_MEMORY, major=8, minor=0, multi_processor_count=1,
        is_integrated=False, is_multi_gpu_board=False,
    )
    cuda = {
        "is_available": lambda: True,
        "device_count": lambda: sim.gpus.count,
        # both initialise CUDA, as torch's do: a DataLoader worker forked afterwards cannot
        "current_device": lambda: (sim.lazy_init(), sim.gpus.current)[1],
        "set_device": lambda device: (sim.lazy_init(), sim.gpus.set_device(device))[1],
        "device": sim.gpus.device_scope,
        "get_device_name": lambda device=None: DEVICE_NAME,
        "get_device_capability": lambda device=None: (8, 0),
        "get_device_properties": lambda device=None: props,
        "is_bf16_supported": lambda *a, **k: True,
        "synchronize": lambda device=None: sim.lazy_init(),
        "empty_cache": _fresh_noop(),
        "ipc_collect": _fresh_noop(),
        "init": lambda: sim.lazy_init(),
        "manual_seed": _fresh_noop(),
        "manual_seed_all": _fresh_noop(),
        "seed": _fresh_noop(),
        "seed_all": _fresh_noop(),
        "memory_allocated": lambda device=None: sim.live_bytes(),
        "memory_reserved": lambda device=None: sim.live_bytes(),
        "max_memory_allocated": lambda device=None: max(sim.tags.peak, sim.live_bytes()),
        "max_memory_reserved": lambda device=None: max(sim.tags.peak, sim.live_bytes()),
        "reset_peak_memory_stats": _fresh_noop(),
        "reset_max_memory_allocated": _fresh_noop(),
        "reset_accumulated_memory_stats": _fresh_noop(),
        "mem_get_info": lambda device=None: (TOTAL_MEMORY - sim.live_bytes(), TOTAL_MEMORY),
        "Event": _Event,
        "Stream": _Stream,
        "current_stream": lambda device=None: _Stream(),
        "default_stream": lambda device=None: _Stream(),
        "stream": lambda stream=None: contextlib.nullcontext(stream),
        "set_stream": _fresh_noop(),
        "is_current_stream_capturing": lambda: False,
    }
    accelerator = {
        "is_available": lambda: True,
        "current_accelerator": lambda check_available=False: torch.device("cuda"),
        "device_count": lambda: sim.gpus.count,
        "current_device_index": lambda: sim.gpus.current,
        "set_device_index": sim.gpus.set_device,
        "current_stream": lambda device=None: _Stream(),
        "set_stream": _fresh_noop(),
        "synchronize": _fresh_noop(),
    }
    # Simulated tensors are host tensors, so cuDNN never applies: asking it would, on a
    # CUDA build without a GPU, initialise the CUDA runtime ("Found no NVIDIA driver"
    # when an LSTM is moved) and, on a CPU build, warn about a missing cuDNN.
    cudnn = {"is_acceptable": lambda tensor: False}
    targets = [(torch.cuda, cuda), (torch.backends.cudnn, cudnn), (torch, {"Generator": _SimGenerator})]
    if hasattr(torch, "accelerator"):
        targets.append((torch.accelerator, accelerator))
    import torch.utils.data._utils.pin_memory as pin

    targets.append((pin, {"pin_memory": lambda data, device=None: sim.mark_pinned(data)}))
    targets.append((torch.serialization, _saving_patches(sim)))
    targets.append((torch._C, {"_scatter": _scatter, "_gather": _gather}))
    for module, names in targets:
        for name, value in names.items():
            if hasattr(module, name) or module in (torch.cuda, torch._C):
                stack.enter_context(_patched(module, name, value))
    for module, name, value in dist_patches(sim.gpus, sim.device_str):
        stack.enter_context(_patched(module, name, value))


def _scatter(tensor, devices, chunk_sizes=None, dim=0, streams=None):
    """`nn.DataParallel`'s scatter (a CUDA build's C++ op, absent from a CPU build): the
    input split along `dim`, each chunk moved to its GPU; `.to` counts what crosses."""
    chunks = tensor.split(list(chunk_sizes), dim) if chunk_sizes else tensor.chunk(len(devices), dim)
    return [chunk.to(f"cuda:{device}") for chunk, device in zip(chunks, devices)]


def _gather(tensors, dim=0, destination=None):
    """Its gather: every piece moved to `destination` (-1: the host, None: the current
    GPU) and joined there."""
    target = CPU if destination == -1 else _current() if destination is None else f"cuda:{destination}"
    return torch.cat([t.to(target) for t in tensors], dim)


def _saving_patches(sim) -> dict:
    """`torch.save` writes each storage on the device through `storage.cpu()`: one
    device-to-host copy (a sync) per distinct storage, counted on the script's save line.
    Simulated storages are host memory already, so those copies are counted here: the
    storages pickled by one save are collected where it asks for their location, and
    counted when it returns. The location written stays the host's, so what the script
    loads back is what the CPU build can restore."""
    import torch.serialization as ser

    location_tag, saves = ser.location_tag, []

    def tag(storage):
        if saves and (sim.tags.of_storage(storage) or CPU).startswith("cuda"):
            saves[-1][storage._cdata] = sim.tags.of_storage(storage)
        return location_tag(storage)

    def counting(save):
        def wrapped(*args, **kwargs):
            saves.append({})
            try:
                out = save(*args, **kwargs)
            finally:
                written = saves.pop()
            for device in written.values():
                sim._count_copy(device, CPU)
            return out

        return wrapped

    return {"location_tag": tag, "_save": counting(ser._save), "_legacy_save": counting(ser._legacy_save)}


@contextlib.contextmanager
def _patched(module, name, value):
    missing = object()
    old = getattr(module, name, missing)
    setattr(module, name, value)
    try:
        yield
    finally:
        if old is missing:
            delattr(module, name)
        else:
            setattr(module, name, old)
