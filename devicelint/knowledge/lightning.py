"""Lightning (`lightning`, `pytorch_lightning`, `lightning_fabric`): it runs the module's
steps on the module's device, with the batch moved there, and places the module itself."""

from __future__ import annotations

from devicelint.knowledge.schema import BaseFacts

LIBRARY = "lightning"

ROOTS = ("lightning", "pytorch_lightning")
FABRIC_ROOTS = ("lightning_fabric",)

# The hooks a Lightning trainer calls with a batch it has moved to the module's device.
STEP_HOOKS = frozenset({"training_step", "validation_step", "test_step", "predict_step"})


def lightning_base(q: str, last: str) -> BaseFacts | None:
    """A Lightning base class (or one named `*LightningModule*`): a module with weights that the
    framework runs and places."""
    if "LightningModule" in last or q.startswith(ROOTS):
        return BaseFacts(module=True, weights=True, framework=True)
    return None


def is_lightning_module(q: str, last: str) -> bool:
    """`lightning.LightningModule` / `pytorch_lightning.LightningModule` by its resolved name."""
    return last == "LightningModule" and q.startswith(ROOTS)
