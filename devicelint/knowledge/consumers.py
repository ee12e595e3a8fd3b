"""Libraries that turn the tensors they are given into NumPy arrays (NumPy, scikit-learn,
matplotlib, pandas), as a GPU answered (benchmarks/host_conversions.py), and PIL images."""

from __future__ import annotations

LIBRARY = "numpy"

# Every NumPy function, scikit-learn's, pyplot's and pandas' constructors convert. NumPy's
# reductions that call the tensor's own method (`np.mean(t)` calls `t.mean(axis=None, ...)`)
# fail on any tensor: no device matter.
CONVERTING_ROOTS = ("numpy.", "sklearn.", "matplotlib.pyplot.", "pandas.DataFrame", "pandas.Series")
NUMPY_DELEGATING = {"mean", "std", "var", "sum", "prod", "max", "min", "amax", "amin", "all", "any"}
# NumPy functions that call the argument's own method when it has one (`np.squeeze(t)` is
# `t.squeeze()`): a tensor comes back, where the tensor was; nothing is converted
NUMPY_FORWARDING = frozenset({"squeeze"})
NOT_CONVERTING = {"numpy.random.seed", "numpy.set_printoptions", "numpy.dtype", "numpy.iinfo", "numpy.finfo"}
# The NumPy array constructors (their first argument is converted).
ARRAY_CONSTRUCTORS = frozenset({"numpy.array", "numpy.asarray", "numpy.asanyarray"})


def converts_to_numpy(qualname: str) -> bool:
    """`np.concatenate`, `sklearn.metrics.f1_score`, `plt.imshow`: hands its inputs to NumPy
    (a NumPy reduction only a list of tensors: see `NUMPY_DELEGATING`)."""
    return qualname.startswith(CONVERTING_ROOTS) and qualname not in NOT_CONVERTING


# PIL images are host objects, never tensors.
CALL_ROOTS = ("PIL",)
CALL_KINDS = (
    (r"PIL\.Image\.\w+", "other"),
)
