"""Library objects (the declarative tables are in devicelint/knowledge/): what transformers,
diffusers, torchvision, timm, PyG, datasets calls build and where it lives; DataLoaders and
their collate functions; DataParallel/DDP wrappers."""

from __future__ import annotations

from typing import Protocol

import libcst as cst

from devicelint import crossfile
from devicelint import knowledge as kb
from devicelint import naming
from devicelint.names import Imports, dotted
from devicelint.values import OTHER, UNKNOWN, Dev, Instance, Kind, Val, join
from devicelint.flow import items
from devicelint.flow.classes import Classes, places_on_device
from devicelint.flow.facts import Facts, NumpyConv, PlacedItems, PlacingLoader
from devicelint.flow.models import Models
from devicelint.flow.recording import Recording
from devicelint.flow.nodes import find, is_string, keyword_value, walk
from devicelint.flow.state import Frame
from devicelint.flow.statements import Statements


def _spelling(node) -> str:
    return dotted(node) or "the tokenizer"


def _places_anything(fn) -> bool:
    """Moves something (`.to()` / `.cuda()`) or builds a tensor with `device=`."""
    for n in walk(fn):
        if isinstance(n, cst.Call):
            if isinstance(n.func, cst.Attribute) and n.func.attr.value in ("to", "cuda"):
                return True
            if any(a.keyword is not None and a.keyword.value == "device" for a in n.args):
                return True
    return False


# scikit-learn and matplotlib objects whose methods convert their inputs (kb.consumers).
_CONSUMER_KINDS = frozenset({"estimator", "axes", "figure", "figure_and_axes"})


# the mark of a transform pipeline with a step that moves its images to a device
PLACING = "placing-transform"
# the library kinds (knowledge/torchvision.py) of torchvision's transforms and image datasets
_VISION_KINDS = frozenset({"to_pil", "to_tensor", "tensor_transform", "lambda_transform", "compose", "image_dataset"})


def _where_it_was(pos: list) -> Val:
    """What a torchvision transform gives for a tensor (`normalize(img)`): a tensor on the
    input's device, still the batch it was; a PIL image or anything else: not followed."""
    t = pos[0] if pos else UNKNOWN
    if t.kind is not Kind.TENSOR:
        return UNKNOWN
    return Val(Kind.TENSOR, t.dev, key=t.key, loader=t.loader, src=t.src, grad=t.grad, cond=t.cond)


def _transformed(node: cst.Call, lib: str, method: str, pos: list) -> Val:
    """What a torchvision transform object gives when called: `ToTensor()(img)` a host
    tensor, any other transform the tensor where it was; its other methods: not followed."""
    if method != "__call__":
        return UNKNOWN
    return Library._host_image_tensor(node, pos) if lib == "to_tensor" else _where_it_was(pos)


def _placing_argument(kw: dict) -> Val | None:
    """The value of a keyword that places what a library builds (`device=`, `device_map=`),
    else a `**options` mapping that may hold one."""
    return next((kw[k] for k in kb.hf.PLACING_KEYWORDS if k in kw), kw.get("**"))


# Library kinds (the knowledge tables' names) whose calls evaluate their own arguments, and
# the Library method for each...
_OWN_ARGUMENTS = {
    "module": "_library_module",
    "wrap": "_library_wrapper",
    "graph_loader": "_graph_loader",
    "module_and_data": "_module_and_data",
    "text_iterator": "_text_iterator",
    "text_iterators": "_text_iterator",
    **{k: "_consumer_object" for k in _CONSUMER_KINDS},
}
# ...and those handed their arguments evaluated.
_EVALUATED_ARGUMENTS = {
    "module_placed": "_placed_module",
    "pipeline": "_pipeline",
    "text_pipeline": "_pipeline",
    "encoder": "_pipeline",
    **{k: "_vision_call" for k in _VISION_KINDS},
    "graph_dataset": "_graph_dataset",
    "graph": "_graph",
    "collate": "_collate",
    "graph_writer": "_library_object",
}


class ModuleInputs(Protocol):
    """The one question the library part asks the method-call part (flow/methods.py Methods),
    declared here rather than imported: methods.py imports this module for its own host's
    interface."""

    def aware_module_input(self, recv: Val) -> str | None: ...


class LibraryHost(Protocol):
    """What the library part asks of the interpreter that holds it: the module, its import
    table and the frames being run, the facts being recorded, the model part (a library's
    model is built there), the class summaries, the record of what meets the device, the
    method-call part (why an input of a module's method is on the device), the statement part
    (a name a call changed in place is rebound there), and four of its transfer functions."""

    module: cst.Module
    imports: Imports
    frame: Frame | None
    module_frame: Frame | None
    facts: Facts
    models: Models
    classes: Classes
    recording: Recording
    methods: ModuleInputs
    statements: Statements

    def args(self, node: cst.Call) -> tuple: ...

    def escape(self, vals) -> None: ...

    def qual(self, node) -> str | None: ...

    def run_module_on_inputs(self, node: cst.Call, spec: tuple, pos: list, kw: dict, via: str | None = None) -> bool: ...


class Library:
    """A part of the interpreter (not a mixin): what the calls of libraries build (the
    knowledge tables' kinds, dispatched by name below) and their objects' methods give,
    DataLoaders and their collate functions. It owns whether the file hands a collate_fn that
    places each batch (read once), and reaches the interpreter only through `LibraryHost`."""

    def __init__(self, host: LibraryHost):
        self.host = host
        self.placing_collate: bool | None = None  # file_hands_placing_collate's answer, once read

    def library_call(self, node: cst.Call, lib: str, q: str) -> Val:
        """A call the knowledge tables give a library kind (`lib`): the method for that kind
        evaluates it (see _OWN_ARGUMENTS and _EVALUATED_ARGUMENTS); any other kind is no tensor."""
        own = _OWN_ARGUMENTS.get(lib)
        if own is not None:
            return getattr(self, own)(node, lib, q)
        pos, kw = self.host.args(node)
        handler = _EVALUATED_ARGUMENTS.get(lib)
        return getattr(self, handler)(node, lib, q, pos, kw) if handler is not None else OTHER

    def _library_module(self, node: cst.Call, lib: str, q: str) -> Val:
        return self.host.models.new_model(node)

    def _library_wrapper(self, node: cst.Call, lib: str, q: str) -> Val:
        """`PeftModel(base, ...)`: the wrapped model; called without one, a model of its own."""
        first = node.args[0].value if node.args and node.args[0].keyword is None and not node.args[0].star else None
        if first is None:
            return self.host.models.new_model(node)
        pos, kw = self.host.args(node)
        # the wrapper adds weights of its own: no earlier move of the base makes a later one redundant
        if pos[0].kind is Kind.UNKNOWN and pos[0].mid is not None:
            return pos[0]  # a model candidate stays one: usage may still prove it a module
        return pos[0].with_(moved_at=None) if pos[0].kind is Kind.MODULE else UNKNOWN

    def _graph_loader(self, node: cst.Call, lib: str, q: str) -> Val:
        """A PyG loader: host batches, unless the graph it samples is (partly) on the device."""
        pos, kw = self.host.args(node)
        if not pos and "data" not in kw and "**" in kw:
            return Val(Kind.LOADER, Dev.UNKNOWN)  # the graph comes in a mapping of options
        data = pos[0] if pos else kw.get("data", UNKNOWN)
        parts = data.parts if data.kind is Kind.SEQ and data.parts else (data,)
        if any(p.dev is Dev.ACCEL or p.moved_at is not None or (p.kind is Kind.TENSOR and p.dev is not Dev.CPU)
               for p in parts):
            return Val(Kind.LOADER, Dev.UNKNOWN)  # sampled from a graph (partly) on the device
        return Val(Kind.LOADER, Dev.CPU, src=node)

    def _module_and_data(self, node: cst.Call, lib: str, q: str) -> Val:
        return Val(Kind.SEQ, parts=(self.host.models.new_model(node), OTHER))

    def _consumer_object(self, node: cst.Call, lib: str, q: str) -> Val:
        """A scikit-learn estimator, a pyplot figure or axes."""
        self.host.args(node)  # hyper-parameters and layout: nothing there is converted
        if lib == "figure_and_axes":  # `fig, ax = plt.subplots()`
            return Val(Kind.SEQ, parts=(Val(Kind.OBJECT, ref="figure"), Val(Kind.OBJECT, ref="axes")))
        return Val(Kind.OBJECT, ref=lib)

    def _placed_module(self, node: cst.Call, lib: str, q: str, pos: list, kw: dict) -> Val:
        """`from_pretrained(..., device_map=d)`: a module built where it is told."""
        placed = _placing_argument(kw)
        if placed is not None and placed.kind is Kind.DEVICE:
            return Val(Kind.MODULE, placed.dev, key=placed.key, moved_at=node)
        return Val(Kind.MODULE)

    def _pipeline(self, node: cst.Call, lib: str, q: str, pos: list, kw: dict) -> Val:
        """A pipeline or encoder: on the host unless told a device."""
        placed = _placing_argument(kw)
        dev = Dev.CPU
        if placed is not None:
            dev = placed.dev if placed.kind is Kind.DEVICE else Dev.UNKNOWN
        return Val(Kind.OBJECT, dev, ref=lib, name=q.rsplit(".", 2)[-2] if "." in q else q)

    def _graph_dataset(self, node: cst.Call, lib: str, q: str, pos: list, kw: dict) -> Val:
        # a transform may place the graphs (`T.ToDevice(device)`): then we cannot say where
        if "transform" in kw or "pre_transform" in kw or "**" in kw:
            return UNKNOWN
        return Val(Kind.DATASET, Dev.CPU, ref=lib)

    def _graph(self, node: cst.Call, lib: str, q: str, pos: list, kw: dict) -> Val:
        """A PyG graph: its attributes are tensors where its inputs are; `.to()` is in place."""
        tensors = [v for v in pos + list(kw.values()) if v.kind is Kind.TENSOR]
        out = None
        for t in tensors:
            out = join(out, t) if out is not None else t
        dev = out.dev if out is not None else Dev.CPU
        return Val(Kind.TENSOR, dev, key=out.key if out is not None else None, inplace=True)

    def _collate(self, node: cst.Call, lib: str, q: str, pos: list, kw: dict) -> Val:
        return Val(Kind.OTHER, ref="collate")

    @staticmethod
    def _library_object(node: cst.Call, lib: str, q: str, pos: list, kw: dict) -> Val:
        return Val(Kind.OBJECT, ref=lib)

    def _vision_call(self, node: cst.Call, lib: str, q: str, pos: list, kw: dict) -> Val:
        """torchvision's transforms and image datasets: what a transform makes of an image,
        and where a dataset's items are (on the host, unless a transform may place them)."""
        if lib == "to_pil":
            return Val(Kind.OBJECT, ref=lib) if q.rsplit(".", 1)[-1][:1].isupper() else OTHER
        if lib == "to_tensor":
            if q.rsplit(".", 1)[-1][:1].isupper():
                return Val(Kind.OBJECT, ref=lib)
            return self._host_image_tensor(node, pos)  # `TF.to_tensor(img)`
        if lib == "tensor_transform":
            return Val(Kind.OBJECT, ref=lib) if q.rsplit(".", 1)[-1][:1].isupper() else _where_it_was(pos)
        if lib == "lambda_transform":
            # `T.Lambda(lambda img: img.to(device))`: a step that places the images
            return Val(Kind.OBJECT, ref=PLACING) if any(_places_anything(a.value) for a in node.args) else OTHER
        if lib == "compose":
            return self._compose(node, pos)
        if lib == "image_dataset":
            transforms = [kw[k] for k in kb.torchvision.DATASET_TRANSFORM_KEYWORDS if k in kw]
            if any(t.kind is Kind.OBJECT and t.ref == PLACING for t in transforms):
                # a step moves each image (`ToCuda()`): the loader's batches may be on the device
                return Val(Kind.DATASET, Dev.UNKNOWN, ref=lib)
            if "**" in kw or not all(self._host_transform(t) for t in transforms):
                return UNKNOWN
            return Val(Kind.DATASET, Dev.CPU, ref=lib)
        return OTHER

    def call_library_object(self, node: cst.Call, obj: Val, method: str) -> Val:
        """`pipe(prompt)`, `tokenizer(texts, return_tensors="pt")`, `tokenizer.decode(ids)`."""
        lib = obj.ref
        pos, kw = self.host.args(node)
        if lib in _CONSUMER_KINDS:
            return self._consumer_method(node, lib, method, pos, kw)
        if lib in kb.torch_core.OBJECT_MODULE_RUNNERS:
            spec = kb.torch_core.OBJECT_MODULE_RUNNERS[lib].get(method)
            if spec is None or not self.host.run_module_on_inputs(node, spec, pos, kw):
                self.host.escape(pos + list(kw.values()))
            return UNKNOWN
        if lib == "text_pipeline" or lib == "to_pil":
            return OTHER if method == "__call__" else UNKNOWN
        if lib in ("to_tensor", "tensor_transform"):
            return _transformed(node, lib, method, pos)
        if lib == "pipeline":
            if method != "__call__":
                if method.startswith(("enable_model_cpu_offload", "enable_sequential_cpu_offload")):
                    self.host.statements.rebind_text(node.func.value, obj.with_(dev=Dev.UNKNOWN, key=None))
                return UNKNOWN
            wanted = is_string(keyword_value(node, "output_type"))
            if wanted in kb.hf.TENSOR_OUTPUT_TYPES:
                images = Val(Kind.TENSOR, obj.dev, key=obj.key, cond=obj.cond)
            elif keyword_value(node, "output_type") is None or wanted is not None:
                images = OTHER  # PIL images by default, NumPy arrays for "np"
            else:
                images = UNKNOWN
            return Val(Kind.OBJECT, ref="pipeline_output", elem=images)
        if lib == "encoder":
            if method in kb.hf.ENCODER_TEXT_METHODS:
                return OTHER
            if method not in kb.hf.ENCODER_TENSOR_METHODS:
                return UNKNOWN
            rt = keyword_value(node, "return_tensors")
            if rt is None:
                return OTHER  # Python lists
            if is_string(rt) != "pt":
                return OTHER if is_string(rt) is not None else UNKNOWN
            host = Val(Kind.TENSOR, Dev.CPU, loader=f"{_spelling(node.func)}(...)")
            if method == "encode" or (method == "apply_chat_template" and keyword_value(node, "return_dict") is None):
                return host
            return Val(Kind.MAPPING, elem=host, inplace=True)  # a BatchEncoding
        return UNKNOWN

    def _consumer_method(self, node: cst.Call, lib: str, method: str, pos: list, kw: dict) -> Val:
        """`TSNE(2).fit_transform(z)`, `ax.imshow(img)`: a method that converts what it is handed
        (kb.consumers.CONVERTING_METHODS), or one that gives another such object (`fig.add_subplot()`)."""
        made = kb.consumers.OBJECT_METHODS.get(lib, {}).get(method)
        if made is not None:
            return Val(Kind.OBJECT, ref=made)
        if method in kb.consumers.CONVERTING_METHODS.get(lib, ()):
            self.note_converted_args(node, pos, kw, item_keywords=kb.consumers.ITEM_KEYWORDS.get(lib, ()))
            return OTHER
        return UNKNOWN

    def note_converted_args(self, node: cst.Call, pos: list, kw: dict, tensors_delegate: bool = False,
                            item_keywords=()) -> None:
        """Each argument a converting call hands to NumPy, by position or by keyword
        (`f1_score(y_true=labels, y_pred=preds)`, `np.savez(path, emb=z)`): where it is on the
        device, or is what a module run on the device computed (a Lightning step's batch).
        `tensors_delegate`: a NumPy reduction, which calls a lone tensor's own method;
        `item_keywords`: keywords the library reads with `.item()` (`vmin=`), no conversion."""
        positional = iter(pos)
        for a in node.args:
            v = kw.get(a.keyword.value) if a.keyword is not None else None if a.star == "**" else next(positional, None)
            if v is None or a.star or (tensors_delegate and v.kind is Kind.TENSOR):
                continue
            if a.keyword is not None and a.keyword.value in item_keywords:
                continue
            reason = self.host.methods.aware_module_input(v)
            if reason == "aware":
                # a forward's parameters are taken for tensors on the module only by a guess;
                # `np.ceil(H / self.window_size)` takes ints as well, where `.numpy()` would
                # prove a tensor: only the trainer's batch of a step is known to be data
                reason = None
            self.host.recording.note_numpy(NumpyConv(node, v, arg=a.value, module_input=reason))

    def _text_iterator(self, node: cst.Call, lib: str, q: str) -> Val:
        """A torchtext iterator (or the tuple its `.splits(...)` gives): a host loader, or one
        whose batches are built where `device=` says (unknown unless it names the host)."""
        pos, kw = self.host.args(node)
        if "**" in kw:
            return UNKNOWN
        device = kw.get("device")
        if device is None:
            loader = Val(Kind.LOADER, Dev.CPU, name=_spelling(node.func))
        else:
            loader = Val(Kind.LOADER, Dev.CPU if device.dev is Dev.CPU else Dev.UNKNOWN)
        return Val(Kind.SEQ, elem=loader) if lib == "text_iterators" else loader

    @staticmethod
    def _host_image_tensor(node: cst.Call, pos: list) -> Val:
        """What `ToTensor()(img)` gives: a host tensor made from a PIL image or an array (a
        tensor handed in, which `ToTensor` refuses, would decide for itself)."""
        if any(v.kind is Kind.TENSOR for v in pos):
            return UNKNOWN
        return Val(Kind.TENSOR, Dev.CPU, loader=f"{_spelling(node.func)}(...)")

    def dataloader(self, node: cst.Call, q: str) -> Val:
        """`DataLoader(...)` of torch or of a library subclass (`q`, the call's resolved name)."""
        pos, kw = self.host.args(node)
        dataset = pos[0] if pos else kw.get("dataset", UNKNOWN)
        collate = kw.get("collate_fn")
        if collate is not None and not self._host_collate(collate, keyword_value(node, "collate_fn")):
            # its batches are what the collate function visibly places, the rest unknown (its sampler is not)
            return Val(Kind.LOADER, Dev.UNKNOWN, src=node, elem=self._collated(collate, keyword_value(node, "collate_fn")))
        if collate is None and any(a.star == "**" for a in node.args) and self.file_hands_placing_collate():
            # `DataLoader(ds, bs, **kwargs)`: the collate_fn that moves each batch may come through kwargs
            return Val(Kind.LOADER, Dev.UNKNOWN, src=node)
        self.host.facts.loaders[node] = self._pin_state(node)
        if dataset.kind is Kind.DATASET and isinstance(dataset.ref, PlacedItems):
            self.host.facts.placing_loaders.append(PlacingLoader(node, dataset.ref, self.host.frame.func))
        if dataset.kind is Kind.UNKNOWN and self._built_with_a_device(node):
            # `Dataset(files, transform=build_transforms(device))` of code we cannot see, given the
            # device (a transform chain ending in MONAI's `ToDeviced`): its items may be there already
            return Val(Kind.LOADER, Dev.UNKNOWN, src=node)
        return self._batches(node, dataset, collate, q)

    def _built_with_a_device(self, loader: cst.Call) -> bool:
        """The loader's dataset (written in the call, or a name this function binds to a call)
        is built by a call that names a device."""
        arg = next((a.value for a in loader.args if a.keyword is None or a.keyword.value == "dataset"), None)
        if isinstance(arg, cst.Call):
            return self._handed_a_device(arg)
        if not isinstance(arg, cst.Name):
            return False
        scope = self.host.frame.func if self.host.frame is not None and self.host.frame.func is not None else self.host.module
        return any(
            isinstance(a.value, cst.Call) and self._handed_a_device(a.value)
            for a in find(scope, cst.Assign)
            if any(isinstance(t.target, cst.Name) and t.target.value == arg.value for t in a.targets)
        )

    def _handed_a_device(self, call: cst.Call) -> bool:
        """A call that names a device: a `device=` keyword or a `.to()` in it, or a name bound to
        a device, at any depth of its arguments."""
        if _places_anything(call):
            return True
        for n in walk(call):
            if isinstance(n, cst.Name):
                v = self.host.frame.lookup(n.value)
                if v is not None and v.kind is Kind.DEVICE:
                    return True
        return False

    @staticmethod
    def _batches(node: cst.Call, dataset: Val, collate, q: str) -> Val:
        """The loader of `dataset`, its batches where the default collate (or none we can
        read) leaves them."""
        # `DataLoader(list(zip(x_dev, y_dev)))`: torch's default collate stacks tensors already on
        # the device (another library's loader collates its own objects: not read here)
        plain = dataset.kind is Kind.SEQ and collate is None and q in kb.data.DATALOADERS
        item = items.of_list(dataset.elem) if plain else None
        if item is not None:
            all_there = item.kind is Kind.TENSOR or all(p.dev is Dev.ACCEL for p in item.parts)
            return Val(Kind.LOADER, Dev.ACCEL, src=node) if all_there else Val(
                Kind.LOADER, Dev.UNKNOWN, src=node, elem=item)
        if dataset.kind in (Kind.DATASET, Kind.TENSOR):
            # the default collate stacks each position where the dataset's items have it
            item = dataset.elem if dataset.kind is Kind.DATASET and collate is None else None
            return Val(Kind.LOADER, dataset.dev, src=node, elem=item)
        # Datasets we cannot see (torchvision, HF datasets, another module) yield host tensors:
        # the default collate never moves anything.
        return Val(Kind.LOADER, Dev.CPU, src=node)

    def _pin_state(self, node: cst.Call) -> str:
        """DL014 reads it: "missing", "false", or "set" (also where we cannot tell: `**kwargs`,
        or pin_memory given by position)."""
        pin = keyword_value(node, "pin_memory")
        if any(a.star for a in node.args) or len([a for a in node.args if a.keyword is None]) > 7:
            return "set"
        if pin is None:
            return "missing"
        return "false" if isinstance(pin, cst.Name) and pin.value == "False" else "set"

    def _compose(self, node: cst.Call, pos: list) -> Val:
        """`T.Compose([...])`: a pipeline that places its images if a step does, one that
        turns them into host tensors if a step does (`ToTensor`), else unknown."""
        steps_vals = [p for v in pos for p in (v.parts or ())]
        if any(_places_anything(a.value) for a in node.args) or any(v.ref == PLACING for v in steps_vals) \
                or any(self._placing_step(v) for v in steps_vals):
            return Val(Kind.OBJECT, ref=PLACING)
        steps = [n for a in node.args for n in walk(a.value) if isinstance(n, cst.Call)]
        if any(kb.kind_of_call(self.host.imports.qualname(n.func) or "") == "to_tensor" for n in steps):
            return Val(Kind.OBJECT, ref="to_tensor")
        return UNKNOWN

    def _placing_step(self, step: Val) -> bool:
        """An instance of a class of this file whose `__call__` moves what it is given
        (`class ToCuda: def __call__(self, t): return t.cuda()`)."""
        if step.kind is not Kind.OBJECT or not isinstance(step.ref, Instance):
            return False
        call = self.host.classes.class_of(step.ref.cls)["methods"].get("__call__")
        return call is not None and _places_anything(call)

    @staticmethod
    def _host_transform(transform: Val) -> bool:
        """A transform known to leave images on the host: a pipeline ending in `ToTensor`, or a
        function of this file that places nothing (a `Lambda` or an object we cannot see may
        move: then the dataset's items are not known to be host data)."""
        if transform.kind is Kind.OBJECT and transform.ref == "to_tensor":
            return True
        return transform.kind is Kind.FUNC and not _places_anything(transform.ref[0])

    def _collated(self, collate: Val, node) -> Val | None:
        """The batch a collate function returns, where it visibly places it (flow/items.py): a
        function of this file, or one of another project file (its summary's return)."""
        if collate.kind is Kind.FUNC:
            return items.of_getitem(collate.ref[0], places_on_device)
        if isinstance(node, cst.Name) and self.host.imports.project is not None:
            return crossfile.collated(self.host, node)
        return None

    def _host_collate(self, collate: Val, node) -> bool:
        """A collate function known to leave the batch on the host: a library collator that never
        moves (DataCollatorWithPadding, default_collate), or a function of this file that neither
        moves, nor builds tensors with `device=`, nor calls a function of this file that does."""
        if collate.ref == "collate":
            return True
        q = self.host.qual(node) if isinstance(node, (cst.Name, cst.Attribute)) else None
        if q is not None and kb.kind_of_call(q) == "collate":
            return True
        if isinstance(node, cst.Name) and self.host.imports.project is not None and crossfile.never_places(self.host, node):
            return True  # `collate_fn=pad_batch` of utils.py, which moves nothing anywhere
        if collate.kind is Kind.FUNC:
            fns = [collate.ref[0]]
        elif collate.kind is Kind.OBJECT and isinstance(collate.ref, Instance):
            # `collate_fn=Collater(...)`, an object of a class of this file: its `__call__` collates
            methods = self.host.classes.class_of(collate.ref.cls)["methods"]
            if "__call__" not in methods:
                return False
            fns = list(methods.values())
        else:
            return False
        return not any(self._collate_places(fn) for fn in fns)

    def file_hands_placing_collate(self) -> bool:
        """Does this file (a notebook: all its cells) hand a `collate_fn=` that moves each batch
        to the device (`return x.to(device), y.to(device)`, `return to_device(cf(b))`)? Then a
        loader handed in as a parameter may yield device batches, whatever its name says."""
        found = self.placing_collate
        if found is None:
            defs = {n.name.value: n for n in find(self.host.module, cst.FunctionDef)}
            found = self.placing_collate = any(
                self._collate_fn_places(a.value, defs)
                for n in find(self.host.module, cst.Call)
                for a in n.args if a.keyword is not None and a.keyword.value == "collate_fn"
            )
        return found

    def _collate_fn_places(self, value, defs: dict) -> bool:
        if isinstance(value, cst.Lambda):
            fn = value
        elif isinstance(value, cst.Name) and value.value in defs:
            fn = defs[value.value]
        else:
            return False
        return self._collate_places(fn)

    def _collate_places(self, fn) -> bool:
        if _places_anything(fn):
            return True
        for n in walk(fn):
            if isinstance(n, cst.Call) and naming.looks_like_device_mover((dotted(n.func) or "").rsplit(".", 1)[-1]):
                return True  # `return to_device(cf(b))`, the helper of a star import
            if isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and self.host.module_frame is not None:
                callee = self.host.module_frame.state.vars.get(n.func.value)
                if callee is not None and callee.kind is Kind.FUNC and _places_anything(callee.ref[0]):
                    return True
        return False
