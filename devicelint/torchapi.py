"""What the torch/numpy/ecosystem APIs mean for devices: small, explicit tables."""

from __future__ import annotations

import re

ACCEL_DEVICE_TYPES = {"cuda", "mps", "xpu", "npu", "hpu", "xla", "privateuseone"}

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

# Wrappers that take a module and manage (or require) its placement themselves.
WRAPPERS = {"DataParallel", "DistributedDataParallel", "FullyShardedDataParallel"}

TENSOR_FACTORIES = {
    "zeros", "ones", "empty", "full", "rand", "randn", "randint", "randperm", "arange", "range",
    "linspace", "logspace", "eye", "tensor", "as_tensor", "normal", "tril_indices",
    "triu_indices", "empty_strided", "complex", "polar", "Tensor", "FloatTensor", "LongTensor",
    "IntTensor", "DoubleTensor", "BoolTensor", "ByteTensor", "HalfTensor",
}
LIKE_FACTORIES = {"zeros_like", "ones_like", "empty_like", "full_like", "rand_like", "randn_like", "randint_like"}

DTYPES = {
    "float", "float32", "float64", "double", "float16", "half", "bfloat16", "int", "int8",
    "int16", "int32", "int64", "long", "short", "uint8", "bool", "complex64", "complex128",
    "cfloat", "cdouble", "float8_e4m3fn", "float8_e5m2",
}

# torch functions combining tensors: mixing devices in these raises the same-device error.
MIXING_FUNCTIONS = {
    "cat", "concat", "concatenate", "stack", "hstack", "vstack", "dstack", "matmul", "mm", "bmm",
    "mv", "dot", "einsum", "where", "add", "sub", "subtract", "mul", "multiply", "div", "divide",
    "maximum", "minimum", "cdist", "dist", "eq", "ne", "gt", "lt", "ge", "le", "allclose",
    "isclose", "masked_select", "index_select", "gather", "cross", "outer", "lerp", "addmm",
    "baddbmm", "cosine_similarity", "pairwise_distance", "bucketize", "searchsorted",
    # the function forms of methods a GPU refused a host operand for (MIXING_METHODS)
    "repeat_interleave", "scatter", "scatter_add", "index_add", "index_copy", "masked_scatter", "clamp", "clip",
    "pow", "fmod", "remainder", "atan2", "logical_and", "logical_or", "logical_xor", "kron", "take_along_dim",
    "addcmul", "addcdiv",
}
MIXING_METHODS = {
    "add", "sub", "mul", "div", "matmul", "mm", "bmm", "mv", "dot", "masked_fill", "eq", "ne",
    "lt", "le", "gt", "ge", "add_", "sub_", "mul_", "div_", "masked_fill_", "expand_as",
    "gather", "lerp", "maximum", "minimum", "where", "addmm", "index_add", "index_add_",
    # each refuses a host operand beside a device one on CUDA (benchmarks/cross_device_ops.py)
    "scatter", "scatter_", "scatter_add", "scatter_add_", "index_select", "index_copy", "index_copy_",
    "masked_select", "masked_scatter", "masked_scatter_", "repeat_interleave", "clamp", "clamp_", "clip",
    "clip_", "pow", "pow_", "fmod", "remainder", "atan2", "logical_and", "logical_or", "logical_xor",
    "cross", "outer", "kron", "take_along_dim", "lerp_", "addcmul", "addcmul_", "addcdiv", "addcdiv_",
}
# Tensor methods whose result is not a tensor.
NON_TENSOR_METHODS = {
    "size", "dim", "numel", "item", "tolist", "data_ptr", "get_device", "element_size",
    "nelement", "is_contiguous", "stride", "storage_offset", "untyped_storage", "backward",
    "register_hook", "is_floating_point", "is_complex", "equal", "ndimension", "__len__",
    "is_pinned", "is_shared", "type", "keys",
}
NON_TENSOR_ATTRS = {
    "shape", "dtype", "ndim", "is_cuda", "requires_grad", "names", "layout", "is_leaf",
    "grad_fn", "itemsize", "nbytes", "is_sparse", "is_quantized", "is_meta", "is_mps",
}
# Keyword parameters of torch functions that take sizes, flags and options, never tensors: an
# unknown value there (`scale_factor=self.args.patch_size`) says nothing about the result's device.
OPTION_KEYWORDS = {
    "dim", "keepdim", "scale_factor", "size", "mode", "align_corners", "recompute_scale_factor", "antialias",
    "p", "training", "inplace", "kernel_size", "stride", "padding", "dilation", "groups", "ceil_mode",
    "count_include_pad", "output_size", "upscale_factor", "downscale_factor", "eps", "momentum", "reduction",
    "ignore_index", "label_smoothing", "num_classes", "dtype", "non_blocking", "negative_slope",
    "start_dim", "end_dim", "descending", "largest", "sorted", "k", "diagonal", "chunks", "unbiased",
    "correction", "rounding_mode", "decimals", "approximate", "tau", "hard", "return_indices", "return_counts",
    "return_inverse", "memory_format", "layout", "requires_grad", "pin_memory", "beta", "threshold",
}

# Names of sequence lengths, which stay on the host on purpose (pack_padded_sequence wants them there).
LENGTHS = re.compile(r"len|length|lens\b|(?:\b|_)sizes?\b", re.IGNORECASE)

# Calls of frameworks that prepare models, optimizers and loaders and place them themselves.
FRAMEWORK_CALL = re.compile(r"prepare|accelerat|fabric|setup|trainer|strategy", re.IGNORECASE)

# Reductions give 0-dim tensors, which eager CUDA happily mixes with device tensors.
REDUCTIONS = {"sum", "mean", "max", "min", "norm", "std", "var", "prod", "all", "any", "amax", "amin", "median"}

# Callables that receive a model but neither move nor call it.
NON_ESCAPING_BUILTINS = {
    "print", "len", "isinstance", "issubclass", "type", "id", "repr", "str", "hasattr",
    "callable", "sum", "any", "all", "format", "vars", "dir", "hash",
}
# torch.distributed collectives whose tensors the NCCL backend (the one for GPUs) takes only
# on the GPU: "Tensors must be CUDA and dense" (the `*_object` ones place objects themselves)
COLLECTIVES = {"all_reduce", "reduce", "broadcast", "all_gather", "all_gather_into_tensor", "gather", "scatter",
               "reduce_scatter", "reduce_scatter_tensor", "all_to_all", "all_to_all_single", "send", "recv",
               "isend", "irecv"}

# Functions that trace, script or export a module they are given: they run it where it is and
# never move it, so a model handed to one is still where this file left it.
TRACING_FUNCTIONS = {
    "torch.onnx.export", "torch.onnx._export", "torch.onnx.dynamo_export", "torch.jit.trace", "torch.jit.script",
    "torch.jit.trace_module", "torch.export.export", "torch.fx.symbolic_trace",
}

# torch namespaces whose functions may call or place a module they are given.
ESCAPING_TORCH_PREFIXES = (
    "torch.jit", "torch.onnx", "torch.export", "torch.fx", "torch.distributed", "torch.nn.parallel",
    "torch.ao", "torch.quantization", "torch.func", "torch.nn.utils.stateless", "torch.hub",
)

DEVICE_NAME_HINTS = ("device",)
# `X.device` means "the run's device" only when X is a settings-like object.
CONFIG_OBJECTS = {
    "self", "args", "cfg", "config", "conf", "opt", "opts", "options", "hparams", "params",
    "settings", "flags", "FLAGS", "hp", "accelerator", "training_args", "train_args", "arguments",
}
EXACT_DEVICE_NAMES = {"dev", "gpu", "rank", "local_rank", "gpu_id", "cuda_device"}

MODEL_HUB_SKIP = ("Tokenizer", "Processor", "Config", "FeatureExtractor", "Scheduler", "Dataset")


def parse_device_string(s: str):
    """'cuda:1' -> 'accel', 'cpu' -> 'cpu', anything else -> None."""
    kind = s.split(":")[0].strip().lower()
    if kind == "cpu":
        return "cpu"
    if kind in ACCEL_DEVICE_TYPES:
        return "accel"
    return None


# names of sizes, counts and settings (`num_heads`, `img_resolution`, `hidden_dim`): numbers
NUMBER_NAME = re.compile(
    r"(^|_)(sizes?|dims?|len|length|lengths|num|count|height|width|channels|heads|depth|stride|padding|eps|"
    r"res|resolution)$|^(num|n)_",
    re.IGNORECASE)


def looks_like_device_name(text: str) -> bool:
    last = text.rsplit(".", 1)[-1].lower()
    return any(h in last for h in DEVICE_NAME_HINTS) or last in EXACT_DEVICE_NAMES


def looks_like_loader_name(text: str) -> bool:
    last = text.rsplit(".", 1)[-1].lower()
    return "loader" in last or last == "dl" or last.endswith(("_dl", "_iter", "_iterator")) or last == "data_iter"


def looks_like_dtype(text: str) -> bool:
    last = text.rsplit(".", 1)[-1].lower()
    return "dtype" in last or last in DTYPES


def is_model_hub_class(name: str) -> bool:
    return ("Model" in name or "For" in name or name.startswith("Auto")) and not any(s in name for s in MODEL_HUB_SKIP)


# Factories named like verbs (`build_model`, `load_net`, `get_backbone`): code we cannot see
# that may place what it builds.
BUILDER_VERBS = re.compile(r"^(build|load|get|create|make|init|setup|prepare|from|restore|instantiate|wrap|to|"
                           r"convert|parallel|distribute|compile|fetch|read|open)", re.IGNORECASE)


# Library calls that turn their tensor arguments into NumPy arrays (so fail on a device
# tensor), as a GPU answered (benchmarks/host_conversions.py): every NumPy function, scikit-
# learn's, pyplot's and pandas' constructors. NumPy's reductions that call the tensor's own
# method (`np.mean(t)` calls `t.mean(axis=None, ...)`) fail on any tensor: no device matter.
CONVERTING_ROOTS = ("numpy.", "sklearn.", "matplotlib.pyplot.", "pandas.DataFrame", "pandas.Series")
NUMPY_DELEGATING = {"mean", "std", "var", "sum", "prod", "max", "min", "amax", "amin", "all", "any"}
NOT_CONVERTING = {"numpy.random.seed", "numpy.set_printoptions", "numpy.dtype", "numpy.iinfo", "numpy.finfo"}


def converts_to_numpy(qualname: str) -> bool:
    """`np.concatenate`, `sklearn.metrics.f1_score`, `plt.imshow`: hands its inputs to NumPy
    (a NumPy reduction only a list of tensors: see `NUMPY_DELEGATING`)."""
    return qualname.startswith(CONVERTING_ROOTS) and qualname not in NOT_CONVERTING

