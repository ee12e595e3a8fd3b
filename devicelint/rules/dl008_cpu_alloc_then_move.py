import libcst as cst

from devicelint import knowledge as kb
from devicelint import naming
from devicelint.flow.nodes import is_string
from devicelint.names import dotted, source_of
from devicelint.rewrite import add_keyword, keyword
from devicelint.rules.base import Report, Rule

FACTORIES = kb.torch_core.FROM_NOTHING_FACTORIES
_RANDOM = kb.torch_core.RANDOM_FACTORIES
_CHAIN = kb.torch_core.SHAPE_AND_CAST_METHODS
_LEGACY = kb.torch_core.LEGACY_TENSOR_TYPES
# In-place random fills a legacy constructor's uninitialized memory gets before the move
# (`torch.LongTensor(n).random_(0, 2).cuda()`); only there: after another factory the fix
# this rule offers would claim a safety it has not.
_FILLS = frozenset({"random_", "bernoulli_", "exponential_", "geometric_", "cauchy_", "log_normal_", "zero_"})




def _device_target(call: cst.Call) -> str | None:
    """The device a `.to(...)` / `.cuda(...)` call moves to, as text, or None when the call is
    not (or not clearly) a move to an accelerator: a dtype cast, another tensor, "cpu"."""
    if call.func.attr.value == "cuda":
        return _cuda_target(call)
    if any(a.star for a in call.args):
        return None
    kw = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "device"), None)
    if kw is None:
        if not call.args or call.args[0].keyword is not None:
            return None
        kw = call.args[0].value
    return _accel_text(kw)


def _cuda_target(call: cst.Call) -> str:
    which = next((a.value for a in call.args if a.keyword is None or a.keyword.value == "device"), None)
    if which is None:
        return '"cuda"'
    if isinstance(which, cst.Integer):
        return f'"cuda:{which.value}"'
    return source_of(which)  # `.cuda(rank)`: the same index


def _accel_text(kw) -> str | None:
    """The text of `.to(kw)`'s device when it is clearly an accelerator, else None."""
    s = is_string(kw)
    if s is not None:
        return f'"{s}"' if kb.torch_core.parse_device_string(s) == "accel" else None
    if isinstance(kw, cst.Call) and dotted(kw.func) in ("torch.device",):
        first = kw.args[0].value if kw.args else None
        return None if first is not None and is_string(first) == "cpu" else source_of(kw)
    text = dotted(kw)
    if text is None:
        return None
    if text.endswith(".device") or (naming.looks_like_device_name(text) and not naming.looks_like_dtype(text)):
        return text
    return None


class CpuAllocThenMove(Rule):
    """`torch.zeros(...).to(device)`: a tensor built on the host only to be copied over.

    ## What it does
    Flags a tensor factory (`torch.zeros`, `ones`, `empty`, `full`, `rand`, `randn`,
    `randint`, `randperm`, `arange`, `linspace`, `logspace`, `eye`) whose result goes
    straight into `.to(device)` or `.cuda()`, in any import style. So is a legacy typed
    constructor given sizes (`torch.FloatTensor(x.size()).uniform_(-eps, eps).cuda()`,
    `torch.LongTensor(n, m)`, or one argument that is a `.size()`, an element of a shape or
    an integer; a lone `.shape` or name may be a tuple of data: not flagged).
    `torch.tensor(data)`, `torch.FloatTensor(values)` and
    `torch.from_numpy(...)` are not flagged (their data comes from the host anyway), nor
    are dtype casts (`.to(torch.float16)`).

    ## Why is this bad?
    The values are first written in host memory, then copied to the device: a host
    allocation, a host-to-device copy and often a synchronisation, for data the device
    could have made itself. Inside a training loop that is one wasted copy per step.

    Measured on an NVIDIA H200 (torch 2.11; `benchmarks/waste_cost.py`, a 64x3x224x224 image
    batch, median of 22 steps): per-step noise of the batch's shape made with
    `torch.randn(...).to(device)` made the step 94 ms; made with `device=device`, 2.2 ms.
    Most of it is the host generating the numbers, the rest the copy.

    ## Example
    ```python
    noise = torch.randn(batch, dim).to(device)
    ```

    ## Use instead
    ```python
    noise = torch.randn(batch, dim, device=device)
    ```

    ## Fix safety
    The fix passes the move's device to the factory (`.cuda()` becomes `device="cuda"`) and
    drops the move; a `dtype=` of the move goes to the factory too when the values are
    exact in any dtype (`zeros`, `ones`, `empty`, `eye`) and the factory has none. The
    result is the same tensor on the same device, so the fix is safe, except for the random
    factories (`rand`, `randn`, `randint`, `randperm`): on the device they draw from the
    device's generator, so the numbers differ from the host's for the same seed. Their fix
    is unsafe (`--unsafe-fixes`). No fix is offered when the move does more than move (a
    positional dtype, `non_blocking=`, `copy=`, `memory_format=`), when `.cuda()` names a
    device, or when the factory takes a `generator=`, `pin_memory=`, `requires_grad=` or
    `**kwargs`, which would mean something else on the device. A legacy typed constructor
    gets no fix: it takes no `device=`; the message names the `torch.empty(...)` to write.
    """

    code = "DL008"
    name = "cpu-alloc-then-move"
    fixable = True
    fix_applicability = ("safe", "unsafe")
    VALID = (
        """
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
mask = torch.ones(4, 4, device=device)
labels = torch.tensor([0, 1, 1]).to(device)  # data from the host: a copy is needed anyway
half = torch.zeros(3).to(torch.float16)  # a dtype cast, not a move
""",
    )
    INVALID = (
        """
import torch as T
from torch import arange
device = T.device("cuda" if T.cuda.is_available() else "cpu")
noise = T.randn(16, 8).to(device)  # <--
positions = arange(0, 128).cuda()  # <--
eye = T.eye(4).to(device=device, dtype=T.float16)  # <--
""",
    )

    FIXES = (
        (
            """
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
for step in range(10):
    mask = torch.ones(16, 16).tril().to(device)
    positions = torch.arange(0, 16, dtype=torch.long).cuda()
    eye = torch.eye(
        4,
    ).to(device=device, dtype=torch.float16)
    noise = torch.randn(16, 8).to(device)
""",
            """
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
for step in range(10):
    mask = torch.ones(16, 16, device=device).tril()
    positions = torch.arange(0, 16, dtype=torch.long, device="cuda")
    eye = torch.eye(
        4,
        device=device,
        dtype=torch.float16,
    )
    noise = torch.randn(16, 8, device=device)
""",
        ),
    )

    def check(self, ctx):
        finder = _Finder(ctx.imports)
        seen = set()
        for mv in ctx.facts.moves:  # every .to()/.cuda() the inference ran: no walk of our own
            if id(mv.node) not in seen:
                seen.add(id(mv.node))
                finder.visit_Call(mv.node)
        for node, factory, target in finder.found:
            if factory in _LEGACY:
                yield _legacy_report(node, factory, target)
                continue
            random = factory in _RANDOM
            edit = _pass_device(node, factory)
            yield Report(
                node,
                f"`torch.{factory}(...)` is built on the host and then copied to the device; "
                f"pass `device={target}` to `torch.{factory}` instead",
                fix=f"pass `device={target}` to `torch.{factory}(...)` and drop the move"
                + (" (random values then come from the device generator)" if random else ""),
                edit=edit,
                applicability="unsafe" if random else "safe",
            )


def _legacy_report(node: cst.Call, factory: str, target: str) -> Report:
    dtype = _LEGACY[factory]
    empty = f"torch.empty(size{f', dtype=torch.{dtype}' if dtype else ''}, device={target})"
    return Report(
        node,
        f"`torch.{factory}(...)` is allocated on the host and then copied to the device; "
        f"allocate it there: `{empty}`",
        fix=f"write `{empty}` (with the sizes given to `torch.{factory}`) and drop the move",
    )


def _gives_sizes(call: cst.Call) -> bool:
    """Does a legacy typed constructor get sizes, not data? Several plain arguments are
    sizes (data would be one sequence); one is only when it is visibly a size: a tensor's
    `.size()` (a torch.Size: sizes), an element of a `.size()` or `.shape`, an integer. A
    `.shape` or a name is not: a NumPy or gym shape is a plain tuple, which is data
    (`torch.Tensor(space.shape)` is a tensor of those numbers)."""
    if not call.args or any(a.star or a.keyword is not None for a in call.args):
        return False
    if len(call.args) > 1:
        return not any(isinstance(a.value, (cst.List, cst.Tuple, cst.ListComp)) for a in call.args)
    arg = call.args[0].value
    if isinstance(arg, cst.Subscript):  # `x.shape[0]`: an int; `x.shape[1:]` may be a tuple
        one = len(arg.slice) == 1 and isinstance(arg.slice[0].slice, cst.Index)
        return one and (_size_call(arg.value) or isinstance(arg.value, cst.Attribute) and arg.value.attr.value == "shape")
    return isinstance(arg, cst.Integer) or _size_call(arg)


def _size_call(node) -> bool:
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "size"


# Factories whose values do not depend on the dtype they are computed in: a cast after them
# equals asking for the dtype up front.
_EXACT = {"zeros", "ones", "empty", "eye"}
# Factory arguments that mean something else (or fail) once the factory runs on the device.
_HOST_ONLY = {"generator", "pin_memory", "requires_grad", "out", "device", "names"}


def _factory_of(call: cst.Call):
    """The factory call under a move and its chain of shape/dtype methods."""
    inner = call.func.value
    while isinstance(inner, cst.Call) and isinstance(inner.func, cst.Attribute) and inner.func.attr.value in _CHAIN:
        inner = inner.func.value
    return inner


def _pass_device(node: cst.Call, factory: str):
    """The edit `torch.f(s).chain().to(d)` -> `torch.f(s, device=d).chain()`, or None when
    the move does more than move, or the factory would mean something else on the device."""
    inner = _factory_of(node)
    if any(a.star or (a.keyword is not None and a.keyword.value in _HOST_ONLY) for a in inner.args):
        return None
    if node.func.attr.value == "cuda":
        if node.args:
            return None  # `.cuda(1)`, `.cuda(non_blocking=True)`
        device, dtype = cst.SimpleString('"cuda"'), None
    else:
        found = _to_arguments(node, factory, inner)
        if found is None:
            return None
        device, dtype = found
    return _chain_edit(node, inner, device, dtype)


def _to_arguments(node: cst.Call, factory: str, inner: cst.Call):
    """(device, dtype or None) of a `.to(d)` / `.to(device=d, dtype=t)` whose arguments the
    factory can take instead; else None."""
    positional = [a for a in node.args if a.keyword is None]
    named = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
    if any(a.star for a in node.args) or len(positional) > 1 or set(named) - {"device", "dtype"}:
        return None
    if positional and "device" in named:
        return None
    device = positional[0].value if positional else named.get("device")
    dtype = named.get("dtype")
    if device is None:
        return None
    if dtype is not None and (factory not in _EXACT or keyword(inner, "dtype") is not None):
        return None
    return device, dtype


def _chain_edit(node: cst.Call, inner: cst.Call, device, dtype):
    """The edit that gives the factory `inner` the device (and dtype) and drops the move."""
    depth = 0
    n = node.func.value
    while n is not inner:
        n, depth = n.func.value, depth + 1

    def rebuild(value, level):
        if level == 0:
            call = add_keyword(value, "device", device)
            return add_keyword(call, "dtype", dtype) if dtype is not None else call
        return value.with_changes(func=value.func.with_changes(value=rebuild(value.func.value, level - 1)))

    def edit(call: cst.Call):
        chain = rebuild(call.func.value, depth)
        # keep the move's own parentheses and comments around the expression
        return chain.with_changes(lpar=call.lpar, rpar=call.rpar) if call.lpar else chain

    return edit


class _Finder(cst.CSTVisitor):
    def __init__(self, imports):
        self.imports = imports
        self.found = []

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not (isinstance(func, cst.Attribute) and func.attr.value in ("to", "cuda")):
            return
        inner = func.value
        # walk down a chain of shape/dtype methods to the factory call
        filled = False
        while isinstance(inner, cst.Call) and isinstance(inner.func, cst.Attribute) and (
                inner.func.attr.value in _CHAIN or inner.func.attr.value in _FILLS):
            filled |= inner.func.attr.value in _FILLS
            inner = inner.func.value
        if not isinstance(inner, cst.Call):
            return
        q = self.imports.qualname(inner.func)
        if q is None or not q.startswith("torch.") or q.count(".") != 1:
            return
        factory = q.split(".", 1)[1]
        if factory in _LEGACY and _gives_sizes(inner):
            target = _device_target(node)
            if target is not None:
                self.found.append((node, factory, target))
            return
        if factory not in FACTORIES or filled:
            return
        if any(a.star or (a.keyword is not None and a.keyword.value in ("device", "out")) for a in inner.args):
            return
        target = _device_target(node)
        if target is not None:
            self.found.append((node, factory, target))
