import re

import libcst as cst

from devicelint import knowledge as kb
from devicelint.flow import walk
from devicelint.flow.nodes import contains, find
from devicelint.names import dotted, source_of
from devicelint.rewrite import Scopes, add_keyword, device_var
from devicelint.rules.base import Report, Rule
from devicelint.values import Dev, Kind, surely_on_host

_GUARD = re.compile(r"cuda|gpu|is_available|device_count", re.IGNORECASE)
# States that hold plain numbers or CPU byte tensors, never device storages: LR schedulers,
# GradScaler, saved RNG states. Loading them needs no map_location.
_TENSOR_FREE = re.compile(r"sched|scaler|rng|random_state", re.IGNORECASE)


class LoadWithoutMapLocation(Rule):
    """`torch.load(...)` without `map_location` in code that uses an accelerator.

    ## What it does
    Flags `torch.load` calls (any import style) that give no `map_location` (keyword or
    second positional argument), in files that move data to a device or mention CUDA.
    Calls that pass `**kwargs` through, calls inside a branch that tests for CUDA, and
    loads from an in-memory `io.BytesIO` buffer (bytes this same run serialized, e.g. to
    broadcast an object) and files this same code saved host data to (`torch.save(t.cpu(), path)`,
    tensors built from NumPy) are left alone, as are states known to hold no device tensors
    (a learning-rate scheduler's or a GradScaler's `state_dict`, saved RNG states: the
    receiver or the path says `scheduler`, `scaler` or `rng`).

    ## Why is this bad?
    Without `map_location`, every tensor is restored to the device it was saved from. A
    checkpoint written on a GPU then fails to load on a machine without one:
    `RuntimeError: Attempting to deserialize object on a CUDA device but
    torch.cuda.is_available() is False`. On a multi-GPU machine it lands on the saving
    rank's GPU (often `cuda:0` for every process), which wastes memory there.

    ## Example
    ```python
    state = torch.load("checkpoint.pt")
    model.load_state_dict(state["model"])
    ```

    ## Use instead
    ```python
    state = torch.load("checkpoint.pt", map_location=device)  # or "cpu"
    model.load_state_dict(state["model"])
    ```

    ## Fix safety
    The fix adds `map_location=device` when a variable named like a device (`device`,
    `dev`, `self`-less names only) is certainly bound where the load runs and the inference
    knows it holds a device (built by `torch.device(...)`, a device string, or passed one
    by every caller it sees); otherwise `map_location="cpu"`. Either is safe: the tensors
    are loaded where this run wants them (or on the host), `load_state_dict` copies them
    into the model's own parameters either way, and a load that worked before still works.
    """

    code = "DL009"
    name = "load-without-map-location"
    fixable = True
    VALID = (
        """
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 2).to(device)
model.load_state_dict(torch.load("model.pt", map_location=device))
extra = torch.load("extra.pt", "cpu")
""",
        """
import torch
stats = torch.load("stats.pt")  # CPU-only code: nothing device-aware in this file
""",
    )
    INVALID = (
        """
import torch
from torch import load
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 2).to(device)
model.load_state_dict(torch.load("model.pt"))  # <--
optimizer_state = load("optim.pt", weights_only=True)  # <--
""",
    )

    FIXES = (
        (
            """
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 2).to(device)
model.load_state_dict(torch.load("model.pt"))

def resume(path, model, optimizer):
    state = torch.load(path, weights_only=True)
    model.load_state_dict(state["model"])
    device = "cpu"

class Trainer:
    def restore(self, path):
        return torch.load(
            path,
        )
""",
            """
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 2).to(device)
model.load_state_dict(torch.load("model.pt", map_location=device))

def resume(path, model, optimizer):
    state = torch.load(path, weights_only=True, map_location="cpu")
    model.load_state_dict(state["model"])
    device = "cpu"

class Trainer:
    def restore(self, path):
        return torch.load(
            path,
            map_location=device,
        )
""",
        ),
    )

    def check(self, ctx):
        if b"load" not in ctx.source:
            return
        if b"cuda" not in ctx.source and not any(
            mv.node.func.attr.value != "cpu" and mv.target_text != "cpu" for mv in ctx.facts.moves
        ):
            return
        if not any(
            q == "torch.load" and not any(a.keyword and a.keyword.value == "map_location" for a in c.args)
            for c, q in ctx.facts.api_calls
        ):
            return  # no candidate: skip both walks
        buffers = _buffer_names(ctx.module)
        finder = _Finder(ctx.imports, buffers | _host_files(ctx.facts.saves))
        found = [c for c in ctx.calls if finder.flags(c) and _reached_unguarded(ctx.module, c)]
        scopes = ctx.scopes
        for node in found:
            where = _device_in_scope(scopes, node, ctx.facts.load_scopes.get(node, ()))
            yield Report(
                node,
                "`torch.load` without `map_location` restores tensors to the device they were saved "
                "from: a GPU checkpoint then fails to load on a machine without CUDA",
                fix=f"pass `map_location={where}`" if where else "pass `map_location=device` (or `\"cpu\"`)",
                edit=(lambda call, w=where: add_keyword(call, "map_location", cst.parse_expression(w))) if where else None,
            )


def _device_in_scope(scopes: Scopes, node: cst.Call, contexts) -> str | None:
    """The code to pass as `map_location`: the device variable, or `"cpu"`; None when the
    call is one we cannot add a keyword to."""
    if any(a.star for a in node.args):
        return None
    return device_var(scopes, node, contexts) or '"cpu"'


def _host_files(saves) -> set:
    """Paths (as spelled) that this file only ever `torch.save`s host data to: loading them back
    restores host tensors, whatever machine wrote them."""
    host, other = set(), set()
    for call, val in saves:
        path = [a.value for a in call.args if a.keyword is None][1:2] or [
            a.value for a in call.args if a.keyword is not None and a.keyword.value == "f"
        ]
        if not path:
            continue
        if surely_on_host(val):
            host.update({source_of(path[0]), *_file_names(path[0])})
        elif _maybe_device(val):
            other.update({source_of(path[0]), *_file_names(path[0])})
        elif _is_checkpoint(_saved_node(call)):
            other.add(source_of(path[0]))
        elif not isinstance(_saved_node(call), cst.Name):
            # what this script saves there is an attribute or a tuple we cannot place (word
            # vectors, triples, data lists): loading it back is no device bug we can show. A bare
            # name (`torch.save(state, filename)` in a helper) is usually a checkpoint dict.
            host.add(source_of(path[0]))
    return host - other


def _is_checkpoint(node) -> bool:
    """`{"model": net.state_dict(), ...}`, `model.state_dict()`: a model's weights, wherever
    the model was."""
    return isinstance(node, cst.Dict) or (node is not None and "state_dict" in source_of(node))


def _saved_node(call: cst.Call):
    pos = [a.value for a in call.args if a.keyword is None]
    return pos[0] if pos else next((a.value for a in call.args if a.keyword and a.keyword.value == "obj"), None)


def _maybe_device(v) -> bool:
    """A saved value that may hold device tensors: a model, its state, a tensor not known to be
    on the host, or a container of any of them."""
    if v.kind in (Kind.MODULE, Kind.OBJECT):
        return True
    if v.kind is Kind.TENSOR:
        return v.dev is not Dev.CPU
    if v.kind in (Kind.SEQ, Kind.MAPPING):
        return any(p is not None and _maybe_device(p) for p in (*(v.parts or ()), v.elem))
    return False


def _file_names(node) -> set:
    """The file names a path expression spells (`os.path.join(args.dump, "trainfeat.pth")` ->
    `trainfeat.pth`): a save and a load of the same file often differ only in the folder."""
    out = set()
    for n in (c for c in walk(node) if isinstance(c, cst.SimpleString)):
        try:
            text = n.evaluated_value
        except Exception:  # noqa: BLE001 - an f-string part or odd escape: not a plain name
            continue
        name = text.rsplit("/", 1)[-1] if isinstance(text, str) else ""
        stem, dot, ext = name.rpartition(".")
        if dot and stem and ext and "%" not in name and "{" not in name:
            out.add("file:" + name)
    return out


def _is_buffer(node) -> bool:
    return isinstance(node, cst.Call) and (dotted(node.func) or "").endswith("BytesIO")


def _buffer_names(module) -> set:
    """Names bound to in-memory buffers (`buf = io.BytesIO(data)`)."""
    return {t.target.value for a in find(module, cst.Assign) if _is_buffer(a.value)
            for t in a.targets if isinstance(t.target, cst.Name)}


def _guard(test) -> bool:
    return bool(_GUARD.search(source_of(test)))


def _reached_unguarded(module, call: cst.Call) -> bool:
    """Is `call` in code that may run on a machine without CUDA, and not only read to pick a
    state that is no model's? Not when it is in the body of an `if` that tests for CUDA/GPU,
    in any part of a conditional expression that does, in the test of an `if` (never a load
    we flag), or among the arguments of `sched.load_state_dict(...)` and the like
    (`lr_scheduler.load_state_dict(torch.load(...))`: no tensors to place)."""
    for node in find(module, cst.If):
        if contains(node, call):
            if contains(node.test, call) or (contains(node.body, call) and _guard(node.test)):
                return False
    for node in find(module, cst.IfExp):
        if contains(node, call) and _guard(node.test):
            return False
    for node in find(module, cst.Call):
        if node is not call and contains(node, call) and isinstance(node.func, cst.Attribute) \
                and node.func.attr.value == "load_state_dict" and _TENSOR_FREE.search(source_of(node.func.value)):
            return False
    return True


class _Finder:
    def __init__(self, imports, buffers):
        self.imports = imports
        self.buffers = buffers

    def flags(self, node: cst.Call) -> bool:
        """A `torch.load` that may restore device tensors, wherever it is in the file."""
        if self.imports.qualname(node.func) not in kb.torch_core.LOADS:
            return False
        if node.args and _TENSOR_FREE.search(source_of(node.args[0].value)):
            return False
        if any(a.star for a in node.args):
            return False
        if any(a.keyword is not None and a.keyword.value == "map_location" for a in node.args):
            return False
        if sum(1 for a in node.args if a.keyword is None) >= 2:
            return False
        first = node.args[0].value if node.args and node.args[0].keyword is None else None
        if first is not None and (_is_buffer(first) or source_of(first) in self.buffers):
            return False  # bytes serialized by this same process/machine: they go back where they came from
        names = _file_names(first) if first is not None else set()
        if names and names <= self.buffers:
            return False  # a file this script only ever saves host tensors to
        return True
