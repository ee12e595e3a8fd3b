"""Python expressions: names, attributes, subscripts, operators, literals,
comprehensions, lambdas; and how tensors combine (the device of `a + b`)."""

from __future__ import annotations

import re

import libcst as cst

from devicelint import knowledge as kb
from devicelint import naming
from devicelint.names import dotted
from devicelint.values import NONE, NUMBER, OTHER, UNKNOWN, Dev, Instance, Kind, Val, host_batch_in, join, keyed_item
from devicelint.flow import bindings
from devicelint.flow.nodes import child_nodes, const_key, expr_text, is_string
from devicelint.flow import items
from devicelint.flow.flags import flag_join


# Parameters named like modules (`new_module`, `child`, `backbone`) are not a forward's tensors.
MODULE_NAME = re.compile(r"module|model|layer|net$|block|child|parent|encoder|decoder|backbone|head$", re.IGNORECASE)


def result_of(vals) -> Val:
    """The tensor an operation on `vals` yields. An operand we know nothing about could be a
    device tensor, so it makes the result's device unknown too."""
    vals = _moved_unknowns_as_tensors(vals)
    tensors = [v for v in vals if v.kind is Kind.TENSOR]
    if not tensors:
        return OTHER if all(v.kind is Kind.OTHER for v in vals) else UNKNOWN
    grad = any(v.grad for v in tensors)
    on_module = any(v.on_module for v in tensors)
    accel = [v for v in tensors if v.dev is Dev.ACCEL]
    if accel and len({v.cond for v in accel}) == 1 and _others_follow(vals, tensors):
        # `returns * masks + reward`: with a device tensor in it, the result is on the device
        # (an operand we cannot place is a number, a device tensor, a 0-dim host tensor, all of
        # which give a device result, or the operation fails right here). A host operand beside
        # it is reported where they meet; past that point the code runs on the device
        return Val(Kind.TENSOR, Dev.ACCEL, grad=grad, on_module=on_module, cond=accel[0].cond)
    if any(v.kind is Kind.UNKNOWN for v in vals):
        return Val(Kind.TENSOR, grad=grad, on_module=on_module)
    return _joined_tensor(tensors, grad, on_module)


def _moved_unknowns_as_tensors(vals) -> list:
    """Something moved with .to() is a tensor here, even when we could not tell before."""
    return [v.with_(kind=Kind.TENSOR) if v.kind is Kind.UNKNOWN and v.dev is not Dev.UNKNOWN else v for v in vals]


def _others_follow(vals: list, tensors: list) -> bool:
    """Beside a device tensor, an operand we cannot place or a host tensor: the operation's
    result is on the device (or it fails right there)."""
    unseen = any(v.kind is Kind.UNKNOWN for v in vals) or any(v.dev is Dev.UNKNOWN for v in tensors)
    return unseen or any(v.dev is Dev.CPU for v in tensors)


def _joined_tensor(tensors: list, grad: bool, on_module: bool) -> Val:
    """Known tensors combined: where they all are (the join of their places)."""
    out = tensors[0]
    for v in tensors[1:]:
        out = join(out, v)
    return Val(Kind.TENSOR, out.dev, key=out.key, loader=out.loader, fresh=out.fresh, grad=grad, on_module=on_module,
               attr=out.attr if out.fresh else None, born=out.born if out.fresh else None)


def _is_property(fn: cst.FunctionDef) -> bool:
    return any(dotted(d.decorator) in ("property", "functools.cached_property", "cached_property")
               for d in fn.decorators)


def _keeps_dims(index) -> bool:
    """`x[None]`, `x[..., None]`, `x[(*(slice(None),) * dim, ...)]`: an index that adds or
    keeps dimensions, so a tensor with some keeps them (it never becomes 0-dim)."""
    if isinstance(index, cst.Ellipsis) or (isinstance(index, cst.Name) and index.value == "None"):
        return True
    if not isinstance(index, cst.Tuple):
        return False
    spread = (cst.Ellipsis, cst.StarredElement)
    return any(isinstance(e.value, cst.Ellipsis) or (isinstance(e.value, cst.Name) and e.value.value == "None")
               for e in index.elements) and all(
        isinstance(e, cst.StarredElement) or isinstance(e.value, spread) or _keeps_dims(e.value)
        or (isinstance(e.value, cst.Call) and dotted(e.value.func) == "slice")
        for e in index.elements)


def _integer(node: cst.Integer) -> int | None:
    try:
        return int(node.value.replace("_", ""), 0)
    except ValueError:  # `0o17`, `0x_1f` parse; `017` does not exist in Python 3
        return None


def _item_of(node: cst.Subscript, base: Val, sliced: bool) -> Val:
    """`base[...]` for a base that is neither a tensor nor a container: a dataset's item, a
    layer of a Sequential, an Axes of an array, a size."""
    if base.kind is Kind.DATASET:
        if base.elem is not None and not sliced:
            return items.labelled(base.elem, base.name or "the dataset", base.src)  # `ds[i]`: what `__getitem__` returns
        return Val(Kind.TENSOR, base.dev, loader=base.name if base.dev is Dev.CPU else None,
                   inplace=base.ref == "graph_dataset", item=not sliced)  # a PyG graph moves in place
    if base.kind is Kind.MODULE:  # nn.Sequential / ModuleList indexing
        return Val(Kind.MODULE, base.dev, key=base.key)
    if base.kind is Kind.OBJECT and base.ref in kb.consumers.ITEMS_ARE_ITSELF:
        return base  # `axs[0, 1]`: an Axes of the array `plt.subplots(2, 2)` gave
    if isinstance(node.value, cst.Attribute) and node.value.attr.value == "shape" and base.kind is Kind.OTHER:
        return OTHER  # `x.shape[0]`: a size, whatever `x` is
    if base.kind is Kind.UNKNOWN and base.dev is Dev.ACCEL and base.moved_at is not None and not sliced:
        # `batch = batch.to(device)` then `batch["paper"].x`: a heterogeneous graph (or a
        # tensor) moved as a whole holds its parts on the device
        return base
    return UNKNOWN


def _tensor_attribute(base: Val, attr: str) -> Val:
    """`t.device` (where the tensor is), `t.shape` (no tensor), `t.data`, `t.T`: views of it."""
    if attr == "device":
        # a module's tensor's device: where the module lives
        return Val(Kind.DEVICE, base.dev, key=base.key, on_module=base.on_module)
    if attr in kb.torch_core.NON_TENSOR_ATTRS:
        return OTHER
    if attr in kb.hf.NON_TENSOR_OUTPUT_ATTRS and not base.inplace:
        return UNKNOWN  # `out.images` of a model we cannot see: PIL images by default
    if attr == "data":
        return base.with_(grad=False, inplace=False)
    if attr in ("T", "mT", "H", "real", "imag"):
        return base.with_(inplace=False)
    return base.with_(fresh=False, inplace=False)


EVAL_METHODS = {
    cst.Name: "eval_name",
    cst.Attribute: "eval_attribute",
    cst.Call: "eval_call",
    cst.Subscript: "eval_subscript",
    cst.BinaryOperation: "eval_binop",
    cst.UnaryOperation: "eval_unary",
    cst.Comparison: "eval_compare",
    cst.BooleanOperation: "eval_boolop",
    cst.IfExp: "eval_ifexp",
    cst.SimpleString: "eval_string",
    cst.ConcatenatedString: "eval_literal",
    cst.FormattedString: "eval_literal",
    cst.Integer: "eval_literal",
    cst.Float: "eval_literal",
    cst.Imaginary: "eval_literal",
    cst.Ellipsis: "eval_literal",
    cst.Tuple: "eval_sequence",
    cst.List: "eval_sequence",
    cst.Set: "eval_sequence",
    cst.Dict: "eval_dict",
    cst.ListComp: "eval_comprehension",
    cst.SetComp: "eval_comprehension",
    cst.GeneratorExp: "eval_comprehension",
    cst.DictComp: "eval_comprehension",
    cst.NamedExpr: "eval_named",
    cst.Await: "eval_await",
    cst.Yield: "eval_yield",
    cst.Lambda: "eval_lambda",
}


# Attributes that hold settings, not tensors, on whatever object.
_SETTINGS_ATTRS = {"hparams", "config", "cfg", "args", "opt", "params", "meta", "metadata", "name", "names", "keys"}


class Expressions:
    def device_names(self) -> dict:
        """The variables named like a device that this frame sees, and their values."""
        seen: dict = {}
        frames = [self.frame]
        while frames[-1].closure is not None:
            frames.append(frames[-1].closure)
        if self.module_frame is not None and self.module_frame not in frames:
            frames.append(self.module_frame)
        for f in frames:
            for name, v in f.state.vars.items():
                if name not in seen and ("device" in name.lower() or name == "dev"):
                    seen[name] = v
        return seen

    def qual(self, node) -> str | None:
        t = type(node)  # exact types: see names.dotted
        if t is cst.Name or t is cst.Attribute:
            head = node
            while type(head) is cst.Attribute:
                head = head.value
            if type(head) is cst.Name and self.frame.lookup(head.value) is not None:
                return None  # a local variable shadows the import
            return self.imports.qualname(node)
        return None

    def eval(self, node) -> Val:
        self.work += 1
        try:
            method = self.dispatch[type(node)]
        except KeyError:
            for child in child_nodes(node):
                if isinstance(child, cst.BaseExpression):
                    self.eval(child)
                elif isinstance(child, (cst.Arg, cst.Element, cst.DictElement, cst.StarredDictElement, cst.Index)):
                    self.eval_children(child)
            return UNKNOWN
        return method(self, node)

    def eval_children(self, node) -> None:
        for child in child_nodes(node):
            if isinstance(child, cst.BaseExpression):
                self.eval(child)

    def eval_name(self, node: cst.Name) -> Val:
        v = self.frame.lookup(node.value)
        if v is None and self.frame.self_val is not None and node.value == "self":
            return self.frame.self_val
        if v is not None:
            return self.flags.under(v) if self.flags.assumed else v
        if self.module_frame is not None and self.frame is not self.module_frame:
            v = self.module_frame.state.vars.get(node.value)
            if v is not None:
                return v
        if node.value == "None":
            return NONE
        if node.value in ("True", "False"):
            return OTHER
        if self.imports.binds(node.value):
            q = self.imports.qualname(node)
            if q and not q.startswith(("torch", "numpy")):
                return self.guess_by_name(node.value, scope=None)
            return OTHER
        if not node.value[0].islower():
            return UNKNOWN
        if naming.looks_like_device_name(node.value) and bindings.module_bindings(self).undefined(node.value):
            return UNKNOWN  # a `device` the file never binds: a NameError where it runs, no device
        return self.guess_by_name(node.value, scope=None)

    def eval_attribute(self, node: cst.Attribute) -> Val:
        if self.qual(node) is not None:
            return OTHER  # an API object such as torch.float16
        base = self.eval(node.value)
        attr = node.attr.value
        if base.kind is Kind.OBJECT and isinstance(base.ref, Instance):
            return self._instance_attribute(node, base, attr)
        if base.kind is Kind.OBJECT and base.ref == "pipeline_output":
            return base.elem if attr in kb.hf.NON_TENSOR_OUTPUT_ATTRS and base.elem is not None else UNKNOWN
        if base.kind is Kind.TENSOR:
            return _tensor_attribute(base, attr)
        if base.kind is Kind.MODULE:
            return self._module_attribute(base, attr)
        if base.kind is Kind.UNKNOWN:
            return self._unknown_attribute(node, base, attr)
        if base.kind is Kind.MAPPING and base.inplace and base.elem is not None:
            # a tokenizer's BatchEncoding: `enc.input_ids` is `enc["input_ids"]`
            return base.elem if attr not in kb.hf.ENCODING_NON_TENSOR_ATTRS else UNKNOWN
        if base.kind is Kind.DEVICE and attr == "type":
            # `next(m.parameters()).device.type`: the name of the same place; `.to()` it goes there
            return base
        return UNKNOWN

    def _instance_attribute(self, node: cst.Attribute, base: Val, attr: str) -> Val:
        """`obj.attr` of an instance of a class of this file: a property run, an attribute
        stored, a method, else a guess from how the code names it."""
        getter = self.classes.class_of(base.ref.cls)["methods"].get(attr) if attr not in base.ref.attrs else None
        if getter is not None and _is_property(getter):
            return self.user_code.property_value(node, getter, base)
        v = self.instance_attr(base.ref, attr)
        if v is not None:
            return self.flags.under(v)
        return self.guess_by_name(f"self.{attr}", scope=base.ref.cls)

    def _module_attribute(self, base: Val, attr: str) -> Val:
        """`model.device`, `ddp.module`, `layer.weight`, `model.fc1` (a layer of our own class)."""
        if attr == "device":
            return Val(Kind.DEVICE, base.dev, key=base.key)
        if attr == "module":  # DDP / DataParallel wrapper
            return base
        if attr in ("weight", "bias") and not base.param_free:
            # a layer's own parameters: where the layer is (in a module method, with the module)
            return Val(Kind.TENSOR, base.dev, key=base.key, grad=not self.no_grad,
                       on_module=self.recording.mod_cls() is not None)
        if isinstance(base.ref, cst.ClassDef) and attr in self.classes.class_of(base.ref)["layers"]:
            # `model.fc1` of our own class: a torch layer its __init__ registered, moved with it
            return Val(Kind.MODULE, base.dev, key=base.key, moved_at=base.moved_at, cond=base.cond)
        return UNKNOWN

    def _unknown_attribute(self, node: cst.Attribute, base: Val, attr: str) -> Val:
        if base.dev is Dev.ACCEL and base.moved_at is not None and attr not in kb.torch_core.NON_TENSOR_ATTRS and not (
            naming.looks_like_device_name(attr) or naming.NUMBER_NAME.search(attr) or attr in _SETTINGS_ATTRS
            or MODULE_NAME.search(expr_text(node.value) or "model")
        ):
            # `data = data.to(device)` then `data.x`: an object that moves its tensors (a PyG
            # graph, a BatchEncoding) holds them on the device
            return Val(Kind.TENSOR, base.dev, key=base.key, cond=base.cond, partial=base.partial)
        text = dotted(node)
        if text is not None:
            return self.guess_by_name(text, scope=self.frame.func)
        return UNKNOWN

    def instance_attr(self, inst: Instance, attr: str) -> Val | None:
        v = inst.attrs.get(attr)
        if v is not None:
            return v
        info = self.classes.class_of(inst.cls)
        if attr in info["buffers"]:
            return Val(Kind.TENSOR, on_module=True)  # a registered buffer: moved with the module
        fn = info["methods"].get(attr)
        if fn is not None:
            return Val(Kind.FUNC, ref=(fn, self.module_frame), name=attr)
        return None

    def eval_subscript(self, node: cst.Subscript) -> Val:
        base = self.eval(node.value)
        if base.keyed is not None:
            key = const_key(node)
            if key is not None:
                return keyed_item(base, key)
        index, sliced = self._read_index(node, base)
        if base.kind is Kind.TENSOR and index is not None and len(node.slice) == 1 and \
                isinstance(node.value, cst.Attribute) and node.value.attr.value == "data":
            # `loss.data[0]`: a number in PyTorch < 0.4, an error on a 0-dim tensor since, a row otherwise
            return UNKNOWN
        if base.kind is Kind.TENSOR:
            return base.with_(inplace=False) if sliced and base.fresh else base.with_(fresh=False, inplace=False)
        if base.kind in (Kind.SEQ, Kind.MAPPING):
            if base.parts is not None and index is not None and -len(base.parts) <= index < len(base.parts):
                return base.parts[index]
            return self.statements.unpack(base, None)
        return _item_of(node, base, sliced)

    def _read_index(self, node: cst.Subscript, base: Val) -> tuple:
        """Evaluates the index: (the integer literal index, or None; whether the index keeps or
        adds dimensions, or slices)."""
        index = None
        sliced = False
        for el in node.slice:
            if isinstance(el.slice, cst.Index):
                idx = self.eval(el.slice.value)
                sliced = sliced or _keeps_dims(el.slice.value)
                if base.kind is Kind.TENSOR and base.dev is Dev.CPU and idx.kind is Kind.TENSOR and not idx.row \
                        and self._device_index(idx) and not self._element_of(el.slice.value):
                    # `self.alpha[target]`: a host tensor indexed by a device tensor fails on CUDA
                    # (a device tensor indexed by host indices does not)
                    self.recording.record_mix(node, [base, idx])
                if isinstance(el.slice.value, cst.Integer):
                    index = _integer(el.slice.value)
            else:
                sliced = True
                self.eval_children(el.slice)
        return index, sliced

    def _element_of(self, index) -> bool:
        """`ranks[r, q]`: an element picked by numbers (or names not known to hold tensors) from
        a tensor of unknown rank. When it is 0-dim, PyTorch reads it as a number (`.item()`) and
        indexes a tensor on any device with it (ATen's TensorIndexing.h,
        handleDimInMultiDimIndexing); unsure whether it is, stay silent."""
        if not isinstance(index, cst.Subscript):
            return False
        for el in index.slice:
            e = el.slice.value if isinstance(el.slice, cst.Index) else None
            if not isinstance(e, (cst.Integer, cst.Name)) or (
                    isinstance(e, cst.Name) and self.eval(e).kind not in (Kind.OTHER, Kind.UNKNOWN)):
                return False
        return True

    def _device_index(self, idx: Val) -> bool:
        """An index tensor on the device. Inputs count in `forward` itself; a helper's parameters
        are only guessed to be inputs."""
        return idx.dev is Dev.ACCEL or (idx.on_module and idx.dev is not Dev.CPU and self.recording.in_forward()
                                        and self.frame.func is not None
                                        and self.frame.func.name.value == "forward") or (
            idx.on_module and idx.dev is Dev.UNKNOWN and self._in_lightning_step())

    def _in_lightning_step(self) -> bool:
        """This frame is a Lightning step (`validation_step`) of a framework class, or a method
        the step calls (`self.preprocess_data(batch, "val")`): the trainer hands the step its
        batch on the module's device, so an index read from it is there."""
        f = self.frame
        while f is not None:
            sv = f.self_val
            if f.func is not None and f.func.name.value in kb.lightning.STEP_HOOKS and sv is not None \
                    and sv.kind is Kind.OBJECT and isinstance(sv.ref, Instance):
                return bool(self.classes.class_of(sv.ref.cls)["framework"])
            f = f.parent
        return False

    def eval_binop(self, node) -> Val:
        left = self.eval(node.left)
        right = self.eval(node.right)
        self.last_binop = (node, left, right)
        return self.combine(node, [left, right])

    def eval_unary(self, node: cst.UnaryOperation) -> Val:
        v = self.eval(node.expression)
        if isinstance(node.operator, cst.Not) and v.flag is not None:
            return Val(Kind.OTHER, flag=(v.flag[0], not v.flag[1]))  # `cpu_only = not torch.cuda.is_available()`
        return v if v.kind is Kind.TENSOR else OTHER if isinstance(node.operator, cst.Not) else v

    def eval_compare(self, node: cst.Comparison) -> Val:
        vals = [self.eval(node.left)] + [self.eval(c.comparator) for c in node.comparisons]
        if any(isinstance(c.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for c in node.comparisons):
            return OTHER
        if any(v.dev is Dev.ACCEL for v in vals):
            # `prediction == t` with `t` from `ds[i]`: a label compared as a number
            vals = [OTHER if v.item and v.host_batch else v for v in vals]
        out = self.combine(node, vals)
        return out.with_(grad=False) if out.grad else out  # a bool tensor has no history

    def eval_boolop(self, node: cst.BooleanOperation) -> Val:
        """`a and b` runs `b` only where `a` is true, `a or b` only where it is false."""
        left = self.eval(node.left)
        right = self.eval_assuming(node.left, isinstance(node.operator, cst.And), node.right)
        return join(left, right)

    def eval_ifexp(self, node: cst.IfExp) -> Val:
        """`t.numpy() if not on_gpu else t.cpu().numpy()`: each arm runs where the test says."""
        self.eval(node.test)
        body = self.eval_assuming(node.test, True, node.body)
        orelse = self.eval_assuming(node.test, False, node.orelse)
        flag = self.flags.flag_of(node.test)
        self.flags.note_place_test(node, flag)
        if flag is None:
            return join(body, orelse)
        if body.kind is Kind.DEVICE:
            # `"cuda" if use_cuda else "cpu"`: the accelerator wherever one is used (what is
            # moved to it follows the device, not the flag); where the flag says not, the host
            chosen = join(body, orelse)
            if orelse.kind is Kind.DEVICE and {body.dev, orelse.dev} == {Dev.ACCEL, Dev.CPU}:
                chosen = self.flags.flagged_device(chosen.with_(key=("dev", id(node)),
                                                          flag=(flag[0], flag[1] == (body.dev is Dev.ACCEL))))
            return chosen
        return flag_join(body, orelse, flag) or join(body, orelse)

    def eval_assuming(self, test, truth: bool, node) -> Val:
        """Evaluate `node` on the path where `test` is `truth`: its device flags assumed, its
        narrowed names narrowed (the names as they were come back after)."""
        flags, narrowings = self.flags.facts_of(test, truth)
        if not flags and not narrowings:
            return self.eval(node)
        self.flags.assumed.extend(flags)
        saved = self.frame.state
        if narrowings:
            self.frame.state = self.statements.arm_entry(saved, narrowings)
        try:
            return self.eval(node)
        finally:
            if narrowings:
                self.frame.state = saved
            del self.flags.assumed[len(self.flags.assumed) - len(flags):]

    def eval_string(self, node) -> Val:
        s = is_string(node)
        if s is not None:
            where = kb.torch_core.parse_device_string(s)
            if where is not None:
                return Val(Kind.DEVICE, Dev.CPU if where == "cpu" else Dev.ACCEL, key=("lit", s), name=repr(s))
        return OTHER

    def eval_sequence(self, node) -> Val:
        parts = []
        for el in node.elements:
            v = self.eval(el.value)
            parts.append(Val(Kind.SEQ, elem=self.statements.unpack(v, None)) if isinstance(el, cst.StarredElement) else v)
        elem = None
        for p in parts:
            elem = join(elem, p) if elem is not None else p
        return Val(Kind.SEQ, parts=tuple(parts), elem=elem)

    def eval_dict(self, node: cst.Dict) -> Val:
        elem = None
        for el in node.elements:
            if isinstance(el, cst.DictElement):
                self.eval(el.key)
                v = self.eval(el.value)
            else:
                v = self.statements.unpack(self.eval(el.value), None)
            elem = join(elem, v) if elem is not None else v
        return Val(Kind.MAPPING, elem=elem)

    def eval_comprehension(self, node) -> Val:
        saved = self.frame.state
        self.frame.state = saved.copy()
        try:
            comp = node.for_in
            while comp is not None:
                self.statements.bind(comp.target, self.iter_elem(self.eval(comp.iter)))
                for cond in comp.ifs:
                    self.eval(cond.test)
                comp = comp.inner_for_in
            if isinstance(node, cst.DictComp):
                self.eval(node.key)
                return Val(Kind.MAPPING, elem=self.eval(node.value))
            return Val(Kind.SEQ, elem=self.eval(node.elt))
        finally:
            self.frame.state = saved

    def eval_named(self, node: cst.NamedExpr) -> Val:
        v = self.eval(node.value)
        self.statements.bind(node.target, v)
        return v

    def eval_await(self, node) -> Val:
        return self.eval(node.expression)

    def eval_yield(self, node) -> Val:
        self.frame.generator = True
        if node.value is not None:
            self.eval(node.value if not isinstance(node.value, cst.From) else node.value.item)
        return UNKNOWN

    def eval_lambda(self, node) -> Val:
        return OTHER

    def eval_literal(self, node) -> Val:
        """A string (its f-string parts are code that runs: `f"{out.numpy().mean():.3f}"`) or a number."""
        if isinstance(node, cst.ConcatenatedString):
            self.eval(node.left)
            self.eval(node.right)
        elif isinstance(node, cst.FormattedString):
            self._eval_fstring_parts(node.parts)
        elif isinstance(node, (cst.Integer, cst.Float)):
            return NUMBER
        return OTHER

    def _eval_fstring_parts(self, parts) -> None:
        for part in parts:
            if isinstance(part, cst.FormattedStringExpression):
                self.eval(part.expression)
                self._eval_fstring_parts(part.format_spec or ())  # `{x:{width}}`

    def combine(self, node, vals: list) -> Val:
        """An operation on several values (binary op, torch function): record device mixes."""
        tensors = [v for v in vals if v.kind is Kind.TENSOR or (v.kind in (Kind.SEQ, Kind.MAPPING) and host_batch_in(v))]
        if len(tensors) >= 2:
            self.recording.record_mix(node, tensors)
        out = result_of(vals)
        if (out.kind is Kind.TENSOR and out.dev is Dev.UNKNOWN and not out.on_module and tensors
                and all(v.kind is Kind.TENSOR and v.fresh and v.dev is Dev.CPU for v in tensors) and self.recording.in_forward()):
            # `torch.arange(half) * -scale` in a forward: its inputs are on_module, so the unknown
            # is a hyper-parameter; had it been a device tensor this very operation would fail
            return Val(Kind.TENSOR, Dev.CPU, fresh=True, grad=out.grad)
        return out

    def iter_elem(self, v: Val) -> Val:
        if v.kind in (Kind.LOADER, Kind.DATASET) and v.elem is not None:
            # the item its dataset's `__getitem__` returns (after the default collate)
            default = "the data loader" if v.kind is Kind.LOADER else "the dataset"
            return items.labelled(v.elem, v.name or default, v.src)
        if v.kind is Kind.LOADER:
            if v.dev is Dev.CPU:
                # the whole object a loader yields may be a batch with an in-place `.to()`
                return Val(Kind.TENSOR, Dev.CPU, loader=v.name or "the data loader", src=v.src, inplace=True)
            return Val(Kind.TENSOR, v.dev) if v.dev is Dev.ACCEL else UNKNOWN
        if v.kind is Kind.DATASET:
            return Val(Kind.TENSOR, v.dev, loader=(v.name or "the dataset") if v.dev is Dev.CPU else None,
                       inplace=v.ref == "graph_dataset", item=True)
        if v.kind is Kind.TENSOR:
            return self.statements.unpack(v, None).with_(row=True)
        if v.kind is Kind.SEQ:
            return self.statements.unpack(v, None)
        if v.kind is Kind.MAPPING:
            return OTHER
        if v.kind is Kind.OBJECT and v.ref in kb.consumers.ITEMS_ARE_ITSELF:
            return v  # `for ax in axs.flatten()`
        return UNKNOWN
