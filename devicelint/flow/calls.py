"""Call dispatch: builtins, calls of values (models, functions, classes), arguments,
and what a call of something unseen returns."""

from __future__ import annotations

import re

import libcst as cst

from devicelint import crossfile
from devicelint import knowledge as kb
from devicelint import naming
from devicelint.names import dotted
from devicelint.values import (OTHER, UNKNOWN, Dev, Instance, Kind, PresetFactory, Val, contents_on_accel, host_batch_in, keyed_item,
                               join, mid_parts)
from devicelint.flow import containers
from devicelint.flow.facts import ModuleCall
from devicelint.flow.flags import AVAILABILITY
from devicelint.flow.nodes import key_reads, keyword_value, spelled
from devicelint.flow.expressions import result_of
from devicelint.values import SCATTERS
from devicelint.flow.methods import HOST_RESULT, host_length_params, moved_params


_ENVIRONMENT = re.compile(r"(^|_)envs?$|environment", re.IGNORECASE)
# Callees that turn tensors into images, text, files or numbers (`2` spells "to":
# `tensor2im`, `tensor2np`).
_CONVERTER = re.compile(r"pil|(to_|2)im|2np|decode|save|show|plot|draw|visuali|render|print|log|write|format|dump|json|"
                        r"tolist|numpy|array|metric|score|accura|caption", re.IGNORECASE)


# What the result of a callable we cannot see may be taken to be, per kind of callable (the
# `kind` argument of `unseen_call_result`; benchmarks/README.md §7, "The result of a callable
# the engine cannot see", has the measurement of each kind). A value handed in or held
# (`step_fn(x, y)`, `self.hook(out)`) is a model or a criterion only if its name says so: a
# step function or a callback handed in answers with anything (`return loss.item()`). For the other kinds (an
# unresolved import, a method of an object or model we cannot see, a project helper whose
# summary says nothing) no rule is known yet (None): their results stay where their arguments
# are, as measured without a true finding lost or a false one gained either way.
_COMPUTES_ON_TENSORS = re.compile(
    r"model|net|encoder|decoder|generator|discriminator|critic|actor|policy|classifier|backbone|head|layer|"
    r"block|rnn|lstm|gru|conv|linear|mlp|embed|attn|attention|transformer|module|loss|criterion|^crit|^[GDE]$",
    re.IGNORECASE)
_UNSEEN_RESULT_NAMES = {"name": _COMPUTES_ON_TENSORS, "held": _COMPUTES_ON_TENSORS}


def _drives_training(v: Val) -> bool:
    """A loader or a dataset handed to a callable we cannot see: it loops over the data,
    trains or evaluates, and answers with whatever it chooses (a `MetricLogger`, losses
    `.item()`-ed, host tensors), not with a tensor computed where its arguments are. (A model
    handed in with tensors is run on them: `diffusion.training_losses(model, x, t)`.)"""
    return v.kind in (Kind.LOADER, Kind.DATASET)


def _a_model(v: Val) -> bool:
    """A model candidate we cannot see inside (`PNet().to(device)` of an unread import): an
    unknown value with a model identity."""
    return v.kind is Kind.UNKNOWN and v.mid is not None


def _answers_with_tensors(kind: str, name: str) -> bool:
    """Whether an unseen callable of this kind and name may be taken to answer with tensors
    where its arguments are (not when the inference is unsure)."""
    names = _UNSEEN_RESULT_NAMES.get(kind)
    return names is None or names.search(name) is not None


# Callables that combine what they are given (a criterion from a factory we cannot see).
_LOSS_NAME = re.compile(r"loss|criterion|^crit$", re.IGNORECASE)


def _host_on_purpose(a: cst.Arg, v: Val, param: str | None, length_params: set, model: Val) -> bool:
    """An input a module takes on the host: sequence lengths (pack_padded_sequence wants them
    there), by their name or the forward parameter they go to; any host input of DataParallel
    / DDP, which copy host inputs to their device themselves."""
    return bool(naming.LENGTHS.search(spelled(a))) or param in length_params or (
        model.ref == SCATTERS and not contents_on_accel(v))


def _placed_by_inputs(args: list, exempt: list, dev: Dev, cond) -> tuple:
    """(device, condition) of a module we cannot place, from its inputs: `self.trunk(x.to(self.device))`,
    a module that takes device inputs has its weights there (or fails right here), so its
    output is on the device. (dev, cond) as given otherwise."""
    placed = [a for a in args if a.kind is Kind.TENSOR and a.dev is Dev.ACCEL and not any(a is e for e in exempt)]
    if placed and len({a.cond for a in placed}) == 1:
        return Dev.ACCEL, placed[0].cond
    return dev, cond


def _moved_by_forward(param: str | None, moved: frozenset) -> bool:
    """Does the forward move the argument bound to `param` itself (`self.rope(frame_indices,
    device)` whose forward moves `positions`)? An argument we cannot bind to a parameter
    (`*inputs`, a keyword its `**kwargs` takes) is taken as moved when the forward moves any."""
    return param in moved or (bool(moved) and param is None)


def _named_params(fn: cst.FunctionDef) -> set:
    return {p.name.value for p in (*fn.params.params, *fn.params.kwonly_params)}


def _module_operands(model: Val, args: list, exempt: list) -> list:
    """What must share a device when a module runs: its weights and its tensor inputs."""
    operands = [model] if not model.param_free else []
    operands += [a for a in args if (a.kind is Kind.TENSOR or host_batch_in(a)) and not any(a is e for e in exempt)]
    # an LSTM's `(h0, c0)`: fresh host tensors inside a tuple argument take part too
    operands += [p for a in args if a.kind is Kind.SEQ and a.parts for p in a.parts if p.kind is Kind.TENSOR and p.fresh]
    return operands


class Calls:
    def eval_call(self, node: cst.Call, bare: bool = False) -> Val:
        func = node.func
        if self.imports.project is not None:  # a class or function of another project file
            sym = crossfile.symbol(self, func)
            out = crossfile.call(self, node, sym) if sym is not None else None
            if out is not None:
                return out
        q = self.qual(func)
        if q in AVAILABILITY and not node.args:
            return Val(Kind.OTHER, flag=(q, True))  # `train_on_gpu = torch.cuda.is_available()`
        if q is not None:
            return self.api.call_api(node, q)
        if isinstance(func, cst.Attribute):
            recv = self.eval(func.value)
            return self.methods.call_method(node, func, recv, func.attr.value, bare)
        if isinstance(func, cst.Name):
            v = self.frame.lookup(func.value)
            if v is None and self.module_frame is not None:
                v = self.module_frame.state.vars.get(func.value)
            if v is None:
                return self.call_builtin(node, func.value)
        else:
            v = self.eval(func)
            if self._model_namespace_lookup(func):
                # getattr(torchvision.models, args.arch)(...), models.__dict__[args.arch](...)
                return self.models.new_model(node)
            if self._unseen_registry_lookup(func):
                return self._unseen_model_candidate(node)
        return self.call_value(node, v)

    def _unseen_registry_lookup(self, func) -> bool:
        """`models.__dict__[args.arch]` on an imported module of code we cannot read (a package
        whose architectures come in through `from .vgg import *`): the ImageNet example's way
        to pick an architecture by name, so what it builds may be a model (the usage decides)."""
        if not (isinstance(func, cst.Subscript) and isinstance(func.value, cst.Attribute)
                and func.value.attr.value == "__dict__" and isinstance(func.value.value, (cst.Name, cst.Attribute))):
            return False
        q = self.qual(func.value.value)
        return q is not None and not any(q == r or q.startswith(r + ".") for r in kb.frameworks.NOT_MODEL_ROOTS)

    def _unseen_model_candidate(self, node: cst.Call) -> Val:
        """A model only if the code proves it (`.parameters()`, `.cuda()`), as api_calls has it
        for `models.Teacher(...)`; a call handed tensors or a device computes or places instead."""
        pos, kw = self.args(node)
        args = pos + list(kw.values())
        self.escape(args)
        if any(v.kind is Kind.TENSOR or v.kind is Kind.DEVICE for v in args) or "**" in kw \
                or any(k in kw for k in kb.hf.PLACING_KEYWORDS):
            return UNKNOWN
        return Val(Kind.UNKNOWN, mid=node, name="model")

    def _model_namespace_lookup(self, func) -> bool:
        kind = "module"  # what the looked-up namespace is in the project: a module, or a table in one
        if isinstance(func, cst.Call) and isinstance(func.func, cst.Name) and func.func.value == "getattr" and func.args:
            space = func.args[0].value
        elif isinstance(func, cst.Subscript) and isinstance(func.value, cst.Attribute) and func.value.attr.value == "__dict__":
            space = func.value.value
        elif isinstance(func, cst.Subscript):
            space, kind = func.value, "value"  # `DiT_models[args.model](...)`: a table of architectures
        else:
            return False
        if not isinstance(space, (cst.Name, cst.Attribute)):
            return False
        if kind == "module" and self.qual(space) in kb.MODEL_NAMESPACES:
            return True
        # `vits.__dict__[args.arch](...)`, `DiT_models[args.model](...)` on a project file of architectures
        sym = crossfile.symbol(self, space)
        return sym is not None and sym[0] == kind and crossfile.builds_host_models(self, sym[1])

    def args(self, node: cst.Call):
        pos, kw = [], {}
        for a in node.args:
            v = self.eval(a.value)
            if a.star == "*":
                pos.append(Val(Kind.SEQ, elem=self.statements.unpack(v, None)) if v.kind is not Kind.UNKNOWN else UNKNOWN)
            elif a.star == "**":
                kw["**"] = v
            elif a.keyword is not None:
                kw[a.keyword.value] = v
            else:
                pos.append(v)
        return pos, kw

    @staticmethod
    def kwarg_node(node: cst.Call, name: str):
        return keyword_value(node, name)

    def escape(self, vals) -> None:
        for v in vals:
            if v.kind in (Kind.MODULE, Kind.UNKNOWN) and v.mid is not None:
                for mid in mid_parts(v.mid) | {v.mid}:
                    self.facts.escaped.add(mid)
                    self.escaped_so_far.add(mid)
            elif v.kind is Kind.OBJECT and isinstance(v.ref, crossfile.Runner):
                for _param, _name, mid in v.ref.models:  # handed on: the kept models may be moved there
                    self.facts.escaped.add(mid)
                    self.escaped_so_far.add(mid)
            elif v.kind is Kind.OBJECT and isinstance(v.ref, Instance):
                for a in list(v.ref.attrs.values()):
                    if a.kind is Kind.MODULE and a.mid is not None:
                        self.facts.escaped.add(a.mid)
                        self.escaped_so_far.add(a.mid)
            elif v.kind is Kind.SEQ and v.parts:
                self.escape(v.parts)

    def call_builtin(self, node: cst.Call, name: str) -> Val:
        pos, kw = self.args(node)
        built = self.container_builtin(node, name, pos, kw)
        if built is not None:
            return built
        if name in ("iter", "reversed", "tqdm", "trange") and pos:
            if name == "iter":
                self.statements.note_loader_iteration(node, pos[0])
            return pos[0]
        if name == "next" and pos:
            return self.iter_elem(pos[0])
        if name == "map" and len(pos) == 2 and self.recording.in_forward():
            # `q, k, v = map(lambda t: rearrange(t, ...), qkv)` in a forward: the module's tensors
            elem = self.iter_elem(pos[1])
            if elem.kind is Kind.TENSOR and elem.on_module and elem.dev is not Dev.CPU:
                return Val(Kind.SEQ, elem=Val(Kind.TENSOR, on_module=True))
        if name in ("range", "len", "int", "float", "str", "bool", "isinstance", "round", "abs", "min", "max", "sum"):
            return OTHER
        if name == "print":
            for v in pos:
                if v.kind is Kind.TENSOR:
                    self.recording.note_sync(node, "print", v)
        if name in naming.NON_ESCAPING_BUILTINS or name in ("dict", "getattr", "setattr"):
            return OTHER if name != "getattr" else UNKNOWN
        self.escape(pos + list(kw.values()))
        return UNKNOWN

    def container_builtin(self, node: cst.Call, name: str, pos: list, kw: dict) -> Val | None:
        """The builtins that build a container from their arguments' elements, or reduce one
        (`sum(losses)`: a tensor where the losses are); None for the other builtins."""
        if name == "enumerate" and pos:
            return Val(Kind.SEQ, elem=Val(Kind.SEQ, parts=(OTHER, self.iter_elem(pos[0]))))
        if name == "zip":
            if any(a.star == "*" for a in node.args):
                # `zip(*samples)` transposes: each column holds any of a row's fields
                row = self.iter_elem(pos[0]) if len(pos) == 1 else UNKNOWN
                return Val(Kind.SEQ, elem=Val(Kind.SEQ, elem=containers.column(row)))
            return Val(Kind.SEQ, elem=Val(Kind.SEQ, parts=tuple(self.iter_elem(p) for p in pos)))
        if name in ("list", "tuple", "sorted", "set") and pos:
            return Val(Kind.SEQ, elem=self.iter_elem(pos[0]))
        if name == "list" and not node.args:
            return containers.empty_list()
        if name == "sum" and pos:
            return containers.summed(pos[0])
        if name == "dict" and len(pos) == 1 and not kw:
            return self.api.mapping_of(pos[0])
        if name == "dict" and not pos and "**" not in kw:
            return containers.mapping_of_keywords(list(kw.values()))  # `dict()`, `dict(x=t)`
        return None

    def call_value(self, node: cst.Call, v: Val) -> Val:
        if v.kind is Kind.FUNC:
            return self._call_function(node, v)
        if v.kind is Kind.CLASS:
            return self.user_code.construct(node, v.ref)
        if v.kind is Kind.MODULE or (v.kind is Kind.UNKNOWN and v.dev is Dev.ACCEL):
            return self.module_call(node, v if v.kind is Kind.MODULE else v.with_(kind=Kind.MODULE))
        out = self._call_object(node, v) if v.kind is Kind.OBJECT else None
        if out is not None:
            return out
        pos, kw = self.args(node)
        args = pos + list(kw.values())
        self.escape(args)
        if v.kind is Kind.UNKNOWN:
            return self._call_unknown(node, v, pos, kw, args)
        return UNKNOWN

    def _call_function(self, node: cst.Call, v: Val) -> Val:
        fn, closure = v.ref
        out = self.user_code.inline(node, fn, closure, None)
        if out.kind is Kind.MODULE and isinstance(out.mid, cst.Call):
            # `model = build_model(args)`: where DL001's fix may move a model built out of reach
            self.facts.helper_builds.setdefault(node, []).append((out.mid, self.device_names()))
        return out

    def _call_object(self, node: cst.Call, v: Val) -> Val | None:
        """An instance of a class of this file with a `__call__`, a factory with preset keywords,
        a library object (`tokenizer(texts)`); None for any other object."""
        if isinstance(v.ref, Instance):
            info = self.classes.class_of(v.ref.cls)
            # `self(x, hidden)` in a module's own method runs `forward`, as `self.forward(...)` does
            call = info["methods"].get("__call__") or (info["methods"].get("forward") if info["module"] else None)
            if call is not None:
                return self.user_code.inline(node, call, self.module_frame, v)
        if isinstance(v.ref, PresetFactory):
            return self.api.factory(node, v.ref)
        if v.ref in kb.OBJECT_KINDS:
            return self.library.call_library_object(node, v, "__call__")
        return None

    def _call_unknown(self, node: cst.Call, v: Val, pos: list, kw: dict, args: list) -> Val:
        """A callable we know nothing of (`v`): a loss by its name combines its inputs; in
        `forward` a name may be a block of the module; else what an unseen call returns."""
        if _LOSS_NAME.search((dotted(node.func) or "").rsplit(".", 1)[-1]):
            self._unseen_loss(node, pos, kw)
        if isinstance(node.func, cst.Name) and v.dev is Dev.UNKNOWN and self.recording.in_forward():
            # `for attn, ff in self.layers: x = attn(x, mask=mask) + x`: a block of the module
            out = self.methods.part_call(node, node.func.value, args)
            if out is not UNKNOWN:
                return out
        kind = "name" if isinstance(node.func, cst.Name) else "held"
        return self.unseen_call_result(node, args, kind) or UNKNOWN

    def _unseen_loss(self, node: cst.Call, pos: list, kw: dict) -> None:
        """`loss_fn(input=outputs, target=labels)` from a factory we cannot see: a loss combines
        its inputs, whatever it is."""
        positional = iter(pos)
        data = []
        for a in node.args:
            v = kw.get(a.keyword.value) if a.keyword else kw.get("**") if a.star == "**" else next(positional, None)
            if v is not None and (v.kind is Kind.TENSOR or host_batch_in(v) is not None) \
                    and not naming.LENGTHS.search(spelled(a)):  # CTC losses take lengths on the host
                data.append(v)
        if len(data) >= 2:
            self.recording.record_mix(node, data)

    def unseen_call_result(self, node: cst.Call, args: list, kind: str = "other") -> Val | None:
        """A callable we cannot see (a model passed in) that accepts device tensors returns
        device tensors, or it would have failed right here; unless its name says it turns
        them into something else (`self.to_image(pred)`, `decode(ids)`), or it is a value
        handed in or held (`kind` "name", "held") whose name does not say it is a model or a
        criterion (`step_fn`). None otherwise."""
        name = (dotted(node.func) or "").rsplit(".", 1)[-1]
        if _CONVERTER.search(name) or HOST_RESULT.search(name) or not _answers_with_tensors(kind, name):
            return None
        receiver = dotted(node.func.value) if isinstance(node.func, cst.Attribute) else None
        if receiver is not None and _ENVIRONMENT.search(receiver.rsplit(".", 1)[-1]):
            return None  # `env.step(action)`: an environment answers with observations, wherever it keeps them
        if any(_drives_training(a) for a in args):
            return None  # `loss, acc = train_one_epoch(model, opt, loader, device)`: it answers with what it likes
        # a model handed in (`run_first_stage(image, self.pnet)`, the net of an import we
        # cannot read, moved here) is no device input: the callee runs it and may bring its
        # output home itself; only device tensors handed in tell where the result is
        if any(contents_on_accel(a) and not _a_model(a) for a in args):
            return Val(Kind.TENSOR, Dev.ACCEL)
        if self.recording.in_forward() and any(a.kind is Kind.TENSOR and a.on_module and a.dev is not Dev.CPU for a in args):
            # inside `forward`: what an unseen helper makes of the module's tensors lives with them
            return Val(Kind.TENSOR, on_module=True)
        return None

    def run_module_on_inputs(self, node: cst.Call, spec: tuple, pos: list, kw: dict, via: str | None = None) -> bool:
        """`torch.jit.trace(model, x)`, `writer.add_graph(model, images)`: the call runs the
        module it is handed on the inputs it is handed, where both are, as `model(x)` would
        (kb.torch_core.MODULE_RUNNERS). False when either is not told plainly (`**options`, a
        value that is no module)."""
        at, name, inputs_at, inputs_name = spec
        model = pos[at] if len(pos) > at else kw.get(name)
        inputs = pos[inputs_at] if len(pos) > inputs_at else kw.get(inputs_name)
        if model is None or inputs is None or "**" in kw or model.kind is not Kind.MODULE:
            return False
        # a tuple of inputs is the positional arguments the module is called with
        args = list(inputs.parts) if inputs.kind is Kind.SEQ and inputs.parts else [inputs]
        self.facts.module_calls.append(ModuleCall(node, model, args, node, via=via, handed=_arg_node(node, at, name)))
        operands = _module_operands(model, args, [])
        if len(operands) >= 2:
            self.recording.record_mix(node, operands)
        return True

    def module_call(self, node: cst.Call, model: Val, forward: bool = True, evaluated=None,
                    method: str | None = None) -> Val:
        args, exempt = self._module_inputs(node, model, forward, evaluated)
        self.facts.module_calls.append(ModuleCall(node, model, args, self._blamed_call(node, model), method,
                                                  self.recording.mod_cls() if self.recording.in_forward() else None))
        operands = _module_operands(model, args, exempt)
        cls = self.recording.mod_cls()
        if len(operands) >= 2:
            self.recording.record_mix(node, operands)
        if model.param_free:
            out = result_of(args)
            return out.with_(key=None, fresh=False) if out.kind is Kind.TENSOR else UNKNOWN
        dev, key, cond = model.dev, model.key, model.cond
        if dev is Dev.UNKNOWN:
            dev, cond = _placed_by_inputs(args, exempt, dev, cond)
        out = Val(Kind.TENSOR, dev, key=key, grad=forward and not self.no_grad, on_module=cls is not None, cond=cond)
        shape = self._forward_shape(model) if forward else None
        if shape is not None:
            # `out, aux, ratio = model(data)`: the parts its forward returns as plain numbers stay numbers
            return Val(Kind.SEQ, parts=tuple(OTHER if p.kind is Kind.OTHER else out for p in shape.parts))
        return out

    def _module_inputs(self, node: cst.Call, model: Val, forward: bool, evaluated) -> tuple[list, list]:
        """The values a module is run on, and those of them that may stay off its device (host
        lengths; inputs DataParallel or the forward itself moves)."""
        args, exempt = [], []
        fwd = self.classes.class_of(model.ref)["methods"].get("forward") if forward and isinstance(model.ref, cst.ClassDef) else None
        methods = self.classes.class_of(model.ref)["methods"] if fwd is not None else None
        length_params, moved = self._forward_inputs(fwd, methods) if fwd is not None else (set(), frozenset())
        positional = [p.name.value for p in fwd.params.params[1:]] if fwd is not None else []
        for i, a in enumerate(node.args):
            v = self.eval(a.value) if evaluated is None else evaluated[i]
            if a.star:
                v = self.statements.unpack(v, None) if a.star == "*" else v
            param = a.keyword.value if a.keyword else positional[i] if not a.star and i < len(positional) else None
            bound = param if fwd is None or param in _named_params(fwd) else None
            if v.keyed is not None and fwd is not None and bound is not None:
                v = self._items_read(fwd, bound, v)
            args.append(v)
            if _host_on_purpose(a, v, param, length_params, model) or _moved_by_forward(bound, moved):
                exempt.append(v)
        return args, exempt

    def _items_read(self, fwd: cst.FunctionDef, param: str, batch: Val) -> Val:
        """A dict batch with rebound keys handed to a `forward` of this file that reads it only
        by key (`data["video"]`): the items it reads, as the argument the module meets.
        Anything else it does with the dict (hands it on, `.get`, `**data`): the dict as it is."""
        key = ("key reads", id(fwd), param)
        reads = self.body_cache.get(key, False)
        if reads is False:
            reads = self.body_cache[key] = key_reads(fwd, param)
        if not reads:
            return batch
        return Val(Kind.MAPPING, parts=tuple(keyed_item(batch, k) for k in reads))

    def _blamed_call(self, node: cst.Call, model: Val) -> cst.Call:
        """The call a finding on this module run points at: for a model handed down as a
        parameter, the outermost call that handed it in (a closure's factory parameter counts:
        `validate = make_validate_fnc(model)` then `validate(X, Y)` hands the model in too)."""
        blame = node
        if model.mid is not None:
            f = self.frame
            while f.parent is not None and (model.mid in f.param_mids or self._captured_param(f, model.mid)):
                blame = f.call
                f = f.parent
        return blame

    def _captured_param(self, f, mid) -> bool:
        """`mid` is a parameter of the factory whose frame the function of `f` closes over."""
        return f.closure is not None and f.closure is not self.module_frame and mid in f.closure.param_mids

    def _forward_inputs(self, fwd: cst.FunctionDef, methods: dict) -> tuple:
        """(the parameters that take host lengths, the parameters it moves itself) of a `forward`,
        read once per run: every call of the module asks."""
        key = ("inputs", id(fwd))
        found = self.body_cache.get(key)
        if found is None:
            found = self.body_cache[key] = (host_length_params(fwd), moved_params(fwd, methods))
        return found

    def _forward_shape(self, model: Val):
        if not isinstance(model.ref, cst.ClassDef):
            return None
        fwd = self.classes.class_of(model.ref)["methods"].get("forward")
        if fwd is None:
            return None
        r = self.facts.forward_returns.get(fwd)
        if r is None and self.known is not None:
            r = self.known.forward_returns.get(fwd)
        if r is None or r.kind is not Kind.SEQ or not r.parts or not any(p.kind is Kind.OTHER for p in r.parts):
            return None
        return r


def _arg_node(node: cst.Call, at: int, name: str):
    """The expression given as the `at`-th positional argument or as `name=`, or None."""
    positional = [a for a in node.args if a.keyword is None and not a.star]
    if len(positional) > at:
        return positional[at].value
    return next((a.value for a in node.args if a.keyword is not None and a.keyword.value == name), None)
