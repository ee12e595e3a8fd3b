"""torch.nn: which layers hold weights, which module methods hand back the module, which
library base classes make a class an `nn.Module`.

Layer names are bare: the code matches them against the last part of a resolved
`torch.nn.<Name>`.
"""

from __future__ import annotations

from devicelint.knowledge.schema import BaseFacts

LIBRARY = "torch.nn"

# nn layers without parameters or buffers: calling one with device data never fails.
PARAM_FREE_LAYERS = {
    "ReLU", "ReLU6", "LeakyReLU", "GELU", "SiLU", "Sigmoid", "Tanh", "Softmax", "LogSoftmax",
    "Softmin", "Softplus", "Softsign", "Mish", "Hardswish", "Hardsigmoid", "Hardtanh", "ELU",
    "CELU", "SELU", "GLU", "Threshold", "Tanhshrink", "Softshrink", "Hardshrink", "LogSigmoid",
    "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout",
    "Flatten", "Unflatten", "Identity", "MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d",
    "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d",
    "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "LPPool1d", "LPPool2d",
    "Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d", "PixelShuffle", "PixelUnshuffle",
    "ZeroPad1d", "ZeroPad2d", "ZeroPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
    "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d",
    "ReplicationPad2d", "ReplicationPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d",
    "CosineSimilarity", "PairwiseDistance", "Softmax2d", "ChannelShuffle", "Fold", "Unfold",
    "RReLU", "LocalResponseNorm", "CrossMapLRN2d", "LPPool3d", "MaxUnpool1d", "MaxUnpool2d",
    "MaxUnpool3d", "FractionalMaxPool2d", "FractionalMaxPool3d",
}

# Module methods that return the module itself (`Net().eval()` is the Net), per torch's
# signatures (`def eval(self: T) -> T`). `zero_grad` returns None.
MODULE_RETURNS_SELF = frozenset({"eval", "train", "requires_grad_", "half", "float", "double", "bfloat16",
                                 "share_memory", "apply"})
# Module methods that move the module in place and return it.
MODULE_MOVES = ("to", "cuda", "cpu")

# Methods only an nn.Module has together; on a value from code we cannot see they prove it is one.
MODULE_PROOF = frozenset({"eval", "train", "load_state_dict", "parameters", "named_parameters", "state_dict",
                          "requires_grad_", "named_modules", "children", "modules", "zero_grad"})

# Module methods that neither move the module nor hand it to code we cannot see.
MODULE_SAFE_METHODS = frozenset({
    "eval", "train", "parameters", "named_parameters", "buffers", "named_buffers", "state_dict",
    "load_state_dict", "zero_grad", "modules", "named_modules", "children", "named_children",
    "requires_grad_", "apply", "half", "float", "double", "bfloat16", "register_buffer", "numel",
    "size", "dim", "forward", "extra_repr", "get_submodule", "add_module", "register_module",
})

# Base classes that say nothing about devices (a class built on only these is plain Python).
PLAIN_BASES = frozenset({"object", "ABC", "Generic", "Protocol", "NamedTuple", "Enum"})
PLAIN_BASE_ROOTS = ("abc.", "typing.", "enum.", "dataclasses.")


def torch_base(q: str, last: str) -> BaseFacts | None:
    """`torch.nn.X` and `torch.utils.data.*Dataset` bases (`last`: the base as spelled, its
    last part); None for any other name."""
    if q.startswith("torch.nn."):
        layer = q.rsplit(".", 1)[-1]  # resolved: `from torch.nn import Module as M` is a Module
        return BaseFacts(module=True, weights=layer != "Module" and layer not in PARAM_FREE_LAYERS)
    if q.startswith("torch.utils.data") and "Dataset" in last:
        return BaseFacts(dataset=True)
    return None

# torch.nn classes that are not layers with weights of their own.
NOT_LAYERS = frozenset({"Module", "Parameter", "Buffer", "Sequential", "ModuleList", "ModuleDict", "ParameterList",
                        "ParameterDict", "Identity", "DataParallel"})
# Containers: a layer inside one goes wherever the container goes.
CONTAINERS = frozenset({"Sequential", "ModuleList", "ModuleDict"})
# Norm layers whose weights and running statistics can both be switched off:
# name -> ((switch, position, default), ...). With every switch False the layer holds no tensor.
NORM_SWITCHES = {
    **{f"BatchNorm{d}": (("affine", 3, True), ("track_running_stats", 4, True)) for d in ("1d", "2d", "3d")},
    "SyncBatchNorm": (("affine", 3, True), ("track_running_stats", 4, True)),
    **{f"InstanceNorm{d}": (("affine", 3, False), ("track_running_stats", 4, False)) for d in ("1d", "2d", "3d")},
    **{f"LazyBatchNorm{d}": (("affine", 2, True), ("track_running_stats", 3, True)) for d in ("1d", "2d", "3d")},
    **{f"LazyInstanceNorm{d}": (("affine", 2, False), ("track_running_stats", 3, False)) for d in ("1d", "2d", "3d")},
    "LayerNorm": (("elementwise_affine", 2, True),),
    "RMSNorm": (("elementwise_affine", 2, True),),
    "GroupNorm": (("affine", 3, True),),
}
# The hooks `Module.to()` / `.cuda()` go through: a module overriding one moves its own state.
MOVE_HOOKS = frozenset({"_apply", "to", "cuda", "to_empty"})

# torch.nn losses whose name does not end in `Loss`: `NLLLoss2d`, the deprecated 2-D alias of
# `NLLLoss` (still in torch 2.x). Like every torch loss it holds a tensor only when given one.
LOSSES_NOT_NAMED_LOSS = frozenset({"NLLLoss2d"})


def is_loss(name: str) -> bool:
    """Whether the torch.nn class `name` (bare) is a loss."""
    return name.endswith("Loss") or name in LOSSES_NOT_NAMED_LOSS


# Loss options that are no tensor: a loss subclass handing its base only these holds no
# weights (`super().__init__(reduction="none")`), unlike one handing it `weight=`
LOSS_OPTION_KEYWORDS = frozenset({"reduction", "size_average", "reduce", "ignore_index", "label_smoothing"})
