"""The rule registry: one module per rule, listed here in code order."""

from __future__ import annotations

from devicelint.rules.dl001_model_not_moved import ModelNotMoved
from devicelint.rules.dl002_batch_not_moved import BatchNotMoved
from devicelint.rules.dl003_numpy_on_cuda import NumpyOnCuda
from devicelint.rules.dl004_redundant_to import RedundantTo
from devicelint.rules.dl005_deprecated_cuda_amp import DeprecatedCudaAmp
from devicelint.rules.dl006_discarded_to import DiscardedTo
from devicelint.rules.dl007_hardcoded_cuda import HardcodedCuda
from devicelint.rules.dl008_cpu_alloc_then_move import CpuAllocThenMove
from devicelint.rules.dl009_load_without_map_location import LoadWithoutMapLocation
from devicelint.rules.dl010_loss_accumulates_graph import LossAccumulatesGraph
from devicelint.rules.dl011_new_tensor_wrong_device import NewTensorWrongDevice
from devicelint.rules.dl012_data_parallel import DataParallel
from devicelint.rules.dl013_sync_in_loop import SyncInLoop
from devicelint.rules.dl014_dataloader_not_pinned import DataloaderNotPinned
from devicelint.rules.dl015_plain_tensor_attribute import PlainTensorAttribute
from devicelint.rules.dl016_layer_built_in_forward import LayerBuiltInForward
from devicelint.rules.dl100_unused_noqa import UnusedNoqa

ALL_RULES = (
    ModelNotMoved,
    BatchNotMoved,
    NumpyOnCuda,
    RedundantTo,
    DeprecatedCudaAmp,
    DiscardedTo,
    HardcodedCuda,
    CpuAllocThenMove,
    LoadWithoutMapLocation,
    LossAccumulatesGraph,
    NewTensorWrongDevice,
    DataParallel,
    SyncInLoop,
    DataloaderNotPinned,
    PlainTensorAttribute,
    LayerBuiltInForward,
    UnusedNoqa,
)
BY_CODE = {r.code: r for r in ALL_RULES}

# Codes that are not rules but describe a file we could not lint.
META = {"DL000": ("syntax-error", "unreadable-file", "internal-error")}


def resolve(select=None, ignore=None) -> list:
    """The enabled rule classes. Codes and prefixes (`DL00`, `DL`, `ALL`) are accepted."""

    def matches(code, pattern):
        return pattern == "ALL" or code.startswith(pattern)

    if select:
        chosen = [r for r in ALL_RULES if any(matches(r.code, p) for p in select)]
    else:
        chosen = [r for r in ALL_RULES if r.default]
    if ignore:
        chosen = [r for r in chosen if not any(matches(r.code, p) for p in ignore)]
    return chosen


def unknown_codes(patterns) -> list:
    known = list(BY_CODE) + list(META)
    return [p for p in patterns if p != "ALL" and not any(c.startswith(p) for c in known)]
