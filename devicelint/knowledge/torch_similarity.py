"""torch_similarity (yuta-hi/pytorch_similarity): image-similarity losses. The gradient-based
ones keep their Sobel/gradient (and Gaussian) kernels as `nn.Parameter`s: a module with weights
that must be moved with the data; normalized cross-correlation keeps none (no row)."""

from __future__ import annotations

LIBRARY = "torch_similarity"

CALL_ROOTS = ("torch_similarity",)
CALL_KINDS = (
    (r"torch_similarity\.modules\.(\w+\.)?Gradient(Correlation|Difference)(Loss)?[23]d", "module"),
)
