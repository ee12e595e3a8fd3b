"""torch itself: devices, dtypes, tensor factories and methods, autograd, tracing.

Names here are bare where the code matches them against the last part of a resolved
`torch.<name>` (or a tensor method name); qualified where the whole name is matched.
"""

from __future__ import annotations

LIBRARY = "torch"

ACCEL_DEVICE_TYPES = {"cuda", "mps", "xpu", "npu", "hpu", "xla", "privateuseone"}

def parse_device_string(s: str):
    """'cuda:1' -> 'accel', 'cpu' -> 'cpu', anything else -> None."""
    kind = s.split(":")[0].strip().lower()
    if kind == "cpu":
        return "cpu"
    if kind in ACCEL_DEVICE_TYPES:
        return "accel"
    return None

DTYPES = {
    "float", "float32", "float64", "double", "float16", "half", "bfloat16", "int", "int8",
    "int16", "int32", "int64", "long", "short", "uint8", "bool", "complex64", "complex128",
    "cfloat", "cdouble", "float8_e4m3fn", "float8_e5m2",
}

# The legacy typed constructors and the dtype each makes (`torch.Tensor`: the default dtype);
# the one table every list of them below derives from, so that each rule knows all eleven.
# Given sizes (`torch.FloatTensor(x.size())`, `torch.LongTensor(n, m)`) they allocate on the
# host, values uninitialized; they take no `device=` (it raises): `torch.empty(size,
# dtype=..., device=...)` is the device's own allocation. `torch.cuda.<name>` (all but
# `Tensor`) makes its tensor on the current GPU.
LEGACY_TENSOR_TYPES = {
    "FloatTensor": "float32", "DoubleTensor": "float64", "HalfTensor": "float16", "BFloat16Tensor": "bfloat16",
    "LongTensor": "int64", "IntTensor": "int32", "ShortTensor": "int16", "CharTensor": "int8",
    "ByteTensor": "uint8", "BoolTensor": "bool", "Tensor": None,
}


def takes_device_keyword(qualname: str) -> bool:
    """Whether a tensor-making call accepts `device=`: the factories do; the legacy typed
    constructors (`torch.FloatTensor(...)`, `torch.Tensor(...)`: "legacy constructor expects
    device type: cpu") and the views of host memory (`torch.from_numpy`) do not."""
    head, _, last = qualname.rpartition(".")
    if NAMED_CALLS.get(qualname) == "from_host_data" or (last in LEGACY_TENSOR_TYPES and head in ("torch", "torch.cuda")):
        return False
    return head == "torch" and last in TENSOR_FACTORIES


def legacy_tensor_type_place(qualname: str) -> str | None:
    """"cpu" for `torch.FloatTensor` (and `torch.Tensor`), "cuda" for `torch.cuda.FloatTensor`;
    None for any other name (`torch.cuda.Tensor` does not exist)."""
    head, _, last = qualname.rpartition(".")
    if last not in LEGACY_TENSOR_TYPES:
        return None
    if head == "torch":
        return "cpu"
    return "cuda" if head == "torch.cuda" and last != "Tensor" else None


TENSOR_FACTORIES = {
    "zeros", "ones", "empty", "full", "rand", "randn", "randint", "randperm", "arange", "range",
    "linspace", "logspace", "eye", "tensor", "as_tensor", "normal", "tril_indices",
    "triu_indices", "empty_strided", "complex", "polar", *LEGACY_TENSOR_TYPES,
}

LIKE_FACTORIES = {"zeros_like", "ones_like", "empty_like", "full_like", "rand_like", "randn_like", "randint_like"}

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

# Reductions give 0-dim tensors, which eager CUDA happily mixes with device tensors.
REDUCTIONS = {"sum", "mean", "max", "min", "norm", "std", "var", "prod", "all", "any", "amax", "amin", "median"}
# Tensor methods whose result has at least one dimension whatever the receiver's: a 0-dim
# tensor comes out 1-dim or more (`torch.tensor(ids).unsqueeze(0)` is a batch, never a scalar).
AT_LEAST_1D_METHODS = {"unsqueeze", "flatten", "ravel"}
# ...and torch functions whose result has one whatever their inputs' (`torch.stack` of 0-dim
# tensors is 1-dim; `pad_sequence` gives a padded batch; `torch.cat` takes no 0-dim input).
AT_LEAST_1D_FUNCTIONS = {"stack", "pad_sequence", "cat", "atleast_1d"}

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

# Calls that say whether an accelerator is there, and what they return on a machine with none.
# `flow/flags.py` splits on the boolean ones; DL007's CPU-only run evaluates all of them.
NO_ACCEL_RESULTS = {
    "torch.cuda.is_available": False,
    "torch.backends.mps.is_available": False,
    "torch.backends.cudnn.is_available": False,
    "torch.xpu.is_available": False,
    "torch.accelerator.is_available": False,
    "torch.cuda.device_count": 0,
    "torch.xpu.device_count": 0,
    "torch.accelerator.device_count": 0,
}
# The availability tests the device inference treats as a device flag (`if torch.cuda.is_available():`).
FLAG_AVAILABILITY_TESTS = frozenset({"torch.cuda.is_available", "torch.backends.mps.is_available", "torch.xpu.is_available"})

# Grad-mode context managers and decorators (last name part).
NO_GRAD_NAMES = frozenset({"no_grad", "inference_mode", "set_grad_enabled"})
# Decorators that call the method they wrap with the arguments it was given: a caller's
# `inst.evaluate(model, loader)` still binds them to the parameters after `self` (grad mode).
SIGNATURE_KEEPING_DECORATORS = frozenset({"no_grad", "inference_mode", "enable_grad"})
# Context managers that never swallow an exception (grad mode, autocast, profiling, devices,
# contextlib's nullcontext): what follows the `with` runs only after its whole body did.
TRANSPARENT_CONTEXTS = ("no_grad", "inference_mode", "enable_grad", "set_grad_enabled", "autocast", "device",
                        "record_function", "profile", "nullcontext", "amp")

# Factories that build a tensor from a Python list (or a NumPy array) they are given.
LIST_FACTORIES = frozenset({"tensor", "as_tensor", "asarray", *LEGACY_TENSOR_TYPES})
# Factories that, given a tensor and no `device=`, copy it (or share it) where that tensor is:
# `torch.tensor(cuda_t)` is on CUDA ("if None and data is a tensor then the device of data is used").
DATA_KEEPING_FACTORIES = frozenset({"tensor", "as_tensor", "asarray"})
# Factories that make their values from nothing: they can make them on the device directly.
# (`torch.tensor(data)` / `torch.from_numpy(a)` are not here: their data is on the host anyway.)
FROM_NOTHING_FACTORIES = frozenset({
    "zeros", "ones", "empty", "full", "rand", "randn", "randint", "randperm", "arange", "linspace",
    "logspace", "eye",
})
RANDOM_FACTORIES = frozenset({"rand", "randn", "randint", "randperm"})
# Tensor methods that reshape or recast a tensor where it is (a chain of them can run on the
# device: `torch.ones(n, n).tril().to(device)`).
SHAPE_AND_CAST_METHODS = frozenset({
    "view", "reshape", "unsqueeze", "squeeze", "expand", "repeat", "t", "transpose", "permute",
    "flatten", "contiguous", "float", "double", "half", "bfloat16", "long", "int", "bool",
    "tril", "triu", "neg", "exp", "log", "sqrt", "abs", "clamp", "clamp_", "fill_", "uniform_",
    "normal_", "tril_", "triu_",
})
# Methods that keep a tensor a tensor where it is (`batch["label"].long()`), and those that
# only a host tensor takes.
KEEPS_PLACE_METHODS = frozenset({"long", "float", "int", "half", "bool", "double", "squeeze", "unsqueeze", "view",
                                 "reshape", "contiguous", "flatten", "t", "permute", "transpose", "type_as", "clone",
                                 "detach"})
HOST_ONLY_METHODS = frozenset({"numpy", "cpu", "tolist"})

# Methods / torch functions whose result carries no autograd history (integer or bool results,
# detached copies), and those that return a (values, indices) tuple.
NO_HISTORY_METHODS = {
    "detach", "detach_", "argmax", "argmin", "argsort", "eq", "ne", "lt", "le", "gt", "ge", "isnan",
    "isinf", "isfinite", "long", "int", "bool", "byte", "short", "nonzero", "bincount", "isclose",
    "count_nonzero", "unique", "sign", "floor_divide", "logical_and", "logical_or", "logical_not",
    "numel", "multinomial", "bernoulli", "searchsorted", "bucketize",
}
TUPLE_RESULTS = {"sort", "topk", "kthvalue", "mode", "unique", "aminmax", "cummax", "cummin", "unique_consecutive"}

# Methods only a tensor has (a module, a batch object or a mapping has none of them).
TENSOR_ONLY_METHODS = frozenset({
    "detach", "detach_", "numpy", "item", "tolist", "contiguous", "squeeze", "unsqueeze", "view",
    "permute", "transpose", "flatten", "clamp", "clamp_", "argmax", "argmin", "softmax", "log_softmax",
    "sigmoid", "masked_fill", "masked_fill_", "expand", "repeat", "narrow", "gather", "long", "int",
    "bool", "data_ptr"})
# Methods that give a plain number (or list) whatever they are called on.
NUMBER_METHODS = frozenset({"size", "dim", "ndimension", "numel", "nelement", "element_size", "item", "tolist"})

# `torch.hub.load(...)` builds a model on the host (knowledge.calls).
CALL_ROOTS = ("torch.hub", "torch.utils.tensorboard")
CALL_KINDS = (
    (r"torch\.hub\.load", "module"),
    (r"torch\.utils\.tensorboard(\.writer)?\.SummaryWriter", "graph_writer"),
)

# Calls that run a module they are handed on example inputs they are handed, where both are
# (they trace or export it; nothing is moved): the inputs meet the module as in `model(x)`.
# qualified name -> (model position, its keyword, inputs position, their keyword)
MODULE_RUNNERS = {
    "torch.jit.trace": (0, "func", 1, "example_inputs"),
    "torch.onnx.export": (0, "model", 1, "args"),
    "torch.export.export": (0, "mod", 1, "args"),
}
# ...and the methods of library objects that do the same, by the object's kind (a
# `SummaryWriter`'s `add_graph(model, input_to_model)` traces the model on the input).
OBJECT_MODULE_RUNNERS = {
    "graph_writer": {"add_graph": (0, "model", 1, "input_to_model")},
}

# The one-name model builders the cross-file summaries know (project.py): a host model.
MODEL_BUILDERS = frozenset({"torch.hub.load"})
# Builders that hand back whatever the named entry point returns: a model mostly, but also
# pre- and post-processing helpers (`torch.hub.load(repo, "..._processing_utils")`). What they
# build is taken for a model only where the code uses it as one (calls it, moves it).
ANY_OBJECT_BUILDERS = frozenset({"torch.hub.load"})

# `torch.load` by its qualified names.
LOADS = frozenset({"torch.load", "torch.serialization.load"})
# `torch.cuda` / `torch.backends.*` attributes that test for an accelerator (DL007: any of them
# anywhere in a file means the code thought about machines without CUDA).
AVAILABILITY_ATTRS = frozenset({"is_available", "device_count", "is_cuda", "is_built", "current_accelerator"})
# Tensor methods that take only the shape (or dtype) of their argument, not its data.
SHAPE_ONLY_METHODS = ("expand_as", "view_as", "reshape_as", "type_as", "new_zeros", "new_ones", "new_empty", "new_full")
# Functions that join their operands into one tensor: an empty host placeholder fails there too.
JOINS = ("cat", "concat", "concatenate", "stack", "hstack", "vstack", "dstack", "column_stack", "row_stack")
# Reads of a tensor that give its size, dtype or placement, not its data (`n = x.size(0)`,
# `x.device`): what is computed from them is no longer the tensor (flow/methods.py).
META_READS = ("size", "shape", "dim", "device", "dtype", "numel", "ndim")

# Names of accelerator backends: a file that spells none of them (in a name or a string) and
# places nothing never thinks about devices (flow/program.py)
DEVICE_WORDS = ("cuda", "mps", "xla", "xpu", "accelerator")

# What sets the device that factories without `device=` use (DL019): the argument is a device
# (`torch.set_default_device("cuda")`) or, for the legacy setter, a tensor type
# (`torch.set_default_tensor_type("torch.cuda.FloatTensor")` / `torch.cuda.FloatTensor`).
DEFAULT_DEVICE_SETTERS = frozenset({"torch.set_default_device"})
DEFAULT_TENSOR_TYPE_SETTERS = frozenset({"torch.set_default_tensor_type"})
# `with torch.device("cuda"):` makes its device the default inside the block (not
# `torch.cuda.device(i)`, which picks the current CUDA device and leaves the default alone)
DEFAULT_DEVICE_SCOPES = frozenset({"torch.device"})

# torch functions the interpreter follows by their exact qualified name, each with its meaning
# (flow/api_calls.py has one method per meaning):
#   device            builds a device from its argument (`torch.device(args.device)`)
#   current_device    the accelerator currently selected
#   save              writes its first argument to a file (what DL009 pairs with loads)
#   returns_argument  gives back its first argument, where it is: the pre-0.4 `Variable`
#                     wrapper, `torch.compile(model)`
#   from_host_data    a tensor sharing the memory of host data (`torch.from_numpy(a)`)
NAMED_CALLS = {
    "torch.device": "device",
    "torch.cuda.current_device": "current_device",
    "torch.save": "save",
    "torch.autograd.Variable": "returns_argument",
    "torch.autograd.variable.Variable": "returns_argument",
    "torch.compile": "returns_argument",
    "torch.from_numpy": "from_host_data",
    "torch.frombuffer": "from_host_data",
}
