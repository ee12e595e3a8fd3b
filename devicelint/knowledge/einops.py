"""einops: reshapes whose result is a tensor on its first argument's device."""

from __future__ import annotations

LIBRARY = "einops"

RESHAPES = frozenset({"rearrange", "repeat", "reduce", "einsum"})
