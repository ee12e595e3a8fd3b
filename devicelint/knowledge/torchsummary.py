"""torchsummary (pytorch-summary): `summary(model, input_size)` builds random inputs on the
device its `device=` keyword names, `"cuda"` unless told otherwise, and runs the model on them
(without moving it). torchinfo's `summary` takes the model's own device instead: not here."""

from __future__ import annotations

LIBRARY = "torchsummary"

# function -> (position of the model argument, the keyword naming the inputs' device, its default)
RUNS_MODULE_ON_MADE_INPUTS = {
    "torchsummary.summary": (0, "device", "cuda"),
    "torchsummary.summary_string": (0, "device", "cuda"),
    "torchsummary.torchsummary.summary": (0, "device", "cuda"),
    "torchsummary.torchsummary.summary_string": (0, "device", "cuda"),
}
