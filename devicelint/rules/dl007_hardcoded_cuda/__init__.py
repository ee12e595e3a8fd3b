import re
from typing import TYPE_CHECKING

import libcst as cst

from devicelint import knowledge as kb
from devicelint import naming
from devicelint.flow import child_nodes
from devicelint.flow.nodes import is_string
from devicelint.names import dotted, source_of
from devicelint.rewrite import Scopes, bound_in_enclosing_function
from devicelint.rules.base import Report, Rule
from devicelint.rules.dl007_hardcoded_cuda.defaults import cuda_defaults

if TYPE_CHECKING:
    from devicelint.rules.dl007_hardcoded_cuda.cpu_run import CpuRun

_GUARD_WORDS = re.compile(r"cuda|gpu|accelerat|is_available|device_count", re.IGNORECASE)
_ARG_WORDS = re.compile(r"device|cuda|gpu|cpu|accelerat", re.IGNORECASE)
_OPTION_CALLS = ("add_argument", "option", "getenv", "environ.get")
_NO_CHECK = "with no availability check or fallback in the file: this fails on a machine without CUDA"
# The file's "fallback" may be an availability check or only a device option (`--gpu`):
# the message names both, since it cannot claim a check the file does not have.
_UNGUARDED = ("that a run without CUDA reaches (no CUDA check or device option of the file "
              "guards it): it fails on such a machine")
_MENTION = re.compile(rb"\.cuda\s*\(|[\"']cuda")


def _is_cuda_string(node) -> bool:
    s = is_string(node)
    return s is not None and re.fullmatch(r"\s*cuda(\s*:\s*\d+)?\s*", s) is not None


def _tensor_cuda_signature(call: cst.Call) -> bool:
    """Arguments that `Tensor.cuda` / `Module.cuda` accept: at most one positional (the
    device) and only `device`, `non_blocking`, `memory_format` keywords. Anything else
    (`quantizer.cuda(qtensor, meta=...)`) is some other API's `cuda` method."""
    positional = [a for a in call.args if a.keyword is None]
    if any(a.star for a in call.args) or len(positional) > 1:
        return False
    return all(a.keyword is None or a.keyword.value in ("device", "non_blocking", "memory_format") for a in call.args)


class HardcodedCuda(Rule):
    """Code that puts something on CUDA where a run without CUDA gets to it: `.cuda()`, `"cuda"`.

    ## What it does
    Flags each place that puts something on CUDA unconditionally: `.cuda()`, `.to("cuda")`,
    `device="cuda"`, `torch.device("cuda")` and `device = "cuda:0"`, when a run on a machine
    without CUDA gets there.

    - In a file that never checks for CUDA (no `torch.cuda.is_available()`, no
      `device_count()`, no `"cpu"` alternative, no `--device` style option, no
      `accelerate`/`torch.accelerator`), every such place is flagged, except inside a branch
      that tests for CUDA/GPU and inside a function whose name or decorator says it is
      GPU-only.
    - In a file that does check, each place is judged on its own: it is flagged when the run
      of a CPU-only machine certainly reaches it. That run starts at the module's top level and
      follows calls into the file's functions and classes; `torch.cuda.is_available()` is
      False there, a device chosen with a fallback is the CPU, and options keep their
      defaults. So a `.cuda()` on the batches is flagged even when the model's move is guarded,
      and so is a `model.cuda()` in a loader function the script calls before its own
      fallback. Not flagged: places under a test the CPU-only run fails (`if use_cuda:`,
      `if args.cuda:` off by default, `if device.type == "cuda":`, `if x.is_cuda:`), under any
      test about the device whose value is not known, in functions only called from such
      places or from other files, and after the script refuses machines without CUDA
      (`assert torch.cuda.is_available()`, `if not torch.cuda.is_available(): sys.exit(...)`,
      a multi-GPU setup helper): code that says it is GPU-only is not a bug.

    - In a file that never checks, a device parameter whose default is `"cuda"`
      (`def get_evaluator(task, device="cuda:0")`) is flagged where that default is used: the
      function is called here without the argument, or it is a module-level function called
      from nowhere in the file (its callers elsewhere get the default). One that every call of
      the file hands a device is not, nor a method or class nobody in the file calls.
    Files that set up NCCL (multi-GPU by design) are left alone.

    ## Why is this bad?
    The script dies on any machine without a usable GPU (a laptop, a CI runner, a CPU
    inference box) with `AssertionError: Torch not compiled with CUDA enabled` or
    `RuntimeError: No CUDA GPUs are available` / `Found no NVIDIA driver on your system`,
    at the first line that touches the device. A check elsewhere in the file does not help:
    the run fails at the first place it does not guard.

    ## Example
    ```python
    device = torch.device("cuda")
    model = Net().to(device)
    x = x.cuda()
    ```

    ## Use instead
    ```python
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = Net().to(device)
    x = x.to(device)
    ```

    ## Fix safety
    The fix gives each flagged place a run-time fallback: `"cuda"` becomes `"cuda" if
    torch.cuda.is_available() else "cpu"` (in `torch.device(...)`, `.to(...)`, `device=` and a
    `device = "cuda"` assignment), and `x.cuda()` becomes `x.to("cuda" if
    torch.cuda.is_available() else "cpu")`. On a machine with CUDA nothing changes; without
    one that place runs on the CPU instead of failing, as the places the file already guards
    do, which may not be what GPU-only code wants: unsafe (`--unsafe-fixes`). Not fixed:
    `.cuda(1)` / `.cuda(device=...)` (which GPU is meant), and files where `torch` is not the
    module's name for torch.
    """

    code = "DL007"
    name = "hardcoded-cuda"
    fixable = True
    fix_applicability = ("unsafe",)
    FIXES = (
        (
            """
import torch
device = torch.device("cuda")
model = torch.nn.Linear(4, 2).to(device)
x = torch.randn(8, 4).cuda(non_blocking=True)
y = torch.zeros(8, 2, device="cuda:0")
""",
            """
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 2).to(device)
x = torch.randn(8, 4).to("cuda" if torch.cuda.is_available() else "cpu", non_blocking=True)
y = torch.zeros(8, 2, device="cuda:0" if torch.cuda.is_available() else "cpu")
""",
        ),
        (
            """
import torch
model = torch.nn.Linear(4, 2)
if torch.cuda.is_available():
    model = model.cuda()
for x in torch.randn(3, 8, 4):
    x = x.cuda()
    y = model(x)
""",
            """
import torch
model = torch.nn.Linear(4, 2)
if torch.cuda.is_available():
    model = model.cuda()
for x in torch.randn(3, 8, 4):
    x = x.to("cuda" if torch.cuda.is_available() else "cpu")
    y = model(x)
""",
        ),
    )
    VALID = (
        """
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 2).to(device)
x = torch.randn(8, 4).cuda() if device.type == "cuda" else torch.randn(8, 4)
""",
        """
import argparse
import torch
parser = argparse.ArgumentParser()
parser.add_argument("--cuda", action="store_true", help="train on the GPU")
args = parser.parse_args()
model = torch.nn.Linear(4, 2)
if args.cuda:
    model.cuda()  # off unless asked for: a CPU-only run never gets here
""",
        """
import sys
import torch

if not torch.cuda.is_available():
    sys.exit("this benchmark needs a GPU")  # GPU-only, and says so
x = torch.randn(8, 4).cuda()
""",
        """
import torch

def test_kernel_gpu():
    x = torch.ones(3).cuda()  # a GPU-only function says so in its name
""",
    )
    INVALID = (
        """
import torch
device = torch.device("cuda")  # <--
model = torch.nn.Linear(4, 2).to(device)
x = torch.randn(8, 4).cuda()  # <--
y = torch.zeros(8, 2, device="cuda:0")  # <--
z = x.to("cuda")  # <--
""",
        """
import torch
DEVICE = "cuda"  # <--
t = torch.ones(2).to(DEVICE)
""",
        """
import torch
model = torch.nn.Linear(4, 2)
if torch.cuda.is_available():
    model = model.cuda()
for x in torch.randn(3, 8, 4):
    x = x.cuda()  # <--
    y = model(x)
""",
    )

    def check(self, ctx):
        if not _MENTION.search(ctx.source):
            return
        if b"nccl" in ctx.source or b"NCCL" in ctx.source:
            return  # NCCL process groups are multi-GPU by design
        finder = _Finder(ctx.imports).run(ctx.module)
        found = finder.found
        if not finder.fallback:
            # a device parameter defaulting to CUDA that a call runs with (in a file that
            # checks for CUDA, whether a CPU-only run passes another is not known: silent)
            found = found + [(d, "a hard-coded `\"cuda\"` device default")
                             for d in cuda_defaults(ctx.module, _is_cuda_string, _gpu_only)]
        if not found:
            return
        scopes = ctx.scopes
        if finder.fallback:
            # The file thought about machines without CUDA: judge each site by whether such
            # a machine's run gets there.
            from devicelint.rules.dl007_hardcoded_cuda.cpu_run import CpuRun  # only for files with a CUDA fallback

            run = CpuRun(ctx.module, ctx.imports, ctx.calls, skip=_gpu_only)
            found = [(n, m) for n, m in found if _reached_and_fails(n, run, scopes, ctx.imports)]
        why = _UNGUARDED if finder.fallback else _NO_CHECK
        torch_ok = ctx.imports.qualname(cst.Name("torch")) == "torch"
        for node, what in found:
            edit = _fallback_edit(node) if torch_ok and not bound_in_enclosing_function(scopes, node, "torch") else None
            yield Report(node, f"{what} {why}", fix="choose the device at run time: "
                         "`torch.device(\"cuda\" if torch.cuda.is_available() else \"cpu\")`",
                         edit=edit, applicability="unsafe")


def _reached_and_fails(node, run: "CpuRun", scopes: Scopes, imports) -> bool:
    """In a file that checks for CUDA somewhere: whether a CPU-only run gets to this site and
    fails there (or, for a device it defines, at every later use of it)."""
    if not run.reaches(node):
        return False
    parent = scopes.parent(node)
    device = isinstance(node, cst.Call) and imports.qualname(node.func) == "torch.device"
    if (device or isinstance(node, cst.SimpleString)) and isinstance(parent, (cst.Assign, cst.AnnAssign)):
        # `device = "cuda"` fails where it is used; a second assignment may be the fallback
        # (`if not torch.cuda.is_available(): device = "cpu"`)
        targets = [t.target for t in parent.targets] if isinstance(parent, cst.Assign) else [parent.target]
        return all((text := dotted(t)) is not None and run.assigned_once(text) for t in targets)
    if device:
        return isinstance(parent, cst.Arg)  # made to place something; compared, it fails nothing
    return True


def _gpu_only(node) -> bool:
    """A function or class whose name or decorator says it is for GPUs only (`test_cuda_kernel`,
    `@skipIf(not torch.cuda.is_available())`)."""
    return bool(_GUARD_WORDS.search(node.name.value)) or any(
        _GUARD_WORDS.search(source_of(d.decorator)) or "skip" in source_of(d.decorator).lower() for d in node.decorators
    )


def _fallback(value: cst.BaseExpression) -> cst.BaseExpression:
    """`"cuda:0"` -> `"cuda:0" if torch.cuda.is_available() else "cpu"`."""
    return cst.IfExp(
        test=cst.parse_expression("torch.cuda.is_available()"),
        body=value.with_changes(lpar=[], rpar=[]),
        orelse=cst.SimpleString('"cpu"'),
    )


def _fallback_edit(node):
    """The edit that gives a flagged site a CPU fallback, or None where there is no plain
    one (`.cuda(1)`, `.cuda(device=...)`)."""
    if isinstance(node, cst.SimpleString):  # `device = "cuda"`
        return _fallback
    if isinstance(node, cst.Arg):  # `device="cuda"`
        return lambda a: a.with_changes(value=_fallback(a.value))
    if not isinstance(node, cst.Call):
        return None
    func = node.func
    if isinstance(func, cst.Attribute) and func.attr.value == "cuda":
        if any(a.keyword is None or a.keyword.value == "device" for a in node.args):
            return None
        device = cst.Arg(value=_fallback(cst.SimpleString('"cuda"')))
        rest = [a for a in node.args]
        return lambda c: c.with_changes(func=c.func.with_changes(attr=cst.Name("to")),
                                        args=[device.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
                                              if rest else device, *c.args])
    # `torch.device("cuda")`, `x.to("cuda")`, `x.to(device="cuda")`: the device argument
    for i, a in enumerate(node.args):
        if _is_cuda_string(a.value) and (a.keyword is None or a.keyword.value in ("device", "type")):
            return lambda c, i=i: c.with_changes(args=[*c.args[:i], c.args[i].with_changes(value=_fallback(c.args[i].value)),
                                                      *c.args[i + 1:]])
    return None


class _Finder:
    """One walk of the module (by hand: a LibCST visitor costs ten times as much) that
    collects the places putting something on CUDA, outside GPU-only functions, and whether
    the file thinks about machines without CUDA anywhere (`fallback`)."""

    def __init__(self, imports):
        self.imports = imports
        self.found: list = []  # (node, what it is)
        self.fallback = False

    def run(self, module) -> "_Finder":
        # (node, inside a GPU-only function, inside the device argument of a move: a "cpu"
        # there is no fallback)
        stack = [(module, False, False)]
        while stack:
            node, guarded, placing = stack.pop()
            kids = self._visit(node, guarded, placing)
            if kids is None:
                kids = [(c, guarded, placing) for c in child_nodes(node)]
            stack.extend(reversed(kids))
        return self

    def _visit(self, node, guarded, placing):
        """Look at one node; the children to walk next, or None for all of them as they are."""
        kind = type(node)  # one dict lookup per node: isinstance on LibCST's classes is slow
        if kind is cst.Call:
            return self._call(node, guarded, placing)
        if kind is cst.FunctionDef or kind is cst.ClassDef:
            return [(c, guarded or _gpu_only(node), placing) for c in child_nodes(node)]
        if (kind is cst.Assign or kind is cst.AnnAssign) and node.value is not None and _is_cuda_string(node.value):
            targets = [t.target for t in node.targets] if kind is cst.Assign else [node.target]
            if all(self._device_target(t) for t in targets):
                self._flag(node.value, "a hard-coded `\"cuda\"` device", guarded)
        elif not self.fallback:
            self._fallback_in(node, kind, placing)
        return None

    def _fallback_in(self, node, kind, placing) -> None:
        if kind is cst.Name:
            self._fallback_name(node.value)
        elif kind is cst.Attribute:
            self._fallback_name(node.attr.value)
        elif kind is cst.SimpleString:
            s = is_string(node)
            where = s.split(":")[0].strip().lower() if s is not None else ""
            if where in ("mps", "xla", "xpu", "npu", "hpu") or (where == "cpu" and not placing):
                self.fallback = True
        elif (kind is cst.If or kind is cst.IfExp) and _GUARD_WORDS.search(source_of(node.test)):
            self.fallback = True  # a branch for "no CUDA" exists

    def _fallback_name(self, name: str) -> None:
        if name in kb.torch_core.AVAILABILITY_ATTRS or "accelerator" in name.lower():
            self.fallback = True

    def _flag(self, node, what, guarded) -> None:
        if not guarded:
            self.found.append((node, what))

    def _call(self, node: cst.Call, guarded, placing) -> list:
        func = node.func
        if not self.fallback:
            self._option_fallback(node)
        if self.imports.qualname(func) == "torch.device":
            return self._torch_device(node, guarded)
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            if method == "cuda":
                self._cuda_method(node, guarded)
            elif method in ("to", "cpu"):
                return self._to_method(node, guarded, placing)
        kids = []
        for a in node.args:
            named = a.keyword.value if a.keyword is not None else None
            if named == "device" and _is_cuda_string(a.value):
                self._flag(a, "`device=\"cuda\"`", guarded)
            kids.append((a.value, guarded, placing or named in ("device", "map_location", "device_type")))
        return kids + [(func, guarded, placing)]

    def _option_fallback(self, node: cst.Call) -> None:
        """A command-line option or an environment variable that chooses the device."""
        text = dotted(node.func) or ""
        if text.endswith(_OPTION_CALLS) or text.rsplit(".", 1)[-1].startswith("DEFINE_"):
            if any(_ARG_WORDS.search(s) for a in node.args if (s := is_string(a.value)) is not None):
                self.fallback = True

    def _torch_device(self, node: cst.Call, guarded) -> list:
        kw = next((a for a in node.args if a.keyword is not None and a.keyword.value == "type"), None)
        arg = kw or (node.args[0] if node.args else None)
        if arg is not None and _is_cuda_string(arg.value):
            self._flag(node, "`torch.device(\"cuda\")`", guarded)
        return [(a, guarded, True) for a in node.args]

    def _cuda_method(self, node: cst.Call, guarded) -> None:
        func = node.func
        if (
            not (isinstance(func.value, cst.Call) and dotted(func.value.func) == "super")
            and _tensor_cuda_signature(node)
            and self.imports.qualname(func.value) is None  # `x.cuda()`, never `torch.cuda`
        ):
            self._flag(node, "`.cuda()`", guarded)

    def _to_method(self, node: cst.Call, guarded, placing) -> list:
        target = next((a for a in node.args if a.keyword is not None and a.keyword.value == "device"), None)
        if target is None and node.args and node.args[0].keyword is None and not node.args[0].star:
            target = node.args[0]
        if target is not None and _is_cuda_string(target.value):
            self._flag(node, "`.to(\"cuda\")`", guarded)
        return [(node.func.value, guarded, placing)] + [(a.value, guarded, True) for a in node.args]

    @staticmethod
    def _device_target(target) -> bool:
        text = dotted(target)
        return text is not None and naming.looks_like_device_name(text)
