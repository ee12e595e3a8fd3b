"""The rule codes as data: code, name, whether it runs by default, and the module and class
that implement it. Everything that only needs to know which rules exist (choosing the rules
of a run, a cache key, `--select` checks, `explain NAME`) reads this table, so that a run
answered from the cache never imports LibCST or a rule. `devicelint.rules` imports a rule's
module only when the rule runs or its docs are asked for; tests/test_lazy_imports.py checks
that this table agrees with the classes.
"""

from __future__ import annotations

from typing import NamedTuple


class Entry(NamedTuple):
    code: str
    name: str
    default: bool  # off-by-default rules run only when selected
    module: str  # under devicelint.rules
    cls: str


TABLE = (
    Entry("DL001", "model-not-moved", True, "dl001_model_not_moved", "ModelNotMoved"),
    Entry("DL002", "batch-not-moved", True, "dl002_batch_not_moved", "BatchNotMoved"),
    Entry("DL003", "numpy-on-cuda", True, "dl003_numpy_on_cuda", "NumpyOnCuda"),
    Entry("DL004", "redundant-to", True, "dl004_redundant_to", "RedundantTo"),
    Entry("DL005", "deprecated-cuda-amp", True, "dl005_deprecated_cuda_amp", "DeprecatedCudaAmp"),
    Entry("DL006", "discarded-to", True, "dl006_discarded_to", "DiscardedTo"),
    Entry("DL007", "hardcoded-cuda", True, "dl007_hardcoded_cuda", "HardcodedCuda"),
    Entry("DL008", "cpu-alloc-then-move", True, "dl008_cpu_alloc_then_move", "CpuAllocThenMove"),
    Entry("DL009", "load-without-map-location", True, "dl009_load_without_map_location", "LoadWithoutMapLocation"),
    Entry("DL010", "loss-accumulates-graph", True, "dl010_loss_accumulates_graph", "LossAccumulatesGraph"),
    Entry("DL011", "new-tensor-wrong-device", True, "dl011_new_tensor_wrong_device", "NewTensorWrongDevice"),
    Entry("DL012", "data-parallel", True, "dl012_data_parallel", "DataParallel"),
    Entry("DL013", "sync-in-loop", False, "dl013_sync_in_loop", "SyncInLoop"),
    Entry("DL014", "dataloader-not-pinned", False, "dl014_dataloader_not_pinned", "DataloaderNotPinned"),
    Entry("DL015", "plain-tensor-attribute", True, "dl015_plain_tensor_attribute", "PlainTensorAttribute"),
    Entry("DL016", "layer-built-in-forward", True, "dl016_layer_built_in_forward", "LayerBuiltInForward"),
    Entry("DL017", "cuda-in-dataset", True, "dl017_cuda_in_dataset", "CudaInDataset"),
    Entry("DL018", "optimizer-state-before-move", True, "dl018_optimizer_state_before_move", "OptimizerStateBeforeMove"),
    Entry("DL019", "default-device-generator", True, "dl019_default_device_generator", "DefaultDeviceGenerator"),
    Entry("DL020", "ddp-without-set-device", True, "dl020_ddp_without_set_device", "DdpWithoutSetDevice"),
    Entry("DL021", "host-device-round-trip", False, "dl021_host_device_round_trip", "HostDeviceRoundTrip"),
    Entry("DL100", "unused-noqa", False, "dl100_unused_noqa", "UnusedNoqa"),
)
BY_CODE = {e.code: e for e in TABLE}
BY_NAME = {e.name: e for e in TABLE}
DEFAULT = tuple(e.code for e in TABLE if e.default)

# Codes that are not rules but describe a file we could not lint.
META = {"DL000": ("syntax-error", "unreadable-file", "internal-error")}


def _matches(code: str, pattern: str) -> bool:
    return pattern == "ALL" or code.startswith(pattern)


def resolve_codes(select=None, ignore=None) -> list:
    """The enabled rule codes, in code order. Codes and prefixes (`DL00`, `DL`, `ALL`) are accepted."""
    if select:
        chosen = [e.code for e in TABLE if any(_matches(e.code, p) for p in select)]
    else:
        chosen = list(DEFAULT)
    if ignore:
        chosen = [c for c in chosen if not any(_matches(c, p) for p in ignore)]
    return chosen


def unknown_codes(patterns) -> list:
    known = list(BY_CODE) + list(META)
    return [p for p in patterns if p != "ALL" and not any(c.startswith(p) for c in known)]


def lookup(word: str) -> Entry | None:
    """The rule a code (`DL001`, any case) or a name (`model-not-moved`) means."""
    word = word.strip()
    return BY_CODE.get(word.upper()) or BY_NAME.get(word.lower().replace("_", "-"))


def close_matches(word: str, n: int = 3) -> list:
    """Codes and names near `word`, for a did-you-mean."""
    import difflib

    word = word.strip()
    names = difflib.get_close_matches(word.lower().replace("_", "-"), list(BY_NAME), n=n, cutoff=0.6)
    codes = difflib.get_close_matches(word.upper(), list(BY_CODE), n=n, cutoff=0.8)
    return [f"{BY_NAME[x].code} ({x})" for x in names] + [f"{c} ({BY_CODE[c].name})" for c in codes if BY_CODE[c].name not in names]
