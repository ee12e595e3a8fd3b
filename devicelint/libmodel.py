"""What library calls return and where it lives: a declarative table the interpreter reads.

Each entry says, for a call resolved by qualified name through the file's imports, what
kind of object comes back:

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
- ``to_tensor``: torchvision's `ToTensor()` / `PILToTensor()` (an object) or `to_tensor(img)`
  (a function): a PIL image or NumPy array in, a host tensor out.
- ``compose``: `transforms.Compose([...])`: a `to_tensor` object when the list holds one (its
  input is then an image, its output a host tensor), else nothing we follow.
- ``graph_dataset``: a PyG dataset (`Planetoid`, `TUDataset`...): its items are host graphs
  whose `.to()` works in place.
- ``other``: not a tensor, model or batch (configs, PIL images, schedulers).

Framework-managed code (Lightning, accelerate, HF Trainer, DeepSpeed) is not listed: values
from it stay unknown and no rule fires on them.
"""

from __future__ import annotations

import re

# (pattern on the qualified name, kind). First match wins; `*` matches one or more dotted parts.
_TABLE = (
    # ---- transformers
    (r"transformers\.(pipelines\.)?pipeline", "text_pipeline"),
    (r"transformers\.(pipelines\.)?\w*Pipeline", "text_pipeline"),
    # classes are found at the top level or in their submodule (`transformers.models.bert.BertModel`)
    (r"transformers\.(\w+\.)*\w*(Tokenizer|TokenizerFast|Processor|FeatureExtractor|ImageProcessor)\w*\.from_pretrained",
     "encoder"),
    (r"transformers\.(\w+\.)*\w*Config\.from_pretrained", "other"),
    (r"transformers\.(\w+\.)*(DataCollator\w*|default_data_collator)", "collate"),
    (r"transformers\.(\w+\.)*\w*\.from_pretrained", "module"),  # AutoModel*, *For*, *Model
    # ---- diffusers
    (r"diffusers\.(\w+\.)*\w*(Pipeline|PipelineFor\w*)\.from_(pretrained|single_file|pipe)", "pipeline"),
    (r"diffusers\.(\w+\.)*\w*(Scheduler|Processor)\w*\.from_\w+", "other"),
    (r"diffusers\.(\w+\.)*\w*\.from_(pretrained|single_file)", "module"),  # UNet2DConditionModel, AutoencoderKL...
    # ---- peft
    # peft wraps the model it is given (which keeps its placement), or loads a fresh one
    (r"peft\.(get_peft_model|prepare_model_for_kbit_training|\w*\.from_pretrained)", "wrap"),
    # ---- sentence-transformers picks the accelerator itself when none is given
    (r"sentence_transformers\.SentenceTransformer", "module_placed"),
    # ---- torchvision, timm, hub
    (r"torchvision\.models\.(get_weight|get_model_weights|list_models)", "other"),
    (r"torchvision\.models\.feature_extraction\.\w+", None),  # follows the model it is given
    (r"torchvision\.models\.(\w+\.)?[a-z]\w*", "module"),  # resnet50, detection.fasterrcnn_..., get_model
    (r"torchvision\.transforms\.(functional\.)?(to_pil_image|ToPILImage)", "to_pil"),
    (r"torchvision\.transforms\.(v2\.)?(functional\.)?(ToTensor|PILToTensor|to_tensor|pil_to_tensor)", "to_tensor"),
    (r"torchvision\.transforms\.(v2\.)?Compose", "compose"),
    (r"torchvision\.transforms\.(v2\.)?Lambda", "lambda_transform"),
    # image datasets (MNIST, CIFAR10, ImageFolder): host items, unless a transform places them
    (r"torchvision\.datasets\.(\w+\.)?[A-Z]\w*", "image_dataset"),
    (r"timm\.(models\.)?create_model", "module"),
    (r"torch\.hub\.load", "module"),
    (r"open_clip\.create_model\w*", "module"),
    # ---- PyG
    (r"torch_geometric\.data\.(Data|Batch|HeteroData)(\.from_data_list)?", "graph"),
    (r"torch_geometric\.datasets\.\w+", "graph_dataset"),
    # neighbour / cluster / link loaders sample batches from the graph (or feature store) they are given
    (r"torch_geometric\.loader\.\w*Loader", "graph_loader"),
    # pretrained QM9 models come with their dataset splits: `model, datasets = SchNet.from_qm9_pretrained(...)`
    (r"torch_geometric\.nn\.(models\.)?(SchNet|DimeNet|DimeNetPlusPlus)\.from_qm9_pretrained", "module_and_data"),
    # `to_hetero(model, metadata)` rewrites the model it is given: the result is where that model is
    (r"torch_geometric\.nn\.(to_hetero|to_hetero_with_bases)", "wrap"),
    # containers, wrappers and parameter-free aggregations say nothing of their own
    (r"torch_geometric\.nn\.(\w+\.)*(\w*Aggregation|Sequential|DataParallel|MessagePassing|\w*Explainer\w*)", None),
    # models and layers with weights (post-processing such as CorrectAndSmooth has none)
    (r"torch_geometric\.nn\.(models\.|conv\.|pool\.)?(\w+Conv|TopKPooling|SAGPooling|GraphSAGE|GCN|GAT|GIN|PNA|"
     r"EdgeCNN|SchNet|DimeNet|DimeNetPlusPlus|Node2Vec|MetaPath2Vec|GAE|VGAE|DeepGraphInfomax|MLP|GraphUNet|"
     r"AttentiveFP|LINKX|LightGCN|ViSNet|RECT_L|GRetriever)", "module"),
    # ---- collate functions that never move
    (r"torch\.utils\.data\.(default_collate|dataloader\.default_collate)", "collate"),
    (r"torch\.utils\.data\._utils\.collate\.default_collate", "collate"),
    # ---- host images
    (r"PIL\.Image\.\w+", "other"),
)
_COMPILED = tuple((re.compile(p + r"$"), kind) for p, kind in _TABLE)
_CACHE: dict = {}


def is_model_class(qualname: str) -> bool:
    """A library class whose instances are `nn.Module`s with weights (`UNet2DConditionModel`,
    `BertPreTrainedModel`): what `from_pretrained` of it builds."""
    return kind_of_call(qualname + ".from_pretrained") == "module"


def kind_of_call(qualname: str) -> str | None:
    """The table's kind for a call of `qualname`, or None when the table says nothing."""
    try:
        return _CACHE[qualname]
    except KeyError:
        pass
    out = None
    # `torchvision.models.__dict__.keys()`: a module's namespace is not a model builder
    if qualname.startswith(_ROOTS) and ".__" not in qualname:
        for pattern, kind in _COMPILED:
            if pattern.match(qualname):
                out = kind
                break
    _CACHE[qualname] = out
    return out


_ROOTS = ("transformers", "diffusers", "peft", "sentence_transformers", "torchvision", "timm", "torch.hub",
          "open_clip", "torch_geometric", "torch.utils.data", "PIL")

# Keywords that place what the call builds (so it is not simply on the host).
# (8-bit / 4-bit quantized loading places the weights on the accelerator itself.)
PLACING_KEYWORDS = ("device", "device_map", "quantization_config", "load_in_8bit", "load_in_4bit")

# Pipeline outputs: `output_type=` values that give tensors (on the pipeline's device).
TENSOR_OUTPUT_TYPES = {"pt"}

# Encoder methods that give Python strings / lists; those that take `return_tensors=` like a call.
ENCODER_TEXT_METHODS = {"decode", "batch_decode", "convert_ids_to_tokens", "convert_tokens_to_string", "tokenize"}
ENCODER_TENSOR_METHODS = {"__call__", "encode", "encode_plus", "batch_encode_plus", "pad", "apply_chat_template"}

# Attributes of model outputs that are not tensors (`pipe(...).images` are PIL by default,
# `.text` / `.nsfw_content_detected` are Python values).
NON_TENSOR_OUTPUT_ATTRS = {"images", "text", "nsfw_content_detected", "audios", "frames", "videos"}

# Library-object kinds the interpreter keeps as objects (Val.ref of a Kind.OBJECT value).
OBJECT_KINDS = {"pipeline", "text_pipeline", "encoder", "to_pil", "to_tensor"}

# Modules whose public callables all build models on the host (looked up by name:
# `getattr(torchvision.models, args.arch)(...)`, `models.__dict__[args.arch](...)`).
MODEL_NAMESPACES = {"torchvision.models", "torchvision.models.detection", "torchvision.models.segmentation",
                    "torchvision.models.video", "torchvision.models.quantization", "timm.models"}
