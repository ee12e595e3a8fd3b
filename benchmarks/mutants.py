"""Mutation recall of devicelint on real, correct training scripts.

Usage:
    python benchmarks/mutants.py                      # mutate, lint, score (needs realcode's cache)
    python benchmarks/mutants.py --refresh-files      # re-pick the scripts (writes mutants_files.txt)
    python benchmarks/mutants.py --keep DIR --json OUT

Takes the correct, device-aware scripts listed in benchmarks/mutants_files.txt (picked from
the repositories of benchmarks/realcode.py: a loop that moves data, a model moved to the
device, no finding of DL001-DL004, DL006, DL010, DL011 except ones the hand audit judged false, at
most 16 per repository; plus up to 8 model files per repository whose `forward` creates a
tensor with `device=`, so that DL011 has sites),
injects one rule's bug per copy with an ast-located source edit, and lints every mutant with
`devicelint --select ALL --output-format json --no-cache --exit-zero`.

Each operator keeps the line count, so the mutated line keeps its number; every mutant is
checked with ast.parse. A mutant counts as detected when its rule reports at one of its
expected lines: the mutated line, and for the rules whose contract reports where the bad
value is used (DL001 model call, DL002 batch use, DL011 combination) also the later lines
of the same scope that read the name the mutation left unmoved. Site choice is seeded
(--seed), so a run is reproducible. A site is skipped when the original already has that
rule's finding at one of the expected lines. A finding is at every line its span covers (a
call written over several lines is reported at its first). Mutants read by hand and found to
be no bug at runtime are listed with their reasons in benchmarks/mutants_audited.json: they
are left out of N and D, and printed (flagged ones as false positives).

Operators (one site per operator per file; --per-file N for more):
    DL001 drop the move of a model (`m = Net().to(d)` -> `m = Net()`, `m.to(d)` -> `pass`)
    DL002 drop a loop batch tensor's move (`x.to(d)` -> `x`)
    DL003 drop `.cpu()` before `.numpy()` / `np.array(...)`, or on an argument a converting
          library call is handed (`accuracy_score(y.cpu(), p.cpu())`, `plt.imshow(img.cpu())`,
          `TSNE(2).fit_transform(z.cpu())`, `np.savez(f, emb=z.cpu())`)
    DL004 duplicate a move (`x.to(d)` -> `x.to(d).to(d)`)
    DL005 `torch.autocast`/`torch.amp.X("cuda", ...)` -> `torch.cuda.amp.X(...)`
    DL006 `x = x.to(d)` -> `x.to(d)` for a loop batch tensor
    DL007 `"cuda" if torch.cuda.is_available() else "cpu"` -> `"cuda"` (the file's only check)
    DL009 drop `map_location=` from `torch.load`
    DL010 `total += loss.item()` -> `total += loss` in a loop that calls `loss.backward()`
    DL011 in `forward`: drop `device=` / `.to(d)` from a new tensor, `x.new_zeros` -> `torch.zeros`
    DL017 `return x, y` -> `return x.cuda(), y` in a Dataset's `__getitem__` that a DataLoader with
          literal `num_workers > 0` or `pin_memory=True` reads (expected at that DataLoader); not
          where the item is visibly a dict or a NumPy array (`.cuda()` there is no DL017 bug)
    DL018 take the move off `model = model.to(d)` / `model = Net().to(d)` / `model.to(d)` and put it
          after a later one-line `optimizer.load_state_dict(...)` (`...; model.to(d)`), for a
          stateful optimizer (not a plain SGD) built from `model.parameters()` after the move
          (expected at the load); only where that is the model's one move before the optimizer
          and no `DataParallel`/`DistributedDataParallel` wraps the model in the moving block
    DL019 `import torch` -> `import torch; torch.set_default_device("cuda")` in a file that iterates
          a `DataLoader(..., shuffle=True)` it builds without `generator=`
    DL020 drop `torch.cuda.set_device(...)` (-> `pass`) in a file that starts a process group (calls
          `init_process_group` itself) and
          places something on the unindexed `"cuda"` (`.cuda()`, `.to("cuda")`, `torch.device("cuda")`)
    DL021 before `x = x.to(d)` of a loop batch: `x_dev_copy = x.to(d); x_host_copy = x_dev_copy.cpu(); `
    DL002/param   DL002's mutation, where the loop runs in a module-level function over a loader
                  that function is handed as a parameter (`def train(model, loader, ...)`)
    DL001/factory DL001's mutation, where the model comes from a factory or class imported from
                  another file of the repository (`from models import build_model`); a DL001 in
                  one of the project files the script imports (where the model is handed in) counts

Shape operators (issue 20), each its own row, scored against its rule:
    DL002-self       DL002's edit at loops over a loader kept on `self` (`for x, y in self.train_loader:`)
    DL003-fstring    `f"{loss.item():.4f}"` -> `f"{loss.detach().numpy():.4f}"` for a loss reaching `backward()`
    DL010-subscript  `total = 0.0` ... `total += loss.item()` -> `total = [0.0]` ... `total[0] += loss`

The last line printed is `mutation recall R (D/N) original-findings K`, where K counts the
findings of DL001-DL004, DL006, DL010 and DL011 on the unmutated originals (false positives on
correct code: the picked scripts have none but audited-false ones).
"""

from __future__ import annotations

import argparse
import ast
import collections
import dataclasses
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import realcode  # noqa: E402

# the optimizers DL018 is about, as devicelint knows them (standard library only: no torch)
sys.path.insert(1, str(HERE.parent))
from devicelint.knowledge.optim import STATEFUL_OPTIMIZER  # noqa: E402

FILES_LIST = HERE / "mutants_files.txt"
# mutants read by hand and found to be no bug at runtime (a defensive `.cpu()` on host data, a
# move another file already makes), each with its reason: left out of N and D, and listed
AUDITED = HERE / "mutants_audited.json"
RULES = ("DL001", "DL002", "DL003", "DL004", "DL005", "DL006", "DL007", "DL009", "DL010", "DL011", "DL017", "DL018",
         "DL019", "DL020", "DL021")
# a picked script has no finding of these (the rules about where values live) except audited-false
# ones; DL005/DL007/DL009 findings (deprecated amp, hard-coded CUDA, torch.load) are allowed
CLEAN_RULES = ("DL001", "DL002", "DL003", "DL004", "DL006", "DL010", "DL011")
LOSS = re.compile(r"loss|criterion", re.I)
DEVICE_ARG = re.compile(r"device|\bdev\b|cuda|gpu|rank|accelerator", re.I)
# frameworks that move the model and the batches themselves: dropping a user move is no bug there
SELF_MOVING = re.compile(r"accelerator\.prepare|\bTrainer\(|LightningModule|create_supervised_|ignite\.engine|fabric")
LOADER_LOOP = re.compile(r"loader|data|batch|enumerate|tqdm|zip|iter|sampler|episode|buffer|memory", re.I)


@dataclasses.dataclass
class Mutant:
    rule: str
    line: int               # the mutated line (1-based)
    expect: list[int]       # lines where the rule's report counts
    source: str             # the mutated file
    note: str               # what was changed, for the miss list
    op: str = ""            # the operator's row, where one rule has several ("DL002/param"); else the rule
    imports: tuple = ()     # modules the file imports from its project ((level, dotted name), ...)


# --- source editing by ast positions (col offsets are UTF-8 byte offsets) ----------------

class Src:
    def __init__(self, text: str) -> None:
        self.text = text
        self.data = text.encode()
        self.starts = [0]
        for ln in self.data.splitlines(keepends=True):
            self.starts.append(self.starts[-1] + len(ln))
        self.tree = ast.parse(text)
        self.parent: dict[ast.AST, ast.AST] = {}
        for node in ast.walk(self.tree):
            for child in ast.iter_child_nodes(node):
                self.parent[child] = node

    def span(self, node: ast.AST) -> tuple[int, int]:
        return (self.starts[node.lineno - 1] + node.col_offset,
                self.starts[node.end_lineno - 1] + node.end_col_offset)

    def seg(self, node: ast.AST) -> str:
        a, b = self.span(node)
        return self.data[a:b].decode()

    def replace(self, node: ast.AST, new: str, *, expr: bool = True) -> str | None:
        """The source with NODE's text replaced by NEW, keeping the line count (an expression
        that lost lines is wrapped in parentheses padded with newlines); None if invalid."""
        a, b = self.span(node)
        old = self.data[a:b].decode()
        lost = old.count("\n") - new.count("\n")
        if lost < 0 or (lost and not expr):
            return None
        if lost:
            new = "(" + new + "\n" * lost + ")"
        out = (self.data[:a] + new.encode() + self.data[b:]).decode()
        return out if valid(out, self.text) else None

    def edit(self, changes: list[tuple[ast.AST, str]]) -> str | None:
        """The source with each (node, new text) replaced, none of them changing the line
        count; None if two overlap or the result is invalid."""
        spans = sorted(((*self.span(n), new) for n, new in changes), reverse=True)
        out, last = self.data, None
        for a, b, new in spans:
            if (last is not None and b > last) or self.data[a:b].count(b"\n") != new.count("\n"):
                return None
            out, last = out[:a] + new.encode() + out[b:], a
        text = out.decode()
        return text if valid(text, self.text) else None

    def ancestors(self, node: ast.AST):
        while node in self.parent:
            node = self.parent[node]
            yield node

    def scope(self, node: ast.AST) -> ast.AST:
        for a in self.ancestors(node):
            if isinstance(a, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
                return a
        return self.tree


def valid(new: str, old: str) -> bool:
    if new == old or new.count("\n") != old.count("\n"):
        return False
    try:
        ast.parse(new)
    except SyntaxError:
        return False
    return True


def dotted(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def move_call(node: ast.AST) -> bool:
    """`R.to(<device>)` or `R.cuda(...)`: a device move, not a dtype cast."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return False
    if node.func.attr == "cuda":
        return True
    if node.func.attr != "to":
        return False
    args = list(node.args) + [k.value for k in node.keywords if k.arg == "device"]
    return bool(args) and bool(DEVICE_ARG.search(ast.unparse(args[0])))


def loads_after(src: Src, scope: ast.AST, ref: str, line: int) -> list[int]:
    """Lines after LINE inside SCOPE that read REF (a name or a dotted attribute), with the
    first lines of the calls and the statement around each read (a finding may sit there)."""
    out = set()
    for n in ast.walk(scope):
        if isinstance(n, (ast.Name, ast.Attribute)) and isinstance(n.ctx, ast.Load) \
                and n.lineno > line and dotted(n) == ref:
            out.add(n.lineno)
            for a in src.ancestors(n):
                if getattr(a, "lineno", 0) > line:  # `comprehension` nodes have no position
                    out.add(a.lineno)
                if isinstance(a, ast.stmt):
                    break
    return sorted(out)


def derived_names(scope: ast.AST, refs: set[str], line: int, rounds: int = 2) -> set[str]:
    """Names SCOPE binds after LINE from values that read REFS (`tgt_input = tgt[:-1]`): the
    unmoved value flows into them, and a finding where they meet the device is the same bug."""
    out: set[str] = set()
    for _ in range(rounds):
        known = refs | out
        for n in ast.walk(scope):
            if isinstance(n, ast.Assign) and n.lineno > line and any(
                isinstance(x, ast.Name) and x.id in known for x in ast.walk(n.value)
            ):
                out |= {x.id for t in n.targets for x in ast.walk(t) if isinstance(x, ast.Name)} - known
    return out


def loop_targets(loop: ast.For) -> set[str]:
    return {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}


def enclosing_loop(src: Src, node: ast.AST) -> ast.For | None:
    for a in src.ancestors(node):
        if isinstance(a, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return None
        if isinstance(a, ast.For):
            return a
    return None


def in_no_grad(src: Src, node: ast.AST) -> bool:
    for a in src.ancestors(node):
        if isinstance(a, ast.With) and any(re.search(r"no_grad|inference_mode", ast.unparse(i.context_expr))
                                            for i in a.items):
            return True
        if isinstance(a, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return any(re.search(r"no_grad|inference_mode", ast.unparse(d)) for d in a.decorator_list)
    return False


def is_module_ref(src: Src, ref: str) -> bool:
    """REF is called like a module somewhere (`ref(x)`) or asked for its parameters."""
    for n in ast.walk(src.tree):
        if isinstance(n, ast.Call):
            if dotted(n.func) == ref:
                return True
            if isinstance(n.func, ast.Attribute) and n.func.attr in ("parameters", "train", "eval", "forward") \
                    and dotted(n.func.value) == ref:
                return True
    return False


def moves_of(src: Src, ref: str) -> int:
    """How many device moves in the file have REF as receiver or as assignment target."""
    n = 0
    for node in ast.walk(src.tree):
        if move_call(node) and dotted(node.func.value) == ref:
            n += 1
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and dotted(node.targets[0]) == ref \
                and move_call(node.value) and dotted(node.value.func.value) != ref:
            n += 1
        elif isinstance(node, ast.Call) and any(k.arg in ("device", "device_map") for k in node.keywords) \
                and isinstance(src.parent.get(node), ast.Assign) and dotted(src.parent[node].targets[0]) == ref:
            n += 1
    return n


# --- operators: each returns candidate mutants of one source -----------------------------

def restored_on_device(src: Src, recv: ast.AST, line: int) -> bool:
    """RECV is a whole model unpickled from a checkpoint (`decoder = checkpoint["decoder"]` after
    `checkpoint = torch.load(path)`): torch.load puts its weights back on the device they were
    saved from (a training run's GPU), or on `map_location` when one is given. Unless that is
    the host, it is on the device already, so dropping its move is no bug."""
    name = dotted(recv)
    if name is None:
        return False
    loads: dict[str, ast.Call] = {}
    origins = []
    for n in sorted((n for n in ast.walk(src.tree) if isinstance(n, ast.Assign) and n.lineno < line),
                    key=lambda n: n.lineno):
        if len(n.targets) != 1 or not dotted(n.targets[0]):
            continue
        target, v = dotted(n.targets[0]), n.value
        if isinstance(v, ast.Call) and (dotted(v.func) or "").endswith("load"):
            loads[target] = v
        elif target == name:
            origins.append(v)  # every binding counts: `encoder = Encoder()` on a fresh run is on the host
    for origin in origins:
        if not (isinstance(origin, ast.Subscript) and dotted(origin.value) in loads):
            return False
        where = next((k.value for k in loads[dotted(origin.value)].keywords if k.arg == "map_location"), None)
        if where is not None and "cpu" in ast.unparse(where):
            return False
    return bool(origins)


def returned_to(src: Src, scope: ast.AST, ref: str) -> list[int]:
    """Lines that read what SCOPE's `return ref` hands back: `self.model = self.__load_model()`
    and every later read of `self.model` (the unmoved model is reported where it is used)."""
    if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) or not any(
        isinstance(n, ast.Return) and n.value is not None and dotted(n.value) == ref for n in ast.walk(scope)
    ):
        return []
    out = []
    for n in ast.walk(src.tree):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.value, ast.Call) and \
                (dotted(n.value.func) or "").rsplit(".", 1)[-1] == scope.name and dotted(n.targets[0]):
            out += loads_after(src, src.tree, dotted(n.targets[0]), n.end_lineno)
    return out


def op_dl001(src: Src) -> list[Mutant]:
    if SELF_MOVING.search(src.text):
        return []
    out = []
    for node in ast.walk(src.tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and move_call(node.value):
            ref, recv = dotted(node.targets[0]), node.value.func.value
            if not ref or not isinstance(recv, (ast.Call, ast.Name, ast.Attribute)):
                continue
            if isinstance(recv, ast.Call) and (dotted(recv.func) or "").startswith("torch."):
                continue  # a tensor factory, not a model
            if LOSS.search(ref) or (isinstance(recv, ast.Call) and LOSS.search(dotted(recv.func) or "")):
                continue  # a loss module usually has no parameters: its move is no bug
            if restored_on_device(src, recv, node.lineno):
                continue
            new = src.replace(node.value, src.seg(recv))
            stmt = node
        elif isinstance(node, ast.Expr) and move_call(node.value) and node.lineno == node.end_lineno:
            ref = dotted(node.value.func.value)
            if not ref:
                continue
            new = src.replace(node, "pass", expr=False)
            stmt = node
        else:
            continue
        if new is None or not is_module_ref(src, ref) or moves_of(src, ref) != 1:
            continue
        scope = src.tree if ref.startswith("self.") else src.scope(stmt)
        expect = {stmt.lineno, *loads_after(src, scope, ref, stmt.end_lineno), *returned_to(src, scope, ref)}
        out.append(Mutant("DL001", stmt.lineno, sorted(expect), new, f"dropped the move of model `{ref}`"))
    return out


SCATTERING = ("DataParallel", "DistributedDataParallel", "DDP")
SHAPE_READS = ("size", "shape", "dim", "ndim", "dtype", "numel")


def scattering_models(src: Src) -> set[str]:
    """Names bound to a DataParallel / DistributedDataParallel wrapper (`model = DDP(m, ...)`,
    `model = nn.DataParallel(m).to(device)`): calling one copies host inputs to its device."""
    out = set()
    for n in ast.walk(src.tree):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and dotted(n.targets[0]):
            for c in ast.walk(n.value):
                if isinstance(c, ast.Call) and (dotted(c.func) or "").rsplit(".", 1)[-1] in SCATTERING:
                    out.add(dotted(n.targets[0]))
    return out


def only_scattered(src: Src, loop: ast.For, refs: set[str], line: int, wrappers: set[str],
                   element: str | None = None) -> bool:
    """Every read of REFS after LINE hands the value to a DataParallel/DDP model (as its
    argument, or to a call that is given that model: `training_losses(model, x, t, kwargs)`),
    reads only its shape, or builds a name whose reads do the same (`kwargs = dict(y=y)`).
    Dropping the move is then no bug: the wrapper moves its inputs to its device itself."""
    todo, seen, used = list(refs), set(), False
    while todo:
        ref = todo.pop()
        if ref in seen:
            continue
        seen.add(ref)
        for n in ast.walk(loop):
            if not (isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id == ref and n.lineno > line):
                continue
            verdict = _scattered_use(src, n, wrappers, element)
            if verdict is None:
                return False
            if verdict is True:
                used = True
            else:
                todo.extend(verdict)
    return used


def _scattered_use(src: Src, n: ast.Name, wrappers: set[str], element: str | None):
    """True: handed to the wrapper; []: a shape read or another element than ELEMENT (the
    unmoved `images[0]`); [names]: bound into these names; None: any other use."""
    node = n
    for a in src.ancestors(n):
        if isinstance(a, ast.Subscript) and a.value is node:
            if node is n and element is not None and ast.unparse(a) != element:
                return []  # `images[1]`: the element whose move was kept
            node = a
        elif isinstance(a, ast.Attribute) and a.value is node:
            return [] if a.attr in SHAPE_READS else None
        elif isinstance(a, (ast.keyword, ast.Starred, ast.Dict, ast.List, ast.Tuple)):
            node = a
        elif isinstance(a, ast.Call) and node is not a.func:
            if dotted(a.func) in wrappers or any(dotted(x) in wrappers for x in a.args):
                return True
            if dotted(a.func) not in ("dict", "len"):
                return None
            node = a
        elif isinstance(a, ast.Assign):
            names = [dotted(t) for t in a.targets]
            return names if all(isinstance(t, ast.Name) for t in a.targets) else None
        else:
            return None
    return None


def op_dl002(src: Src) -> list[Mutant]:
    if SELF_MOVING.search(src.text):
        return []
    out = []
    wrappers = scattering_models(src)
    for loop in ast.walk(src.tree):
        if not isinstance(loop, ast.For) or not LOADER_LOOP.search(ast.unparse(loop.iter)):
            continue
        names = loop_targets(loop)
        for node in ast.walk(loop):
            if not move_call(node) or enclosing_loop(src, node) is not loop:
                continue
            recv = node.func.value
            base = recv.value if isinstance(recv, ast.Subscript) else recv
            if not (isinstance(base, ast.Name) and base.id in names) or is_module_ref(src, base.id):
                continue
            new = src.replace(node, src.seg(recv))
            if new is None:
                continue
            stmt = next(a for a in src.ancestors(node) if isinstance(a, ast.stmt))
            refs = {base.id}
            if isinstance(stmt, ast.Assign):
                refs |= {n.id for t in stmt.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            element = src.seg(recv) if isinstance(recv, ast.Subscript) else None
            if wrappers and only_scattered(src, loop, refs, stmt.end_lineno, wrappers, element):
                continue
            refs |= derived_names(loop, refs, stmt.end_lineno)
            expect = {node.lineno}
            for r in refs:
                expect.update(x for x in loads_after(src, loop, r, stmt.end_lineno))
            out.append(Mutant("DL002", node.lineno, sorted(expect), new,
                              f"dropped the move of batch `{src.seg(recv)}`"))
    return out


# Calls that hand their array arguments to NumPy: NumPy / pyplot / pandas functions by root
# (but NumPy's reductions, which call a lone tensor's own method and fail on any tensor), and
# scikit-learn metrics, estimator methods and matplotlib Axes methods by name.
CONSUMER_ROOTS = ("np", "numpy", "plt", "pd", "pandas")
CONSUMER_NAMES = frozenset({
    "accuracy_score", "f1_score", "precision_score", "recall_score", "roc_auc_score", "roc_curve",
    "confusion_matrix", "classification_report", "mean_squared_error", "mean_absolute_error", "r2_score",
    "average_precision_score", "fit_transform", "fit_predict", "imshow", "plot", "scatter", "hist",
})
NUMPY_REDUCTIONS = frozenset({"mean", "std", "var", "sum", "prod", "max", "min", "amax", "amin", "all", "any"})


def consumer_call(node: ast.Call) -> bool:
    # `TSNE(2).fit_transform(z)`, `axs[0].imshow(img)`: no dotted name, the method's name
    name = dotted(node.func) or (node.func.attr if isinstance(node.func, ast.Attribute) else "")
    parts = name.split(".")
    if parts[-1] in ("array", "asarray", "asanyarray") and parts[0] in ("np", "numpy"):
        return False  # the conversion itself: the first branch of op_dl003
    if parts[0] in CONSUMER_ROOTS and len(parts) > 1:
        return not (parts[0] in ("np", "numpy") and parts[-1] in NUMPY_REDUCTIONS)
    return parts[-1] in CONSUMER_NAMES


def cpu_in_chain(arg: ast.AST) -> ast.Call | None:
    """The `.cpu()` of an argument spelled `x.cpu()`, `x.detach().cpu()`, `x.cpu().float()`."""
    cur = arg
    while isinstance(cur, ast.Call) and isinstance(cur.func, ast.Attribute) and not cur.args:
        if cur.func.attr == "cpu":
            return cur
        if cur.func.attr not in ("detach", "float", "long", "int", "squeeze", "flatten"):
            return None
        cur = cur.func.value
    return None


def op_dl003(src: Src) -> list[Mutant]:
    out = []
    for node in ast.walk(src.tree):
        if isinstance(node, ast.Call) and consumer_call(node):
            for a in [*node.args, *(k.value for k in node.keywords if k.arg is not None)]:
                cpu = cpu_in_chain(a)
                new = src.replace(cpu, src.seg(cpu.func.value)) if cpu is not None else None
                if new is not None:
                    out.append(Mutant("DL003", node.lineno, sorted({node.lineno, cpu.lineno, cpu.end_lineno}), new,
                                      "dropped `.cpu()` on an argument a library call converts to NumPy"))
        cpu = None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "numpy":
            cur = node.func.value
            while isinstance(cur, (ast.Call, ast.Attribute)):  # walk x.detach().cpu().data ...
                if isinstance(cur, ast.Call) and isinstance(cur.func, ast.Attribute) and cur.func.attr == "cpu" \
                        and not cur.args:
                    cpu = cur
                    break
                cur = cur.func.value if isinstance(cur, ast.Call) else cur.value
                if isinstance(cur, ast.Call) and not isinstance(cur.func, ast.Attribute):
                    break
        elif isinstance(node, ast.Call) and (dotted(node.func) or "").split(".")[-1] in ("array", "asarray") \
                and (dotted(node.func) or "").split(".")[0] in ("np", "numpy") and node.args:
            a = node.args[0]
            if isinstance(a, ast.Call) and isinstance(a.func, ast.Attribute) and a.func.attr == "cpu" and not a.args:
                cpu = a
        if cpu is None:
            continue
        new = src.replace(cpu, src.seg(cpu.func.value))
        if new is not None:
            out.append(Mutant("DL003", node.lineno, sorted({node.lineno, cpu.lineno, cpu.end_lineno}), new,
                              "dropped `.cpu()` before the NumPy conversion"))
    return out


def op_dl004(src: Src) -> list[Mutant]:
    out = []
    for node in ast.walk(src.tree):
        if not move_call(node) or not isinstance(node.func.value, (ast.Name, ast.Attribute, ast.Subscript)):
            continue
        if move_call(src.parent.get(node)) or (isinstance(src.parent.get(node), ast.Attribute)
                                               and move_call(src.parent.get(src.parent[node]))):
            continue  # already a chain of moves
        args = ", ".join(src.seg(a) for a in [*node.args, *node.keywords])
        new = src.replace(node, f"{src.seg(node)}.{node.func.attr}({args})")
        if new is not None:
            out.append(Mutant("DL004", node.lineno, sorted({node.lineno, node.end_lineno}), new,
                              f"duplicated the move `{src.seg(node)}`"))
    return out


AMP = {"torch.autocast": "autocast", "torch.amp.autocast": "autocast",
       "torch.GradScaler": "GradScaler", "torch.amp.GradScaler": "GradScaler"}


def op_dl005(src: Src) -> list[Mutant]:
    if not re.search(r"^import torch\b", src.text, re.M):
        return []
    out = []
    for node in ast.walk(src.tree):
        if not isinstance(node, ast.Call) or dotted(node.func) not in AMP:
            continue
        call = ast.Call(func=ast.parse(f"torch.cuda.amp.{AMP[dotted(node.func)]}", mode="eval").body,
                        args=list(node.args[1:]),  # the first positional is the device type
                        keywords=[k for k in node.keywords if k.arg not in ("device_type", "device")])
        new = src.replace(node, ast.unparse(call))
        if new is not None:
            out.append(Mutant("DL005", node.lineno, [node.lineno], new,
                              f"`{dotted(node.func)}` spelled as `torch.cuda.amp.{AMP[dotted(node.func)]}`"))
    return out


def dict_like(src: Src, name: str) -> bool:
    """NAME is used like a dict batch (`b["x"]`, `**b`): HF's BatchEncoding.to() is in place."""
    for n in ast.walk(src.tree):
        if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id == name \
                and isinstance(n.slice, ast.Constant) and isinstance(n.slice.value, str):
            return True
        if isinstance(n, ast.keyword) and n.arg is None and isinstance(n.value, ast.Name) and n.value.id == name:
            return True
    return False


def op_dl006(src: Src) -> list[Mutant]:
    if "torch_geometric" in src.text:
        return []  # PyG's Data/Batch.to() moves in place: a bare call is no bug there
    out = []
    for node in ast.walk(src.tree):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and move_call(node.value) and node.lineno == node.end_lineno):
            continue
        name = node.targets[0].id
        loop = enclosing_loop(src, node)
        if not (isinstance(node.value.func.value, ast.Name) and node.value.func.value.id == name) \
                or loop is None or name not in loop_targets(loop) or is_module_ref(src, name) \
                or dict_like(src, name):
            continue
        new = src.replace(node, src.seg(node.value), expr=False)
        if new is not None:
            out.append(Mutant("DL006", node.lineno, [node.lineno], new, f"discarded the result of moving `{name}`"))
    return out


def op_dl007(src: Src) -> list[Mutant]:
    if src.text.count("is_available") != 1 or re.search(r"no_cuda|use_cuda|args\.cuda|device_count|\bmps\b", src.text):
        return []
    out = []
    for node in ast.walk(src.tree):
        if isinstance(node, ast.IfExp) and "is_available" in ast.unparse(node.test) \
                and isinstance(node.body, ast.Constant) and str(node.body.value).startswith("cuda"):
            new = src.replace(node, src.seg(node.body))
            if new is not None:
                out.append(Mutant("DL007", node.lineno, [node.lineno], new,
                                  "hard-coded the CUDA device, dropped the fallback"))
    return out


def op_dl009(src: Src) -> list[Mutant]:
    out = []
    for node in ast.walk(src.tree):
        if isinstance(node, ast.Call) and dotted(node.func) == "torch.load" \
                and any(k.arg == "map_location" for k in node.keywords):
            call = ast.Call(func=node.func, args=node.args,
                            keywords=[k for k in node.keywords if k.arg != "map_location"])
            new = src.replace(node, ast.unparse(call))
            if new is not None:
                out.append(Mutant("DL009", node.lineno, [node.lineno], new, "dropped `map_location=`"))
    return out


def op_dl010(src: Src) -> list[Mutant]:
    out = []
    for node in ast.walk(src.tree):
        if not (isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add)):
            continue
        loop = enclosing_loop(src, node)
        if loop is None or in_no_grad(src, node):
            continue
        # names that reach a backward pass: `loss.backward()`, `scaler.scale(loss).backward()`,
        # `(loss / k).backward()`, `accelerator.backward(loss)`
        backward = {n.id for c in ast.walk(loop) if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute)
                    and c.func.attr == "backward" for part in (c.func.value, *c.args)
                    for n in ast.walk(part) if isinstance(n, ast.Name)}
        for item in ast.walk(node.value):
            if isinstance(item, ast.Call) and isinstance(item.func, ast.Attribute) and item.func.attr == "item" \
                    and isinstance(item.func.value, ast.Name) and item.func.value.id in backward:
                new = src.replace(item, item.func.value.id)
                if new is not None:
                    out.append(Mutant("DL010", node.lineno, [node.lineno], new,
                                      f"accumulated `{item.func.value.id}` instead of its `.item()`"))
                break
    return out


def backward_names(loop: ast.For) -> set[str]:
    """Names that reach a backward pass in LOOP: `loss.backward()`, `scaler.scale(loss).backward()`,
    `(loss / k).backward()`, `accelerator.backward(loss)` (a loss computed on the device)."""
    return {n.id for c in ast.walk(loop) if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute)
            and c.func.attr == "backward" for part in (c.func.value, *c.args)
            for n in ast.walk(part) if isinstance(n, ast.Name)}


def op_dl002_self(src: Src) -> list[Mutant]:
    """Loader on self: DL002's operator at loops over a loader kept on `self`
    (`for x, y in self.train_loader:` in a Trainer's method, the loader set in another one).
    A `Trainer(...)` of a class the file defines itself is no framework that moves batches.
    The batch is often handed to a method of the class (`self._run_batch(source, targets)`):
    where that method reads it counts too, and a mutant whose batch there only reaches a
    DataParallel/DDP wrapper (which copies its inputs to its device) is no bug and is skipped."""
    loops = [n for n in ast.walk(src.tree)
             if isinstance(n, ast.For) and re.search(r"\bself\.\w+", ast.unparse(n.iter))
             and LOADER_LOOP.search(ast.unparse(n.iter)) and not re.search(r"\bself\.\w+\(", ast.unparse(n.iter))]
    if not loops:
        return []
    renamed = "Trainer" in {n.name for n in ast.walk(src.tree) if isinstance(n, ast.ClassDef)} and \
        SELF_MOVING.search(src.text) and not SELF_MOVING.search(src.text.replace("Trainer(", ""))
    work = Src(src.text.replace("Trainer(", "Runner(")) if renamed else src  # same length, same positions
    wrappers = scattering_models(src)
    out = []
    for m in op_dl002(work):
        loop = next((lp for lp in loops if lp.lineno <= m.line <= lp.end_lineno), None)
        if loop is None:
            continue
        handed = _handed_to_methods(src, loop, _bound_at(loop, m.line))
        if handed is None or any(_only_wrapped(fn, param, wrappers) for fn, param in handed):
            continue
        expect = set(m.expect)
        for fn, param in handed:
            expect.update(loads_after(src, fn, param, fn.lineno))
        source = m.source.replace("Runner(", "Trainer(") if renamed else m.source
        out.append(dataclasses.replace(m, source=source, expect=sorted(expect), op="DL002-self",
                                       note=m.note + " (loader on self)"))
    return out


def _bound_at(loop: ast.For, line: int) -> set[str]:
    """The names the statement at LINE of LOOP binds (`source = source.to(d)` -> {source})."""
    return {x.id for n in ast.walk(loop) if isinstance(n, ast.Assign) and n.lineno == line
            for t in n.targets for x in ast.walk(t) if isinstance(x, ast.Name)}


def _handed_to_methods(src: Src, loop: ast.For, names: set[str]):
    """(method, parameter) for each `self.meth(..., name, ...)` of LOOP handing one of NAMES
    positionally to a method the file defines; None when a name goes to one we cannot map."""
    methods = {n.name: n for n in ast.walk(src.tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    out = []
    for c in ast.walk(loop):
        if not (isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and dotted(c.func.value) == "self"):
            continue
        fn = methods.get(c.func.attr)
        if fn is None:
            continue  # `self.model(x)`: what an attribute holds, read in the loop itself
        params = [p.arg for p in fn.args.args[1:]]
        for i, a in enumerate(c.args):
            if isinstance(a, ast.Name) and a.id in names:
                if i >= len(params):
                    return None
                out.append((fn, params[i]))
    return out


def _only_wrapped(fn: ast.AST, param: str, wrappers: set[str]) -> bool:
    """Every read of PARAM in FN is an argument of a DataParallel/DDP model's call."""
    reads = [n for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id == param]
    calls = [c for c in ast.walk(fn) if isinstance(c, ast.Call) and dotted(c.func) in wrappers]
    return bool(reads) and all(any(r in c.args for c in calls) for r in reads)


def op_dl003_fstring(src: Src) -> list[Mutant]:
    """F-string conversion: `f"{loss.item():.4f}"` -> `f"{loss.detach().numpy():.4f}"` for a
    loss of a training loop (it reaches `backward()`, so it is the device model's output)."""
    out = []
    for node in ast.walk(src.tree):
        if not isinstance(node, ast.JoinedStr):
            continue
        loop = enclosing_loop(src, node)
        names = backward_names(loop) if loop is not None else set()
        for item in ast.walk(node):
            if isinstance(item, ast.Call) and isinstance(item.func, ast.Attribute) and item.func.attr == "item" \
                    and not item.args and isinstance(item.func.value, ast.Name) and item.func.value.id in names \
                    and src.seg(item) == f"{item.func.value.id}.item()":
                new = src.replace(item, f"{item.func.value.id}.detach().numpy()")
                if new is not None:
                    out.append(Mutant("DL003", item.lineno, [item.lineno], new,
                                      f"formatted `{item.func.value.id}.detach().numpy()` in an f-string",
                                      op="DL003-fstring"))
                break
    return out


def _number_init(scope: ast.AST, name: str, before: int) -> ast.Assign | None:
    """The last `name = 0` / `name = 0.0` one-line statement of SCOPE before line BEFORE."""
    found = None
    for n in ast.walk(scope):
        if isinstance(n, ast.Assign) and n.lineno == n.end_lineno and n.end_lineno < before and \
                len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) and n.targets[0].id == name and \
                isinstance(n.value, ast.Constant) and type(n.value.value) in (int, float):
            if found is None or n.lineno > found.lineno:
                found = n
    return found


def op_dl010_subscript(src: Src) -> list[Mutant]:
    """Subscript accumulator: `total = 0` ... `total += loss.item()` -> `total = [0]` ...
    `total[0] += loss` (the sum kept in a slot of a container, `hist[epoch] += loss`)."""
    out = []
    for node in ast.walk(src.tree):
        if not (isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and isinstance(node.target, ast.Name)):
            continue
        loop = enclosing_loop(src, node)
        if loop is None or in_no_grad(src, node):
            continue
        names = backward_names(loop)
        init = _number_init(src.scope(node), node.target.id, loop.lineno)
        if init is None:
            continue
        for item in ast.walk(node.value):
            if isinstance(item, ast.Call) and isinstance(item.func, ast.Attribute) and item.func.attr == "item" \
                    and isinstance(item.func.value, ast.Name) and item.func.value.id in names:
                t = node.target.id
                new = src.edit([(init.value, f"[{src.seg(init.value)}]"), (node.target, f"{t}[0]"),
                                (item, item.func.value.id)])
                if new is not None:
                    out.append(Mutant("DL010", node.lineno, [node.lineno], new,
                                      f"accumulated `{item.func.value.id}` into `{t}[0]`", op="DL010-subscript"))
                break
    return out


FACTORIES = {"zeros", "ones", "randn", "rand", "empty", "full", "arange", "eye", "tensor", "linspace",
             "randint", "randperm", "as_tensor"}
NEW = {"new_zeros": "zeros", "new_ones": "ones", "new_empty": "empty", "new_full": "full", "new_tensor": "tensor"}


def in_index(src: Src, node: ast.AST) -> bool:
    """Is NODE (part of) the index of a subscript (`x[torch.arange(n)]`, `x[:, ids]`)?"""
    child = node
    for a in src.ancestors(node):
        if isinstance(a, ast.Subscript):
            return child is a.slice
        if isinstance(a, ast.stmt):
            return False
        child = a
    return False


def only_an_index(src: Src, fn: ast.AST, created: ast.AST, stmt: ast.stmt) -> bool:
    """The created tensor only ever indexes another tensor: directly, or through the names the
    statement binds from it (`keep = torch.randn(b, n).topk(k).indices`) when those are read
    only inside subscripts' indexes (`x[~small]`), reshaped into another such name
    (`ids = rearrange(ids, '... -> ... 1')`), or read alone (`small.any().item()`)."""
    if in_index(src, created):
        return True
    if not isinstance(stmt, ast.Assign) or not any(n is created for n in ast.walk(stmt.value)):
        return False
    todo = [({n.id for t in stmt.targets for n in ast.walk(t) if isinstance(n, ast.Name)}, stmt.end_lineno)]
    seen, used = set(), False
    while todo:
        names, after = todo.pop()
        names -= seen
        seen |= names
        for n in ast.walk(fn):
            if not (isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in names and n.lineno > after):
                continue
            used = True
            if in_index(src, n) or read_alone(src, n):
                continue
            bound = rebinds(src, n)
            if bound is None:
                return False
            todo.append(bound)
    return used


def read_alone(src: Src, n: ast.Name) -> bool:
    """`small.any().item()`, `classes[i].item()`, `len(ids)`, `if mask.any():`: the tensor read
    on its own into a number or a truth value, meeting no other tensor."""
    node, last = n, None
    for a in src.ancestors(n):
        if isinstance(a, (ast.Attribute, ast.Subscript)) and a.value is node:
            node = a
        elif isinstance(a, ast.Call) and a.func is node and all(isinstance(x, ast.Constant) for x in a.args):
            node, last = a, a.func.attr if isinstance(a.func, ast.Attribute) else None
        elif isinstance(a, ast.Call) and dotted(a.func) in ("len", "int", "bool", "float") and a.args == [node]:
            return True
        elif (isinstance(a, (ast.If, ast.While, ast.BoolOp)) or (isinstance(a, ast.UnaryOp)
                                                                  and isinstance(a.op, ast.Not))) and node is not n:
            return True  # the truth of a reduction (`if small.any():`)
        else:
            return last in ("item", "tolist", "numel")
    return False


def rebinds(src: Src, n: ast.Name):
    """`ids = rearrange(ids, ...)` / `ids = ids[..., None]`: the names bound from the tensor
    reshaped, with the line after which to read them; None for any other use."""
    stmt = next(a for a in src.ancestors(n) if isinstance(a, ast.stmt))
    if not isinstance(stmt, ast.Assign):
        return None
    v = stmt.value
    ok = (isinstance(v, ast.Call) and v.args and v.args[0] is n and (dotted(v.func) or "").rsplit(".", 1)[-1]
          in ("rearrange", "repeat", "unsqueeze", "expand", "view", "reshape")) or \
         (isinstance(v, ast.Subscript) and v.value is n) or \
         (isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.value is n
          and v.func.attr in ("unsqueeze", "expand", "view", "reshape", "long", "flatten"))
    if not ok:
        return None
    return {t.id for t in stmt.targets if isinstance(t, ast.Name)}, stmt.end_lineno


def op_dl011(src: Src) -> list[Mutant]:
    has_torch = re.search(r"^import torch\b", src.text, re.M) is not None
    out = []
    for fn in ast.walk(src.tree):
        if not (isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.name == "forward"
                and isinstance(src.parent.get(fn), ast.ClassDef)):
            continue
        for node in ast.walk(fn):
            new = created = None
            name = dotted(node.func) if isinstance(node, ast.Call) else None
            if name and name.startswith("torch.") and name[6:] in FACTORIES \
                    and any(k.arg == "device" for k in node.keywords):
                created = node
                call = ast.Call(func=node.func, args=node.args, keywords=[k for k in node.keywords if k.arg != "device"])
                new = src.replace(node, ast.unparse(call))
            elif move_call(node) and isinstance(node.func.value, ast.Call) \
                    and (dotted(node.func.value.func) or "").removeprefix("torch.") in FACTORIES \
                    and (dotted(node.func.value.func) or "").startswith("torch."):
                created = node
                new = src.replace(node, src.seg(node.func.value))
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in NEW \
                    and has_torch:
                created = node
                call = ast.Call(func=ast.parse(f"torch.{NEW[node.func.attr]}", mode="eval").body,
                                args=node.args, keywords=node.keywords)
                new = src.replace(node, ast.unparse(call))
            if new is None:
                continue
            stmt = next(a for a in src.ancestors(created) if isinstance(a, ast.stmt))
            if only_an_index(src, fn, created, stmt):
                continue  # CUDA tensors accept host index tensors: no bug to find
            expect = {created.lineno}
            if isinstance(stmt, ast.Assign):
                names = {n.id for t in stmt.targets for n in ast.walk(t) if isinstance(n, ast.Name)}
                for name in names | derived_names(fn, names, stmt.end_lineno):
                    expect.update(loads_after(src, fn, name, stmt.end_lineno))
            out.append(Mutant("DL011", created.lineno, sorted(expect), new,
                              f"`{' '.join(src.seg(created).split())[:60]}` now created on the host"))
    return out


def _loads_in_workers_or_pins(call: ast.Call) -> bool:
    """`DataLoader(..., num_workers=4)` or `pin_memory=True`, as literals: a setting under which
    a Dataset that moves its items fails."""
    kw = {k.arg: k.value for k in call.keywords}
    workers, pin = kw.get("num_workers"), kw.get("pin_memory")
    return (isinstance(workers, ast.Constant) and isinstance(workers.value, int) and workers.value > 0) or \
        (isinstance(pin, ast.Constant) and pin.value is True)


def _dataset_class(src: Src, call: ast.Call, classes: dict) -> ast.ClassDef | None:
    """The file's Dataset class a DataLoader reads: `DataLoader(Cls(...))`, or a name the same
    scope binds once to `Cls(...)`."""
    first = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "dataset"), None)
    if isinstance(first, ast.Call) and isinstance(first.func, ast.Name):
        return classes.get(first.func.id)
    if not isinstance(first, ast.Name):
        return None
    binds = [n for n in ast.walk(src.scope(call)) if isinstance(n, ast.Assign) and len(n.targets) == 1
             and isinstance(n.targets[0], ast.Name) and n.targets[0].id == first.id]
    if len(binds) == 1 and isinstance(binds[0].value, ast.Call) and isinstance(binds[0].value.func, ast.Name):
        return classes.get(binds[0].value.func.id)
    return None


def _not_a_tensor(getitem: ast.FunctionDef, target: ast.AST) -> bool:
    """What `__getitem__` returns is visibly no tensor: a name bound to a dict (`sample = {...}`),
    a call handed such a name (`self.transform(sample)`, a dict of transforms), or a NumPy call
    (`np.transpose(arr, [2, 0, 1])`)."""
    dicts = {dotted(t) for n in ast.walk(getitem) if isinstance(n, ast.Assign)
             and (isinstance(n.value, ast.Dict) or dotted(getattr(n.value, "func", None)) == "dict")
             for t in n.targets}
    if isinstance(target, ast.Name):
        return target.id in dicts
    if isinstance(target, ast.Call):
        func = dotted(target.func) or ""
        return func.split(".", 1)[0] in ("np", "numpy") or any(dotted(a) in dicts for a in target.args)
    return False


def op_dl017(src: Src) -> list[Mutant]:
    """Move what a Dataset's `__getitem__` returns to the GPU (`return x, y` -> `return x.cuda(), y`,
    `return x` -> `return x.cuda()`) when a DataLoader of the file reads it with literal
    `num_workers > 0` or `pin_memory=True`; expected at those DataLoader calls."""
    classes = {c.name: c for c in ast.walk(src.tree) if isinstance(c, ast.ClassDef)
               and any(isinstance(f, ast.FunctionDef) and f.name == "__getitem__" for f in c.body)}
    loaders: dict = collections.defaultdict(list)
    for node in ast.walk(src.tree):
        if isinstance(node, ast.Call) and (dotted(node.func) or "").rsplit(".", 1)[-1] == "DataLoader" \
                and _loads_in_workers_or_pins(node) and not any(isinstance(a, ast.Starred) for a in node.args) \
                and not any(k.arg is None for k in node.keywords):
            cls = _dataset_class(src, node, classes)
            if cls is not None:
                loaders[cls.name].append(node.lineno)
    out = []
    for name, lines in loaders.items():
        getitem = next(f for f in classes[name].body if isinstance(f, ast.FunctionDef) and f.name == "__getitem__")
        returns = [r for r in ast.walk(getitem) if isinstance(r, ast.Return) and r.value is not None]
        if len(returns) != 1:
            continue
        value = returns[0].value
        target = value.elts[0] if isinstance(value, ast.Tuple) and value.elts else value
        if not isinstance(target, (ast.Name, ast.Subscript, ast.Attribute, ast.Call)):
            continue
        if _not_a_tensor(getitem, target):
            continue  # a dict or a NumPy array has no `.cuda()`: that mutant would be no DL017 bug
        new = src.replace(target, f"{src.seg(target)}.cuda()")
        if new is not None:
            out.append(Mutant("DL017", returns[0].lineno, sorted(set(lines)), new,
                              f"`{name}.__getitem__` now returns a CUDA tensor"))
    return out


def _optimizers_of(fn: ast.AST) -> dict:
    """{optimizer name: model name} for `opt = torch.optim.Adam(model.parameters(), ...)` in FN,
    or for one built from a list of them made just before (`params = [p for p in
    model.parameters() if p.requires_grad]`, the torchvision references' shape)."""
    out = {}
    lists = _parameter_lists(fn)
    for n in ast.walk(fn):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.value, ast.Call) and n.value.args:
            name, first = dotted(n.targets[0]), n.value.args[0]
            last = (dotted(n.value.func) or "").rsplit(".", 1)[-1]
            model = _parameters_of(first) or (lists.get(first.id) if isinstance(first, ast.Name) else None)
            if name and STATEFUL_OPTIMIZER.match(last) and model \
                    and (last != "SGD" or any(k.arg == "momentum" for k in n.value.keywords)):
                # (a plain SGD keeps no state: loading it before the move is no bug)
                out[name] = (model, n.lineno)
    return out


def _parameters_of(node) -> str | None:
    """`model.parameters()` -> "model"; None for anything else."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "parameters":
        return dotted(node.func.value)
    return None


def _parameter_lists(fn: ast.AST) -> dict:
    """{name: model name} for names FN binds once to a list or generator of one model's
    parameters: `[p for p in model.parameters() if p.requires_grad]`, `list(model.parameters())`,
    `filter(lambda p: p.requires_grad, model.parameters())`."""
    found: dict = {}
    for n in ast.walk(fn):
        if not (isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)):
            continue
        v = n.value
        if isinstance(v, (ast.ListComp, ast.GeneratorExp)) and len(v.generators) == 1:
            model = _parameters_of(v.generators[0].iter)
        elif isinstance(v, ast.Call) and dotted(v.func) in ("list", "filter") and v.args:
            model = _parameters_of(v.args[-1])
        else:
            model = None
        name = n.targets[0].id
        found[name] = model if name not in found else None  # bound twice: not one list
    return {k: m for k, m in found.items() if m}


def _optimizer_loads(src: Src, fn: ast.AST, opts: dict) -> list:
    """One-line `optimizer.load_state_dict(...)` statements of FN itself, of an optimizer in OPTS."""
    return [n for n in ast.walk(fn) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Call)
            and isinstance(n.value.func, ast.Attribute) and n.value.func.attr == "load_state_dict"
            and dotted(n.value.func.value) in opts and n.lineno == n.end_lineno and src.scope(n) is fn]


def _model_move(src: Src, fn: ast.AST, model: str, before: int):
    """The first one-line statement of FN before line BEFORE that moves MODEL: `model.to(d)`,
    `model = model.to(d)`, `model = Net().to(d)`; or None."""
    for stmt in ast.walk(fn):
        if not (isinstance(stmt, (ast.Assign, ast.Expr)) and stmt.lineno < before and stmt.lineno == stmt.end_lineno
                and src.scope(stmt) is fn and move_call(stmt.value)):
            continue
        target = dotted(stmt.targets[0]) if isinstance(stmt, ast.Assign) else dotted(stmt.value.func.value)
        if target == model:
            return stmt
    return None


def _moves_of(src: Src, fn: ast.AST, model: str, before: int) -> list:
    """Every move of MODEL in FN before line BEFORE (`model.cuda()`, `model = Net().to(d)`,
    `model = DataParallel(model).cuda()`)."""
    def of_model(n: ast.Call) -> bool:
        parent = src.parent.get(n)
        bound = isinstance(parent, ast.Assign) and any(dotted(t) == model for t in parent.targets)
        wraps = any(dotted(a) == model for a in getattr(n.func.value, "args", ()))
        return bound or wraps or dotted(n.func.value) == model
    return [n for n in ast.walk(fn) if move_call(n) and n.lineno < before and src.scope(n) is fn and of_model(n)]


def _block(src: Src, stmt: ast.AST):
    """The statement list STMT sits in, as (id of its parent, field)."""
    parent = src.parent.get(stmt)
    return next(((id(parent), f) for f in ("body", "orelse", "finalbody")
                 if stmt in (getattr(parent, f, None) or ())), None)


def _blocks(src: Src, stmt: ast.stmt) -> set:
    """The statement lists STMT sits in, from its own block out to its function's body."""
    out = set()
    for a in [stmt, *src.ancestors(stmt)]:
        if isinstance(a, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
            break
        if isinstance(a, ast.stmt):
            out.add(_block(src, a))
    return out - {None}


def _wrapped_with_move(src: Src, stmt: ast.stmt, model: str, load: ast.stmt) -> bool:
    """`DataParallel(model)` / `DistributedDataParallel(model)` before the load, run whenever the
    move runs (in the moving statement, its block or a block around it): a DDP wrap of a host
    model fails first with another error (`device_ids` needs it on the GPU: MoCo), and
    DataParallel moves the model itself on a one-GPU machine, so taking the move off is no DL018
    bug there. A wrap under a condition of its own (`if num_devices > 1:`) leaves the other
    path's bug."""
    around = _blocks(src, stmt)
    for n in ast.walk(src.scope(stmt)):
        if isinstance(n, ast.Call) and (dotted(n.func) or "").rsplit(".", 1)[-1] in SCATTERING \
                and n.lineno < load.lineno:
            wrap = next(a for a in [n, *src.ancestors(n)] if isinstance(a, ast.stmt))
            if wrap is stmt or (any(dotted(a) == model for a in n.args) and _block(src, wrap) in around):
                return True
    return False


def _move_after_load(src: Src, stmt, load: ast.Expr, model: str) -> str | None:
    """The source with STMT's move taken off and appended to LOAD's line."""
    call = stmt.value
    moved = f"{model}.to({ast.unparse(call.args[0])})" if call.func.attr == "to" and call.args else f"{model}.cuda()"
    recv = call.func.value
    if isinstance(stmt, ast.Assign) and dotted(recv) != model:
        first = src.replace(call, src.seg(recv))  # `model = Net().to(d)` -> `model = Net()`
    else:
        first = src.replace(stmt, "pass", expr=False)
    if first is None:
        return None
    second = Src(first)
    node = next((n for n in ast.walk(second.tree) if isinstance(n, ast.Expr)
                 and n.lineno == load.lineno and n.col_offset == load.col_offset), None)
    return second.replace(node, f"{second.seg(node)}; {moved}", expr=False) if node is not None else None


def op_dl018(src: Src) -> list[Mutant]:
    """Move a model to the device only after its optimizer's state is loaded: the statement
    that moves it (`model.to(d)`, `model = model.to(d)`, `model = Net().to(d)`) loses the move
    and the later one-line `optimizer.load_state_dict(...)` gets it (`...; model.to(d)`), when
    that optimizer was built from the model's parameters between the two. Expected at the load."""
    out = []
    for fn in ast.walk(src.tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
            continue
        opts = _optimizers_of(fn)
        for load in _optimizer_loads(src, fn, opts):
            model, built_at = opts[dotted(load.value.func.value)]
            stmt = _model_move(src, fn, model, built_at)
            if stmt is None or len(_moves_of(src, fn, model, built_at)) != 1 \
                    or _wrapped_with_move(src, stmt, model, load):
                # several moves (one per branch of `if args.distributed: ... elif ...`): taking one
                # off leaves a bug on that branch only, where the model's place at the load is the
                # join of the branches and the rule stays silent by design (ImageNet, MoCo)
                continue
            new = _move_after_load(src, stmt, load, model)
            if new is not None:
                out.append(Mutant("DL018", load.lineno, [load.lineno], new,
                                  f"`{model}` now moved after its optimizer's state is loaded"))
    return out


def _iterated_name(node: ast.AST) -> str | None:
    """`enumerate(tqdm(train_loader))` -> "train_loader"; `iter(loader)` -> "loader"."""
    while isinstance(node, ast.Call) and node.args:
        node = node.args[0]
    return node.id if isinstance(node, ast.Name) else None


def _loader_sites(src: Src, loaders: set[str]) -> list[int]:
    """Lines where a loader named in LOADERS is iterated: `for ... in <it>` and `iter(<it>)`, also
    in functions that get it as an argument (the parameter in the same position)."""
    names = set(loaders)
    for node in ast.walk(src.tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            for i, a in enumerate(node.args):
                if isinstance(a, ast.Name) and a.id in loaders:
                    for fn in ast.walk(src.tree):
                        if isinstance(fn, ast.FunctionDef) and fn.name == node.func.id and i < len(fn.args.args):
                            names.add(fn.args.args[i].arg)
    lines = []
    for node in ast.walk(src.tree):
        if isinstance(node, ast.For) and _iterated_name(node.iter) in names:
            lines.append(node.iter.lineno)
        elif isinstance(node, ast.Call) and dotted(node.func) == "iter" and node.args and _iterated_name(node.args[0]) in names:
            lines.append(node.lineno)
    return sorted(set(lines))


def op_dl019(src: Src) -> list[Mutant]:
    if "set_default_" in src.text or re.search(r"with\s+torch\.device", src.text) or SELF_MOVING.search(src.text):
        # (a framework's `prepare` rebuilds the loader with a sampler of its own)
        return []
    loaders, built = set(), []
    for node in ast.walk(src.tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and isinstance(node.value, ast.Call) and (dotted(node.value.func) or "").endswith("DataLoader"):
            kw = {k.arg: k.value for k in node.value.keywords}
            shuffle = kw.get("shuffle")
            if isinstance(shuffle, ast.Constant) and shuffle.value is True and "generator" not in kw \
                    and None not in kw and "sampler" not in kw and "batch_sampler" not in kw:
                loaders.add(node.targets[0].id)
                built.append(node.value.lineno)
    sites = _loader_sites(src, loaders) if loaders else []
    # DL019 reports once per loader, at its `DataLoader(...)` call (where `generator=` goes),
    # when it is iterated under the accelerator default: a mutant needs an iteration site,
    # and counts where the rule reports (8fb6908)
    expect = sorted(set(sites + built)) if sites else []
    imports = [n for n in src.tree.body if isinstance(n, ast.Import) and [a.name for a in n.names] == ["torch"]
               and n.names[0].asname is None]
    if not expect or not imports:
        return []
    node = imports[0]
    new = src.replace(node, 'import torch; torch.set_default_device("cuda")', expr=False)
    return [Mutant("DL019", node.lineno, [node.lineno, *expect], new,
                   "made the accelerator the default device (shuffling loader without generator=)")] if new else []


def _unindexed_cuda(node: ast.AST) -> bool:
    """`x.cuda()`, `x.to("cuda")`, `torch.device("cuda")`, `"cuda" if ... else "cpu"` as a device."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr == "cuda":
            return not node.args and not any(k.arg == "device" for k in node.keywords)
        if node.func.attr == "to" and node.args:
            return _bare_cuda_text(node.args[0])
    if isinstance(node, ast.Call) and dotted(node.func) == "torch.device" and len(node.args) == 1 and not node.keywords:
        return _bare_cuda_text(node.args[0])
    return False


def _bare_cuda_text(node: ast.AST) -> bool:
    if isinstance(node, ast.IfExp):
        return _bare_cuda_text(node.body) or _bare_cuda_text(node.orelse)
    return isinstance(node, ast.Constant) and node.value == "cuda"


def op_dl020(src: Src) -> list[Mutant]:
    if "init_process_group" not in src.text or "CUDA_VISIBLE_DEVICES" in src.text or SELF_MOVING.search(src.text) \
            or re.search(r"^\s*(from|import)\s+(accelerate|lightning|pytorch_lightning|deepspeed)\b", src.text, re.M):
        return []
    if not any(isinstance(n, ast.Call) and (dotted(n.func) or "").rsplit(".", 1)[-1] == "init_process_group"
               for n in ast.walk(src.tree)):
        return []  # the group is started elsewhere (a commented-out call, a launcher): the rule's scope is this file
    calls = [n for n in ast.walk(src.tree) if isinstance(n, ast.Call)
             and dotted(n.func) in ("torch.cuda.set_device", "torch.accelerator.set_device_index")]
    stmts = [n for n in ast.walk(src.tree) if isinstance(n, ast.Expr) and n.value in calls and n.lineno == n.end_lineno]
    if len(calls) != 1 or len(stmts) != 1:
        return []  # more than one way the GPU is picked: dropping one may leave another
    expect = sorted({n.lineno for n in ast.walk(src.tree) if _unindexed_cuda(n)})
    if not expect:
        return []  # every placement is indexed by the rank: dropping set_device is no bug
    new = src.replace(stmts[0], "pass", expr=False)
    return [Mutant("DL020", stmts[0].lineno, [stmts[0].lineno, *expect], new,
                   "dropped torch.cuda.set_device(local_rank)")] if new else []


def op_dl021(src: Src) -> list[Mutant]:
    """Before `x = x.to(d)` of a loop batch tensor, on the same line: a device copy of the
    host batch bound to a name and read back at once (`x_dev = x.to(d); x_host = x_dev.cpu(); ...`),
    the way a script copies targets to the GPU only to log them."""
    if "torch_geometric" in src.text:
        return []  # a PyG batch moves in place: its `.to()` is no tensor copy
    out = []
    for node in ast.walk(src.tree):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and move_call(node.value) and node.lineno == node.end_lineno):
            continue
        name = node.targets[0].id
        loop = enclosing_loop(src, node)
        if not (isinstance(node.value.func.value, ast.Name) and node.value.func.value.id == name) \
                or loop is None or name not in loop_targets(loop) or is_module_ref(src, name) \
                or dict_like(src, name):
            continue
        move = src.seg(node.value)
        dev, host = f"{name}_dev_copy", f"{name}_host_copy"
        new = src.replace(node, f"{dev} = {move}; {host} = {dev}.cpu(); {src.seg(node)}", expr=False)
        if new is not None:
            out.append(Mutant("DL021", node.lineno, [node.lineno], new,
                              f"copied batch `{name}` to the device and straight back"))
    return out


def _module_function_of(src: Src, line: int):
    for fn in src.tree.body:
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.lineno <= line <= fn.end_lineno:
            return fn
    return None


def op_param(src: Src) -> list[Mutant]:
    """DL002's mutants in a loop over a loader the module-level function is handed."""
    out = []
    for m in op_dl002(src):
        fn = _module_function_of(src, m.line)
        if fn is None:
            continue
        params = {a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)}
        loops = [n for n in ast.walk(fn) if isinstance(n, ast.For) and n.lineno <= m.line <= n.end_lineno]
        if loops and any(isinstance(x, ast.Name) and x.id in params for x in ast.walk(loops[-1].iter)):
            out.append(dataclasses.replace(m, op="DL002/param", note=m.note + " (loader handed in)"))
    return out


LIBRARY_ROOTS = re.compile(r"^(torch|torchvision|torchaudio|torchtext|transformers|timm|numpy|sklearn|scipy|"
                           r"PIL|cv2|matplotlib|pandas|tqdm|datasets|diffusers|peft|accelerate|lightning|"
                           r"pytorch_lightning|gym|gymnasium|einops|tensorboardX|wandb|os|sys|math|json|time|re)$")


def project_imports(src: Src) -> dict:
    """local name -> (level, module) for `from M import name` of a module that is no library."""
    out = {}
    for n in src.tree.body:
        if isinstance(n, ast.ImportFrom) and (n.level or not LIBRARY_ROOTS.match((n.module or "").split(".")[0])):
            for a in n.names:
                out[a.asname or a.name] = (n.level, n.module or "")
    return out


def op_factory(src: Src) -> list[Mutant]:
    """DL001's mutants on a model built by a class or factory imported from a project file."""
    imported = project_imports(src)
    if not imported:
        return []
    out = []
    for m in op_dl001(src):
        stmt = next((n for n in ast.walk(src.tree) if isinstance(n, ast.stmt) and n.lineno == m.line), None)
        ref = m.note.split("`")[1] if "`" in m.note else None
        builds = [n.value for n in ast.walk(src.tree) if isinstance(n, ast.Assign) and ref
                  and any(dotted(t) == ref for t in n.targets) and n.lineno <= m.line]
        roots = set()
        for b in builds + ([stmt.value] if isinstance(stmt, ast.Assign) else []):
            for c in ast.walk(b):
                if isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id in imported:
                    roots.add(imported[c.func.id])
        if roots:
            mods = tuple(sorted(set(imported.values())))
            out.append(dataclasses.replace(m, op="DL001/factory", note=m.note + " (built in another file)", imports=mods))
    return out


OPERATORS = {"DL001": op_dl001, "DL002": op_dl002, "DL003": op_dl003, "DL004": op_dl004, "DL005": op_dl005,
             "DL006": op_dl006, "DL007": op_dl007, "DL009": op_dl009, "DL010": op_dl010, "DL011": op_dl011,
             "DL017": op_dl017, "DL018": op_dl018, "DL019": op_dl019, "DL020": op_dl020,
             "DL021": op_dl021,
             "DL002-self": op_dl002_self, "DL003-fstring": op_dl003_fstring, "DL010-subscript": op_dl010_subscript,
             "DL002/param": op_param, "DL001/factory": op_factory}


def mutants_of(text: str, seed: str, per_file: int = 1, rules=None) -> list[Mutant]:
    """Up to PER_FILE seeded mutants per operator (of RULES, default all) of one source (none if
    it does not parse)."""
    try:
        src = Src(text)
    except (SyntaxError, ValueError):
        return []
    out = []
    for rule, op in OPERATORS.items():
        if rules and rule not in rules:
            continue
        cands = sorted((dataclasses.replace(m, op=m.op or rule) for m in op(src)), key=lambda m: (m.line, m.note))
        rng = random.Random(f"{seed}:{rule}")
        out += sorted(rng.sample(cands, min(per_file, len(cands))), key=lambda m: m.line)
    return out


# --- picking the scripts ------------------------------------------------------------------

def device_aware_script(text: str) -> bool:
    """A training or eval loop that moves its batches, and a model moved to the device."""
    try:
        src = Src(text)
    except (SyntaxError, ValueError):
        return False
    moves_batch = moves_model = False
    for node in ast.walk(src.tree):
        if isinstance(node, ast.For) and LOADER_LOOP.search(ast.unparse(node.iter)):
            for m in ast.walk(node):
                if move_call(m):
                    recv = m.func.value
                    base = recv.value if isinstance(recv, ast.Subscript) else recv
                    if isinstance(base, ast.Name) and not is_module_ref(src, base.id):
                        moves_batch = True
        if move_call(node):
            recv = node.func.value
            ref = dotted(recv)
            if ref is None and isinstance(recv, ast.Call):
                parent = src.parent.get(node)
                ref = dotted(parent.targets[0]) if isinstance(parent, ast.Assign) and len(parent.targets) == 1 else None
            if ref and is_module_ref(src, ref):
                moves_model = True
    return moves_batch and moves_model


def model_file(text: str) -> bool:
    """A module whose `forward` creates a tensor on its input's device (a DL011 site)."""
    try:
        return bool(op_dl011(Src(text)))
    except (SyntaxError, ValueError):
        return False


def pick_files(root: Path, labels_path: Path, jobs: int, per_repo: int, seed: int) -> list[str]:
    """Scripts (repo folder/path) that are device-aware and clean under CLEAN_RULES, apart from
    findings the hand audit judged false; at most PER_REPO per repository (seeded choice). Model
    files whose `forward` creates tensors on the input's device join them (PER_REPO/2 a
    repository): training scripts seldom define `forward`, so DL011 would have few sites."""
    scripts, models = [], []
    pinned = {realcode.folder(repo) for repo, _, _ in realcode.REPOS}
    for d in sorted(root.iterdir()):
        if d.name not in pinned:
            continue  # a repository a list file pins for one operator (`# pin`), not realcode's
        for p in sorted(d.rglob("*.py")) if d.is_dir() else ():
            text = p.read_text(errors="replace")
            if device_aware_script(text):
                scripts.append(str(p.relative_to(root)))
            elif model_file(text):
                models.append(str(p.relative_to(root)))
    rel = scripts + models
    false = {(x["repo"], x["path"], x["line"], x["code"]) for x in json.loads(labels_path.read_text())
             if not x["label"]}
    bad = set()
    for f in lint(root, rel, jobs):
        repo, _, path = f["path"].partition("/")
        if f["code"] in CLEAN_RULES and (repo.replace("+", "/", 1), path, f["line"], f["code"]) not in false:
            bad.add(f["path"])
        if f["code"] == "DL000":
            bad.add(f["path"])
    rng = random.Random(seed)
    out = []
    for pool, cap in ((scripts, per_repo), (models, per_repo // 2)):
        by_repo = collections.defaultdict(list)
        for r in pool:
            if r not in bad:
                by_repo[r.split("/", 1)[0]].append(r)
        out += [x for group in by_repo.values() for x in rng.sample(group, min(cap, len(group)))]
    return sorted(out)


def lint(cwd: Path, paths: list[str], jobs: int) -> list[dict]:
    out = []
    for i in range(0, len(paths), 500):  # keep the command line short
        cmd = realcode.devicelint_cmd() + ["--select", "ALL", "--output-format", "json", "--no-cache",
                                           "--exit-zero", "--jobs", str(jobs), *paths[i:i + 500]]
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
        if p.returncode not in (0, 1) or "Traceback (most recent call last)" in p.stderr:
            raise SystemExit(f"devicelint failed (exit {p.returncode}):\n{p.stderr[-3000:]}")
        out += [{**f, "path": f["path"].replace(os.sep, "/")} for f in json.loads(p.stdout or "[]")]
    return out


# --- running and scoring ------------------------------------------------------------------

def _lines(finding: dict) -> set:
    """The lines a finding's span covers: a call written over several lines
    (`torch.repeat_interleave(ids,` / `torch.tensor(counts))`) is reported at its first line
    and points at every line it spans."""
    return set(range(finding["line"], max(finding.get("end_line") or finding["line"], finding["line"]) + 1))


def copy_repo(src_repo: Path, dest: Path) -> None:
    """A cheap copy of one repository folder: hard links where the file system allows."""
    try:
        shutil.copytree(src_repo, dest, copy_function=os.link)
    except OSError:
        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(src_repo, dest)


def audited_no_bug(path: Path) -> dict:
    """(rule, file, line, mutated line) -> the reason the hand audit found no bug there."""
    if not path.is_file():
        return {}
    return {(a["rule"], a["file"], a["line"], a["mutated"].strip()): a["reason"] for a in json.loads(path.read_text())}


def imported_files(root: Path, rel: str, imports) -> list[str]:
    """The repository files (relative to ROOT) that a script's project imports name: looked
    for beside the script, then at the repository's top."""
    repo, here = rel.split("/", 1)[0], os.path.dirname(rel)
    out = []
    for level, mod in imports:
        bases = [here] if level else [here, repo]
        for _ in range(max(level - 1, 0)):
            bases = [os.path.dirname(bases[0])]
        for base in bases:
            stem = os.path.join(base, *mod.split(".")) if mod else base
            cand = next((c for c in (stem + ".py", os.path.join(stem, "__init__.py")) if (root / c).is_file()), None)
            if cand is not None:
                out.append(cand)
                break
    return sorted(set(out) - {rel})


def run(root: Path, files: list[str], seed: int, per_file: int, jobs: int, work: Path, audited: dict | None = None,
        rules=None) -> dict:
    texts = {rel: (root / rel).read_text(errors="replace") for rel in files}
    candidates = {rel: mutants_of(texts[rel], f"{seed}:{rel}", per_file, rules) for rel in files}
    also = {(rel, m.line, m.op): imported_files(root, rel, m.imports) for rel, ms in candidates.items() for m in ms}
    extra = sorted({a for files_ in also.values() for a in files_} - set(files))
    originals = lint(root, files + extra, jobs)
    orig_at = collections.defaultdict(set)
    for f in originals:
        orig_at[(f["path"], f["code"])].update(_lines(f))
    originals = [f for f in originals if f["path"] in set(files)]
    jobs_list = []  # (mutant id, file, Mutant)
    for rel in files:
        for m in candidates[rel]:
            if orig_at[(rel, m.rule)] & set(m.expect):
                continue  # already reported there before the mutation
            jobs_list.append((f"m{len(jobs_list):04d}", rel, m))
    for mid, rel, m in jobs_list:
        repo = rel.split("/", 1)[0]
        copy_repo(root / repo, work / mid / repo)
        target = work / mid / rel
        target.unlink()
        target.write_text(m.source)
    found = collections.defaultdict(list)
    targets = [f"{mid}/{p}" for mid, rel, m in jobs_list for p in [rel, *also[(rel, m.line, m.op)]]]
    for f in lint(work, targets, jobs):
        found[f["path"].split("/", 1)[0]].append(f)
    rows = collections.defaultdict(collections.Counter)
    misses, no_bug = [], []
    for mid, rel, m in jobs_list:
        mine = [f for f in found[mid] if f["path"] == f"{mid}/{rel}"]
        hit = any(f["code"] == m.rule and _lines(f) & set(m.expect) for f in mine)
        for other in also[(rel, m.line, m.op)]:  # the model handed to a function of another file
            hit = hit or any(f["code"] == m.rule and f["path"] == f"{mid}/{other}"
                             and not orig_at[(other, m.rule)] & _lines(f) for f in found[mid])
        reason = (audited or {}).get((m.rule, rel, m.line, m.source.splitlines()[m.line - 1].strip()))
        if reason is not None:
            # no bug to find: a finding here would be a false positive, so it is listed as one
            no_bug.append({"id": mid, "rule": m.rule, "file": rel, "line": m.line, "flagged": hit, "reason": reason})
            continue
        row = rows[m.op or m.rule]
        row["n"] += 1
        row["d"] += hit
        row["elsewhere"] += (not hit) and any(f["code"] == m.rule for f in mine)
        if not hit:
            misses.append({"id": mid, "rule": m.op or m.rule, "file": rel, "line": m.line, "expect": m.expect,
                           "note": m.note, "mutated": m.source.splitlines()[m.line - 1].strip(),
                           "other": sorted({f"{f['code']}@{f['line']}" for f in mine})})
    k = [f for f in originals if f["code"] in CLEAN_RULES]
    return {"rows": rows, "misses": misses, "no_bug": no_bug, "original_findings": k, "files": len(files),
            "mutants": len(jobs_list), "all_original_findings": len(originals)}


def read_list(path: Path, root: Path, mirror: Path) -> list[str]:
    """The scripts a list file names (`owner+name/path`, one a line). A line `# pin owner/name
    COMMIT` names a repository outside realcode.py's pinned ones: its tree at COMMIT is exported
    into ROOT from its mirror (the fetch tool's `github:owner/name`) before its scripts are read.
    Other `#` lines are comments."""
    out = []
    for line in path.read_text().splitlines():
        words = line.split()
        if words[:2] == ["#", "pin"] and len(words) == 4:
            got = realcode.export(root, mirror, words[2], words[3], ())
            if isinstance(got, str):
                print(f"  {words[2]}: {got}; its scripts are skipped", file=sys.stderr)
        elif words and not words[0].startswith("#"):
            out += words
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache", type=Path, default=realcode.DEFAULT_CACHE, help="realcode.py's export folder")
    ap.add_argument("--mirror", type=Path, default=realcode.DEFAULT_MIRROR)
    ap.add_argument("--labels", type=Path, default=HERE / "realcode_labels.json")
    ap.add_argument("--files", type=Path, default=FILES_LIST, help="the pinned list of scripts to mutate")
    ap.add_argument("--refresh-files", action="store_true", help="pick the scripts anew and write --files")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--per-repo", type=int, default=16, help="at most this many scripts per repository (--refresh-files)")
    ap.add_argument("--per-file", type=int, default=1, help="mutants per operator per file")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--rules", help="comma-separated operators to run, e.g. DL019,DL020 (default: all)")
    ap.add_argument("--extra-files", type=Path,
                    help="more scripts to mutate (paths under --cache, one a line; `# pin owner/name COMMIT` "
                         "exports another repository there first), added to --files")
    ap.add_argument("--keep", type=Path, help="keep the mutant copies here (default: a temp folder, removed)")
    ap.add_argument("--json", type=Path, help="write the per-rule counts and the misses here")
    ap.add_argument("--audited", type=Path, default=AUDITED,
                    help="mutants audited as no bug at runtime, left out of the score (a missing file: none)")
    args = ap.parse_args()

    root = args.cache.expanduser().resolve()
    realcode.trees(argparse.Namespace(src=None, cache=root, mirror=args.mirror))  # export what is missing
    if args.refresh_files:
        files = pick_files(root, args.labels, args.jobs, args.per_repo, args.seed)
        args.files.write_text("".join(f + "\n" for f in files))
        print(f"picked {len(files)} scripts -> {args.files}")
    listed = []
    for lst in (args.files, args.extra_files):
        if lst is not None:
            listed += read_list(lst, root, args.mirror)
    files = [x for x in listed if (root / x).is_file()]
    missing = len(listed) - len(files)
    if missing:
        print(f"{missing} listed scripts are not in {root}; run benchmarks/realcode.py first", file=sys.stderr)

    work = args.keep.resolve() if args.keep else Path(tempfile.mkdtemp(prefix="devicelint-mutants-"))
    if args.keep:
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
    try:
        res = run(root, files, args.seed, args.per_file, args.jobs, work, audited_no_bug(args.audited),
                  rules=set(args.rules.split(",")) if args.rules else None)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)

    rows = res["rows"]
    print(f"{res['files']} scripts, {res['mutants']} mutants (seed {args.seed})")
    print(f"{'rule':15} {'N':>4} {'D':>4} {'recall':>6} {'same rule, other line':>22}")
    for rule in (*RULES, *(op for op in OPERATORS if op not in RULES)):
        if args.rules and rule not in args.rules.split(","):
            continue
        r = rows.get(rule, collections.Counter())
        rec = f"{r['d'] / r['n']:.2f}" if r["n"] else "-"
        print(f"{rule:15} {r['n']:4d} {r['d']:4d} {rec:>6} {r['elsewhere']:22d}")
    for m in res["misses"]:
        print(f"  miss {m['rule']} {m['file']}:{m['line']}  {m['note']}  | {m['mutated'][:90]}"
              + (f"  [reported: {', '.join(m['other'])}]" if m["other"] else ""))
    for a in res["no_bug"]:
        print(f"  no bug {a['rule']} {a['file']}:{a['line']}  " + ("FLAGGED (a false positive)  " if a["flagged"] else "")
              + f"| {a['reason'][:100]}")
    for f in res["original_findings"]:
        print(f"  original {f['code']} {f['path']}:{f['line']}  {f['message'][:90]}")
    if args.json:
        args.json.write_text(json.dumps({**res, "rows": {k: dict(v) for k, v in rows.items()}}, indent=1))
    n0, d0 = (sum(rows[r][k] for r in RULES[:10] if r in rows) for k in ("n", "d"))
    print(f"the ten first rule operators alone, DL001-DL011 (comparable with runs before the new rules' "
          f"and the shape operators): {d0 / n0 if n0 else 0:.2f} ({d0}/{n0})")
    n = sum(r["n"] for r in rows.values())
    d = sum(r["d"] for r in rows.values())
    flagged = sum(a["flagged"] for a in res["no_bug"])
    print(f"left out: {len(res['no_bug'])} mutants audited as no bug at runtime ({args.audited.name}), "
          f"{flagged} of them flagged")
    print(f"mutation recall {d / n if n else 0:.2f} ({d}/{n}) original-findings {len(res['original_findings'])}")


if __name__ == "__main__":
    main()
