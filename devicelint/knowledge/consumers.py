"""Libraries that turn the tensors they are given into NumPy arrays (NumPy, scikit-learn,
matplotlib, pandas), as a GPU answered (benchmarks/host_conversions.py), and PIL images."""

from __future__ import annotations

LIBRARY = "numpy"

# Every NumPy function, scikit-learn's, pyplot's and pandas' constructors convert. NumPy's
# reductions that call the tensor's own method (`np.mean(t)` calls `t.mean(axis=None, ...)`)
# fail on any tensor: no device matter.
CONVERTING_ROOTS = ("numpy.", "sklearn.", "matplotlib.pyplot.", "matplotlib.patches.", "pandas.DataFrame", "pandas.Series")
NUMPY_DELEGATING = {"mean", "std", "var", "sum", "prod", "max", "min", "amax", "amin", "all", "any"}
# NumPy functions that call the argument's own method when it has one (`np.squeeze(t)` is
# `t.squeeze()`): a tensor comes back, where the tensor was; nothing is converted
NUMPY_FORWARDING = frozenset({"squeeze"})
NOT_CONVERTING = {"numpy.random.seed", "numpy.set_printoptions", "numpy.dtype", "numpy.iinfo", "numpy.finfo"}
# scikit-learn helpers that only index the arrays they are handed (`_safe_indexing` does
# `array[idx, ...]`, no `np.asarray`): a tensor comes back where it was. Their `stratify=` is
# converted; that keyword is not followed (silent rather than a guess).
INDEXING_ONLY = frozenset({
    "sklearn.model_selection.train_test_split", "sklearn.utils.shuffle", "sklearn.utils.resample",
})
# Keywords a library reads with `.item()` instead of handing them to NumPy: matplotlib's colour
# limits (`plt.imshow(img, vmin=-m, vmax=m)` goes through `colors._sanitize_extrema`), which a
# 0-dim device tensor passes. Keyed by the library's root, or the kind of its objects' methods.
ITEM_KEYWORDS = {
    "matplotlib": frozenset({"vmin", "vmax"}),
    "axes": frozenset({"vmin", "vmax"}),
}
# Modules that re-export another library's API under their own name. `pylab` (and
# `matplotlib.pylab`) star-imports pyplot and NumPy: `pylab.imshow(t)` is `plt.imshow(t)`.
# Its reductions are NumPy's or (`sum`, `max`, `min`, `abs`, `any`, `all`, `round`) Python's
# builtins, which do not convert a tensor: those names stay unresolved (silent).
REEXPORTS = {"matplotlib.pylab": "matplotlib.pyplot", "pylab": "matplotlib.pyplot"}
NOT_REEXPORTED = NUMPY_DELEGATING | NUMPY_FORWARDING | {"abs", "round", "random", "set_printoptions"}


def reexported(qualname: str) -> str:
    """The API a re-exporting module's name stands for (`matplotlib.pylab.imshow` ->
    `matplotlib.pyplot.imshow`); other names unchanged."""
    for alias, target in REEXPORTS.items():
        if qualname == alias:
            return target
        if qualname.startswith(alias + "."):
            rest = qualname[len(alias) + 1:]
            return qualname if rest.split(".", 1)[0] in NOT_REEXPORTED else f"{target}.{rest}"
    return qualname


# The NumPy array constructors (their first argument is converted).
ARRAY_CONSTRUCTORS = frozenset({"numpy.array", "numpy.asarray", "numpy.asanyarray"})
# NumPy functions that build a fresh array from shapes or ranges: storing a tensor into one
# (`arr[i] = t`, ndarray.__setitem__) converts the tensor, as `np.asarray(t)` does.
ARRAY_BUILDERS = frozenset({
    "numpy.zeros", "numpy.ones", "numpy.empty", "numpy.full", "numpy.zeros_like", "numpy.ones_like",
    "numpy.empty_like", "numpy.full_like", "numpy.arange", "numpy.linspace", "numpy.eye", "numpy.identity",
}) | ARRAY_CONSTRUCTORS
# the builders whose first argument is the shape (`np.zeros((n, 1))`), and those whose result
# has a fixed number of dimensions (`np.arange` 1, `np.eye` 2): a store into one element of
# such an array converts with float(), into a row with __array__ (DL003)
SHAPE_BUILDERS = frozenset({"zeros", "ones", "empty", "full"})
BUILDER_DIMS = {"arange": 1, "linspace": 1, "eye": 2, "identity": 2}


def converts_to_numpy(qualname: str) -> bool:
    """`np.concatenate`, `sklearn.metrics.f1_score`, `plt.imshow`: hands its inputs to NumPy
    (a NumPy reduction only a list of tensors: see `NUMPY_DELEGATING`)."""
    return qualname.startswith(CONVERTING_ROOTS) and qualname not in NOT_CONVERTING and qualname not in INDEXING_ONLY


# Library objects whose methods convert the arrays they are handed, as the module-level
# functions of the same libraries do: a scikit-learn estimator (`TSNE().fit_transform(t)`,
# `PCA(2).fit(t)`: its `check_array` is the `np.asarray` sklearn.metrics calls) and a
# matplotlib Axes (`ax.plot(t)`: what `plt.plot` hands its data to). PIL images are host
# objects, never tensors.
CALL_ROOTS = ("PIL", "sklearn", "matplotlib.pyplot")
CALL_KINDS = (
    (r"PIL\.Image\.\w+", "other"),
    # a class (capitalised) outside sklearn.metrics: an estimator or transformer; the metric
    # display classes are built from arrays (`ConfusionMatrixDisplay.from_predictions`) and stay
    # functions that convert
    (r"sklearn\.(?!metrics\.)(?:\w+\.)*[A-Z]\w*", "estimator"),
    (r"matplotlib\.pyplot\.subplots", "figure_and_axes"),
    (r"matplotlib\.pyplot\.(?:subplot|gca|axes|subplot2grid|twinx)", "axes"),
    (r"matplotlib\.pyplot\.figure", "figure"),
)
# What calling a method of such an object does, by the object's kind: the methods that hand
# their array arguments (positional or keyword) to NumPy...
CONVERTING_METHODS = {
    "estimator": frozenset({
        "fit", "fit_transform", "transform", "inverse_transform", "fit_predict", "predict", "predict_proba",
        "predict_log_proba", "decision_function", "score", "score_samples", "partial_fit", "kneighbors",
    }),
    "axes": frozenset({
        "plot", "scatter", "imshow", "matshow", "hist", "hist2d", "bar", "barh", "errorbar", "fill_between",
        "fill_betweenx", "step", "stem", "semilogx", "semilogy", "loglog", "contour", "contourf", "pcolormesh",
        "pcolor", "boxplot", "violinplot", "pie", "quiver", "hexbin",
    }),
}
# ...and the methods that give back another object of a kind above: a Figure's axes, and an
# array of Axes flattened (`axs.flatten()`), which stands for its Axes (see ITEMS_ARE_ITSELF).
OBJECT_METHODS = {
    "figure": {"add_subplot": "axes", "gca": "axes", "add_axes": "axes", "subplots": "axes"},
    "axes": {"flatten": "axes", "ravel": "axes", "reshape": "axes", "twinx": "axes", "twiny": "axes"},
}
# `plt.subplots(...)` returns (figure, axes); the axes are one Axes or a NumPy array of them,
# depending on nrows/ncols at run time. One kind stands for both: indexing, iterating or
# unpacking an "axes" object gives an Axes.
ITEMS_ARE_ITSELF = frozenset({"axes"})
