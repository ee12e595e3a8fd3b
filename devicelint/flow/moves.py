"""Moves: `.to(...)`, `.cuda()`, `.cpu()` on tensors, modules and batches: where the value
lands, which moves repeat an earlier one, and which happen in place."""

from __future__ import annotations

from typing import Protocol

import libcst as cst

from devicelint import knowledge as kb
from devicelint import naming
from devicelint.names import dotted
from devicelint.values import Dev, Instance, Kind, Val, mid_parts
from devicelint.flow import bindings
from devicelint.flow.classes import Classes
from devicelint.flow.facts import Facts, LoaderMove, Move
from devicelint.flow.flags import DeviceFlags
from devicelint.flow.models import Models
from devicelint.flow.recording import Recording
from devicelint.flow.nodes import expr_text, keyword_value, text_root, walk
from devicelint.flow.state import Frame
from devicelint.flow.statements import Statements


def _dtype_text(call) -> str | None:
    """How a move or factory call spells its dtype (`dtype=` or `.to(device, dtype)`)."""
    if not isinstance(call, cst.Call):
        return None
    positional = [a for a in call.args if a.keyword is None and not a.star]
    for a in call.args:
        if a.keyword is not None and a.keyword.value == "dtype":
            return dotted(a.value) or "?"
    if isinstance(call.func, cst.Attribute) and call.func.attr.value == "to" and len(positional) >= 2:
        return dotted(positional[1].value) or "?"
    return None


def _chain_root(node):
    """`model.eval()` -> `model`: module methods that return the module itself."""
    while (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
           and kb.returns_self(node.func.attr.value)):
        node = node.func.value
    return node


_REBINDS = frozenset((cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor, cst.NamedExpr, cst.Del))


def _changed_in(loop):
    """Names (and dotted attributes) a loop rebinds or mutates in place, and how many
    device moves it makes on each."""
    changed = set()
    moves: dict = {}

    def add_target(t):
        if isinstance(t, (cst.Name, cst.Attribute)):
            text = dotted(t)
            if text:
                changed.add(text)
        elif isinstance(t, (cst.Tuple, cst.List)):
            for el in t.elements:
                add_target(el.value)
        elif isinstance(t, (cst.Subscript, cst.StarredElement)):
            add_target(t.value)

    if isinstance(loop, cst.For):
        add_target(loop.target)
    for n in walk(loop.body):
        t = type(n)  # exact types: LibCST's node classes are final, and their isinstance calls into ABCMeta
        if t in _REBINDS:
            add_target(n.target)
        elif t is cst.AsName:
            add_target(n.name)
        elif t is cst.Call and type(n.func) is cst.Attribute:
            attr = n.func.attr.value
            if attr.endswith("_") or attr in ("append", "extend", "update", "insert", "pop", "clear"):
                add_target(n.func.value)
            elif attr in ("to", "cuda", "cpu"):
                text = expr_text(_chain_root(n.func.value))
                if text:
                    moves[text] = moves.get(text, 0) + 1
    return changed, moves


def _names_attributes(node: cst.Call) -> bool:
    """`.to(device, "x", "edge_index")`: string arguments after the device name the attributes
    to move (a PyG `Data`); a tensor's or module's `.to()` takes none."""
    return any(a.keyword is None and not a.star and isinstance(a.value, cst.SimpleString) for a in node.args[1:])


class MoveHost(Protocol):
    """What the move part asks of the interpreter that holds it: the module and the frame
    being run, the facts of the previous run (`known`, None in the first) and of this one,
    the five other parts it consults (the device flags for a move's condition, the models for
    one's placement, the class summaries for what a class is, the record of host syncs and
    copies back, the statements that rebind what a move in place changed), and three of its
    transfer functions."""

    module: cst.Module
    frame: Frame | None
    known: Facts | None
    facts: Facts
    flags: DeviceFlags
    models: Models
    classes: Classes
    recording: Recording
    statements: Statements

    def eval(self, node) -> Val: ...

    def qual(self, node) -> str | None: ...

    def txt_key(self, scope, text: str) -> tuple: ...


class Moves:
    """A part of the interpreter (not a mixin): what a `.to()`, `.cuda()` or `.cpu()` gives,
    and the record of each move for the rules (where it lands, whether it repeats an earlier
    one). It owns the per-loop cache of what a loop changes, and reaches the interpreter only
    through `MoveHost`."""

    def __init__(self, host: MoveHost):
        self.host = host
        self.loop_cache: dict = {}  # id(loop) -> (names it changes, moves it makes per name)

    def target_of(self, node: cst.Call, method: str):
        """(Val of the target device or None if unknown, display text), or 'dtype' for casts."""
        if method == "cpu":
            return Val(Kind.DEVICE, Dev.CPU, key=("lit", "cpu")), "cpu"
        if method == "cuda":
            return self._cuda_target(node)
        arg = self._to_argument(node)
        if arg is None:
            return "dtype", ""
        return self._target_named_by(arg)

    def _cuda_target(self, node: cst.Call):
        """`.cuda()`, `.cuda(rank)`, `.cuda(device=d)`: the accelerator, keyed by how it is spelled."""
        arg = node.args[0].value if node.args and node.args[0].keyword is None else keyword_value(node, "device")
        if arg is None:
            return Val(Kind.DEVICE, Dev.ACCEL, key=("lit", "cuda")), "cuda"
        self.host.eval(arg)
        return Val(Kind.DEVICE, Dev.ACCEL, key=self.host.txt_key(self.host.frame.func, dotted(arg) or "?")), "cuda"

    def _to_argument(self, node: cst.Call):
        """The expression `.to(...)` may move to (`device=`, else the first positional one),
        None for none; every other argument is evaluated here."""
        arg = keyword_value(node, "device")
        others = [a for a in node.args if a is not None]
        if arg is None and others and others[0].keyword is None and not others[0].star:
            arg = others[0].value
        for a in node.args:
            if a.value is not arg:
                self.host.eval(a.value)
        return arg

    def _target_named_by(self, arg):
        """What `.to(arg)` moves to: a device, another tensor's device, a GPU index, a name that
        says device; 'dtype' for a cast; (None, text) when we cannot say."""
        text = dotted(arg)
        v = self.host.eval(arg)
        if text is not None and self.host.qual(arg) and naming.looks_like_dtype(text):
            return "dtype", ""
        if v.kind is Kind.DEVICE:
            key = v.key if v.key is not None else (self.host.txt_key(self.host.frame.func, text) if text else None)
            return v.with_(key=key), text or (v.name or "the device")
        if v.kind is Kind.TENSOR:
            return Val(Kind.DEVICE, v.dev, key=None), text or "another tensor's device"
        return self._target_spelled(arg, text)

    def _target_spelled(self, arg, text: str | None):
        """A target whose value we do not know, by how it is written: `.to(0)` (a GPU index),
        `.to(half_dtype)` (a cast), `.to(args.device)` (a device by its name)."""
        if isinstance(arg, cst.Integer):
            return Val(Kind.DEVICE, Dev.ACCEL, key=("lit", arg.value)), arg.value
        if text is not None and naming.looks_like_dtype(text):
            return "dtype", ""
        if text is not None and naming.looks_like_device_name(text) and not (
                isinstance(arg, cst.Name) and bindings.module_bindings(self.host).undefined(text)):
            # (a name the file never binds is a NameError there, no device: unknown)
            return Val(Kind.DEVICE, Dev.ACCEL, key=self.host.txt_key(self.host.frame.func, text)), text
        return None, text or "?"

    def move(self, node: cst.Call, func: cst.Attribute, recv: Val, method: str, bare: bool) -> Val:
        target, shown = self.target_of(node, method)
        if target == "dtype":
            # a cast keeps the tensor where it is: a host tensor made here stays one
            return recv.with_(inplace=False) if recv.kind is Kind.TENSOR else recv.with_(fresh=False)
        holder = _chain_root(func.value) if recv.kind is Kind.MODULE else func.value
        recv_text = expr_text(holder)
        result, cond = self._moved_result(node, recv, target, method, bare)
        in_place = recv.inplace or (recv.kind is Kind.OBJECT and recv.ref in kb.OBJECT_KINDS)
        if recv.mid is not None and recv.kind in (Kind.MODULE, Kind.UNKNOWN):
            self._note_model_move(recv, target, cond, result.dev)
        if (in_place or result.kind is Kind.MODULE) and isinstance(holder, (cst.Name, cst.Attribute)):
            # Module, pipeline, BatchEncoding, PyG moves happen in place: the name now holds the moved value.
            self.host.statements.rebind_text(holder, result)
        if bare and recv.fresh and isinstance(func.value, cst.Name):
            # `t.to(device)` thrown away: DL006's finding; the author meant `t` to be on the device
            self.host.frame.state.vars[func.value.value] = recv.with_(fresh=False)
        if target is not None:
            self._note_transfer(node, recv, target, method)
        self.record_move(node, recv, recv_text, target, shown, bare, in_place)
        return result

    def _moved_result(self, node: cst.Call, recv: Val, target, method: str, bare: bool) -> tuple:
        """(`recv` after the move, the device condition it holds under)."""
        result = self.moved_value(node, recv, target, method)
        cond = (self.host.flags.current_cond() or getattr(target, "cond", None)) if result.dev is Dev.ACCEL else None
        # PyG's `data.to(device, "x", "edge_index")` moves only the attributes it names
        result = result.with_(cond=cond, partial=recv.kind is not Kind.MODULE and _names_attributes(node))
        if recv.kind is Kind.MODULE or (recv.kind is Kind.UNKNOWN and bare and method != "cpu"):
            # a bare `.to()` on something unknown only suggests a module (any object may move in place)
            result = result.with_(kind=Kind.MODULE, mid=recv.mid if recv.kind is Kind.MODULE else None)
        return result, cond

    def moved_value(self, node: cst.Call, recv: Val, target, method: str) -> Val:
        """`recv` after the move, before its condition: on the target (unknown where no default
        device is sure, or the target is unknown); a container's elements move."""
        if target is None:
            return recv.with_(dev=Dev.UNKNOWN, key=None, moved_at=None, loader=None, fresh=False)
        dev = target.dev
        if self.host.frame.default_device_unknown and dev is Dev.CPU and method != "cpu":
            dev = Dev.UNKNOWN
        if recv.kind in (Kind.SEQ, Kind.MAPPING):
            return recv.with_(elem=Val(Kind.TENSOR, dev, key=target.key), parts=None, loader=None)
        return recv.with_(dev=dev, key=target.key, moved_at=node, loader=None, fresh=False)

    def _note_model_move(self, recv: Val, target, cond, dev: Dev) -> None:
        """Where (`dev`: where the move lands, so a `.to("cpu")` under a default device we cannot
        tell is no certain host move), under which condition and in which function a model (or
        candidate) is moved."""
        self.host.frame.moved_models |= mid_parts(recv.mid)
        self.host.facts.model_moves.setdefault(recv.mid, set()).add(
            (dev if target is not None else Dev.UNKNOWN, target.key if target is not None else None)
        )
        self.host.facts.move_conds.setdefault(recv.mid, set()).add(cond)
        self.host.facts.move_funcs.setdefault(recv.mid, set()).add(self.host.frame.func)
        self.host.facts.move_paths.setdefault(recv.mid, set()).add(self.host.frame.call_path())

    def _note_transfer(self, node: cst.Call, recv: Val, target: Val, method: str) -> None:
        """A tensor brought back to the host (a sync, DL010/DL012), a loader batch sent to the
        device (with `non_blocking=`, DL013)."""
        if target.dev is Dev.CPU and recv.kind is Kind.TENSOR:
            self.host.recording.note_sync(node, method if method == "cpu" else "to(cpu)", recv)
            self.host.recording.note_back(node, method if method == "cpu" else "to(cpu)", recv)
        if target.dev is Dev.ACCEL and recv.src is not None and recv.host_batch:
            nb = keyword_value(node, "non_blocking")
            self.host.facts.loader_moves.append(
                LoaderMove(node, recv.src, isinstance(nb, cst.Name) and nb.value == "True")
            )

    def record_move(self, node, recv: Val, recv_text, target, shown: str, bare: bool, in_place: bool = False) -> None:
        key = target.key if target is not None else None
        reason, prior = self._why_redundant(node, recv, recv_text, target, shown)
        self.host.frame.placed.add(id(node))
        if key is not None and recv_text is not None:
            self.host.frame.state.moves.setdefault((recv_text, key), node)
        noop = key is not None and recv.kind is Kind.TENSOR and recv.dev is Dev.ACCEL and recv.key == key and _dtype_text(node) is None
        self.host.facts.moves.append(Move(node, recv, recv_text, shown, reason, prior, bare, in_place, noop))

    def _why_redundant(self, node, recv: Val, recv_text, target, shown: str) -> tuple:
        """(reason, earlier move) for a move that does nothing new: "already" there by an
        earlier move, "invariant" in a loop, "repeated" move of the same host tensor;
        (None, None) otherwise."""
        key = target.key if target is not None else None
        if key is not None and recv.moved_at is not None and recv.moved_at is not node and recv.key == key and (
                self._placed_there_already(node, recv, recv_text, target)
                or self._moved_in_init_already(recv, recv_text, shown)):
            return "already", recv.moved_at
        if self._invariant_in_loop(recv, recv_text, target, shown):
            return "invariant", None
        prior = self._same_host_tensor_moved(node, recv, recv_text, key)
        return ("repeated", prior) if prior is not None else (None, None)

    def _same_host_tensor_moved(self, node, recv: Val, recv_text, key):
        """The earlier move, on this path, of the same host tensor to the same device with the
        same dtype; None if there is none."""
        if key is None or recv_text is None or recv.kind is not Kind.TENSOR or recv.dev is Dev.ACCEL:
            return None
        prior = self.host.frame.state.moves.get((recv_text, key))
        if prior is not None and prior is not node and _dtype_text(node) == _dtype_text(prior):
            return prior
        return None

    def _placed_there_already(self, node, recv: Val, recv_text, target) -> bool:
        """Moved by an earlier move that placed it on this very target, with the same dtype (a
        module only when it is private and has one placement)."""
        return (
            id(recv.moved_at) in self.host.frame.placed
            and recv.dev is target.dev
            and (recv.kind is not Kind.MODULE or (self._model_is_private(recv, recv_text) and self.host.models.one_placement(recv.mid)))
            and _dtype_text(node) == _dtype_text(recv.moved_at)
        )

    def _moved_in_init_already(self, recv: Val, recv_text, shown: str) -> bool:
        return recv.kind is Kind.MODULE and self._moved_in_visible_init(recv.moved_at, recv_text, shown)

    def _invariant_in_loop(self, recv: Val, recv_text, target, shown: str) -> bool:
        """A move to the accelerator, inside a loop, of something the loop does not change (a
        host tensor, or a module moved once in the loop), to a device the loop does not change."""
        if target is None or target.dev is not Dev.ACCEL or recv_text is None or not self.host.frame.loops:
            return False
        loop = self.host.frame.loops[-1]
        return (
            ((recv.kind is Kind.TENSOR and recv.dev is not Dev.ACCEL)
             or (recv.kind is Kind.MODULE and self.loop_info(loop)[1].get(recv_text) == 1))
            and self.loop_invariant(loop, recv_text)
            and (target.key is None or target.key[0] == "lit" or self.loop_invariant(loop, shown))
        )

    def _moved_in_visible_init(self, prior, recv_text, shown: str) -> bool:
        """`self.model` moved in `__init__` and again in a method of a class whose code we see
        whole: if every move of that attribute in the class spells the same device, nothing
        in between can have moved it elsewhere."""
        inst = self.host.frame.self_val.ref if self.host.frame.self_val is not None else None
        if not isinstance(inst, Instance) or recv_text is None or not recv_text.startswith("self.") or recv_text.count(".") != 1:
            return False
        info = self.host.classes.class_of(inst.cls)
        init = info["methods"].get("__init__")
        if info["module"] or info["opaque"] or init is None or self.host.frame.func is init:
            return False
        if not any(n is prior for n in walk(init)):
            return False
        targets = set()
        for fn in info["methods"].values():
            for n in walk(fn):
                if isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and n.func.attr.value in ("to", "cuda", "cpu"):
                    if expr_text(n.func.value) == recv_text:
                        targets.add((n.func.attr.value, tuple(dotted(a.value) or "?" for a in n.args)))
        return len(targets) == 1

    def _model_is_private(self, recv: Val, recv_text) -> bool:
        """A module's placement is state: code we cannot see (offload hooks, a helper given
        the model) may have moved it back. Only a local model nobody else touched is certain."""
        escaped = self.host.known.escaped if self.host.known is not None else self.host.facts.escaped
        return recv.mid is not None and recv.mid not in escaped and recv_text is not None and "." not in recv_text

    def loop_info(self, loop):
        info = self.loop_cache.get(id(loop))
        if info is None:
            info = self.loop_cache[id(loop)] = _changed_in(loop)
        return info

    def loop_invariant(self, loop, text: str) -> bool:
        changed = self.loop_info(loop)[0]
        root = text_root(text)
        return not any(c == text or c == root or text.startswith(c + ".") for c in changed)
