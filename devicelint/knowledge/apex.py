"""NVIDIA apex (`apex.amp`, `apex.parallel`): mixed precision and data parallelism that take
the model where it already is. apex requires it on CUDA before `amp.initialize` ("you need to
provide a model with parameters located on a CUDA device before passing it"): it moves
nothing, so a model never moved stays on the host behind it."""

from __future__ import annotations

LIBRARY = "apex"

# Calls by qualified name -> their meaning, in the vocabulary of torch_core.NAMED_CALLS, plus:
#   returns_arguments  gives back the models and optimizers it was handed, where they are
#                      (`model, optimizer = amp.initialize(model, optimizer, opt_level="O1")`;
#                      the model alone when no optimizer is handed in)
#   wraps_in_place     a data-parallel wrapper that moves nothing, like torch's
#                      DistributedDataParallel: it is where the model it wraps is
NAMED_CALLS = {
    "apex.amp.initialize": "returns_arguments",
    "apex.amp.frontend.initialize": "returns_arguments",
    "apex.parallel.convert_syncbn_model": "returns_argument",
    "apex.parallel.DistributedDataParallel": "wraps_in_place",
    "apex.parallel.distributed.DistributedDataParallel": "wraps_in_place",
}
