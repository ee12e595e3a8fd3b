"""torchtext's legacy data pipeline (`torchtext.data`, `torchtext.legacy.data`, torchtext 0.4
to 0.11): iterators that batch a `Dataset` of `Field`s."""

from __future__ import annotations

LIBRARY = "torchtext"

CALL_ROOTS = ("torchtext",)
CALL_KINDS = (
    # `BucketIterator(ds, batch_size, device=...)`: its batches' fields are tensors built on
    # `device=`, the host when none is given (torchtext >= 0.4; 0.3 and older took `None` for
    # the current GPU, a default no version since 2019 has); `.splits(...)` gives one per dataset
    (r"torchtext\.(legacy\.)?data\.(iterator\.)?(BucketIterator|Iterator|BPTTIterator)", "text_iterator"),
    (r"torchtext\.(legacy\.)?data\.(iterator\.)?(BucketIterator|Iterator|BPTTIterator)\.splits", "text_iterators"),
)
