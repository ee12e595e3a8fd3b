import re

import libcst as cst

from devicelint.flow import child_nodes
from devicelint.flow.nodes import enclosing, find
from devicelint.knowledge.amp import DEPRECATED_AMP
from devicelint.names import dotted
from devicelint.rewrite import bound_in_enclosing_function
from devicelint.rules.base import Report, Rule

# A branch chosen by the torch version is a compatibility shim: the old API runs only where
# it is not deprecated.
_VERSION_TEST = re.compile(r"version|TORCH_(GREATER|LESS|VERSION)|torch_(greater|less|version)|hasattr\(\s*torch", re.IGNORECASE)
# Cheap text test before walking the tree: every import style of these APIs spells one of these.
_MENTION = re.compile(rb"(cuda|cpu)\s*\.\s*amp\b|from\s+torch\.(cuda|cpu)\s+import\b|from\s+torch\s+import\b[^\n]*\b(cuda|cpu)\b")


class DeprecatedCudaAmp(Rule):
    """`torch.cuda.amp.*` / `torch.cpu.amp.autocast`, deprecated in favour of `torch.amp`.

    ## What it does
    Flags every use of `torch.cuda.amp.autocast`, `GradScaler`, `custom_fwd`, `custom_bwd`
    and `torch.cpu.amp.autocast`, in any import style (`import torch.cuda.amp as amp`,
    `from torch.cuda.amp import autocast`, `from torch.cuda import amp`, ...). The import
    line itself is not flagged: the uses are, since that is where PyTorch warns.

    ## Why is this bad?
    Since PyTorch 2.4 each use emits `FutureWarning: torch.cuda.amp.autocast(args...) is
    deprecated. Please use torch.amp.autocast('cuda', args...) instead.`, and the old names
    will be removed.

    ## Example
    ```python
    scaler = torch.cuda.amp.GradScaler()
    with torch.cuda.amp.autocast():
        loss = model(x)
    ```

    ## Use instead
    ```python
    scaler = torch.amp.GradScaler("cuda")
    with torch.amp.autocast("cuda", dtype=torch.float16):
        loss = model(x)
    ```

    ## Fix safety
    The fix is safe: `torch.cuda.amp.X(...)` becomes `torch.amp.X("cuda", ...)` (the device
    as the first argument, or `device_type=` for `custom_fwd`/`custom_bwd`), with the same
    behaviour and no warning. `autocast` gets the old class's default dtype (`float16` on
    cuda, `bfloat16` on cpu) unless one is given, since `torch.amp.autocast` would inherit an
    enclosing autocast's dtype instead. Names imported from `torch.cuda.amp`
    (`from torch.cuda.amp import autocast`, `import torch.cuda.amp as amp`) are rewritten
    through the file's own `import torch` (`autocast()` becomes
    `torch.amp.autocast("cuda", dtype=torch.float16)`); the old import stays, unused (importing
    it does not warn). Not fixed: a file that does not `import torch`, a function that binds
    its own `torch`, calls with positional arguments (their meaning shifts between the old
    and new signatures), and a `torch` that is a parameter or local variable (not flagged
    either). Compatibility code for older torch (under a version or `hasattr`
    check, or in an `except (AttributeError, ImportError, TypeError):` fallback) is
    neither flagged nor fixed; but a use in the branch a readable torch-version comparison
    takes only on torch 2.4 or later (`if TORCH_VERSION >= version.parse("2.4"):`, the
    `else` of a `< "2.4"` test) is flagged: it is no fallback, it runs on every new torch.
    """

    code = "DL005"
    name = "deprecated-cuda-amp"
    fixable = True
    VALID = (
        """
import torch
scaler = torch.amp.GradScaler("cuda")
with torch.autocast(device_type="cuda", dtype=torch.float16):
    pass
""",
        """
from torch.amp import autocast
with autocast("cuda"):
    pass
""",
        """
import torch
from packaging import version
TORCH_GREATER_EQUAL_2_4 = version.parse(torch.__version__) >= version.parse("2.4")
scaler = torch.amp.GradScaler("cuda") if TORCH_GREATER_EQUAL_2_4 else torch.cuda.amp.GradScaler()  # old torch only
if hasattr(torch, "amp"):
    ctx = torch.amp.autocast("cuda")
else:
    ctx = torch.cuda.amp.autocast()
""",
    )
    INVALID = (
        """
import torch
from torch.cuda.amp import autocast, GradScaler
scaler = GradScaler()  # <--
with autocast():  # <--
    pass
with torch.cuda.amp.autocast(dtype=torch.bfloat16):  # <--
    pass
""",
        """
import torch.cuda.amp as amp
from torch.cuda import amp as cuda_amp

@cuda_amp.custom_fwd  # <--
def forward(ctx, x):
    return x

with amp.autocast(enabled=True):  # <--
    pass
""",
    )

    FIXES = (
        (
            """
import torch
from torch.cuda.amp import GradScaler, autocast

def train_step(model, batch, optimizer, scaler):
    with autocast():
        loss = model(batch).mean()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()

scaler = GradScaler(init_scale=2.0**14)
with torch.cuda.amp.autocast(dtype=torch.bfloat16):
    pass
""",
            """
import torch
from torch.cuda.amp import GradScaler, autocast

def train_step(model, batch, optimizer, scaler):
    with torch.amp.autocast("cuda", dtype=torch.float16):
        loss = model(batch).mean()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()

scaler = torch.amp.GradScaler("cuda", init_scale=2.0**14)
with torch.amp.autocast("cuda", dtype=torch.bfloat16):
    pass
""",
        ),
    )

    def check(self, ctx):
        if not _MENTION.search(ctx.source):
            return
        uses = _uses(ctx)
        if not uses:
            return
        calls = {id(c.func): c for c in ctx.calls}  # the call each name or attribute is the callee of
        scopes = ctx.scopes
        for node, q in uses:
            replacement = DEPRECATED_AMP[q]
            call = calls.get(id(node))
            edit = _edit(ctx, node, q, call, scopes)
            yield Report(
                node,
                f"`{q}` is deprecated; use `{replacement}`",
                fix=f"use `{replacement}`",
                edit=edit,
                edit_node=call if call is not None and edit is not None else node,
            )


def _edit(ctx, node, q: str, call, scopes):
    """Rewrite `torch.cuda.amp.X(...)` to `torch.amp.X("cuda", ...)`. Spelled through the
    torch module, the same head is kept; a name imported from torch.cuda.amp (`autocast()`,
    `amp.GradScaler()`) is rewritten through the file's own `import torch`, when that name is
    the torch module where the use is (the old import then stays, unused and silent)."""
    text = dotted(node)
    if text is None:
        return None
    head = text.split(".")[0]
    if ctx.imports.qualname(cst.Name(head)) != "torch" or "." not in text:
        head = "torch"
        if ctx.imports.qualname(cst.Name(head)) != "torch" or bound_in_enclosing_function(scopes, node, "torch"):
            return None
    device, leaf = q.split(".")[1], q.rsplit(".", 1)[-1]
    func = cst.parse_expression(f"{head}.amp.{leaf}")
    device_arg = cst.Arg(value=cst.SimpleString(f'"{device}"'))
    device_kw = cst.Arg(keyword=cst.Name("device_type"), value=cst.SimpleString(f'"{device}"'), equal=cst.AssignEqual(
        whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))
    if leaf in ("custom_fwd", "custom_bwd"):
        if call is None:  # a bare decorator
            return lambda _old: cst.Call(func=func, args=[device_kw])
        return lambda c: c.with_changes(func=func, args=[*c.args, device_kw])
    if call is None or any(a.keyword is None for a in call.args):
        return None  # positional arguments shift meaning between the old and new signatures
    extra = []
    if leaf == "autocast" and not any(a.keyword.value == "dtype" for a in call.args):
        # the old class defaults to float16 (cuda) / bfloat16 (cpu); torch.amp.autocast
        # inherits the enclosing autocast's dtype instead: say the old default out loud
        dtype = "float16" if device == "cuda" else "bfloat16"
        extra = [cst.Arg(keyword=cst.Name("dtype"), value=cst.parse_expression(f"{head}.{dtype}"), equal=device_kw.equal)]
    return lambda c: c.with_changes(func=func, args=[device_arg, *(_with_comma(c.args) if extra else c.args), *extra])


def _with_comma(args):
    """The existing arguments, the last one given a comma when more follow it."""
    args = list(args)
    if args and args[-1].comma is cst.MaybeSentinel.DEFAULT:
        args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    return args


# A fallback for an older torch: `except (AttributeError, ImportError):` around the new API.
_COMPAT_ERRORS = frozenset({"AttributeError", "ImportError", "ModuleNotFoundError", "TypeError"})


_LEAVES = {q.rsplit(".", 1)[1] for q in DEPRECATED_AMP}


def _uses(ctx) -> list:
    """(node, qualname) of every use to report, in source order: each name or attribute that
    resolves to a deprecated API, outside imports, not the `.attr` of an attribute nor inside
    an attribute that is one itself, outside compatibility code, and not shadowed by a local
    of an enclosing function. The candidates come from the module index (by type) and only
    their own ancestors are looked at: a LibCST visitor over the whole tree cost this rule as
    much as the inference of the file."""
    found = []
    for node, q in _candidates(ctx):
        around = enclosing(ctx.module, node)
        if _reached(ctx, node, around) and not _in_shim(ctx, around) and not _shadowed(node, around):
            found.append((node, q))
    found.sort(key=lambda nq: _start(ctx, nq[0]))
    return found


def _candidates(ctx) -> list:
    """(node, qualname) of every Name and Attribute of the module that resolves to a
    deprecated API."""
    qualname = ctx.imports.qualname
    out = [(node, q) for node in find(ctx.module, cst.Attribute)
           if node.attr.value in _LEAVES and (q := qualname(node)) in DEPRECATED_AMP]
    by_value: dict = {}  # a Name's qualname depends on its spelling only
    for node in find(ctx.module, cst.Name):
        value = node.value
        q = by_value[value] if value in by_value else by_value.setdefault(value, qualname(node))
        if q in DEPRECATED_AMP:
            out.append((node, q))
    return out


def _reached(ctx, node, around: list) -> bool:
    """Whether a walk that skips import statements, the `.attr` name of an attribute and the
    inside of an attribute naming a deprecated API comes to `node` (the uses inside such an
    attribute are that attribute's own)."""
    for a in around:
        t = type(a)
        if t is cst.Import or t is cst.ImportFrom:
            return False
        if t is cst.Attribute and (a.attr is node or ctx.imports.qualname(a) in DEPRECATED_AMP):
            return False
    return True


def _in_shim(ctx, around: list) -> bool:
    """Inside an `except (AttributeError, ImportError...)` fallback or a branch chosen by the
    torch version (its test included)."""
    for a in around:
        t = type(a)
        if t is cst.ExceptHandler and _compat_handler(a):
            return True
        if (t is cst.If or t is cst.IfExp) and _VERSION_TEST.search(ctx.module.code_for_node(a.test)):
            if not _branch_for_new_torch(ctx, a, around):
                return True
    return False


# The first torch release whose `torch.cuda.amp.*` warns.
_DEPRECATED_SINCE = (2, 4)
_VERSION_LITERAL = re.compile(r"^\s*(\d+(?:\.\d+)*)")
# `V op L` read as: the test holds only for versions at or above L (True), only below it (False)
_AT_OR_ABOVE = {cst.GreaterThanEqual: True, cst.GreaterThan: True, cst.LessThan: False, cst.LessThanEqual: False}
_FLIPPED = {cst.GreaterThanEqual: cst.LessThanEqual, cst.GreaterThan: cst.LessThan,
            cst.LessThan: cst.GreaterThan, cst.LessThanEqual: cst.GreaterThanEqual}


def _branch_for_new_torch(ctx, branch_node, around: list) -> bool:
    """The use sits in the branch a readable torch-version test takes only on a torch where the
    API is deprecated (`if TORCH_VERSION >= version.parse("2.4"): torch.cuda.amp.autocast(...)`,
    the `else` of a `< 2.4` test): no compatibility shim but the deprecated call on every new
    torch. False where the test is not such a comparison (a `hasattr` check, an unknown flag),
    or the use is in its test or in the branch older torch takes."""
    if branch_node.body in around:
        holds = True
    elif branch_node.orelse is not None and branch_node.orelse in around:
        holds = False
    else:
        return False
    above = _version_floor_test(ctx, branch_node.test)
    if above is None:
        return False
    at_or_above, floor = above
    return at_or_above is holds and floor >= _DEPRECATED_SINCE


def _version_floor_test(ctx, test, depth: int = 0):
    """(True, L) for a test that holds exactly when torch's version is at or above L, (False, L)
    for one that holds exactly below it; None when it cannot be read that way. A name bound
    once, at module level, to such a comparison is read through (`TORCH_GE_2_4`), and `not`."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = _version_floor_test(ctx, test.expression, depth)
        return None if inner is None else (not inner[0], inner[1])
    if isinstance(test, cst.Name) and depth == 0:
        bound = [n.value for n in find(ctx.module, cst.Assign) if len(n.targets) == 1
                 and isinstance(n.targets[0].target, cst.Name) and n.targets[0].target.value == test.value]
        return _version_floor_test(ctx, bound[0], depth + 1) if len(bound) == 1 else None
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return None
    left, op, right = test.left, type(test.comparisons[0].operator), test.comparisons[0].comparator
    if op not in _AT_OR_ABOVE:
        return None
    floor = _version_literal(right)
    torch_side = left
    if floor is None:
        floor, torch_side, op = _version_literal(left), right, _FLIPPED[op]
    if floor is None or _version_literal(torch_side) is not None:
        return None
    if "torch" not in ctx.module.code_for_node(torch_side).lower():
        return None  # `sys.version_info >= (3, 8)`: not torch's version
    return _AT_OR_ABOVE[op], floor


def _version_literal(expr):
    """(2, 4) for `"2.4"`, `version.parse("2.4.0")`, `LooseVersion("2.4")` or `(2, 4)`; None otherwise."""
    if isinstance(expr, cst.Tuple):
        nums = [e.value for e in expr.elements]
        if nums and all(isinstance(n, cst.Integer) for n in nums):
            return tuple(int(n.value) for n in nums)
        return None
    if isinstance(expr, cst.Call) and len(expr.args) == 1:
        expr = expr.args[0].value
    if isinstance(expr, cst.SimpleString):
        m = _VERSION_LITERAL.match(expr.evaluated_value)
        return tuple(int(x) for x in m.group(1).split(".")) if m else None
    return None


def _shadowed(node, around: list) -> bool:
    """`torch` (or the imported name) is a parameter or local of an enclosing function or
    lambda: not the module we resolved it to."""
    text = dotted(node)
    head = text.split(".")[0] if text else None
    for a in around:
        t = type(a)
        if t is cst.FunctionDef and head in _bound_names(a.params, a.body):
            return True
        if t is cst.Lambda and head in _bound_names(a.params, None):
            return True
    return False


def _start(ctx, node) -> tuple:
    pos = ctx.position(node)
    return (pos.start.line, pos.start.column) if pos is not None else (0, 0)


def _compat_handler(node: cst.ExceptHandler) -> bool:
    t = node.type
    caught = t.elements if isinstance(t, cst.Tuple) else [t] if t is not None else []
    return any(isinstance(getattr(e, "value", e), cst.Name) and getattr(e, "value", e).value in _COMPAT_ERRORS for e in caught)


_NOT_WALKED = frozenset((cst.Lambda, cst.Import, cst.ImportFrom))
_TARGETED = frozenset((cst.AssignTarget, cst.AnnAssign, cst.AugAssign, cst.For, cst.CompFor))


def _bound_names(params: cst.Parameters, body) -> frozenset:
    """Parameters and names assigned in a function body (not in nested functions or
    classes); imports bind modules and are left to the import table, `global` names are
    the module's."""
    names = set()
    for p in (*params.posonly_params, *params.params, *params.kwonly_params):
        names.add(p.name.value)
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            names.add(star.name.value)
    if body is None:
        return frozenset(names)
    declared_global = set()
    stack = [body]
    while stack:
        n = stack.pop()
        t = type(n)  # exact types: LibCST's node classes are final, and their isinstance calls into ABCMeta
        if t is cst.FunctionDef or t is cst.ClassDef:
            names.add(n.name.value)
            continue
        if t in _NOT_WALKED:
            continue
        if t is cst.Global or t is cst.Nonlocal:
            declared_global.update(item.name.value for item in n.names)
        elif t in _TARGETED:
            stack.append(("target", n.target))
        elif t is cst.AsName:
            stack.append(("target", n.name))
        elif t is cst.NamedExpr:
            stack.append(("target", n.target))
        if t is tuple:
            target = n[1]
            if isinstance(target, cst.Name):
                names.add(target.value)
            elif isinstance(target, (cst.Tuple, cst.List)):
                stack.extend(("target", getattr(e, "value", e)) for e in target.elements)
            elif isinstance(target, cst.StarredElement):
                stack.append(("target", target.value))
            continue
        stack.extend(child_nodes(n))
    return frozenset(names - declared_global)
