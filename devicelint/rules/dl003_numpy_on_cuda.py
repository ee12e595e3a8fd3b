import libcst as cst

from devicelint.flow.nodes import enclosing, find, is_string
from devicelint.names import source_of
from devicelint.rules.base import Report, Rule
from devicelint.values import Kind, contents_on_accel


class NumpyOnCuda(Rule):
    """`.numpy()`, `np.array(t)` or `np.asarray(t)` on a tensor that is on the device.

    ## What it does
    Flags conversions to NumPy of tensors that are, or may be, on an accelerator: model
    outputs of a model on the device, moved tensors, tensors created with `device=`, and
    lists of such tensors, with no `.cpu()` before the conversion. Besides `.numpy()`,
    `np.array` and `np.asarray`, library calls that convert their tensor arguments the same
    way are flagged at the argument, positional or keyword: every NumPy function
    (`np.concatenate`, `np.argmax`, `np.savez(f, emb=z)`; a reduction such as `np.mean` only
    for a list of tensors, since `np.mean(t)` calls `t.mean()`), scikit-learn's functions
    (`accuracy_score(y, preds)`, `f1_score(y_true=y, y_pred=p)`) and its estimators' methods
    (`TSNE(2).fit_transform(z)`, `pca.fit(z)`), pyplot (`plt.imshow(img)`) and the Axes it hands
    out (`fig, axs = plt.subplots(2, 2)` then `axs[0, 1].plot(t)`; not their colour limits
    `vmin=`/`vmax=`, which matplotlib reads with `.item()`), and pandas'
    `DataFrame`/`Series`: a GPU confirmed the functions (`benchmarks/host_conversions.py`); an
    estimator's methods and an Axes' plotting methods pass their data to the same conversions.
    Storing such a tensor into several elements of a NumPy array built in the code (a row,
    `g_loss = np.zeros((n, 1))` then `g_loss[i] = loss.data`, or a slice) converts it the same
    way (`ndarray.__setitem__`); a store into one element (`losses = np.zeros(n)` then
    `losses[i] = loss`) converts with `float()`, which works on the device, and is not flagged.
    A graph moved in part (`data.to(device, "x")`) leaves its other attributes where they were:
    converting one of them is not flagged.
    Inside an `nn.Module` whose `forward` makes tensors on its inputs' device
    (`torch.zeros(h, w, device=masks.device)`: a post-processor, a loss), converting one of
    its inputs, or what it computed from them, is flagged whatever the file moves: the module
    is written to run on the device. A module that never does (a per-sample preprocessing
    step on the host) is left alone. In a LightningModule's `training_step`, `validation_step`,
    `test_step` and `predict_step` the batch and what the module computes from it are on the
    module's device too: the trainer moves them there.

    ## Why is this bad?
    NumPy arrays live in host memory. The conversion raises
    `TypeError: can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy
    the tensor to host memory first.`

    ## Example
    ```python
    preds = model(x.to(device)).argmax(1).numpy()
    ```

    ## Use instead
    ```python
    preds = model(x.to(device)).argmax(1).cpu().numpy()
    ```

    ## Fix safety
    Inserting `.cpu()` is safe: on a CPU tensor it returns the tensor itself. A list of
    device tensors handed to a converting library call becomes `[t.cpu() for t in ...]`:
    the same values, on the host, in a list the library converts as it would have.
    """

    code = "DL003"
    name = "numpy-on-cuda"
    fixable = True
    VALID = (
        """
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 2).to(device)
with torch.no_grad():
    probs = model(torch.randn(8, 4, device=device)).softmax(-1).detach().cpu().numpy()
""",
        """
import numpy as np
import torch
features = torch.randn(8, 4)
arr = np.asarray(features)  # never left the CPU
""",
    )
    INVALID = (
        """
import numpy as np
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 2).to(device)
x = torch.randn(8, 4).to(device)
with torch.no_grad():
    logits = model(x)
preds = logits.argmax(dim=1).numpy()  # <--
probs = np.array(logits.softmax(-1))  # <--
""",
    )

    FIXES = (
        (
            """
import numpy as np
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 2).to(device)
with torch.no_grad():
    logits = model(torch.randn(8, 4, device=device))
preds = logits.argmax(dim=1).numpy()
probs = np.asarray(logits.softmax(-1) + 0)
""",
            """
import numpy as np
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 2).to(device)
with torch.no_grad():
    logits = model(torch.randn(8, 4, device=device))
preds = logits.argmax(dim=1).cpu().numpy()
probs = np.asarray((logits.softmax(-1) + 0).cpu())
""",
        ),
    )

    def check(self, ctx):
        for conv in ctx.facts.numpy:
            if isinstance(conv.node, cst.Subscript):
                report = _stored_into_array(conv)
                if report is not None:
                    yield report
            elif (contents_on_accel(conv.val) or conv.module_input) and _host_arm_beside(ctx, conv):
                continue
            elif conv.arg is not None and (contents_on_accel(conv.val) or conv.module_input):
                # a library call converting this argument: `f1_score(labels, preds)`
                kind = conv.val.kind
                what = {Kind.TENSOR: "this tensor on the device", Kind.SEQ: "the device tensors in this list"}.get(
                    kind, "the device tensors in this mapping")
                why = "" if contents_on_accel(conv.val) else f" ({_RUNS_ON_DEVICE[conv.module_input]})"
                yield Report(
                    conv.arg,
                    f"`{source_of(conv.node.func)}` converts {what} to NumPy, which fails{why}; call `.cpu()` first",
                    fix="insert `.cpu()`" if kind is Kind.TENSOR
                    else "move each tensor to the CPU first: `[t.cpu() for t in ...]`" if kind is Kind.SEQ
                    else "move each tensor to the CPU first",
                    # a mapping (`pd.DataFrame({"pred": preds})`) gets no edit: iterating it gives its keys
                    edit=_cpu if kind is Kind.TENSOR else _each_cpu if kind is Kind.SEQ else None,
                )
            elif contents_on_accel(conv.val) or conv.module_input:
                edit = _insert_cpu(conv.node, conv.val)
                yield Report(
                    conv.node,
                    "converting a tensor on the device to NumPy fails; call `.cpu()` first" if contents_on_accel(conv.val)
                    else _RUNS_ON_DEVICE[conv.module_input] + "; converting one of its tensors to NumPy fails there; "
                         "call `.cpu()` first",
                    # a list of tensors has no `.cpu()`: the advice then is per tensor
                    fix="insert `.cpu()` before the conversion" if edit or conv.val.kind is Kind.TENSOR
                    else "move each tensor to the CPU first: `[t.cpu() for t in ...]`",
                    edit=edit,
                )


# methods that keep a tensor's device: `x.detach().numpy()` converts what `x` is
_SAME_PLACE = frozenset({"detach", "clone", "float", "double", "long", "int", "half", "squeeze", "contiguous"})


def _host_arm_beside(ctx, conv) -> bool:
    """`if self.gpu: v = out.cpu().numpy()` / `else: v = out.detach().numpy()`: the conversion
    sits in the host arm of an `if` (or a conditional expression) on a device condition (the
    interpreter's `Facts.device_arms`: `use_gpu`, `not args.cuda`, `self.processor == "GPU"`, a
    flag set from `torch.cuda.is_available()`) whose accelerator arm brings the same value to
    the host first. The author tells the device case from the host one by a test the linter
    may not tie to the move (`self.processor == "GPU"` set beside `model.to(...)`); the
    unconverted arm is the host path, so stay silent rather than guess."""
    root = _home_root(conv.arg if conv.arg is not None else _converted(conv.node))
    if root is None:
        return False
    around = enclosing(ctx.module, conv.node)
    for i, node in enumerate(around):
        arms = ctx.facts.device_arms(node) if isinstance(node, (cst.If, cst.IfExp)) else None
        if arms is None:
            continue
        inner = around[i + 1] if i + 1 < len(around) else conv.node
        # the conversion must sit in the arm the test gives the host (`x.numpy() if use_gpu
        # else x.cpu().numpy()` has the arms the wrong way round: a bug)
        host_arm, accel_arm = arms
        if inner is host_arm and accel_arm is not None and _brings_home(accel_arm, root):
            return True
    return False


def _converted(node: cst.Call):
    """What a conversion converts: `x` of `x.numpy()`, the first argument of `np.array(x)`."""
    if isinstance(node.func, cst.Attribute) and node.func.attr.value == "numpy":
        return node.func.value
    return node.args[0].value if node.args and node.args[0].keyword is None else None


def _home_root(expr) -> str | None:
    """The source of the tensor under `.detach()` / `.data` / `.float()` ... (None for
    anything that is not a plain chain)."""
    while expr is not None:
        if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and \
                expr.func.attr.value in _SAME_PLACE | {"cpu"}:
            expr = expr.func.value
        elif isinstance(expr, cst.Attribute) and expr.attr.value == "data":
            expr = expr.value
        else:
            break
    return source_of(expr) if isinstance(expr, (cst.Name, cst.Attribute, cst.Subscript, cst.Call)) else None


def _brings_home(arm, root: str) -> bool:
    """Does `arm` call `.cpu()` / `.to("cpu")` on the value whose source is `root`?"""
    for call in find(arm, cst.Call):
        f = call.func
        home = isinstance(f, cst.Attribute) and (f.attr.value == "cpu" or f.attr.value == "to" and bool(
            call.args) and is_string(call.args[0].value) == "cpu")
        if home and _home_root(f.value) == root:
            return True
    return False


def _stored_into_array(conv) -> Report | None:
    """`losses[i] = loss.data` into a NumPy array: the store converts the tensor to NumPy."""
    if conv.val.kind is not Kind.TENSOR or not contents_on_accel(conv.val):
        return None
    return Report(
        conv.arg,
        f"storing this tensor on the device into the NumPy array `{source_of(conv.node.value)}` converts it to "
        f"NumPy, which fails; call `.cpu()` first (or `.item()` for one number)",
        fix="insert `.cpu()`",
        edit=_cpu,
    )


_RUNS_ON_DEVICE = {
    "aware": "this module makes tensors on its inputs' device, so it is run on the device",
    "lightning": "the Lightning trainer runs this step on the module's device, with the batch moved there",
}


def _each_cpu(value: cst.BaseExpression) -> cst.ListComp:
    """`errors` -> `[t.cpu() for t in errors]`: a list the library converts as before, of
    host tensors (the comprehension's `t` is its own scope's)."""
    return cst.ListComp(
        elt=cst.parse_expression("t.cpu()"),
        for_in=cst.CompFor(target=cst.Name("t"), iter=value.with_changes(lpar=[], rpar=[])
                           if isinstance(value, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) else value),
    )


def _cpu(value: cst.BaseExpression) -> cst.Call:
    if not isinstance(value, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) and not value.lpar:
        value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.Call(func=cst.Attribute(value=value, attr=cst.Name("cpu")))


def _insert_cpu(node: cst.Call, val):
    if isinstance(node.func, cst.Attribute) and node.func.attr.value == "numpy":
        return lambda call: call.with_changes(func=call.func.with_changes(value=_cpu(call.func.value)))
    if val.kind is Kind.TENSOR and node.args and node.args[0].keyword is None and not node.args[0].star:
        # np.array(t) -> np.array(t.cpu()); a list of tensors has no .cpu(): no fix then
        return lambda call: call.with_changes(args=[call.args[0].with_changes(value=_cpu(call.args[0].value)), *call.args[1:]])
    return None
