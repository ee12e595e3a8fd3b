"""Library objects (the declarative tables are in devicelint/knowledge/): what transformers,
diffusers, torchvision, timm, PyG, datasets calls build and where it lives; DataLoaders and
their collate functions; DataParallel/DDP wrappers."""

from __future__ import annotations

import libcst as cst

from devicelint import crossfile
from devicelint import knowledge as kb
from devicelint import naming
from devicelint.names import dotted
from devicelint.values import NONE, OTHER, UNKNOWN, Dev, Instance, Kind, Val, join, mid_parts
from devicelint.flow import items
from devicelint.flow.classes import places_on_device
from devicelint.flow.facts import PlacedItems, PlacingLoader
from devicelint.flow.nodes import find, is_string, walk


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


# The mark of what a wrapper that keeps placement returns (kb.distributed.KEEPS_PLACEMENT):
# calling it scatters host inputs to the module's device.
SCATTERS = "scatters-inputs"

# the mark of a transform pipeline with a step that moves its images to a device
PLACING = "placing-transform"
# the library kinds (knowledge/torchvision.py) of torchvision's transforms and image datasets
_VISION_KINDS = frozenset({"to_pil", "to_tensor", "lambda_transform", "compose", "image_dataset"})


def wrap_in_place(cls: str, pos: list) -> Val | None:
    """`nn.DataParallel(net)` / `DistributedDataParallel(net, device_ids=[rank])` move
    nothing: the module must already be on the first device, so the wrapper is where the
    wrapped model (or a moved unknown) is, and a model never moved stays unmoved behind it.
    None for other calls."""
    inner = pos[0] if cls in kb.distributed.KEEPS_PLACEMENT and pos else None
    if inner is None or not (inner.kind is Kind.MODULE or (inner.kind is Kind.UNKNOWN and inner.dev is not Dev.UNKNOWN)):
        return None
    return inner.with_(kind=Kind.MODULE, param_free=False, ref=SCATTERS)


def placed_by_load(kw: dict) -> Val | None:
    """Where `from_pretrained(...)` puts the model it loads, when its keywords say for sure:
    `device=d` / `device_map=d` naming one device (a single-device map gets no accelerate hooks
    that would move the inputs). None: not sure (`device_map="auto"`, a mapping, `**options`,
    a bitsandbytes 4-/8-bit load: accelerate dispatches quantized models with hooks that move
    the inputs to the weights and the outputs back)."""
    if any(k in kw for k in kb.hf.QUANTIZING_KEYWORDS):
        return None
    for k in ("device", "device_map"):
        d = kw.get(k)
        if d is not None:
            return d if d.kind is Kind.DEVICE else None
    return None


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


class Library:
    def wrap(self, node: cst.Call, cls: str, pos: list, kw: dict) -> Val | None:
        """wrap_in_place, noting a DistributedDataParallel told which GPU to run on."""
        if cls in kb.distributed.KEEPS_PLACEMENT and pos and pos[0].kind is Kind.UNKNOWN and pos[0].mid is not None:
            pos = [self.models.proven_module(pos[0])] + pos[1:]  # only an nn.Module can be wrapped
        wrapped = wrap_in_place(cls, pos)
        # noted in the first run only: the second one sees a model handed to unknown code
        # anywhere (even later) as placed nowhere in particular
        if wrapped is not None and self.known is None and cls == "DistributedDataParallel" and (
            len(pos) > 1 or kw.get("device_ids", NONE) is not NONE
        ):
            escaped = any(m in self.escaped_so_far for m in mid_parts(pos[0].mid) | {pos[0].mid})
            self.facts.gpu_wraps.append((node, pos[0], escaped))
        return wrapped

    def library_call(self, node: cst.Call, lib: str, q: str) -> Val:
        """A call the knowledge tables give a library kind (`lib`): the method for that kind
        evaluates it (see _OWN_ARGUMENTS and _EVALUATED_ARGUMENTS); any other kind is no tensor."""
        own = _OWN_ARGUMENTS.get(lib)
        if own is not None:
            return getattr(self, own)(node, lib, q)
        pos, kw = self.args(node)
        handler = _EVALUATED_ARGUMENTS.get(lib)
        return getattr(self, handler)(node, lib, q, pos, kw) if handler is not None else OTHER

    def _library_module(self, node: cst.Call, lib: str, q: str) -> Val:
        return self.models.new_model(node)

    def _library_wrapper(self, node: cst.Call, lib: str, q: str) -> Val:
        """`PeftModel(base, ...)`: the wrapped model; called without one, a model of its own."""
        first = node.args[0].value if node.args and node.args[0].keyword is None and not node.args[0].star else None
        if first is None:
            return self.models.new_model(node)
        pos, kw = self.args(node)
        # the wrapper adds weights of its own: no earlier move of the base makes a later one redundant
        if pos[0].kind is Kind.UNKNOWN and pos[0].mid is not None:
            return pos[0]  # a model candidate stays one: usage may still prove it a module
        return pos[0].with_(moved_at=None) if pos[0].kind is Kind.MODULE else UNKNOWN

    def _graph_loader(self, node: cst.Call, lib: str, q: str) -> Val:
        """A PyG loader: host batches, unless the graph it samples is (partly) on the device."""
        pos, kw = self.args(node)
        if not pos and "data" not in kw and "**" in kw:
            return Val(Kind.LOADER, Dev.UNKNOWN)  # the graph comes in a mapping of options
        data = pos[0] if pos else kw.get("data", UNKNOWN)
        parts = data.parts if data.kind is Kind.SEQ and data.parts else (data,)
        if any(p.dev is Dev.ACCEL or p.moved_at is not None or (p.kind is Kind.TENSOR and p.dev is not Dev.CPU)
               for p in parts):
            return Val(Kind.LOADER, Dev.UNKNOWN)  # sampled from a graph (partly) on the device
        return Val(Kind.LOADER, Dev.CPU, src=node)

    def _module_and_data(self, node: cst.Call, lib: str, q: str) -> Val:
        return Val(Kind.SEQ, parts=(self.models.new_model(node), OTHER))

    def _consumer_object(self, node: cst.Call, lib: str, q: str) -> Val:
        """A scikit-learn estimator, a pyplot figure or axes."""
        self.args(node)  # hyper-parameters and layout: nothing there is converted
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
        pos, kw = self.args(node)
        if lib in _CONSUMER_KINDS:
            return self._consumer_method(node, lib, method, pos, kw)
        if lib in kb.torch_core.OBJECT_MODULE_RUNNERS:
            spec = kb.torch_core.OBJECT_MODULE_RUNNERS[lib].get(method)
            if spec is None or not self.run_module_on_inputs(node, spec, pos, kw):
                self.escape(pos + list(kw.values()))
            return UNKNOWN
        if lib == "text_pipeline" or lib == "to_pil":
            return OTHER if method == "__call__" else UNKNOWN
        if lib == "to_tensor":
            return self._host_image_tensor(node, pos) if method == "__call__" else UNKNOWN
        if lib == "pipeline":
            if method != "__call__":
                if method.startswith(("enable_model_cpu_offload", "enable_sequential_cpu_offload")):
                    self.rebind_text(node.func.value, obj.with_(dev=Dev.UNKNOWN, key=None))
                return UNKNOWN
            wanted = is_string(self.kwarg_node(node, "output_type"))
            if wanted in kb.hf.TENSOR_OUTPUT_TYPES:
                images = Val(Kind.TENSOR, obj.dev, key=obj.key, cond=obj.cond)
            elif self.kwarg_node(node, "output_type") is None or wanted is not None:
                images = OTHER  # PIL images by default, NumPy arrays for "np"
            else:
                images = UNKNOWN
            return Val(Kind.OBJECT, ref="pipeline_output", elem=images)
        if lib == "encoder":
            if method in kb.hf.ENCODER_TEXT_METHODS:
                return OTHER
            if method not in kb.hf.ENCODER_TENSOR_METHODS:
                return UNKNOWN
            rt = self.kwarg_node(node, "return_tensors")
            if rt is None:
                return OTHER  # Python lists
            if is_string(rt) != "pt":
                return OTHER if is_string(rt) is not None else UNKNOWN
            host = Val(Kind.TENSOR, Dev.CPU, loader=f"{_spelling(node.func)}(...)")
            if method == "encode" or (method == "apply_chat_template" and self.kwarg_node(node, "return_dict") is None):
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

    def _text_iterator(self, node: cst.Call, lib: str, q: str) -> Val:
        """A torchtext iterator (or the tuple its `.splits(...)` gives): a host loader, or one
        whose batches are built where `device=` says (unknown unless it names the host)."""
        pos, kw = self.args(node)
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
        pos, kw = self.args(node)
        dataset = pos[0] if pos else kw.get("dataset", UNKNOWN)
        collate = kw.get("collate_fn")
        if collate is not None and not self._host_collate(collate, self.kwarg_node(node, "collate_fn")):
            # its batches are what the collate function visibly places, the rest unknown (its sampler is not)
            return Val(Kind.LOADER, Dev.UNKNOWN, src=node, elem=self._collated(collate, self.kwarg_node(node, "collate_fn")))
        if collate is None and any(a.star == "**" for a in node.args) and self.file_hands_placing_collate():
            # `DataLoader(ds, bs, **kwargs)`: the collate_fn that moves each batch may come through kwargs
            return Val(Kind.LOADER, Dev.UNKNOWN, src=node)
        self.facts.loaders[node] = self._pin_state(node)
        if dataset.kind is Kind.DATASET and isinstance(dataset.ref, PlacedItems):
            self.facts.placing_loaders.append(PlacingLoader(node, dataset.ref, self.frame.func))
        return self._batches(node, dataset, collate, q)

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
        pin = self.kwarg_node(node, "pin_memory")
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
        if any(kb.kind_of_call(self.imports.qualname(n.func) or "") == "to_tensor" for n in steps):
            return Val(Kind.OBJECT, ref="to_tensor")
        return UNKNOWN

    def _placing_step(self, step: Val) -> bool:
        """An instance of a class of this file whose `__call__` moves what it is given
        (`class ToCuda: def __call__(self, t): return t.cuda()`)."""
        if step.kind is not Kind.OBJECT or not isinstance(step.ref, Instance):
            return False
        call = self.class_of(step.ref.cls)["methods"].get("__call__")
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
        if isinstance(node, cst.Name) and self.imports.project is not None:
            return crossfile.collated(self, node)
        return None

    def _host_collate(self, collate: Val, node) -> bool:
        """A collate function known to leave the batch on the host: a library collator that never
        moves (DataCollatorWithPadding, default_collate), or a function of this file that neither
        moves, nor builds tensors with `device=`, nor calls a function of this file that does."""
        if collate.ref == "collate":
            return True
        q = self.qual(node) if isinstance(node, (cst.Name, cst.Attribute)) else None
        if q is not None and kb.kind_of_call(q) == "collate":
            return True
        if isinstance(node, cst.Name) and self.imports.project is not None and crossfile.never_places(self, node):
            return True  # `collate_fn=pad_batch` of utils.py, which moves nothing anywhere
        if collate.kind is Kind.FUNC:
            fns = [collate.ref[0]]
        elif collate.kind is Kind.OBJECT and isinstance(collate.ref, Instance):
            # `collate_fn=Collater(...)`, an object of a class of this file: its `__call__` collates
            methods = self.class_of(collate.ref.cls)["methods"]
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
        found = self.body_cache.get("placing_collate")
        if found is None:
            defs = {n.name.value: n for n in find(self.module, cst.FunctionDef)}
            found = self.body_cache["placing_collate"] = any(
                self._collate_fn_places(a.value, defs)
                for n in find(self.module, cst.Call)
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
            if isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and self.module_frame is not None:
                callee = self.module_frame.state.vars.get(n.func.value)
                if callee is not None and callee.kind is Kind.FUNC and _places_anything(callee.ref[0]):
                    return True
        return False
