"""What libraries do to devices, as data: one table per library in one schema.

Every part of devicelint that needs to know what a library call, class or method does to
devices reads it here, through this module's functions or the tables of its submodules:

    torch_core   devices, dtypes, tensor factories and methods, grad mode, availability tests
    nn           layers with and without weights, module methods, torch base classes
    optim        optimizers and schedules          data         torch.utils.data
    amp          deprecated autocast/GradScaler    distributed  collectives, DataParallel/DDP
    torchvision  timm  pyg  hf                     model builders and library objects
    lightning    frameworks                        who places what it is given
    consumers    NumPy/sklearn/matplotlib/pandas/PIL: what converts to NumPy
    einops
    apex         NVIDIA apex: amp.initialize and its DDP take the model where it is

Teaching devicelint a library is one module here (plus its test): `CALL_ROOTS`/`CALL_KINDS`
for calls that build library objects, sets of names for one-bit facts, and a line in
`_CALL_TABLES` below. `lookup(qualname)` answers in the one schema (`schema.Entry`).

The kinds of `kind_of_call` (what a call resolved by qualified name through the file's
imports builds):

- ``module``: an `nn.Module` on the host, unless the call places it (`device=`,
  `device_map=`); it then needs a move like any model built in the file.
- ``module_placed``: an `nn.Module` whose placement the library decides (it may pick the
  accelerator on its own): its device is unknown.
- ``pipeline``: a pipeline object (diffusers, transformers). `.to()` moves it in place;
  calling it returns an output whose `.images` are PIL images unless `output_type` asks for
  tensors (`"pt"`: on the pipeline's device; `"np"`/`"pil"`/`"latent"`...: not tensors we follow).
- ``text_pipeline``: a transformers `pipeline(...)`: its outputs are Python lists and dicts.
- ``to_pil``: builds (or is) a tensor-to-PIL conversion: its results are not tensors.
- ``encoder``: a tokenizer / processor / feature extractor. Called with
  `return_tensors="pt"` it returns a host mapping of tensors (`BatchEncoding`) whose `.to()`
  works in place; without it, Python lists. `.decode()` and friends return strings.
- ``graph``: a PyG `Data` / `Batch` / `HeteroData`: host tensors, `.to()` in place.
- ``wrap``: wraps the model it is given as first argument (peft adapters): the result is that
  model, wherever it is; with no model given (`AutoPeftModel*.from_pretrained(path)`) a host module.
- ``module_and_data``: a pair (host `nn.Module`, datasets), as PyG's `from_qm9_pretrained` returns.
- ``graph_loader``: a PyG loader (`NeighborLoader`, `LinkNeighborLoader`, `HGTLoader`...): its
  batches are where the graph it samples from is (a graph or feature store not moved: the host).
- ``collate``: a collate function that never moves anything (the batch stays on the host).
- ``text_iterator``: a torchtext `BucketIterator` / `Iterator` / `BPTTIterator`: a loader whose
  batches (`batch.text`) are host tensors unless `device=` is given; ``text_iterators``: what
  their `.splits(...)` returns, one such loader per dataset.
- ``to_tensor``: torchvision's `ToTensor()` / `PILToTensor()` (an object) or `to_tensor(img)`
  (a function): a PIL image or NumPy array in, a host tensor out.
- ``tensor_transform``: any other torchvision transform (`Normalize(...)`, `Resize(...)`) or
  tensor function (`TF.normalize(t, ...)`): a tensor in, a tensor out where the input was.
- ``compose``: `transforms.Compose([...])`: a `to_tensor` object when the list holds one (its
  input is then an image, its output a host tensor), else nothing we follow.
- ``graph_dataset``: a PyG dataset (`Planetoid`, `TUDataset`...): its items are host graphs
  whose `.to()` works in place.
- ``estimator``: a scikit-learn estimator or transformer (`TSNE(...)`, `PCA(2)`): the methods
  in `consumers.CONVERTING_METHODS` convert the arrays they are handed to NumPy.
- ``axes``: a matplotlib Axes, or an array of them (`plt.subplot(...)`, `fig.add_subplot(...)`):
  its plotting methods convert their data; indexing or iterating it gives an Axes.
- ``figure``: a matplotlib Figure (`plt.figure()`): its `add_subplot()` gives an ``axes``.
- ``figure_and_axes``: what `plt.subplots(...)` returns, a pair (``figure``, ``axes``).
- ``other``: not a tensor, model or batch (configs, PIL images, schedulers).

Framework-managed code (Lightning, accelerate, HF Trainer, DeepSpeed) has no kind: values
from it stay unknown and no rule fires on them.
"""

from __future__ import annotations

import functools
import re

from devicelint.knowledge import (amp, apex, consumers, data, distributed, einops, frameworks, hf, lightning, nn,
                                  optim, pyg, timm, torch_core, torch_similarity, torchaudio, torchsummary, torchtext,
                                  torchvision)
from devicelint.knowledge.schema import HOST, INPUTS, BaseFacts, Entry

__all__ = ["BaseFacts", "Entry", "MODEL_BUILDERS", "MODEL_NAMESPACES", "NAMED_CALLS", "OBJECT_KINDS", "amp", "apex",
           "base_class", "combines_its_tensors", "consumers",
           "converts_to_numpy", "data", "distributed", "einops", "frameworks", "hf", "is_model_class", "is_plain_base",
           "kind_of_call", "lightning", "lookup", "nn", "no_accel_result", "optim", "pyg", "returns_self",
           "runs_module_on_made_inputs", "timm", "torch_core", "torch_similarity", "torchaudio", "torchsummary",
           "torchtext", "torchvision"]

# The call tables, in the order they are tried (their roots do not overlap). A table's
# patterns only match names under its own roots (tests/test_knowledge.py holds it).
_CALL_TABLES = (hf, torchvision, timm, torch_core, pyg, data, torchtext, consumers, torch_similarity)
_CACHE: dict = {}

# Library-object kinds the interpreter keeps as objects (Val.ref of a Kind.OBJECT value).
OBJECT_KINDS = {"pipeline", "text_pipeline", "encoder", "to_pil", "to_tensor", "tensor_transform", "estimator", "axes",
                "figure", "graph_writer"}
# Kinds whose `.to()` moves the object in place and returns it.
_IN_PLACE_KINDS = {"pipeline", "encoder", "graph"}

# Modules whose public callables all build models on the host.
MODEL_NAMESPACES = torchvision.MODEL_NAMESPACES | timm.MODEL_NAMESPACES
# Library functions, by qualified name, that build a model on the host (`timm.create_model`).
MODEL_BUILDERS = timm.MODEL_BUILDERS | torch_core.MODEL_BUILDERS
# Calls known by their exact qualified name -> what they do (torch_core.NAMED_CALLS's meanings).
NAMED_CALLS = torch_core.NAMED_CALLS | apex.NAMED_CALLS


def kind_of_call(qualname: str) -> str | None:
    """The kind of what a call of `qualname` builds, or None when no table says."""
    try:
        return _CACHE[qualname]
    except KeyError:
        pass
    # `torchvision.models.__dict__.keys()`: a module's namespace is not a model builder
    out = _CACHE[qualname] = _first_match(qualname) if ".__" not in qualname else None
    return out


def _first_match(qualname: str) -> str | None:
    """The kind of the first pattern, in table order, that matches `qualname` (a pattern may
    say None: "no kind")."""
    for table in _CALL_TABLES:
        if qualname.startswith(table.CALL_ROOTS):
            for pattern, kind in _patterns(table):
                if pattern.match(qualname):
                    return kind
    return None


@functools.cache
def _patterns(table) -> tuple:
    """`table`'s CALL_KINDS compiled, when a name under its roots is first asked about: a file
    names one or two of these libraries, and compiling all 40 patterns at import was about
    1 % of the instructions of a cold one-file lint."""
    return tuple((re.compile(p + r"$"), kind) for p, kind in table.CALL_KINDS)


def is_model_class(qualname: str) -> bool:
    """A library class whose instances are `nn.Module`s with weights (`UNet2DConditionModel`,
    `BertPreTrainedModel`): what `from_pretrained` of it builds."""
    return kind_of_call(qualname + ".from_pretrained") == "module"


def base_class(q: str, last: str, *, model_classes: bool = True) -> BaseFacts | None:
    """What a library base class (resolved name `q`, last part `last`) makes of a class derived
    from it; None when no table knows it (the class may then be anything). `model_classes`
    also asks the call tables (`is_model_class`), which only a resolved name can answer."""
    found = nn.torch_base(q, last) or lightning.lightning_base(q, last)
    if found is not None:
        return found
    if torchvision.DATASET_BASE.match(q):
        return BaseFacts(dataset=True)
    if hf.is_model_base(last) or (model_classes and is_model_class(q)):
        return BaseFacts(module=True, weights=True)
    return None


def is_plain_base(q: str, last: str) -> bool:
    """A base that says nothing about devices (`object`, `ABC`, `typing.Generic`, an Enum)."""
    return last in nn.PLAIN_BASES or q.startswith(nn.PLAIN_BASE_ROOTS)


def returns_self(method: str) -> bool:
    """A module method that hands back the module (`eval`, `half`, `apply`)."""
    return method in nn.MODULE_RETURNS_SELF


def converts_to_numpy(qualname: str) -> bool:
    return consumers.converts_to_numpy(qualname)


def no_accel_result(qualname: str):
    """What an availability test returns on a machine without an accelerator (False / 0), or
    None when `qualname` is no such test."""
    return torch_core.NO_ACCEL_RESULTS.get(qualname)


def lookup(qualname: str) -> Entry | None:
    """Everything the tables say about one qualified name, or None when they say nothing."""
    parts = qualname.split(".")
    last = parts[-1]
    fields: dict = {}
    kind = kind_of_call(qualname)
    if kind is not None:
        fields["kind"] = kind
        fields["moves_in_place"] = kind in _IN_PLACE_KINDS
        if kind == "module":
            fields.update(is_module_class=True, owns_weights=True, result_place=HOST)
        elif kind == "module_placed":
            fields.update(is_module_class=True, owns_weights=True, manages_placement=True)
    if qualname.startswith("torch.nn.") and last[:1].isupper() and "functional" not in parts:
        free = last in nn.PARAM_FREE_LAYERS
        # `nn.Module` itself says nothing of weights: its subclasses do
        fields.update(is_module_class=True, owns_weights=None if last == "Module" else not free,
                      is_loss_without_weights=free)
        if last in distributed.WRAPPERS:
            fields.update(manages_placement=True, owns_weights=None)
    if qualname.startswith("torch.nn.Module.") and returns_self(last):
        fields["returns_self"] = True
    if consumers.converts_to_numpy(qualname):
        fields.update(converts_to_numpy=True, result_place=HOST)
    if qualname in torch_core.TRACING_FUNCTIONS or runs_module_on_made_inputs(qualname) is not None:
        fields["runs_module"] = True
    if len(parts) == 2 and parts[0] == "torch":
        if last in torch_core.TENSOR_FACTORIES or last in torch_core.LIKE_FACTORIES:
            fields["result_place"] = "arg" if last in torch_core.TENSOR_FACTORIES else INPUTS
        elif last in torch_core.MIXING_FUNCTIONS:
            fields["result_place"] = INPUTS
    if qualname.startswith(lightning.ROOTS + lightning.FABRIC_ROOTS + ("accelerate",)) or qualname in hf.TRAINERS:
        fields["manages_placement"] = True
    if not fields:
        return None
    return Entry(qualname=qualname, library=_library_of(parts[0]), **fields)


def _library_of(root: str) -> str:
    for table in (hf, torchvision, timm, pyg, lightning, consumers, einops):
        if any(r.split(".")[0] == root for r in getattr(table, "CALL_ROOTS", getattr(table, "ROOTS", ()))):
            return table.LIBRARY
    return root


def combines_its_tensors(qualname: str) -> bool:
    """A library function (outside torch) that computes with every tensor it is handed, which
    must therefore share one device (`torchaudio.functional.phase_vocoder`)."""
    return qualname.startswith(torchaudio.COMBINING_PREFIXES)


def runs_module_on_made_inputs(qualname: str) -> tuple | None:
    """(position of the model, keyword naming the device, its default) for a library function
    that runs the model it is given on inputs it builds itself (`torchsummary.summary`)."""
    return torchsummary.RUNS_MODULE_ON_MADE_INPUTS.get(qualname)
