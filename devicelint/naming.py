"""How user code names things: heuristics on the spelling of names (`device`, `train_loader`,
`num_heads`, `args`), for when nothing resolves them. What libraries do is in knowledge/."""

from __future__ import annotations

import re

from devicelint.knowledge.torch_core import DTYPES

# Names of sequence lengths, which stay on the host on purpose (pack_padded_sequence wants them there).
LENGTHS = re.compile(r"len|length|lens\b|(?:\b|_)sizes?\b", re.IGNORECASE)

# Callables that receive a model but neither move nor call it.
NON_ESCAPING_BUILTINS = {
    "print", "len", "isinstance", "issubclass", "type", "id", "repr", "str", "hasattr",
    "callable", "sum", "any", "all", "format", "vars", "dir", "hash",
}

DEVICE_NAME_HINTS = ("device",)

# `X.device` means "the run's device" only when X is a settings-like object.
CONFIG_OBJECTS = {
    "self", "args", "cfg", "config", "conf", "opt", "opts", "options", "hparams", "params",
    "settings", "flags", "FLAGS", "hp", "accelerator", "training_args", "train_args", "arguments",
}

EXACT_DEVICE_NAMES = {"dev", "gpu", "rank", "local_rank", "gpu_id", "cuda_device"}

# names of sizes, counts and settings (`num_heads`, `img_resolution`, `hidden_dim`): numbers
NUMBER_NAME = re.compile(
    r"(^|_)(sizes?|dims?|len|length|lengths|num|count|height|width|channels|heads|depth|stride|padding|eps|"
    r"res|resolution)$|^(num|n)_",
    re.IGNORECASE)

# Helpers named for moving what they are given to the device (`to_device(b)`, `move_to_cuda(x)`,
# `send_batch_to_gpu(b)`): code we cannot see, but its name says where the batch goes.
_DEVICE_MOVER = re.compile(r"^(to|move|send|put|copy|transfer)(_\w+)?_(device|cuda|gpu)$", re.IGNORECASE)


def looks_like_device_mover(name: str) -> bool:
    return _DEVICE_MOVER.match(name) is not None


def looks_like_device_name(text: str) -> bool:
    last = text.rsplit(".", 1)[-1].lower()
    return any(h in last for h in DEVICE_NAME_HINTS) or last in EXACT_DEVICE_NAMES

def looks_like_loader_name(text: str) -> bool:
    last = text.rsplit(".", 1)[-1].lower()
    return "loader" in last or last == "dl" or last.endswith(("_dl", "_iter", "_iterator")) or last == "data_iter"

def looks_like_dtype(text: str) -> bool:
    last = text.rsplit(".", 1)[-1].lower()
    return "dtype" in last or last in DTYPES

# Factories named like verbs (`build_model`, `load_net`, `get_backbone`): code we cannot see
# that may place what it builds.
BUILDER_VERBS = re.compile(r"^(build|load|get|create|make|init|setup|prepare|from|restore|instantiate|wrap|to|"
                           r"convert|parallel|distribute|compile|fetch|read|open)", re.IGNORECASE)

