"""torch.utils.data: collate functions and datasets."""

from __future__ import annotations

LIBRARY = "torch.utils.data"

CALL_ROOTS = ("torch.utils.data",)
CALL_KINDS = (
    # collate functions that never move (the batch stays on the host)
    (r"torch\.utils\.data\.(default_collate|dataloader\.default_collate)", "collate"),
    (r"torch\.utils\.data\._utils\.collate\.default_collate", "collate"),
)

# wrappers whose items are the items of the datasets they are given (`random_split(ds, ...)`
# gives a list of parts, the others one dataset)
DATASET_VIEWS = frozenset({"random_split", "Subset", "ConcatDataset", "ChainDataset"})
