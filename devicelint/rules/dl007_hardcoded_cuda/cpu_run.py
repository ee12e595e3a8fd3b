"""Which code a run on a machine without CUDA certainly reaches.

DL007 asks this of each place that puts something on CUDA, in files that do check for CUDA
somewhere: the check guards some code, and the question is whether it guards this site.
A small walk of one module answers it, without the device inference:

- It starts at the module's top-level statements and follows calls into the functions and
  classes of the same file (`main()`, `train(...)`, `Trainer(...)` -> `__init__`,
  `self.step()`, `model(x)` -> `forward` of a model built here). A function nobody on the
  reached path calls is not reached: it may only be called under a guard, or from elsewhere.
- It evaluates the tests that decide branches as a machine without CUDA would see them:
  `torch.cuda.is_available()` is False, `device_count()` is 0, `t.is_cuda` is False, and a
  device chosen with a fallback (`"cuda" if torch.cuda.is_available() else "cpu"`) is the
  CPU. Names and attributes are followed through their assignments in the file, command-line
  options (argparse) through their defaults.
- A test that is about the device (it mentions CUDA, a GPU, a device, a rank, or a name
  assigned from such words) but whose value is unknown guards both its branches: neither is
  certainly reached, and when one of them may leave (`raise`, `return`, `sys.exit`) neither
  is the code after it. Any other test (`if args.evaluate:`) is taken to allow both branches,
  except that an option's default decides between them: a CPU-only run uses the defaults.
- `raise`, `return`, `sys.exit()` and an `assert` that fails without CUDA end the path: code
  after `if not torch.cuda.is_available(): sys.exit("needs a GPU")` is never reached on a
  CPU-only machine (the script refuses such machines on purpose).
- A `try` whose handler catches the error CUDA raises (`except Exception`, bare `except`,
  `RuntimeError`, `AssertionError`) guards its body; lambdas are not entered.

`reaches(node)` is then true only for nodes on that certain path: where anything is unsure,
the answer is no, so that the rule stays silent.
"""

from __future__ import annotations

import re
from typing import NamedTuple

import libcst as cst

from devicelint import knowledge as kb
from devicelint.flow import child_nodes, walk
from devicelint.flow.nodes import own_nodes
from devicelint.names import child_bodies, dotted, source_of

# Outcomes, ordered: joining branches keeps the most reaching one.
STOP, DEAD, MAYBE, REACHED = 0, 1, 2, 3

# A test mentioning one of these is about the machine's device: its value may follow it.
# Short words only where they start a word part (`use_cpu`, `local_rank`, not `output`).
DEVICE_WORDS = re.compile(
    r"cuda|gpu|accelerat|is_available|device|distributed|world_size|nccl"
    r"|(?<![a-z])(?:cpu|mps|xpu|tpu|xla|rank|ddp|fp16|bf16|half)",
    re.IGNORECASE,
)
_EXITS = {"sys.exit", "os._exit", "exit", "quit"}
# Another file's function setting up multi-GPU work (`utils.init_distributed_mode(args)`): like
# a file that sets up NCCL, it is GPU-only by design and may exit without one.
_SETUP = re.compile(r"distributed|init_dist|dist_init|setup_dist|ddp_setup|setup_ddp|init_process_group", re.I)
# Exceptions whose handler would catch CUDA's "not compiled" / "no GPU" errors.
_BROAD = {"Exception", "BaseException", "RuntimeError", "AssertionError"}
# Methods that hand back the module they are called on: `Net().to(device).eval()` is a Net.
_CHAIN = frozenset(kb.nn.MODULE_MOVES) | kb.nn.MODULE_RETURNS_SELF
_IMPLICIT_CALL = ("forward", "__call__")
_CONSTRUCT = ("__init__", "__post_init__")
_DEPTH = 12
_CALL_DEPTH = 40
_MAX_ASSIGNMENTS = 16  # a name set more often than this is not a setting: unknown


class Val(NamedTuple):
    """A value the walk knows: `sure` when it follows from the machine or from literals,
    not when it is an option's default (the user may pass another)."""

    value: object
    sure: bool


def _literal(node):
    if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
        return Val({"True": True, "False": False, "None": None}[node.value], True)
    if isinstance(node, (cst.SimpleString, cst.Integer, cst.Float)):
        try:
            return Val(node.evaluated_value, True)
        except Exception:  # noqa: BLE001 - an odd literal is simply unknown
            return None
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = _literal(node.expression)
        if inner is not None and isinstance(inner.value, (int, float)):
            return Val(-inner.value, True)
    return None


def _meet(vals):
    """One value for several assignments: the same value, or the same truth, or unknown."""
    if not vals or any(v is None for v in vals):
        return None
    sure = all(v.sure for v in vals)
    first = vals[0].value
    if all(type(v.value) is type(first) and v.value == first for v in vals):
        return Val(first, sure)
    truths = {bool(v.value) for v in vals}
    return Val(truths.pop(), sure) if len(truths) == 1 else None


_COMPARE = {
    cst.Equal: lambda a, b: a == b,
    cst.NotEqual: lambda a, b: a != b,
    cst.LessThan: lambda a, b: a < b,
    cst.LessThanEqual: lambda a, b: a <= b,
    cst.GreaterThan: lambda a, b: a > b,
    cst.GreaterThanEqual: lambda a, b: a >= b,
    cst.In: lambda a, b: a in b,
    cst.NotIn: lambda a, b: a not in b,
    cst.Is: lambda a, b: a is b,
    cst.IsNot: lambda a, b: a is not b,
}


def _option(call: cst.Call):
    """(dest, default) of `parser.add_argument("--no-cuda", action="store_true")`, or None."""
    kw = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    flags = [v.value for a in call.args if a.keyword is None and (v := _literal(a.value)) and isinstance(v.value, str)]
    dest = _literal(kw["dest"]) if "dest" in kw else None
    if dest is not None and isinstance(dest.value, str):
        name = dest.value
    else:
        longs = [f for f in flags if f.startswith("--")]
        if not longs:
            return None  # a positional argument is required: no default to run with
        name = longs[0][2:].replace("-", "_")
    action = _literal(kw["action"]) if "action" in kw else None
    action = action.value if action is not None else None
    if "default" in kw:
        return name, kw["default"]
    if action == "store_true":
        return name, cst.Name("False")
    if action == "store_false":
        return name, cst.Name("True")
    return name, cst.Name("None")


class CpuRun:
    def __init__(self, module: cst.Module, imports, calls=None, skip=lambda node: False) -> None:
        """`calls`: every call in the module, when the caller has them (engine.Context.calls)."""
        self.module = module
        self.imports = imports
        self.skip = skip  # functions never entered (GPU-only by name)
        self.defs: dict = {}  # scope -> {name: FunctionDef | ClassDef}
        self.methods: dict = {}  # ClassDef -> {name: FunctionDef}
        self.class_of: dict = {}  # method -> its ClassDef
        self.enclosing: dict = {}  # scope -> the scope its names are looked up in next
        self.params: dict = {}  # FunctionDef -> parameter names
        self.globals: dict = {}  # FunctionDef -> names declared global
        self.assigns: dict = {}  # key -> [(value expression or None, its scope, False)]
        self.counts: dict = {}  # dotted target text -> assignments anywhere in the file
        self.options: dict = {}  # argparse dest -> [(default expression, module, True)]
        self.reached: set = set()
        self._outcome: dict = {}  # function -> what a call of it does to the run (see _follow)
        self._walking: set = set()
        self._frames: list = [False]  # per function being walked: whether the run may end in it
        self._active: set = set()
        # (node, depth) -> answer: a name set from names set from names... is asked about once.
        # An answer cut short by the cycle guard is "unknown", never a wrong certainty.
        self._value_memo: dict = {}
        self._device_memo: dict = {}
        self._collect(module.body, module, None)
        # `exec(open("configurator.py").read())` or `globals().update(...)` may rebind any
        # module-level name: those are then unknown
        self.dynamic_globals = False
        for n in calls if calls is not None else (n for n in walk(module) if isinstance(n, cst.Call)):
            if isinstance(n.func, cst.Attribute) and n.func.attr.value == "add_argument":
                opt = _option(n)
                if opt is not None:
                    self.options.setdefault(opt[0], []).append((opt[1], module, True))
            elif (dotted(n.func) == "exec" or (dotted(n.func) in ("globals", "vars") and not n.args)) and not (
                imports.binds(dotted(n.func))
            ):
                self.dynamic_globals = True
        self._suite(module.body, module)

    def reaches(self, node) -> bool:
        return id(node) in self.reached

    def assigned_once(self, text: str) -> bool:
        return self.counts.get(text, 0) == 1 and not self.dynamic_globals

    # ------------------------------------------------------------------ the file's names

    def _collect(self, stmts, scope, cls) -> None:
        for stmt in stmts:
            if isinstance(stmt, cst.FunctionDef):
                self.defs.setdefault(scope, {})[stmt.name.value] = stmt
                if cls is not None:
                    self.methods[cls][stmt.name.value] = stmt
                    self.class_of[stmt] = cls
                self.enclosing[stmt] = self.enclosing[scope] if cls is not None else scope
                p = stmt.params
                names = {x.name.value for x in (*p.posonly_params, *p.params, *p.kwonly_params)}
                names |= {s.name.value for s in (p.star_arg, p.star_kwarg) if isinstance(s, cst.Param)}
                self.params[stmt] = names
                self.globals[stmt] = _declared_global(stmt.body.body)
                self._collect(stmt.body.body, stmt, None)
            elif isinstance(stmt, cst.ClassDef):
                self.defs.setdefault(scope, {})[stmt.name.value] = stmt
                self.methods[stmt] = {}
                self.enclosing[stmt] = scope
                self._collect(stmt.body.body, stmt, stmt)
            elif isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.Assign):
                        for t in small.targets:
                            self._bind(t.target, small.value, scope)
                    elif isinstance(small, cst.AnnAssign) and small.value is not None:
                        self._bind(small.target, small.value, scope)
                    elif isinstance(small, cst.AugAssign):
                        self._bind(small.target, None, scope)
            else:
                if isinstance(stmt, cst.For):
                    self._bind(stmt.target, None, scope)
                elif isinstance(stmt, cst.With):
                    for item in stmt.items:
                        if item.asname is not None:
                            self._bind(item.asname.name, None, scope)
                for suite in child_bodies(stmt):
                    self._collect(suite, scope, cls)
        if scope is self.module:
            self.enclosing[scope] = None

    def _bind(self, target, value, scope) -> None:
        if isinstance(target, (cst.Tuple, cst.List)):
            elems = [e.value for e in target.elements]
            values = [e.value for e in value.elements] if isinstance(value, (cst.Tuple, cst.List)) else []
            if len(values) != len(elems) or any(isinstance(e, cst.StarredElement) for e in target.elements):
                values = [None] * len(elems)
            for e, v in zip(elems, values):
                self._bind(e, v, scope)
            return
        text = dotted(target)
        if text is None:
            return
        self.counts[text] = self.counts.get(text, 0) + 1
        key = self._key(target, scope)
        if key is not None:
            self.assigns.setdefault(key, []).append((value, scope, False))

    def _key(self, node, scope):
        """Where a name or attribute's assignments are kept: a plain name in its scope (the
        function, the class body, or the module for `global` names), `self.x` per class,
        any other attribute chain (`args.cuda`) once for the file."""
        text = dotted(node)
        if text is None:
            return None
        if isinstance(node, cst.Name):
            if isinstance(scope, cst.FunctionDef) and text in self.globals.get(scope, ()):
                return (self.module, text)
            return (scope, text)
        if text.startswith("self."):
            cls = self.class_of.get(scope)
            return (cls, text) if cls is not None else None
        return (None, text)

    def _values(self, node, scope, settings: bool = True):
        """[(value expression or None, its scope, whether it is an option's default)] assigned
        to a name or attribute seen from `scope`; None when it is unknown (a parameter,
        nothing assigned). With `settings`, also None for a name that is no setting: set
        too often, or at module level where `exec` may rebind it."""
        text = dotted(node)
        if text is None:
            return None
        if isinstance(node, cst.Name):
            s = scope
            while s is not None:
                if isinstance(s, cst.FunctionDef) and text in self.params.get(s, ()):
                    return None
                if isinstance(s, cst.FunctionDef) and text in self.globals.get(s, ()):
                    s = self.module
                    continue
                if (s, text) in self.assigns:
                    found = self.assigns[(s, text)]
                    unsure = (s is self.module and self.dynamic_globals) or len(found) > _MAX_ASSIGNMENTS
                    return None if settings and unsure else found
                s = self.enclosing.get(s)
            return None
        key = self._key(node, scope)
        found = list(self.assigns.get(key, [])) if key is not None else []
        if not text.startswith("self."):
            found += self.options.get(text.rsplit(".", 1)[-1], [])
        return found if found and (not settings or len(found) <= _MAX_ASSIGNMENTS) else None

    # ------------------------------------------------------------------ values

    def _qual(self, func):
        q = self.imports.qualname(func)
        if q is None and isinstance(func, cst.Name) and func.value in ("exit", "quit"):
            return func.value
        return q

    def value(self, node, scope, depth: int = 0):
        """What `node` evaluates to on a CPU-only run with the default options, or None."""
        key = (id(node), depth)
        if key not in self._value_memo:
            self._value_memo[key] = self._value(node, scope, depth)
        return self._value_memo[key]

    def _value(self, node, scope, depth: int):
        if depth > _DEPTH:
            return None
        lit = _literal(node)
        if lit is not None:
            return lit
        d = depth + 1
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
            v = self.value(node.expression, scope, d)
            return Val(not v.value, v.sure) if v is not None else None
        if isinstance(node, cst.BooleanOperation):
            return self._bool_value(node, scope, d)
        if isinstance(node, cst.IfExp):
            return self._ifexp_value(node, scope, d)
        if isinstance(node, cst.Comparison):
            return self._compare_value(node, scope, d)
        if isinstance(node, cst.Call):
            return self._call_value(node, scope, d)
        if isinstance(node, cst.Attribute):
            v = self._attribute_value(node, scope, d)
            if v is not None:
                return v
        if isinstance(node, (cst.Name, cst.Attribute)):
            return self._name_value(node, scope, d)
        return None

    def _bool_value(self, node: cst.BooleanOperation, scope, d):
        left, right = self.value(node.left, scope, d), self.value(node.right, scope, d)
        is_and = isinstance(node.operator, cst.And)
        for v in (left, right):  # one operand that settles the outcome for sure
            if v is not None and v.sure and bool(v.value) != is_and:
                return Val(bool(v.value), True)
        if left is None or right is None:
            return None
        if is_and:
            out = left if not left.value else right
        else:
            out = left if left.value else right
        return Val(out.value, left.sure and right.sure)

    def _ifexp_value(self, node: cst.IfExp, scope, d):
        test = self.value(node.test, scope, d)
        if test is not None:
            v = self.value(node.body if test.value else node.orelse, scope, d)
            return Val(v.value, v.sure and test.sure) if v is not None else None
        return _meet([self.value(node.body, scope, d), self.value(node.orelse, scope, d)])

    def _compare_value(self, node: cst.Comparison, scope, d):
        left = self.value(node.left, scope, d)
        sure, result = True, True
        for comp in node.comparisons:
            right = self.value(comp.comparator, scope, d)
            op = _COMPARE.get(type(comp.operator))
            if left is None or right is None or op is None:
                return None
            try:
                ok = bool(op(left.value, right.value))
            except TypeError:
                return None
            sure = sure and left.sure and right.sure
            result = result and ok
            left = right
        return Val(result, sure)

    def _attribute_value(self, node: cst.Attribute, scope, d):
        """`t.is_cuda` and `device.type`; None sends the attribute to its assignments."""
        if node.attr.value == "is_cuda":
            return Val(False, True)  # nothing a CPU-only run holds is on CUDA
        if node.attr.value == "type":
            base = self.value(node.value, scope, d)
            if base is not None and isinstance(base.value, str):
                return Val(base.value.split(":")[0].strip(), base.sure)
        return None

    def _name_value(self, node, scope, d):
        """A name or attribute: the meet of what its assignments (or option defaults) give."""
        found = self._values(node, scope)
        key = ("name", dotted(node))  # `args.cuda = args.cuda and ...` reads itself
        if found is None or key in self._active:
            return None
        self._active.add(key)
        try:
            return _meet([self._assigned(v, s, d, option) for v, s, option in found])
        finally:
            self._active.discard(key)

    def _assigned(self, value, scope, d, option):
        v = self.value(value, scope, d) if value is not None else None
        if v is not None and (option or _literal(value) is not None):
            # an option's default, or a setting written as a literal (`USE_CUDA = True`): the
            # user may pass or write another
            return Val(v.value, False)
        return v

    def _call_value(self, node: cst.Call, scope, d):
        q = self._qual(node.func)
        if q in kb.torch_core.NO_ACCEL_RESULTS:
            return Val(kb.torch_core.NO_ACCEL_RESULTS[q], True)
        args = [a for a in node.args if a.keyword is None]
        if (q == "torch.device" or (isinstance(node.func, cst.Name) and node.func.value == "str")) and args:
            v = self.value(args[0].value, scope, d)
            return v if v is not None and isinstance(v.value, str) else None
        target = self._def_of(node.func, scope)
        if isinstance(target, cst.FunctionDef) and id(target) not in self._active:
            self._active.add(id(target))
            try:
                returns = [r.value for r in own_nodes(target.body) if isinstance(r, cst.Return)]
                return _meet([self.value(r, target, d) if r is not None else Val(None, True) for r in returns])
            finally:
                self._active.discard(id(target))
        return None

    def about_device(self, node, scope, depth: int = 0) -> bool:
        """Whether a test's value may follow the machine's device: it says so in its words,
        or a name in it was assigned from such words."""
        key = (id(node), depth)
        if key not in self._device_memo:
            self._device_memo[key] = self._about_device(node, scope, depth)
        return self._device_memo[key]

    def _about_device(self, node, scope, depth: int) -> bool:
        if DEVICE_WORDS.search(source_of(node)):
            return True
        if depth > 2:
            return False
        for n in walk(node):
            if isinstance(n, (cst.Name, cst.Attribute)):
                # every assignment counts here: one from the device is enough to make it a guard
                for v, s, _ in self._values(n, scope, settings=False) or ():
                    if v is not None and self.about_device(v, s, depth + 1):
                        return True
            if isinstance(n, cst.Call):
                target = self._def_of(n.func, scope)
                if isinstance(target, cst.FunctionDef) and any(
                    r.value is not None and self.about_device(r.value, target, depth + 1)
                    for r in own_nodes(target.body) if isinstance(r, cst.Return)
                ):
                    return True
        return False

    def branches(self, test, scope) -> tuple:
        """(body runs, else runs), each REACHED, MAYBE or DEAD, for a CPU-only run."""
        v = self.value(test, scope)
        if v is not None and v.sure:
            return (REACHED, DEAD) if v.value else (DEAD, REACHED)
        if self.about_device(test, scope):
            return MAYBE, MAYBE
        if v is not None:  # an option's default decides
            return (REACHED, DEAD) if v.value else (DEAD, REACHED)
        return REACHED, REACHED

    # ------------------------------------------------------------------ functions and classes

    def _lookup(self, name: str, scope):
        s = scope
        while s is not None:
            found = self.defs.get(s, {}).get(name)
            if found is not None:
                return found
            s = self.enclosing.get(s)
        return None

    def _method(self, cls, name: str, seen=()):
        found = self.methods.get(cls, {}).get(name)
        if found is not None or cls in seen:
            return found
        for base in cls.bases:
            b = self._lookup(base.value.value, self.enclosing.get(cls)) if isinstance(base.value, cst.Name) else None
            if isinstance(b, cst.ClassDef):
                found = self._method(b, name, (*seen, cls))
                if found is not None:
                    return found
        return None

    def _def_of(self, func, scope):
        """The function or class of this file a call's callee names: `f`, `Net`,
        `self.step`, `Net.build`."""
        if isinstance(func, cst.Name):
            return self._lookup(func.value, scope)
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
            base = func.value.value
            if base in ("self", "cls") and scope in self.class_of:
                return self._method(self.class_of[scope], func.attr.value)
            cls = self._lookup(base, scope)
            if isinstance(cls, cst.ClassDef):
                return self._method(cls, func.attr.value)
        return None

    def _class_of_value(self, node, scope, depth: int = 0):
        """The class of this file that built the object `node` holds, when every
        assignment of it says the same (`model = Net(...).to(device)`)."""
        if depth > 3:
            return None
        while isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in _CHAIN:
            node = node.func.value
        if isinstance(node, cst.Call):
            target = self._def_of(node.func, scope)
            return target if isinstance(target, cst.ClassDef) else None
        if isinstance(node, (cst.Name, cst.Attribute)):
            found = self._values(node, scope)
            if not found or any(v is None for v, _, _ in found):
                return None
            classes = {self._class_of_value(v, s, depth + 1) for v, s, _ in found}
            return classes.pop() if len(classes) == 1 else None
        return None

    def _follow(self, call: cst.Call, scope) -> int:
        """Walk the functions of this file a reached call runs; what the call does to the run
        after it: REACHED (it returns), MAYBE (it may end the run) or STOP (it ends it)."""
        target = self._def_of(call.func, scope)
        if isinstance(target, cst.ClassDef):
            targets = [self._method(target, m) for m in _CONSTRUCT]
        elif isinstance(target, cst.FunctionDef):
            targets = [target]
        else:
            cls = self._class_of_value(call.func.value, scope) if isinstance(call.func, cst.Attribute) else None
            targets = [self._method(cls, call.func.attr.value)] if cls is not None else []
            if not any(targets):
                cls = self._class_of_value(call.func, scope)
                targets = [self._method(cls, m) for m in _IMPLICIT_CALL] if cls is not None else []
            if not any(targets) and _SETUP.search((dotted(call.func) or "").rsplit(".", 1)[-1]):
                return MAYBE  # another file's multi-GPU setup: it may refuse a CPU-only machine
        return min([self._enter(fn) for fn in targets if fn is not None and not self.skip(fn)] or [REACHED])

    def _enter(self, fn) -> int:
        if fn in self._outcome:
            return self._outcome[fn]
        if fn in self._walking or len(self._walking) > _CALL_DEPTH:
            return REACHED  # recursion: the first walk of it decides
        self._walking.add(fn)
        self._frames.append(False)
        try:
            out = self._suite(fn.body.body, fn)
        finally:
            may_stop = self._frames.pop()
            self._walking.discard(fn)
        self._outcome[fn] = STOP if out == STOP else MAYBE if may_stop else REACHED
        return self._outcome[fn]

    # ------------------------------------------------------------------ statements
    # A suite's outcome: REACHED (it falls through), MAYBE (what follows it is not certain),
    # DEAD (it left: `return`, `break`, `continue`), STOP (the run ends: `raise`, `sys.exit`).
    # Joining branches takes the most reaching one.

    def _may_stop(self) -> int:
        """What follows a point where the run may end: uncertain, here and in the callers."""
        self._frames[-1] = True
        return MAYBE

    def _run_expr(self, node, scope) -> int:
        out = self._expr(node, scope)
        return self._may_stop() if out == MAYBE else out

    def _suite(self, stmts, scope) -> int:
        for stmt in stmts:
            out = self._stmt(stmt, scope)
            if out != REACHED:
                return out
        return REACHED

    def _stmt(self, stmt, scope) -> int:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                out = self._small(small, scope)
                if out != REACHED:
                    return out
            return REACHED
        if isinstance(stmt, cst.If):
            return self._if(stmt, scope)
        if isinstance(stmt, (cst.For, cst.While)):
            return self._loop(stmt, scope)
        if isinstance(stmt, cst.With):
            return self._with(stmt, scope)
        if isinstance(stmt, (cst.Try, cst.TryStar)):
            return self._try(stmt, scope)
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            return self._definition(stmt, scope)
        if isinstance(stmt, cst.Match):
            return self._match(stmt, scope)
        return REACHED

    def _loop(self, stmt, scope) -> int:
        out = self._run_expr(stmt.iter if isinstance(stmt, cst.For) else stmt.test, scope)
        if out != REACHED:
            return out
        body = self._suite(stmt.body.body, scope)
        if stmt.orelse is not None and body != MAYBE:
            body = self._suite(stmt.orelse.body.body, scope)
        return MAYBE if body == MAYBE else REACHED  # a loop may run no iteration

    def _with(self, stmt: cst.With, scope) -> int:
        for item in stmt.items:
            out = self._run_expr(item.item, scope)
            if out != REACHED:
                return out
        return self._suite(stmt.body.body, scope)

    def _definition(self, stmt, scope) -> int:
        """A `def` or `class` statement runs its decorators, defaults and bases (and a class its body)."""
        parts = [d.decorator for d in stmt.decorators]
        if isinstance(stmt, cst.FunctionDef):
            p = stmt.params
            parts += [x.default for x in (*p.posonly_params, *p.params, *p.kwonly_params) if x.default is not None]
        else:
            parts += [a.value for a in (*stmt.bases, *stmt.keywords)]
        outs = [self._run_expr(x, scope) for x in parts]
        if isinstance(stmt, cst.ClassDef):
            outs.append(self._suite(stmt.body.body, stmt))  # a class body runs where it stands
        return min(outs, default=REACHED)

    def _match(self, stmt: cst.Match, scope) -> int:
        out = self._run_expr(stmt.subject, scope)
        if out != REACHED:
            return out
        return max([REACHED, *(self._suite(case.body.body, scope) for case in stmt.cases)])

    def _small(self, small, scope) -> int:
        out = self._run_expr(small, scope)
        if out != REACHED:
            return out
        if isinstance(small, cst.Raise) or (
            isinstance(small, cst.Expr) and isinstance(small.value, cst.Call) and self._qual(small.value.func) in _EXITS
        ):
            return STOP
        if isinstance(small, (cst.Return, cst.Break, cst.Continue)):
            return DEAD
        if isinstance(small, cst.Assert):
            passes, _ = self.branches(small.test, scope)
            if passes == MAYBE:
                return self._may_stop()
            return REACHED if passes == REACHED else STOP
        return REACHED

    def _if(self, stmt: cst.If, scope) -> int:
        outs = []
        while True:  # the `elif` chain, without recursion
            out = self._run_expr(stmt.test, scope)
            if out != REACHED:
                return max([out, *outs])
            body, orelse = self.branches(stmt.test, scope)
            if body == MAYBE:  # a guard we cannot evaluate: neither branch is certain
                if _may_stop(stmt):
                    return self._may_stop()
                outs.append(MAYBE if _may_leave(stmt) else REACHED)
                break
            if body == REACHED:
                outs.append(self._suite(stmt.body.body, scope))
            if orelse != REACHED:
                break
            if isinstance(stmt.orelse, cst.If):
                stmt = stmt.orelse
                continue
            if isinstance(stmt.orelse, cst.Else):
                outs.append(self._suite(stmt.orelse.body.body, scope))
            else:
                outs.append(REACHED)
            break
        return max(outs) if outs else DEAD

    def _try(self, stmt, scope) -> int:
        if any(_catches_cuda_error(h) for h in stmt.handlers):
            body = REACHED  # the error a CPU-only run meets in the body is caught: a fallback
        else:
            body = self._suite(stmt.body.body, scope)
            if body == REACHED and stmt.orelse is not None:
                body = self._suite(stmt.orelse.body.body, scope)
            if stmt.handlers and body in (DEAD, STOP):
                body = MAYBE  # what follows runs only when a handler caught something
        if stmt.finalbody is not None:
            final = self._suite(stmt.finalbody.body.body, scope)
            if final != REACHED:
                return min(final, body)
        return body

    # ------------------------------------------------------------------ expressions

    def _expr(self, node, scope) -> int:
        """Mark what evaluating `node` reaches and walk the calls it makes into this file;
        the least any of them lets the run go on (REACHED, MAYBE or STOP)."""
        out = REACHED
        stack = [node]
        while stack:
            n = stack.pop()
            self.reached.add(id(n))
            if isinstance(n, (cst.Lambda, cst.FunctionDef, cst.ClassDef)):
                continue  # runs when called: perhaps never
            if isinstance(n, cst.IfExp):
                body, orelse = self.branches(n.test, scope)
                stack.append(n.test)
                stack.extend(x for x, run in ((n.body, body), (n.orelse, orelse)) if run == REACHED)
                continue
            if isinstance(n, cst.BooleanOperation):
                stack.append(n.left)
                when_true, when_false = self.branches(n.left, scope)
                # `a and b` evaluates b when a holds, `a or b` when it does not
                if (when_true if isinstance(n.operator, cst.And) else when_false) == REACHED:
                    stack.append(n.right)
                continue
            if isinstance(n, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
                if not self._comp_filters_pass(n.for_in, scope):
                    stack.append(n.for_in.iter)
                    continue
            if isinstance(n, cst.Call):
                out = min(out, self._follow(n, scope))
            stack.extend(child_nodes(n))
        return out

    def _comp_filters_pass(self, comp, scope) -> bool:
        while comp is not None:
            if any(self.branches(f.test, scope)[0] != REACHED for f in comp.ifs):
                return False
            comp = comp.inner_for_in
        return True


def _declared_global(stmts) -> set:
    """The names a function's `global` statements declare (statements only, not nested defs)."""
    names = set()
    for stmt in stmts:
        if isinstance(stmt, cst.SimpleStatementLine):
            names.update(n.name.value for small in stmt.body if isinstance(small, cst.Global) for n in small.names)
        elif not isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            for suite in child_bodies(stmt):
                names |= _declared_global(suite)
    return names


def _may_stop(stmt) -> bool:
    """Whether a branch of this `if` may end the run (`raise`, `sys.exit(...)`, `assert`)."""
    return any(
        isinstance(n, (cst.Raise, cst.Assert)) or (isinstance(n, cst.Call) and dotted(n.func) in _EXITS)
        for n in own_nodes(stmt)
    )


def _may_leave(stmt) -> bool:
    """Whether a branch of this `if` may leave the function or the loop iteration it is in."""
    return any(isinstance(n, (cst.Return, cst.Break, cst.Continue)) for n in own_nodes(stmt))


def _catches_cuda_error(handler) -> bool:
    if handler.type is None:
        return True
    kinds = handler.type.elements if isinstance(handler.type, cst.Tuple) else [handler.type]
    names = [(dotted(k.value if isinstance(k, cst.Element) else k) or "").rsplit(".", 1)[-1] for k in kinds]
    return any(n in _BROAD for n in names)
