"""torch.utils.data: collate functions and datasets."""

from __future__ import annotations

LIBRARY = "torch.utils.data"

CALL_ROOTS = ("torch.utils.data",)
CALL_KINDS = (
    # collate functions that never move (the batch stays on the host)
    (r"torch\.utils\.data\.(default_collate|dataloader\.default_collate)", "collate"),
    (r"torch\.utils\.data\._utils\.collate\.default_collate", "collate"),
)
