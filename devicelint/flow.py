"""Device inference: an abstract interpreter over one file.

It runs the module body and every function and method in statement order, keeping an
abstract value (values.Val) for each name and `self` attribute: what kind of thing it is
(model, tensor, loader, device...) and where it lives (host, accelerator, unknown). Calls to
functions and classes of the same file are followed with the caller's values (a bounded,
context-sensitive inline), so `train(model, loader, device)` sees the real model.

The interpreter does not judge: it records facts (module calls, device mixes, moves,
numpy conversions) that the rules read. It runs twice: the first run learns which models
are ever moved or handed to code we cannot see; the second records the facts with that
knowledge. Whenever it cannot tell, a value becomes UNKNOWN, and no rule fires on UNKNOWN.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field

import libcst as cst

from devicelint import crossfile
from devicelint import libmodel
from devicelint import torchapi as api
from devicelint.names import Imports, dotted
from devicelint.values import NONE, OTHER, UNKNOWN, Dev, Instance, Kind, Val, contents_on_accel, host_batch_in, join

MAX_INLINE_DEPTH = 4
STEP_BUDGET = 40_000  # statements executed per run: bounds the cost of inlining on huge files


# ----------------------------------------------------------------------------- facts


@dataclass
class ModuleCall:
    node: cst.Call
    model: Val
    args: list
    blame: cst.CSTNode  # where the model, not a function parameter, enters the call chain
    method: str | None = None  # `model.generate(ids)`: the model's method, not the model itself


@dataclass
class Mix:
    node: cst.CSTNode
    operands: list  # Val of every tensor / module taking part
    cls: cst.ClassDef | None = None  # the nn.Module class whose method does this, if any
    in_forward: bool = False  # in that class's `forward` or a method it calls


@dataclass
class Move:
    node: cst.Call
    recv: Val
    recv_text: str | None
    target_text: str
    reason: str | None  # "already" | "invariant" | "repeated" | None
    prior: cst.CSTNode | None  # the earlier move for "already"/"repeated"
    bare: bool = False  # a statement of its own: the result is thrown away
    in_place: bool = False  # the receiver moves in place (module, BatchEncoding, PyG graph, a loader's batch object)


@dataclass
class NumpyConv:
    node: cst.Call
    val: Val


@dataclass
class Accum:
    node: cst.CSTNode  # `total += loss` / `total = total + loss` inside a loop over a loader
    value: Val  # what is added
    no_grad: bool  # gradients were off here (torch.no_grad / inference_mode / set_grad_enabled)


@dataclass
class Sync:
    node: cst.Call  # `.item()`, `.tolist()`, `.cpu()`, `print(t)` on a device tensor
    what: str
    val: Val


@dataclass
class LoaderMove:
    node: cst.Call  # `x.to(device)` of a batch that came straight from `loader`
    loader: cst.Call  # the DataLoader(...) call
    non_blocking: bool


@dataclass
class Facts:
    module_calls: list = field(default_factory=list)
    mixes: list = field(default_factory=list)
    moves: list = field(default_factory=list)
    numpy: list = field(default_factory=list)
    accums: list = field(default_factory=list)
    # host syncs every step of a training loop over a loader (no `if` between the loop and them)
    syncs: list = field(default_factory=list)
    loader_moves: list = field(default_factory=list)
    # DataLoader(...) call -> "missing" | "false" | "set" (its pin_memory= argument)
    loaders: dict = field(default_factory=dict)
    # nn.Module classes of this file whose instances run on the accelerator (moved there, or
    # called with device data), and the classes they are built from
    accel_classes: set = field(default_factory=set)
    mid_class: dict = field(default_factory=dict)  # model identity -> its file-local ClassDef
    # model identity -> set of (Dev, key) it is moved to anywhere; models handed to unknown code
    model_moves: dict = field(default_factory=dict)
    # model identity -> the device flags its moves ran under ((flag, bool) or None), and the
    # functions (FunctionDef, None for the module) whose code moved it
    move_conds: dict = field(default_factory=dict)
    move_funcs: dict = field(default_factory=dict)
    escaped: set = field(default_factory=set)
    api_calls: list = field(default_factory=list)  # (call node, qualified name) of every library call
    # torch.load call -> one {name: Val} per context it ran in: the device-named variables in
    # scope there (for the `map_location=` fix)
    load_scopes: dict = field(default_factory=dict)
    # model construction call -> one {name: Val} per context it ran in (for DL001's `.to(device)` fix)
    build_scopes: dict = field(default_factory=dict)
    # `for` over a loader -> one (device names in scope, loop-target names bound to a host
    # batch tensor) per context it ran in (for DL002's fix)
    batch_loops: dict = field(default_factory=dict)
    # factory call making a fresh host tensor -> device names in scope, per context (DL011's fix)
    factory_scopes: dict = field(default_factory=dict)
    saves: list = field(default_factory=list)  # (torch.save call, Val of what it saves)
    # `forward` of a file-local module -> what it returns when run on its own (which parts of a
    # returned tuple are plain numbers, such as a pooling ratio)
    forward_returns: dict = field(default_factory=dict)


# ----------------------------------------------------------------------------- state


class State:
    __slots__ = ("vars", "moves", "dead")

    def __init__(self, vars=None, moves=None, dead=False):
        self.vars = vars if vars is not None else {}
        self.moves = moves if moves is not None else {}  # (recv_text, key) -> move node
        self.dead = dead  # after return/raise/break/continue

    def copy(self) -> "State":
        return State(dict(self.vars), dict(self.moves), self.dead)

    @staticmethod
    def merge(a: "State", b: "State") -> "State":
        if a.dead:
            return b.copy()
        if b.dead:
            return a.copy()
        vars = dict(a.vars)
        for k, v in b.vars.items():
            vars[k] = join(vars[k], v) if k in vars else v
        moves = {k: n for k, n in a.moves.items() if b.moves.get(k) is n}
        return State(vars, moves)


class Frame:
    def __init__(self, func, parent, call, closure, self_val=None):
        self.func = func  # FunctionDef or None for the module
        self.parent = parent  # calling frame when inlined
        self.call = call  # the call node that inlined us
        self.closure = closure  # defining frame, for free names
        self.state = State()
        self.returns: list = []
        self.param_mids: set = set()
        self.loops: list = []  # enclosing loop nodes
        self.self_val = self_val
        self.generator = False
        self.default_device_unknown = 0
        self.placed: set = set()  # moves and device= factories that ran in this frame
        self.versions: dict = {}  # name -> how often it was rebound (for textual device keys)
        self.conds = 0  # how many `if` branches enclose the statement being run
        self.loop_conds: list = []  # `conds` at the entry of each enclosing loop

    def lookup(self, name: str):
        f = self
        while f is not None:
            v = f.state.vars.get(name)
            if v is not None:
                return v
            f = f.closure
        return None


def _param_names(fn: cst.FunctionDef) -> list:
    p = fn.params
    return [x for x in (*p.posonly_params, *p.params)]


def _is_string(node) -> str | None:
    if isinstance(node, cst.SimpleString):
        try:
            value = node.evaluated_value
        except Exception:
            return None
        return value if isinstance(value, str) else None
    return None


def expr_text(node) -> str | None:
    """`x`, `self.x`, `batch["label"]`, `batch[0]`: a stable spelling of a storage place."""
    if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
        base = expr_text(node.value)
        idx = node.slice[0].slice.value
        if base is not None and isinstance(idx, (cst.SimpleString, cst.Integer)):
            return f"{base}[{idx.value}]"
        return None
    return dotted(node)


def text_root(text: str) -> str:
    return re.split(r"[.\[]", text, maxsplit=1)[0]


# LibCST's `.children` runs a visitor per call; reading the dataclass fields directly is
# several times faster. Whitespace and punctuation fields never hold code.
_SKIP_FIELD = ("whitespace", "lpar", "rpar", "comma", "semicolon", "colon", "equal", "dot",
               "leading_lines", "lines_after", "header", "footer", "newline", "operator", "lbracket",
               "rbracket", "lbrace", "rbrace", "asynchronous")
_FIELDS: dict = {}
# type -> is it a CSTNode. CSTNode is an ABC, and an ABC's isinstance costs a Python call:
# asked once per type instead of once per field of every node walked.
_IS_NODE: dict = {}


def _is_node(t) -> bool:
    found = _IS_NODE[t] = issubclass(t, cst.CSTNode)
    return found


def child_nodes(node) -> list:
    names = _FIELDS.get(type(node))
    if names is None:
        names = _FIELDS[type(node)] = tuple(
            f.name for f in dataclasses.fields(node) if not f.name.startswith(_SKIP_FIELD)
        )
    out = []
    is_node = _IS_NODE.get
    for name in names:
        v = getattr(node, name)
        t = type(v)
        if is_node(t) or (is_node(t) is None and _is_node(t)):
            out.append(v)
        elif t is tuple or t is list or isinstance(v, (list, tuple)):
            for x in v:
                tx = type(x)
                if is_node(tx) or (is_node(tx) is None and _is_node(tx)):
                    out.append(x)
    return out


def _walk(node):
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(child_nodes(n))


# ----------------------------------------------------------------------------- interpreter


class Interpreter:
    def __init__(self, module: cst.Module, imports: Imports, known: Facts | None, facts: Facts):
        self.module = module
        self.imports = imports
        self.known = known  # what the previous run learnt about models
        self.facts = facts
        self.frame: Frame | None = None
        self.module_frame: Frame | None = None
        self.steps = 0
        self.class_info: dict = {}
        self.loop_cache: dict = {}
        self.default_device_set = False
        self.no_grad = 0  # >0 while gradients are off (dynamic scope, as in torch)
        self.last_binop = None  # (node, left, right) of the latest binary operation
        self.loader_loops: set = set()  # id() of loops over a data loader
        self.body_cache: dict = {}
        # device flags the statement being run sits under: `if args.cuda:` body -> ("args.cuda", True)
        self.assumed: list = []

    # ------------------------------------------------------------------ entry points

    def run(self) -> None:
        self.module_frame = self.frame = Frame(None, None, None, None)
        self.exec_body(self.module.body)
        self.run_standalone(self.module.body, self.module_frame)

    def run_standalone(self, body, module_frame) -> None:
        """Every top-level function and class method, with unknown parameters."""
        for stmt in body:
            if isinstance(stmt, cst.FunctionDef):
                self.analyze_function(stmt, module_frame, None)
            elif isinstance(stmt, cst.ClassDef):
                info = self.class_of(stmt)
                inst = Instance(stmt)
                self_val = Val(Kind.OBJECT, ref=inst)
                if _is_test_case(stmt):
                    # each test runs on a fresh instance prepared by setUp: what one test
                    # moves, the next one does not see
                    first = [f for f in (info["methods"].get(n) for n in ("__init__", "setUp")) if f is not None]
                    for fn in first:
                        self.analyze_function(fn, module_frame, self_val)
                    prepared = dict(inst.attrs)
                    for fn in info["methods"].values():
                        if fn not in first:
                            inst.attrs = dict(prepared)
                            self.analyze_function(fn, module_frame, self_val)
                    continue
                methods = sorted(info["methods"].values(), key=lambda f: f.name.value != "__init__")
                for fn in methods:
                    self.analyze_function(fn, module_frame, self_val)
            elif isinstance(stmt, (cst.If, cst.Try)):
                # functions defined under `if TYPE_CHECKING:` / `try: ... except ImportError:`
                self.run_standalone(getattr(stmt.body, "body", ()), module_frame)

    def analyze_function(self, fn: cst.FunctionDef, closure: Frame, self_val: Val | None) -> None:
        saved = self.frame
        frame = Frame(fn, None, None, closure, self_val)
        self.frame = frame
        no_grad = _no_grad_decorated(fn)
        self.no_grad += no_grad
        try:
            params = _param_names(fn)
            if self_val is not None and params and not _is_staticmethod(fn):
                frame.state.vars[params[0].name.value] = self_val
                params = params[1:]
            module_method = self._mod_cls() is not None and fn.name.value not in ("__init__", "__call__")
            for p in (*params, *fn.params.kwonly_params):
                v = self.param_guess(p)
                if module_method and v.kind is Kind.UNKNOWN and _number_param(p):
                    v = OTHER  # `q_size: int`, `embedding_dim`, `num_heads`: sizes, not inputs
                if module_method and v.kind is Kind.UNKNOWN and v.dev is Dev.UNKNOWN and p.star not in ("*", "**") and (
                    p.default is None or (isinstance(p.default, cst.Name) and p.default.value == "None")
                ) and not _MODULE_NAME.search(p.name.value):
                    # an input of a module's forward: it lives wherever the module lives
                    v = Val(Kind.TENSOR, on_module=True)
                frame.state.vars[p.name.value] = v
            self.exec_body(fn.body.body if isinstance(fn.body, cst.IndentedBlock) else fn.body.body)
            if fn.name.value == "forward" and self_val is not None and frame.returns:
                out = None
                for r in frame.returns:
                    out = join(out, r) if out is not None else r
                self.facts.forward_returns[fn] = out
        finally:
            self.frame = saved
            self.no_grad -= no_grad

    def param_guess(self, p: cst.Param) -> Val:
        name = p.name.value
        if p.default is not None:
            default = self.eval(p.default)
            if default.kind is not Kind.UNKNOWN and default.kind is not Kind.OTHER:
                return default
        return self.guess_by_name(name, scope=self.frame.func)

    def txt_key(self, scope, text: str) -> tuple:
        """A device known only by its spelling (`inputs_embeds.device`): equal keys mean the
        same device only while nothing it is spelled with has been rebound."""
        versions = self.frame.versions if self.frame is not None else {}
        return ("txt", id(scope), text, versions.get(text_root(text), 0), versions.get(text, 0))

    def guess_by_name(self, text: str, scope) -> Val:
        """Names are the last resort: `device`, `args.device` -> a device; `train_loader` -> a loader."""
        if "." in text and text.split(".")[0] not in api.CONFIG_OBJECTS:
            if api.looks_like_device_name(text):
                return Val(Kind.DEVICE, Dev.UNKNOWN, key=self.txt_key(scope, text), name=text)
            return UNKNOWN
        if api.looks_like_device_name(text):
            return Val(Kind.DEVICE, Dev.ACCEL, key=self.txt_key(scope, text), name=text)
        if api.looks_like_loader_name(text):
            return Val(Kind.LOADER, Dev.CPU, name=text)
        return UNKNOWN

    # ------------------------------------------------------------------ statements

    def exec_body(self, body) -> None:
        for stmt in body:
            if self.frame.state.dead:
                return
            self.steps += 1
            self.exec_stmt(stmt)

    def exec_suite(self, suite) -> None:
        if isinstance(suite, cst.IndentedBlock):
            self.exec_body(suite.body)
        else:  # SimpleStatementSuite: `if x: return y`
            for small in suite.body:
                if not self.frame.state.dead:
                    self.exec_small(small)

    def exec_stmt(self, stmt) -> None:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if self.frame.state.dead:
                    return
                self.exec_small(small)
        elif isinstance(stmt, cst.If):
            self.exec_if(stmt)
        elif isinstance(stmt, (cst.For, cst.While)):
            self.exec_loop(stmt)
        elif isinstance(stmt, cst.With):
            self.exec_with(stmt)
        elif isinstance(stmt, (cst.Try, cst.TryStar)):
            self.exec_try(stmt)
        elif isinstance(stmt, cst.FunctionDef):
            for d in stmt.decorators:
                self.eval(d.decorator)
            self.frame.state.vars[stmt.name.value] = Val(Kind.FUNC, ref=(stmt, self.frame), name=stmt.name.value)
        elif isinstance(stmt, cst.ClassDef):
            self.frame.state.vars[stmt.name.value] = Val(Kind.CLASS, ref=stmt, name=stmt.name.value)
        elif isinstance(stmt, cst.Match):
            self.eval(stmt.subject)
            before = self.frame.state
            out = None
            for case in stmt.cases:
                self.frame.state = before.copy()
                self.exec_suite(case.body)
                out = self.frame.state if out is None else State.merge(out, self.frame.state)
            self.frame.state = State.merge(before, out) if out is not None else before

    def exec_small(self, small) -> None:
        st = self.frame.state
        if isinstance(small, cst.Assign):
            value = self.eval(small.value)
            if (
                len(small.targets) == 1
                and isinstance(small.value, cst.BinaryOperation)
                and isinstance(small.value.operator, cst.Add)
                and self.frame.loops
            ):
                target = expr_text(small.targets[0].target)
                if target is not None and expr_text(small.value.left) == target:
                    binop = self.last_binop
                    if binop is not None and binop[0] is small.value:
                        self.note_accum(small, target, binop[2])
            for t in small.targets:
                self.bind(t.target, value)
            if value.kind is Kind.UNKNOWN and isinstance(small.value, cst.Call):
                self.guess_unknown_loaders(small)
        elif isinstance(small, cst.AnnAssign):
            if small.value is not None:
                self.bind(small.target, self.eval(small.value))
        elif isinstance(small, cst.AugAssign):
            left = self.eval(small.target)
            right = self.eval(small.value)
            if isinstance(small.operator, cst.AddAssign) and self.frame.loops:
                target = expr_text(small.target)
                if target is not None:
                    self.note_accum(small, target, right)
            self.bind(small.target, self.combine(small, [left, right]))
        elif isinstance(small, cst.Expr):
            v = small.value
            if isinstance(v, cst.Call):
                self.eval_call(v, bare=True)
            else:
                self.eval(v)
        elif isinstance(small, cst.Return):
            if small.value is not None:
                self.frame.returns.append(self.eval(small.value))
            else:
                self.frame.returns.append(OTHER)
            st.dead = True
        elif isinstance(small, cst.Raise):
            if small.exc is not None:
                self.eval(small.exc)
            st.dead = True
        elif isinstance(small, (cst.Break, cst.Continue)):
            st.dead = True
        elif isinstance(small, cst.Assert):
            self.eval(small.test)
        elif isinstance(small, (cst.Import, cst.ImportFrom)):
            names = small.names if not isinstance(small.names, cst.ImportStar) else ()
            for alias in names:
                local = alias.asname.name if alias.asname else alias.name
                if isinstance(local, cst.Name):
                    st.vars.pop(local.value, None)
        elif isinstance(small, cst.Del):
            pass

    def exec_if(self, stmt: cst.If) -> None:
        self.eval(stmt.test)
        flag = self.flag_of(stmt.test)
        before = self.frame.state
        self.frame.state = before.copy()
        frame = self.frame
        frame.conds += 1
        try:
            if flag is not None:
                self.assumed.append(flag)
            try:
                self.exec_suite(stmt.body)
            finally:
                if flag is not None:
                    self.assumed.pop()
            after_body = self.frame.state
            self.frame.state = before.copy()
            if flag is not None:
                self.assumed.append((flag[0], not flag[1]))
            try:
                if isinstance(stmt.orelse, cst.If):
                    self.exec_if(stmt.orelse)
                elif isinstance(stmt.orelse, cst.Else):
                    self.exec_suite(stmt.orelse.body)
            finally:
                if flag is not None:
                    self.assumed.pop()
        finally:
            frame.conds -= 1
        merged = State.merge(after_body, self.frame.state)
        if flag is not None and not after_body.dead and not self.frame.state.dead:
            _flag_merge(merged, after_body, self.frame.state, flag)
        self.frame.state = merged

    # ---- device flags

    def flag_of(self, test):
        """(flag, truth value the `if` body assumes) for a test on whether the accelerator is in
        use: `args.cuda`, `not use_gpu`, `args.gpu is None`, `device.type == "cuda"`,
        `torch.cuda.is_available()`; None for any other test."""
        pol = True
        while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test, pol = test.expression, not pol
        if isinstance(test, cst.Call):
            q = self.qual(test.func)
            if q in ("torch.cuda.is_available", "torch.backends.mps.is_available", "torch.xpu.is_available"):
                return (q, pol)
            return None
        if isinstance(test, (cst.Name, cst.Attribute)):
            text = dotted(test)
            if text is None or not _FLAG_NAME.search(text.rsplit(".", 1)[-1]):
                return None
            return (text, pol != bool(_CPU_FLAG.search(text.rsplit(".", 1)[-1])))
        if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
            op = test.comparisons[0].operator
            left, right = test.left, test.comparisons[0].comparator
            if isinstance(op, (cst.Is, cst.IsNot)) and isinstance(right, cst.Name) and right.value == "None":
                text = dotted(left)
                if text is None or not _FLAG_NAME.search(text.rsplit(".", 1)[-1]):
                    return None
                return (text, pol == isinstance(op, cst.IsNot))
            if isinstance(op, (cst.Equal, cst.NotEqual)):
                if _is_string(left) is not None:
                    left, right = right, left
                s = _is_string(right)
                where = api.parse_device_string(s) if s is not None else None
                if where is None:
                    return None
                if isinstance(left, cst.Attribute) and left.attr.value == "type":
                    left = left.value
                elif isinstance(left, cst.Call) and dotted(left.func) == "str" and len(left.args) == 1:
                    left = left.args[0].value
                v = self.eval(left)
                ident = ("key", v.key) if v.kind is Kind.DEVICE and v.key is not None else dotted(left)
                if ident is None:
                    return None
                return (ident, pol == ((where == "accel") == isinstance(op, cst.Equal)))
        return None

    def current_cond(self):
        return self.assumed[-1] if self.assumed else None

    def under(self, v: Val) -> Val:
        """v as seen under the device flags assumed here: a value moved only when a flag is
        set is on the host where the flag is known to be unset."""
        if v.dev is not Dev.ACCEL or not self.assumed:
            return v
        for ident, pol in reversed(self.assumed):
            if (v.cond is not None and v.cond[0] == ident) or (
                isinstance(ident, tuple) and v.key is not None and ident[1] == v.key
            ):
                expect = v.cond[1] if v.cond is not None and v.cond[0] == ident else True
                if pol == expect:
                    return v.with_(cond=None)
                return v.with_(dev=Dev.CPU, key=None, cond=None, moved_at=None)
        return v

    def exec_loop(self, stmt) -> None:
        is_for = isinstance(stmt, cst.For)
        it = self.eval(stmt.iter) if is_for else None
        elem = self.iter_elem(it) if is_for else None
        if not is_for:
            self.eval(stmt.test)
        elif it.kind in (Kind.LOADER, Kind.DATASET) or host_batch_in(elem) is not None:
            self.loader_loops.add(id(stmt))
        before = self.frame.state
        self.frame.loops.append(stmt)
        self.frame.loop_conds.append(self.frame.conds)
        state = before.copy()
        # Two rounds: the second sees values carried around the back edge.
        for round_ in range(2):
            self.frame.state = state
            if is_for:
                self.bind(stmt.target, elem)
                if round_ == 0 and id(stmt) in self.loader_loops:
                    self._note_batch_loop(stmt)
            self.exec_suite(stmt.body)
            body_out = self.frame.state
            body_out.dead = False
            state = State.merge(before, body_out)
        self.frame.loops.pop()
        self.frame.loop_conds.pop()
        self.frame.state = state
        if stmt.orelse is not None:
            self.exec_suite(stmt.orelse.body)

    def _note_batch_loop(self, stmt: cst.For) -> None:
        names = set()
        for n in _walk(stmt.target):
            if isinstance(n, cst.Name):
                v = self.frame.state.vars.get(n.value)
                if v is not None and v.kind is Kind.TENSOR and v.host_batch:
                    names.add(n.value)
        self.facts.batch_loops.setdefault(stmt, []).append((self.device_names(), names))

    def exec_with(self, stmt: cst.With) -> None:
        sets_default = False
        no_grad = any(_mentions_no_grad(item.item) for item in stmt.items)
        for item in stmt.items:
            v = self.eval(item.item)
            if isinstance(item.item, cst.Call) and self.qual(item.item.func) in ("torch.device", "torch.cuda.device"):
                sets_default = True
            if item.asname is not None:
                self.bind(item.asname.name, v if v.kind is not Kind.UNKNOWN else UNKNOWN)
        if sets_default:
            self.frame.default_device_unknown += 1
        self.no_grad += no_grad
        try:
            self.exec_suite(stmt.body)
        finally:
            self.no_grad -= no_grad
            if sets_default:
                self.frame.default_device_unknown -= 1

    def exec_try(self, stmt) -> None:
        before = self.frame.state
        self.frame.state = before.copy()
        self.exec_suite(stmt.body)
        if stmt.orelse is not None:
            self.exec_suite(stmt.orelse.body)
        out = self.frame.state
        for handler in stmt.handlers:
            self.frame.state = State.merge(before, out)
            self.frame.state.dead = False
            if handler.name is not None:
                self.bind(handler.name.name, OTHER)
            self.exec_suite(handler.body)
            out = State.merge(out, self.frame.state)
        self.frame.state = out
        if stmt.finalbody is not None:
            dead = out.dead
            out.dead = False
            self.exec_suite(stmt.finalbody.body)
            self.frame.state.dead = self.frame.state.dead or dead

    # ------------------------------------------------------------------ binding

    def bind(self, target, value: Val) -> None:
        st = self.frame.state
        if isinstance(target, cst.Name):
            self.forget_moves(target.value)
            if value.kind in (Kind.LOADER, Kind.DATASET) and value.name is None:
                value = value.with_(name=target.value)
            st.vars[target.value] = value
        elif isinstance(target, (cst.Tuple, cst.List)):
            elements = target.elements
            starred = any(isinstance(e, cst.StarredElement) for e in elements)
            for i, el in enumerate(elements):
                if isinstance(el, cst.StarredElement):
                    self.bind(el.value, Val(Kind.SEQ, elem=self.unpack(value, None)))
                else:
                    self.bind(el.value, self.unpack(value, None if starred else (i, len(elements))))
        elif isinstance(target, cst.Attribute):
            text = dotted(target)
            if text is not None:
                self.forget_moves(text)
            base = self.eval(target.value)
            if base.kind is Kind.OBJECT and isinstance(base.ref, Instance):
                info = self.class_of(base.ref.cls)
                if (info["module"] or info["opaque"]) and value.kind is Kind.MODULE:
                    # a submodule follows its parent: its own placement means nothing
                    value = Val(Kind.MODULE, param_free=value.param_free, name=value.name)
                elif info["module"] and value.kind is Kind.TENSOR and value.fresh:
                    # `self.mask = torch.ones(...)`: a plain attribute, which `.to()` does not move
                    value = value.with_(attr=target.attr.value)
                old = base.ref.attrs.get(target.attr.value)
                # `self.model = self.model.to(device)`: the same model, now moved
                same = old is not None and old.mid is not None and old.mid is value.mid
                base.ref.attrs[target.attr.value] = value if old is None or same else join(old, value)
            elif base.kind in (Kind.MODULE, Kind.OBJECT) and base.moved_at is not None and not (
                value.kind is Kind.MODULE and value.dev is base.dev and value.key == base.key
            ):
                # `pipe.unet = PeftModel.from_pretrained(pipe.unet, ...)` after `pipe.to(device)`:
                # the new part may be anywhere, so moving the whole again is no longer redundant
                self.rebind_text(target.value, base.with_(moved_at=None, key=None, dev=Dev.UNKNOWN))
        elif isinstance(target, cst.Subscript):
            base_text = dotted(target.value)
            if base_text:
                self.forget_moves(base_text)
            base = self.eval(target.value)
            if base.kind is Kind.SEQ and isinstance(target.value, (cst.Name, cst.Attribute)):
                # `self.grid[i] = self._make_grid(...)`: the list may now hold either
                elem = join(base.elem, value) if base.elem is not None else value
                for p in base.parts or ():
                    elem = join(elem, p)
                self.bind(target.value, Val(Kind.SEQ, elem=elem))
            elif isinstance(target.value, cst.Name):
                if base.kind is Kind.MAPPING:
                    # batch["x"] = batch["x"].to(device): the dict now holds mixed values
                    st.vars[target.value.value] = base.with_(elem=join(base.elem, value) if base.elem else value)
                elif base.loader is not None and not value.host_batch:
                    # batch[k] = batch[k].to(device): which items moved, we cannot tell
                    st.vars[target.value.value] = Val(Kind.TENSOR)
        elif isinstance(target, cst.StarredElement):
            self.bind(target.value, Val(Kind.SEQ, elem=self.unpack(value, None)))

    def guess_unknown_loaders(self, small: cst.Assign) -> None:
        """`train_loader, test_loader = get_loaders(args)` from code we cannot see: host loaders,
        when this file's own loops move what such loaders yield (so they are not device-aware);
        never for what a framework prepares (accelerate, Fabric)."""
        if not any(isinstance(n, cst.Name) and api.looks_like_loader_name(n.value)
                   for t in small.targets for n in _walk(t.target)):
            return
        callee = dotted(small.value.func) or "?"
        if _FRAMEWORK_CALL.search(callee) or callee.rsplit(".", 1)[-1][:1].isupper() or not self._file_moves_batches():
            return  # a loader class we do not model (NeighborLoader) may well hold device data
        if isinstance(small.value.func, cst.Name) and (
            self.frame.lookup(callee) is not None
            or (self.module_frame is not None and callee in self.module_frame.state.vars)
        ):
            return  # a function of this file: what it returns was followed, not guessed
        for a in small.value.args:
            v = self.frame.lookup(a.value.value) if isinstance(a.value, cst.Name) else None
            if v is not None and (v.kind is Kind.DEVICE or v.dev is Dev.ACCEL):
                return  # built from device data, or told the device
        st = self.frame.state
        for t in small.targets:
            for n in _walk(t.target):
                if isinstance(n, cst.Name) and api.looks_like_loader_name(n.value):
                    v = st.vars.get(n.value)
                    if v is not None and v.kind is Kind.UNKNOWN and v.dev is Dev.UNKNOWN and v.mid is None:
                        st.vars[n.value] = Val(Kind.LOADER, Dev.CPU, name=n.value)

    def _file_moves_batches(self) -> bool:
        found = self.body_cache.get("moves_batches")
        if found is None:
            found = False
            for n in _walk(self.module):
                if isinstance(n, cst.For) and api.looks_like_loader_name(_iter_source(n.iter)):
                    targets = {x.value for x in _walk(n.target) if isinstance(x, cst.Name)}
                    for m in _walk(n.body):
                        if (isinstance(m, cst.Call) and isinstance(m.func, cst.Attribute)
                                and m.func.attr.value in ("to", "cuda")
                                and text_root(expr_text(m.func.value) or "?") in targets):
                            found = True
                            break
                if found:
                    break
            self.body_cache["moves_batches"] = found
        return found

    def unpack(self, value: Val, pos) -> Val:
        if value.parts is not None and pos is not None and len(value.parts) == pos[1]:
            return value.parts[pos[0]]
        if value.kind is Kind.TENSOR:
            return value.with_(fresh=False, inplace=False)  # rows / tuple outputs of a tensor stay where it is
        if value.kind in (Kind.SEQ, Kind.MAPPING):
            if value.elem is not None:
                return value.elem
            if value.parts:
                out = value.parts[0]
                for p in value.parts[1:]:
                    out = join(out, p)
                return out
        if value.kind is Kind.OTHER:
            return OTHER
        return UNKNOWN

    def forget_moves(self, text: str) -> None:
        versions = self.frame.versions
        versions[text] = versions.get(text, 0) + 1
        moves = self.frame.state.moves
        if moves:
            for k in [k for k in moves if k[0] == text or k[0].startswith((text + ".", text + "["))]:
                del moves[k]

    # ------------------------------------------------------------------ loop facts

    def _mod_cls(self):
        """The nn.Module class whose method runs in this frame, or None."""
        sv = self.frame.self_val if self.frame is not None else None
        if sv is not None and sv.kind is Kind.OBJECT and isinstance(sv.ref, Instance):
            cls = sv.ref.cls
            if self.class_of(cls)["module"]:
                return cls
        return None

    def _mix_cls(self):
        """The module class a device mix happens in, for rules that ask whether that class runs on
        the accelerator; None in `__init__` and the methods it calls, which run before any move
        (`self.feature_size()` probing a layer's output shape with a host tensor)."""
        cls = self._mod_cls()
        if cls is not None and self.frame.func is not None and (
            self.frame.func.name.value == "__init__" or self.frame.func.name.value in self.class_of(cls)["init_only"]
        ):
            return None
        return cls

    def _in_forward(self) -> bool:
        """This frame runs `forward` of a module class or a method `forward` calls (and not
        one `__init__` calls), analysed on its own or inlined only from such methods: whatever
        device the module is on, its inputs are there too. A `forward` inlined from a script
        or a shape probe (`self.forward(torch.zeros(1, 3, 224, 224))`) sees real arguments."""
        f = self.frame
        while f is not None:
            sv = f.self_val
            if f.func is not None and sv is None and f.parent is not None:
                f = f.parent  # a plain helper (`extract(a, t, shape)`) called from a forward
                continue
            if f.func is None or sv is None or sv.kind is not Kind.OBJECT or not isinstance(sv.ref, Instance):
                return False
            info = self.class_of(sv.ref.cls)
            name = f.func.name.value
            if not info["module"] or name not in info["forward_path"] or name in info["init_only"]:
                return False
            f = f.parent
        return True

    def _loader_loop(self):
        """The innermost enclosing loop of this frame that iterates a data loader, and the
        number of `if` branches between it and here; (None, 0) when there is none."""
        f = self.frame
        for i in range(len(f.loops) - 1, -1, -1):
            if id(f.loops[i]) in self.loader_loops:
                return f.loops[i], f.conds - f.loop_conds[i]
        return None, 0

    def _body_info(self, node) -> dict:
        """Cached facts about a loop or function body: the names it assigns with `=`,
        whether it steps an optimizer / calls backward, and its backward call nodes."""
        info = self.body_cache.get(id(node))
        if info is None:
            assigned, subjects, deps, steps = set(), set(), {}, False
            body = node.body if node is not None else self.module
            for n in _walk(body):
                if isinstance(n, cst.Assign):
                    used = None
                    for t in n.targets:
                        text = expr_text(t.target)
                        if text and not (isinstance(n.value, cst.BinaryOperation) and expr_text(n.value.left) == text):
                            assigned.add(text)
                        if isinstance(t.target, cst.Name):
                            if used is None:
                                used = {x.value for x in _walk(n.value) if isinstance(x, cst.Name)}
                            deps.setdefault(t.target.value, set()).update(used)
                elif isinstance(n, cst.AnnAssign):
                    text = expr_text(n.target)
                    if text:
                        assigned.add(text)
                elif isinstance(n, cst.Call):
                    name = n.func.attr.value if isinstance(n.func, cst.Attribute) else dotted(n.func) or ""
                    if name.endswith("backward"):
                        steps = True
                        # what is differentiated: `X.backward()`, `scaler.scale(X).backward()`, `backward(X)`
                        parts = [n.func.value] if isinstance(n.func, cst.Attribute) else []
                        parts += [a.value for a in n.args]
                        if parts and isinstance(parts[0], cst.Call):
                            parts += [a.value for a in parts[0].args]
                        for part in parts:
                            subjects.update(x.value for x in _walk(part) if isinstance(x, cst.Name))
                    elif name == "step" and isinstance(n.func, cst.Attribute):
                        steps = True
            info = self.body_cache[id(node)] = {"assigned": assigned, "subjects": subjects, "deps": deps,
                                                "steps": steps}
        return info

    def note_accum(self, node, target: str, value: Val) -> None:
        """`total += loss` inside a loop over a loader, unless the sum is meant to be
        differentiated (a backward outside the loop) or starts afresh every iteration."""
        if not (value.grad or self.no_grad) or value.kind is not Kind.TENSOR:
            return
        loop = self.frame.loops[-1]
        if id(loop) not in self.loader_loops and not self._body_info(loop)["steps"]:
            return  # neither a loop over batches nor a training loop (backward / optimizer step)
        if target in self._body_info(loop)["assigned"]:
            return
        fn = self._body_info(self.frame.func)
        root = text_root(target)
        if root in fn["subjects"] or any(root in fn["deps"].get(x, ()) for x in fn["subjects"]):
            return  # the sum is differentiated: summing the graphs is the point
        self.facts.accums.append(Accum(node, value, self.no_grad > 0))

    def note_sync(self, node, what: str, val: Val) -> None:
        if not contents_on_accel(val):
            return
        loop, conds = self._loader_loop()
        if loop is None or conds or not self._body_info(loop)["steps"]:
            return
        self.facts.syncs.append(Sync(node, what, val))

    # ------------------------------------------------------------------ expressions

    def device_names(self) -> dict:
        """The variables named like a device that this frame sees, and their values."""
        seen: dict = {}
        frames = [self.frame]
        while frames[-1].closure is not None:
            frames.append(frames[-1].closure)
        if self.module_frame is not None and self.module_frame not in frames:
            frames.append(self.module_frame)
        for f in frames:
            for name, v in f.state.vars.items():
                if name not in seen and ("device" in name.lower() or name == "dev"):
                    seen[name] = v
        return seen

    def qual(self, node) -> str | None:
        if isinstance(node, (cst.Name, cst.Attribute)):
            head = node
            while isinstance(head, cst.Attribute):
                head = head.value
            if isinstance(head, cst.Name) and self.frame.lookup(head.value) is not None:
                return None  # a local variable shadows the import
            return self.imports.qualname(node)
        return None

    def eval(self, node) -> Val:
        try:
            method = _EVAL[type(node)]
        except KeyError:
            for child in child_nodes(node):
                if isinstance(child, cst.BaseExpression):
                    self.eval(child)
                elif isinstance(child, (cst.Arg, cst.Element, cst.DictElement, cst.StarredDictElement, cst.Index)):
                    self.eval_children(child)
            return UNKNOWN
        return method(self, node)

    def eval_children(self, node) -> None:
        for child in child_nodes(node):
            if isinstance(child, cst.BaseExpression):
                self.eval(child)

    def eval_name(self, node: cst.Name) -> Val:
        v = self.frame.lookup(node.value)
        if v is None and self.frame.self_val is not None and node.value == "self":
            return self.frame.self_val
        if v is not None:
            return self.under(v) if self.assumed else v
        if self.module_frame is not None and self.frame is not self.module_frame:
            v = self.module_frame.state.vars.get(node.value)
            if v is not None:
                return v
        if node.value == "None":
            return NONE
        if node.value in ("True", "False"):
            return OTHER
        if self.imports.binds(node.value):
            q = self.imports.qualname(node)
            if q and not q.startswith(("torch", "numpy")):
                return self.guess_by_name(node.value, scope=None)
            return OTHER
        return self.guess_by_name(node.value, scope=None) if node.value[0].islower() else UNKNOWN

    def eval_attribute(self, node: cst.Attribute) -> Val:
        if self.qual(node) is not None:
            return OTHER  # an API object such as torch.float16
        base = self.eval(node.value)
        attr = node.attr.value
        if base.kind is Kind.OBJECT and isinstance(base.ref, Instance):
            v = self.instance_attr(base.ref, attr)
            if v is not None:
                return self.under(v)
            return self.guess_by_name(f"self.{attr}", scope=base.ref.cls)
        if base.kind is Kind.OBJECT and base.ref == "pipeline_output":
            return base.elem if attr in libmodel.NON_TENSOR_OUTPUT_ATTRS and base.elem is not None else UNKNOWN
        if base.kind is Kind.TENSOR:
            if attr == "device":
                return Val(Kind.DEVICE, base.dev, key=base.key)
            if attr in api.NON_TENSOR_ATTRS:
                return OTHER
            if attr in libmodel.NON_TENSOR_OUTPUT_ATTRS and not base.inplace:
                return UNKNOWN  # `out.images` of a model we cannot see: PIL images by default
            if attr == "data":
                return base.with_(grad=False, inplace=False)
            if attr in ("T", "mT", "H", "real", "imag"):
                return base.with_(inplace=False)
            return base.with_(fresh=False, inplace=False)
        if base.kind is Kind.MODULE:
            if attr == "device":
                return Val(Kind.DEVICE, base.dev, key=base.key)
            if attr == "module":  # DDP / DataParallel wrapper
                return base
            if attr in ("weight", "bias") and not base.param_free:
                # a layer's own parameters: where the layer is (in a module method, with the module)
                return Val(Kind.TENSOR, base.dev, key=base.key, grad=not self.no_grad,
                           on_module=self._mod_cls() is not None)
            return UNKNOWN
        if base.kind is Kind.UNKNOWN:
            if base.dev is Dev.ACCEL and base.moved_at is not None and attr not in api.NON_TENSOR_ATTRS and not (
                api.looks_like_device_name(attr) or attr.startswith("num_") or attr in _SETTINGS_ATTRS
                or _MODULE_NAME.search(expr_text(node.value) or "model")
            ):
                # `data = data.to(device)` then `data.x`: an object that moves its tensors (a PyG
                # graph, a BatchEncoding) holds them on the device
                return Val(Kind.TENSOR, base.dev, key=base.key, cond=base.cond)
            text = dotted(node)
            if text is not None:
                return self.guess_by_name(text, scope=self.frame.func)
        return UNKNOWN

    def instance_attr(self, inst: Instance, attr: str) -> Val | None:
        v = inst.attrs.get(attr)
        if v is not None:
            return v
        info = self.class_of(inst.cls)
        fn = info["methods"].get(attr)
        if fn is not None:
            return Val(Kind.FUNC, ref=(fn, self.module_frame), name=attr)
        return None

    def eval_subscript(self, node: cst.Subscript) -> Val:
        base = self.eval(node.value)
        index = None
        sliced = False
        for el in node.slice:
            if isinstance(el.slice, cst.Index):
                self.eval(el.slice.value)
                if isinstance(el.slice.value, cst.Integer):
                    try:
                        index = int(el.slice.value.value.replace("_", ""), 0)
                    except ValueError:  # `0o17`, `0x_1f` parse; `017` does not exist in Python 3
                        index = None
            else:
                sliced = True
                self.eval_children(el.slice)
        if base.kind is Kind.TENSOR:
            return base.with_(inplace=False) if sliced and base.fresh else base.with_(fresh=False, inplace=False)
        if base.kind in (Kind.SEQ, Kind.MAPPING):
            if base.parts is not None and index is not None and -len(base.parts) <= index < len(base.parts):
                return base.parts[index]
            return self.unpack(base, None)
        if base.kind is Kind.DATASET:
            return Val(Kind.TENSOR, base.dev, loader=base.name if base.dev is Dev.CPU else None)
        if base.kind is Kind.MODULE:  # nn.Sequential / ModuleList indexing
            return Val(Kind.MODULE, base.dev, key=base.key)
        return UNKNOWN

    def eval_binop(self, node) -> Val:
        left = self.eval(node.left)
        right = self.eval(node.right)
        self.last_binop = (node, left, right)
        return self.combine(node, [left, right])

    def eval_unary(self, node: cst.UnaryOperation) -> Val:
        v = self.eval(node.expression)
        return v if v.kind is Kind.TENSOR else OTHER if isinstance(node.operator, cst.Not) else v

    def eval_compare(self, node: cst.Comparison) -> Val:
        vals = [self.eval(node.left)] + [self.eval(c.comparator) for c in node.comparisons]
        if any(isinstance(c.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for c in node.comparisons):
            return OTHER
        out = self.combine(node, vals)
        return out.with_(grad=False) if out.grad else out  # a bool tensor has no history

    def eval_boolop(self, node: cst.BooleanOperation) -> Val:
        return join(self.eval(node.left), self.eval(node.right))

    def eval_ifexp(self, node: cst.IfExp) -> Val:
        self.eval(node.test)
        return join(self.eval(node.body), self.eval(node.orelse))

    def eval_string(self, node) -> Val:
        s = _is_string(node)
        if s is not None:
            where = api.parse_device_string(s)
            if where is not None:
                return Val(Kind.DEVICE, Dev.CPU if where == "cpu" else Dev.ACCEL, key=("lit", s), name=repr(s))
        return OTHER

    def eval_sequence(self, node) -> Val:
        parts = []
        for el in node.elements:
            v = self.eval(el.value)
            parts.append(Val(Kind.SEQ, elem=self.unpack(v, None)) if isinstance(el, cst.StarredElement) else v)
        elem = None
        for p in parts:
            elem = join(elem, p) if elem is not None else p
        return Val(Kind.SEQ, parts=tuple(parts), elem=elem)

    def eval_dict(self, node: cst.Dict) -> Val:
        elem = None
        for el in node.elements:
            if isinstance(el, cst.DictElement):
                self.eval(el.key)
                v = self.eval(el.value)
            else:
                v = self.unpack(self.eval(el.value), None)
            elem = join(elem, v) if elem is not None else v
        return Val(Kind.MAPPING, elem=elem)

    def eval_comprehension(self, node) -> Val:
        saved = self.frame.state
        self.frame.state = saved.copy()
        try:
            comp = node.for_in
            while comp is not None:
                self.bind(comp.target, self.iter_elem(self.eval(comp.iter)))
                for cond in comp.ifs:
                    self.eval(cond.test)
                comp = comp.inner_for_in
            if isinstance(node, cst.DictComp):
                self.eval(node.key)
                return Val(Kind.MAPPING, elem=self.eval(node.value))
            return Val(Kind.SEQ, elem=self.eval(node.elt))
        finally:
            self.frame.state = saved

    def eval_named(self, node: cst.NamedExpr) -> Val:
        v = self.eval(node.value)
        self.bind(node.target, v)
        return v

    def eval_await(self, node) -> Val:
        return self.eval(node.expression)

    def eval_yield(self, node) -> Val:
        self.frame.generator = True
        if node.value is not None:
            self.eval(node.value if not isinstance(node.value, cst.From) else node.value.item)
        return UNKNOWN

    def eval_lambda(self, node) -> Val:
        return OTHER

    def eval_literal(self, node) -> Val:
        return OTHER

    # ------------------------------------------------------------------ combining tensors

    def combine(self, node, vals: list) -> Val:
        """An operation on several values (binary op, torch function): record device mixes."""
        tensors = [v for v in vals if v.kind is Kind.TENSOR or (v.kind in (Kind.SEQ, Kind.MAPPING) and host_batch_in(v))]
        if len(tensors) >= 2:
            self.facts.mixes.append(Mix(node, tensors, self._mix_cls(), self._in_forward()))
        out = _result_of(vals)
        if (out.kind is Kind.TENSOR and out.dev is Dev.UNKNOWN and not out.on_module and tensors
                and all(v.kind is Kind.TENSOR and v.fresh and v.dev is Dev.CPU for v in tensors) and self._in_forward()):
            # `torch.arange(half) * -scale` in a forward: its inputs are on_module, so the unknown
            # is a hyper-parameter; had it been a device tensor this very operation would fail
            return Val(Kind.TENSOR, Dev.CPU, fresh=True, grad=out.grad)
        return out

    def iter_elem(self, v: Val) -> Val:
        if v.kind is Kind.LOADER:
            if v.dev is Dev.CPU:
                # the whole object a loader yields may be a batch with an in-place `.to()`
                return Val(Kind.TENSOR, Dev.CPU, loader=v.name or "the data loader", src=v.src, inplace=True)
            return Val(Kind.TENSOR, v.dev) if v.dev is Dev.ACCEL else UNKNOWN
        if v.kind is Kind.DATASET:
            return Val(Kind.TENSOR, v.dev, loader=(v.name or "the dataset") if v.dev is Dev.CPU else None)
        if v.kind in (Kind.SEQ, Kind.TENSOR):
            return self.unpack(v, None)
        if v.kind is Kind.MAPPING:
            return OTHER
        return UNKNOWN

    # ------------------------------------------------------------------ calls

    def eval_call(self, node: cst.Call, bare: bool = False) -> Val:
        func = node.func
        if self.imports.project is not None:  # a class or function of another project file
            sym = crossfile.symbol(self, func)
            out = crossfile.call(self, node, sym) if sym is not None else None
            if out is not None:
                return out
        q = self.qual(func)
        if q is not None:
            return self.call_api(node, q)
        if isinstance(func, cst.Attribute):
            recv = self.eval(func.value)
            return self.call_method(node, func, recv, func.attr.value, bare)
        if isinstance(func, cst.Name):
            v = self.frame.lookup(func.value)
            if v is None and self.module_frame is not None:
                v = self.module_frame.state.vars.get(func.value)
            if v is None:
                return self.call_builtin(node, func.value)
        else:
            v = self.eval(func)
            if self._model_namespace_lookup(func):
                # getattr(torchvision.models, args.arch)(...), models.__dict__[args.arch](...)
                return self.new_model(node)
        return self.call_value(node, v)

    def _model_namespace_lookup(self, func) -> bool:
        if isinstance(func, cst.Call) and isinstance(func.func, cst.Name) and func.func.value == "getattr" and func.args:
            space = func.args[0].value
        elif isinstance(func, cst.Subscript) and isinstance(func.value, cst.Attribute) and func.value.attr.value == "__dict__":
            space = func.value.value
        else:
            return False
        return isinstance(space, (cst.Name, cst.Attribute)) and self.qual(space) in libmodel.MODEL_NAMESPACES

    def args(self, node: cst.Call):
        pos, kw = [], {}
        for a in node.args:
            v = self.eval(a.value)
            if a.star == "*":
                pos.append(Val(Kind.SEQ, elem=self.unpack(v, None)) if v.kind is not Kind.UNKNOWN else UNKNOWN)
            elif a.star == "**":
                kw["**"] = v
            elif a.keyword is not None:
                kw[a.keyword.value] = v
            else:
                pos.append(v)
        return pos, kw

    @staticmethod
    def kwarg_node(node: cst.Call, name: str):
        for a in node.args:
            if a.keyword is not None and a.keyword.value == name:
                return a.value
        return None

    def escape(self, vals) -> None:
        for v in vals:
            if v.kind in (Kind.MODULE, Kind.UNKNOWN) and v.mid is not None:
                self.facts.escaped.add(v.mid)
            elif v.kind is Kind.OBJECT and isinstance(v.ref, Instance):
                for a in list(v.ref.attrs.values()):
                    if a.kind is Kind.MODULE and a.mid is not None:
                        self.facts.escaped.add(a.mid)
            elif v.kind is Kind.SEQ and v.parts:
                self.escape(v.parts)

    def call_builtin(self, node: cst.Call, name: str) -> Val:
        pos, kw = self.args(node)
        if name in ("enumerate",) and pos:
            return Val(Kind.SEQ, elem=Val(Kind.SEQ, parts=(OTHER, self.iter_elem(pos[0]))))
        if name == "zip":
            return Val(Kind.SEQ, elem=Val(Kind.SEQ, parts=tuple(self.iter_elem(p) for p in pos)))
        if name in ("iter", "reversed", "tqdm", "trange") and pos:
            return pos[0]
        if name == "next" and pos:
            return self.iter_elem(pos[0])
        if name in ("list", "tuple", "sorted", "set") and pos:
            return Val(Kind.SEQ, elem=self.iter_elem(pos[0]))
        if name == "map" and len(pos) == 2 and self._in_forward():
            # `q, k, v = map(lambda t: rearrange(t, ...), qkv)` in a forward: the module's tensors
            elem = self.iter_elem(pos[1])
            if elem.kind is Kind.TENSOR and elem.on_module and elem.dev is not Dev.CPU:
                return Val(Kind.SEQ, elem=Val(Kind.TENSOR, on_module=True))
        if name in ("range", "len", "int", "float", "str", "bool", "isinstance", "round", "abs", "min", "max", "sum"):
            return OTHER
        if name == "print":
            for v in pos:
                if v.kind is Kind.TENSOR:
                    self.note_sync(node, "print", v)
        if name in api.NON_ESCAPING_BUILTINS or name in ("dict", "getattr", "setattr"):
            return OTHER if name != "getattr" else UNKNOWN
        self.escape(pos + list(kw.values()))
        return UNKNOWN

    def call_value(self, node: cst.Call, v: Val) -> Val:
        if v.kind is Kind.FUNC:
            fn, closure = v.ref
            return self.inline(node, fn, closure, None)
        if v.kind is Kind.CLASS:
            return self.construct(node, v.ref)
        if v.kind is Kind.MODULE or (v.kind is Kind.UNKNOWN and v.dev is Dev.ACCEL):
            return self.module_call(node, v if v.kind is Kind.MODULE else v.with_(kind=Kind.MODULE))
        if v.kind is Kind.OBJECT and isinstance(v.ref, Instance):
            call = self.class_of(v.ref.cls)["methods"].get("__call__")
            if call is not None:
                return self.inline(node, call, self.module_frame, v)
        if v.kind is Kind.OBJECT and v.ref in libmodel.OBJECT_KINDS:
            return self.call_library_object(node, v, "__call__")
        pos, kw = self.args(node)
        args = pos + list(kw.values())
        self.escape(args)
        if v.kind is Kind.UNKNOWN:
            return self.unseen_call_result(node, args) or UNKNOWN
        return UNKNOWN

    def unseen_call_result(self, node: cst.Call, args: list) -> Val | None:
        """A callable we cannot see (a model passed in) that accepts device tensors returns
        device tensors, or it would have failed right here; unless its name says it turns
        them into something else (`self.to_image(pred)`, `decode(ids)`). None otherwise."""
        if _CONVERTER.search((dotted(node.func) or "").rsplit(".", 1)[-1]):
            return None
        if any(contents_on_accel(a) for a in args):
            return Val(Kind.TENSOR, Dev.ACCEL)
        if self._in_forward() and any(a.kind is Kind.TENSOR and a.on_module and a.dev is not Dev.CPU for a in args):
            # inside `forward`: what an unseen helper makes of the module's tensors lives with them
            return Val(Kind.TENSOR, on_module=True)
        return None

    def module_call(self, node: cst.Call, model: Val, forward: bool = True, evaluated=None,
                    method: str | None = None) -> Val:
        args, exempt = [], []
        for i, a in enumerate(node.args):
            v = self.eval(a.value) if evaluated is None else evaluated[i]
            if a.star:
                v = self.unpack(v, None) if a.star == "*" else v
            args.append(v)
            # sequence lengths stay on the host on purpose (pack_padded_sequence wants them there)
            spelled = (a.keyword.value if a.keyword else "") + " " + (expr_text(a.value) or "")
            if _LENGTHS.search(spelled) or (model.ref == _SCATTERS and not contents_on_accel(v)):
                # ...and DataParallel / DDP copy host inputs to their device themselves
                exempt.append(v)
        blame = node
        if model.mid is not None:
            f = self.frame
            while f.parent is not None and model.mid in f.param_mids:
                blame = f.call
                f = f.parent
        self.facts.module_calls.append(ModuleCall(node, model, args, blame, method))
        operands = [model] if not model.param_free else []
        operands += [a for a in args if (a.kind is Kind.TENSOR or host_batch_in(a)) and not any(a is e for e in exempt)]
        # an LSTM's `(h0, c0)`: fresh host tensors inside a tuple argument take part too
        operands += [p for a in args if a.kind is Kind.SEQ and a.parts for p in a.parts if p.kind is Kind.TENSOR and p.fresh]
        cls = self._mod_cls()
        if len(operands) >= 2:
            self.facts.mixes.append(Mix(node, operands, self._mix_cls(), self._in_forward()))
        if model.param_free:
            out = _result_of(args)
            return out.with_(key=None, fresh=False) if out.kind is Kind.TENSOR else UNKNOWN
        out = Val(Kind.TENSOR, model.dev, key=model.key, grad=forward and not self.no_grad, on_module=cls is not None,
                  cond=model.cond)
        shape = self._forward_shape(model) if forward else None
        if shape is not None:
            # `out, aux, ratio = model(data)`: the parts its forward returns as plain numbers stay numbers
            return Val(Kind.SEQ, parts=tuple(OTHER if p.kind is Kind.OTHER else out for p in shape.parts))
        return out

    def _forward_shape(self, model: Val):
        if not isinstance(model.ref, cst.ClassDef):
            return None
        fwd = self.class_of(model.ref)["methods"].get("forward")
        if fwd is None:
            return None
        r = self.facts.forward_returns.get(fwd)
        if r is None and self.known is not None:
            r = self.known.forward_returns.get(fwd)
        if r is None or r.kind is not Kind.SEQ or not r.parts or not any(p.kind is Kind.OTHER for p in r.parts):
            return None
        return r

    # ---- methods

    def call_method(self, node: cst.Call, func: cst.Attribute, recv: Val, name: str, bare: bool) -> Val:
        if _LOGGING_ITER.match(name) and node.args and not node.args[0].keyword and not node.args[0].star and not (
            recv.kind is Kind.OBJECT and isinstance(recv.ref, Instance)
        ):
            first = self.eval(node.args[0].value)
            if first.kind is Kind.LOADER:
                # `metric_logger.log_every(loader, 20, header)`: the loader's batches, with a log line
                for a in node.args[1:]:
                    self.eval(a.value)
                return first
            for a in node.args[1:]:
                self.eval(a.value)
            return UNKNOWN
        if recv.kind is Kind.OBJECT and isinstance(recv.ref, Instance):
            fn = self.class_of(recv.ref.cls)["methods"].get(name)
            if fn is not None:
                return self.inline(node, fn, self.module_frame, recv)
            if name in ("to", "cuda", "cpu") and self.class_of(recv.ref.cls)["module"]:
                return self.move(node, func, recv, name, bare)
            held = recv.ref.attrs.get(name)
            if held is not None:  # self.model(x): calling what the attribute holds
                return self.call_value(node, held)
            pos, kw = self.args(node)
            self.escape(pos + list(kw.values()))
            return UNKNOWN
        if (name == "backward" and isinstance(func.value, cst.Name) and recv.kind in (Kind.TENSOR, Kind.UNKNOWN)
                and not self.no_grad and self.frame.state.vars.get(func.value.value) is recv):
            # `loss.backward()` proves `loss` carries a graph, whatever built it
            self.frame.state.vars[func.value.value] = recv.with_(kind=Kind.TENSOR, grad=True)
        if name in ("to", "cuda", "cpu") and recv.kind not in (Kind.OTHER, Kind.LOADER, Kind.DATASET, Kind.FUNC, Kind.CLASS):
            return self.move(node, func, recv, name, bare)
        if recv.kind is Kind.OBJECT and recv.ref in libmodel.OBJECT_KINDS:
            return self.call_library_object(node, recv, name)
        if recv.kind is Kind.MODULE:
            return self.module_method(node, func, recv, name)
        if recv.kind is Kind.TENSOR:
            return self.tensor_method(node, recv, name)
        if name in _NUMBER_METHODS and recv.kind is Kind.UNKNOWN:
            # `out.size(0) / x.size(0)` on what a library layer returned: a number either way
            self.args(node)
            return OTHER
        if recv.kind is Kind.MAPPING:
            pos, kw = self.args(node)
            if name == "items":
                return Val(Kind.SEQ, elem=Val(Kind.SEQ, parts=(OTHER, recv.elem or UNKNOWN)))
            if name in ("values",):
                return Val(Kind.SEQ, elem=recv.elem or UNKNOWN)
            if name in ("get", "pop", "setdefault"):
                return recv.elem or UNKNOWN
            if name == "update" and isinstance(func.value, cst.Name) and pos:
                self.frame.state.vars[func.value.value] = recv.with_(elem=join(recv.elem, self.unpack(pos[0], None)))
            return OTHER
        if recv.kind is Kind.SEQ:
            pos, kw = self.args(node)
            if name in ("append", "extend", "insert") and isinstance(func.value, (cst.Name, cst.Attribute)) and pos:
                new = pos[-1] if name != "extend" else self.unpack(pos[-1], None)
                grown = Val(Kind.SEQ, elem=join(recv.elem, new) if recv.elem is not None else new)
                if isinstance(func.value, cst.Name):
                    self.frame.state.vars[func.value.value] = grown
                return OTHER
            if name == "pop":
                return self.unpack(recv, None)
            return UNKNOWN
        if recv.kind is Kind.LOADER and name == "__iter__":
            return recv
        if recv.kind is Kind.DATASET:
            pos, kw = self.args(node)
            return UNKNOWN
        if recv.kind is Kind.UNKNOWN and recv.mid is not None and name in _MODULE_PROOF:
            # `.eval()`, `.load_state_dict()`, `.parameters()`: only an nn.Module has them all
            if recv.moved_at is not None or recv.dev is not Dev.UNKNOWN:
                model = recv.with_(kind=Kind.MODULE)
            else:
                model = Val(Kind.MODULE, self.model_dev(recv.mid), key=self.model_key(recv.mid), mid=recv.mid,
                            name=recv.name, cond=self.model_cond(recv.mid))
            if isinstance(func.value, (cst.Name, cst.Attribute)):
                self.rebind_text(func.value, model)
            return self.module_method(node, func, model, name)
        pos, kw = self.args(node)
        if recv.kind is Kind.UNKNOWN:
            self.escape(pos + list(kw.values()))
        return UNKNOWN

    def tensor_method(self, node: cst.Call, recv: Val, name: str) -> Val:
        pos, kw = self.args(node)
        if name == "numpy":
            if not any(a.keyword is not None and a.keyword.value == "force" for a in node.args):
                self.facts.numpy.append(NumpyConv(node, recv))
            return OTHER
        if name in ("item", "tolist"):
            self.note_sync(node, name, recv)
        if name in api.NON_TENSOR_METHODS:
            return OTHER
        if name in ("items", "values") and recv.loader:  # a dict batch straight from the loader
            elem = recv.with_(fresh=False)
            return Val(Kind.SEQ, elem=Val(Kind.SEQ, parts=(OTHER, elem)) if name == "items" else elem)
        if name in api.MIXING_METHODS:
            tensors = [recv] + [a for a in pos if a.kind is Kind.TENSOR]
            if len(tensors) >= 2:
                self.facts.mixes.append(Mix(node, tensors, self._mix_cls(), self._in_forward()))
        if name.startswith("new_") or name in ("type_as",):
            if name == "type_as" and pos:
                return Val(Kind.TENSOR, pos[0].dev, key=pos[0].key, grad=recv.grad, on_module=pos[0].on_module)
            return Val(Kind.TENSOR, recv.dev, key=recv.key, on_module=recv.on_module)
        if name in ("chunk", "split", "unbind", "tensor_split"):
            return Val(Kind.SEQ, elem=recv.with_(fresh=False))
        if name in api.REDUCTIONS and not pos and not kw and recv.loader:
            return Val(Kind.TENSOR, recv.dev)  # 0-dim: mixes with device tensors without error
        if name in ("pin_memory", "share_memory_"):
            return recv
        # 0-dim results (a full reduction) mix with device tensors without error: no longer "fresh"
        tuple_result = name in _TUPLE_RESULTS or (name in ("max", "min", "median") and bool(pos or kw))
        fresh = recv.fresh and not (name in api.REDUCTIONS and not pos and not kw) and not tuple_result
        grad = recv.grad and name not in _NO_HISTORY_METHODS and not tuple_result
        return recv.with_(fresh=fresh, grad=grad, attr=recv.attr if fresh else None, inplace=False,
                          moved_at=recv.moved_at if name in ("detach", "float", "half", "long", "int", "contiguous") else None)

    def module_method(self, node: cst.Call, func: cst.Attribute, recv: Val, name: str) -> Val:
        if name in ("forward", "generate", "predict_step", "__call__"):
            return self.module_call(node, recv, forward=name in ("forward", "__call__"), method=name)
        if isinstance(recv.ref, cst.ClassDef) and name in self.class_of(recv.ref)["parts"]:
            fn = self.class_of(recv.ref)["methods"].get(name)
            if fn is not None and _places_inputs(fn):
                # `ic.tile_predict(img)` asks where its parameters are and moves the slices itself
                self.args(node)
                return UNKNOWN
            # model.encoder(x) / model.encode(x): the model's own weights do the work
            return self.module_call(node, recv.with_(param_free=False), forward=False, method=name)
        if ((recv.mid is not None or self._in_forward()) and not isinstance(recv.ref, cst.ClassDef)
                and name not in _MODULE_PROOF and not name.startswith(_NOT_COMPUTE)):
            vals = [self.eval(a.value) for a in node.args]
            if any(v.kind is Kind.TENSOR or host_batch_in(v) is not None for v in vals):
                # model.get_image_features(pixels), model.encode(x): the model's weights meet the data
                return self.module_call(node, recv, forward=False, evaluated=vals, method=name)
            if any(v.kind is Kind.DEVICE for v in vals) or name.startswith(("to_", "move")):
                self.escape([recv])
            return UNKNOWN
        pos, kw = self.args(node)
        if name in ("train", "eval", "half", "float", "double", "bfloat16", "requires_grad_", "apply", "zero_grad", "share_memory"):
            return recv
        if name in ("parameters", "buffers", "state_dict", "named_parameters", "named_buffers"):
            # the model's own tensors: on the device only if this code path moved it there
            t = Val(Kind.TENSOR, recv.dev if recv.moved_at is not None else Dev.UNKNOWN, key=recv.key)
            if name == "state_dict":
                return Val(Kind.MAPPING, elem=t)
            return Val(Kind.SEQ, elem=Val(Kind.SEQ, parts=(OTHER, t)) if name.startswith("named") else t)
        if name in ("load_state_dict", "modules", "named_modules", "children", "named_children",
                    "register_buffer", "register_forward_hook", "register_forward_pre_hook", "add_module"):
            return OTHER
        # A method of the model we cannot see may well place it (model.setup(device)).
        if any(v.kind is Kind.DEVICE for v in pos + list(kw.values())) or name.startswith(("to_", "move")):
            self.escape([recv])
        return UNKNOWN

    # ---- moves

    def target_of(self, node: cst.Call, method: str):
        """(Val of the target device or None if unknown, display text), or 'dtype' for casts."""
        if method == "cpu":
            return Val(Kind.DEVICE, Dev.CPU, key=("lit", "cpu")), "cpu"
        if method == "cuda":
            arg = node.args[0].value if node.args and node.args[0].keyword is None else self.kwarg_node(node, "device")
            if arg is None:
                return Val(Kind.DEVICE, Dev.ACCEL, key=("lit", "cuda")), "cuda"
            self.eval(arg)
            return Val(Kind.DEVICE, Dev.ACCEL, key=self.txt_key(self.frame.func, dotted(arg) or "?")), "cuda"
        arg = self.kwarg_node(node, "device")
        others = [a for a in node.args if a is not None]
        if arg is None and others and others[0].keyword is None and not others[0].star:
            arg = others[0].value
        for a in node.args:
            if a.value is not arg:
                self.eval(a.value)
        if arg is None:
            return "dtype", ""
        text = dotted(arg)
        v = self.eval(arg)
        if text is not None and self.qual(arg) and api.looks_like_dtype(text):
            return "dtype", ""
        if v.kind is Kind.DEVICE:
            key = v.key if v.key is not None else (self.txt_key(self.frame.func, text) if text else None)
            return v.with_(key=key), text or (v.name or "the device")
        if v.kind is Kind.TENSOR:
            return Val(Kind.DEVICE, v.dev, key=None), text or "another tensor's device"
        if isinstance(arg, cst.Integer):
            return Val(Kind.DEVICE, Dev.ACCEL, key=("lit", arg.value)), arg.value
        if text is not None and api.looks_like_dtype(text):
            return "dtype", ""
        if text is not None and api.looks_like_device_name(text):
            return Val(Kind.DEVICE, Dev.ACCEL, key=self.txt_key(self.frame.func, text)), text
        return None, text or "?"

    def move(self, node: cst.Call, func: cst.Attribute, recv: Val, method: str, bare: bool) -> Val:
        target, shown = self.target_of(node, method)
        if target == "dtype":
            return recv.with_(fresh=False)
        holder = _chain_root(func.value) if recv.kind is Kind.MODULE else func.value
        recv_text = expr_text(holder)
        if target is None:
            result = recv.with_(dev=Dev.UNKNOWN, key=None, moved_at=None, loader=None, fresh=False)
        else:
            dev = target.dev
            if self.frame.default_device_unknown and dev is Dev.CPU and method != "cpu":
                dev = Dev.UNKNOWN
            result = recv.with_(dev=dev, key=target.key, moved_at=node, loader=None, fresh=False)
            if recv.kind in (Kind.SEQ, Kind.MAPPING):
                result = recv.with_(elem=Val(Kind.TENSOR, dev, key=target.key), parts=None, loader=None)
        cond = (self.current_cond() or getattr(target, "cond", None)) if result.dev is Dev.ACCEL else None
        result = result.with_(cond=cond)
        in_place = recv.inplace or (recv.kind is Kind.OBJECT and recv.ref in libmodel.OBJECT_KINDS)
        if recv.kind is Kind.MODULE or (recv.kind is Kind.UNKNOWN and bare and method != "cpu"):
            # a bare `.to()` on something unknown only suggests a module (any object may move in place)
            result = result.with_(kind=Kind.MODULE, mid=recv.mid if recv.kind is Kind.MODULE else None)
        if recv.mid is not None and recv.kind in (Kind.MODULE, Kind.UNKNOWN):
            self.facts.model_moves.setdefault(recv.mid, set()).add(
                (target.dev if target is not None else Dev.UNKNOWN, target.key if target is not None else None)
            )
            self.facts.move_conds.setdefault(recv.mid, set()).add(cond)
            self.facts.move_funcs.setdefault(recv.mid, set()).add(self.frame.func)
        if (in_place or result.kind is Kind.MODULE) and isinstance(holder, (cst.Name, cst.Attribute)):
            # Module, pipeline, BatchEncoding, PyG moves happen in place: the name now holds the moved value.
            self.rebind_text(holder, result)
        if bare and recv.fresh and isinstance(func.value, cst.Name):
            # `t.to(device)` thrown away: DL006's finding; the author meant `t` to be on the device
            self.frame.state.vars[func.value.value] = recv.with_(fresh=False)
        if target is not None and target.dev is Dev.CPU and recv.kind is Kind.TENSOR:
            self.note_sync(node, method if method == "cpu" else "to(cpu)", recv)
        if target is not None and target.dev is Dev.ACCEL and recv.src is not None and recv.host_batch:
            nb = self.kwarg_node(node, "non_blocking")
            self.facts.loader_moves.append(
                LoaderMove(node, recv.src, isinstance(nb, cst.Name) and nb.value == "True")
            )
        self.record_move(node, recv, recv_text, target, shown, bare, in_place)
        return result

    def rebind_text(self, node, value: Val) -> None:
        if isinstance(node, cst.Name):
            self.frame.state.vars[node.value] = value
        elif isinstance(node, cst.Attribute):
            base = self.eval(node.value)
            if base.kind is Kind.OBJECT and isinstance(base.ref, Instance):
                base.ref.attrs[node.attr.value] = value

    def record_move(self, node, recv: Val, recv_text, target, shown: str, bare: bool, in_place: bool = False) -> None:
        reason, prior = None, None
        key = target.key if target is not None else None
        if (
            key is not None
            and recv.moved_at is not None
            and recv.moved_at is not node
            and id(recv.moved_at) in self.frame.placed
            and recv.key == key
            and recv.dev is target.dev
            and (recv.kind is not Kind.MODULE or (self._model_is_private(recv, recv_text) and self._one_placement(recv.mid)))
            and _dtype_text(node) == _dtype_text(recv.moved_at)
        ):
            reason, prior = "already", recv.moved_at
        elif (
            key is not None
            and recv.kind is Kind.MODULE
            and recv.moved_at is not None
            and recv.moved_at is not node
            and recv.key == key
            and self._moved_in_visible_init(recv.moved_at, recv_text, shown)
        ):
            reason, prior = "already", recv.moved_at
        elif (
            target is not None
            and target.dev is Dev.ACCEL
            and recv_text is not None
            and self.frame.loops
            and (
                (recv.kind is Kind.TENSOR and recv.dev is not Dev.ACCEL)
                or (recv.kind is Kind.MODULE and self.loop_info(self.frame.loops[-1])[1].get(recv_text) == 1)
            )
            and self.loop_invariant(self.frame.loops[-1], recv_text)
            and (target.key is None or target.key[0] == "lit" or self.loop_invariant(self.frame.loops[-1], shown))
        ):
            reason = "invariant"
        elif key is not None and recv_text is not None and recv.kind is Kind.TENSOR and recv.dev is not Dev.ACCEL:
            prior = self.frame.state.moves.get((recv_text, key))
            if prior is not None and prior is not node and _dtype_text(node) == _dtype_text(prior):
                reason = "repeated"
            else:
                prior = None
        self.frame.placed.add(id(node))
        if key is not None and recv_text is not None:
            self.frame.state.moves.setdefault((recv_text, key), node)
        self.facts.moves.append(Move(node, recv, recv_text, shown, reason, prior, bare, in_place))

    def _moved_in_visible_init(self, prior, recv_text, shown: str) -> bool:
        """`self.model` moved in `__init__` and again in a method of a class whose code we see
        whole: if every move of that attribute in the class spells the same device, nothing
        in between can have moved it elsewhere."""
        inst = self.frame.self_val.ref if self.frame.self_val is not None else None
        if not isinstance(inst, Instance) or recv_text is None or not recv_text.startswith("self.") or recv_text.count(".") != 1:
            return False
        info = self.class_of(inst.cls)
        init = info["methods"].get("__init__")
        if info["module"] or info["opaque"] or init is None or self.frame.func is init:
            return False
        if not any(n is prior for n in _walk(init)):
            return False
        targets = set()
        for fn in info["methods"].values():
            for n in _walk(fn):
                if isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and n.func.attr.value in ("to", "cuda", "cpu"):
                    if expr_text(n.func.value) == recv_text:
                        targets.add((n.func.attr.value, tuple(dotted(a.value) or "?" for a in n.args)))
        return len(targets) == 1

    def _model_is_private(self, recv: Val, recv_text) -> bool:
        """A module's placement is state: code we cannot see (offload hooks, a helper given
        the model) may have moved it back. Only a local model nobody else touched is certain."""
        escaped = self.known.escaped if self.known is not None else self.facts.escaped
        return recv.mid is not None and recv.mid not in escaped and recv_text is not None and "." not in recv_text

    def loop_info(self, loop):
        info = self.loop_cache.get(id(loop))
        if info is None:
            info = self.loop_cache[id(loop)] = _changed_in(loop)
        return info

    def loop_invariant(self, loop, text: str) -> bool:
        changed = self.loop_info(loop)[0]
        root = text_root(text)
        return not any(c == text or c == root or text.startswith(c + ".") for c in changed)

    # ---- API calls by qualified name

    def call_api(self, node: cst.Call, q: str) -> Val:
        self.facts.api_calls.append((node, q))
        if q in ("torch.load", "torch.serialization.load"):
            self.facts.load_scopes.setdefault(node, []).append(self.device_names())
        parts = q.split(".")
        last = parts[-1]
        if q == "torch.device":
            pos, kw = self.args(node)
            v = pos[0] if pos else kw.get("type", UNKNOWN)
            if v.kind is Kind.DEVICE:
                return v.with_(key=("dev", id(node)))
            if isinstance(node.args[0].value if node.args else None, cst.Integer):
                return Val(Kind.DEVICE, Dev.ACCEL, key=("dev", id(node)))
            return Val(Kind.DEVICE, Dev.ACCEL, key=("dev", id(node)))  # torch.device(args.device): may be an accelerator
        if q == "torch.cuda.current_device":
            return Val(Kind.DEVICE, Dev.ACCEL, key=("lit", "cuda:current"))
        if q == "torch.save":
            pos, kw = self.args(node)
            self.facts.saves.append((node, pos[0] if pos else kw.get("obj", UNKNOWN)))
            return OTHER
        if q in ("torch.autograd.Variable", "torch.autograd.variable.Variable"):
            # the pre-0.4 wrapper: the tensor itself, wherever it is
            pos, kw = self.args(node)
            return pos[0] if pos else UNKNOWN
        if parts[0] == "math":  # `math.log(10000) / half_dim`: plain numbers, never tensors
            self.args(node)
            return OTHER
        if q in ("numpy.array", "numpy.asarray", "numpy.asanyarray"):
            pos, kw = self.args(node)
            if pos:
                self.facts.numpy.append(NumpyConv(node, pos[0]))
            return OTHER
        if parts[0] == "torch" and len(parts) == 2 and last in api.TENSOR_FACTORIES:
            return self.factory(node)
        if parts[0] == "torch" and len(parts) == 3 and parts[1] == "cuda" and last.endswith("Tensor"):
            self.args(node)
            return Val(Kind.TENSOR, Dev.ACCEL, key=("lit", "cuda"))
        if parts[0] == "torch" and last in api.LIKE_FACTORIES:
            pos, kw = self.args(node)
            if "device" in kw:
                d = kw["device"]
                return Val(Kind.TENSOR, d.dev if d.kind is Kind.DEVICE else Dev.UNKNOWN, key=d.key)
            return Val(Kind.TENSOR, pos[0].dev, key=pos[0].key) if pos and pos[0].kind is Kind.TENSOR else UNKNOWN
        if q in ("torch.from_numpy", "torch.frombuffer"):
            self.args(node)
            return Val(Kind.TENSOR, Dev.UNKNOWN if self.frame.default_device_unknown else Dev.CPU, fresh=True)
        if last == "DataLoader":
            return self.dataloader(node)
        if last in ("TensorDataset",) and parts[0] == "torch":
            pos, kw = self.args(node)
            out = None
            for p in pos:
                out = join(out, p) if out is not None else p
            dev = out.dev if out is not None and out.kind is Kind.TENSOR else Dev.UNKNOWN
            return Val(Kind.DATASET, dev)
        if q == "torch.compile":
            pos, kw = self.args(node)
            return pos[0] if pos else UNKNOWN
        if parts[0] == "torch" and parts[1:2] == ["nn"] and last[:1].isupper():
            return self.nn_constructor(node, last, q)
        lib = libmodel.kind_of_call(q)
        if lib is not None:
            return self.library_call(node, lib, q)
        if parts[0] == "tqdm":
            pos, kw = self.args(node)
            return pos[0] if pos else kw.get("iterable", UNKNOWN)
        if parts[0] == "torch":
            return self.torch_function(node, q, parts)
        pos, kw = self.args(node)
        self.escape(pos + list(kw.values()))
        if parts[0] == "numpy":
            return OTHER
        if parts[0] == "einops" and pos and pos[0].kind is Kind.TENSOR and last in _EINOPS_RESHAPES:
            return pos[0].with_(inplace=False)  # a view or copy of the tensor, where the tensor is
        if _maybe_model_builder(q) and not any(_places_or_holds(v) for v in pos + list(kw.values())):
            # `Teacher(...)` from a file we cannot see: a model only if the code proves it (below)
            return Val(Kind.UNKNOWN, mid=node, name=last)
        return self.unseen_call_result(node, pos + list(kw.values())) or UNKNOWN

    def torch_function(self, node: cst.Call, q: str, parts) -> Val:
        pos, kw = self.args(node)
        wrapped = _wrap_in_place(parts[-1], pos)
        if wrapped is not None:
            return wrapped
        if q.startswith(api.ESCAPING_TORCH_PREFIXES) or parts[-1] in api.WRAPPERS:
            self.escape(pos + list(kw.values()))
            return Val(Kind.MODULE) if parts[-1] in api.WRAPPERS else UNKNOWN
        last = parts[-1]
        flat = []
        for v in pos + [v for k, v in kw.items() if k != "out"]:
            if v.kind is Kind.SEQ and (v.parts or v.elem is not None):
                flat.extend(v.parts if v.parts else (v.elem,))
            else:
                flat.append(v)
        tensors = [v for v in flat if v.kind is Kind.TENSOR]
        functional = len(parts) >= 3 and parts[1] == "nn" and parts[2] == "functional"
        if len(tensors) >= 2 and (functional or last in api.MIXING_FUNCTIONS):
            self.facts.mixes.append(Mix(node, tensors, self._mix_cls(), self._in_forward()))
        if not tensors:
            return UNKNOWN if parts[1:2] not in (["cuda"], ["backends"]) else OTHER
        if last in ("save", "is_tensor", "numel", "equal", "allclose"):
            return OTHER
        out = _result_of(flat)
        if last in api.REDUCTIONS and len(pos) == 1 and not kw:
            return Val(Kind.TENSOR, out.dev, grad=out.grad)
        tuple_result = last in _TUPLE_RESULTS or (last in ("max", "min", "median") and len(pos) + len(kw) > 1)
        if out.kind is Kind.TENSOR and (last in _NO_HISTORY_METHODS or tuple_result or self.no_grad):
            out = out.with_(grad=False, fresh=out.fresh and not tuple_result)
        return out

    def factory(self, node: cst.Call) -> Val:
        pos, kw = self.args(node)
        d = kw.get("device")
        if d is None:
            dev = Dev.UNKNOWN if (self.frame.default_device_unknown or self.default_device_set) else Dev.CPU
            fresh = dev is Dev.CPU and _surely_not_0dim(node)
            if fresh:
                self.facts.factory_scopes.setdefault(node, []).append(self.device_names())
            return Val(Kind.TENSOR, dev, fresh=fresh, born=node if fresh else None)
        if d.kind is Kind.DEVICE:
            self.frame.placed.add(id(node))
            return Val(Kind.TENSOR, d.dev, key=d.key, moved_at=node if d.key is not None else None, cond=d.cond)
        text = dotted(self.kwarg_node(node, "device"))
        if text and api.looks_like_device_name(text):
            self.frame.placed.add(id(node))
            return Val(Kind.TENSOR, Dev.ACCEL, key=self.txt_key(self.frame.func, text), moved_at=node)
        return Val(Kind.TENSOR, Dev.UNKNOWN)

    # ---- library objects (devicelint/libmodel.py says what each call builds)

    def library_call(self, node: cst.Call, lib: str, q: str) -> Val:
        if lib == "module":
            return self.new_model(node)
        if lib == "wrap":
            first = node.args[0].value if node.args and node.args[0].keyword is None and not node.args[0].star else None
            if first is not None:
                pos, kw = self.args(node)
                # the wrapper adds weights of its own: no earlier move of the base makes a later one redundant
                return pos[0].with_(moved_at=None) if pos[0].kind is Kind.MODULE else UNKNOWN
            return self.new_model(node)
        pos, kw = self.args(node)
        placed = next((kw[k] for k in libmodel.PLACING_KEYWORDS if k in kw), kw.get("**"))
        if lib == "module_placed":
            if placed is not None and placed.kind is Kind.DEVICE:
                return Val(Kind.MODULE, placed.dev, key=placed.key, moved_at=node)
            return Val(Kind.MODULE)
        if lib in ("pipeline", "text_pipeline", "encoder"):
            dev = Dev.CPU
            if placed is not None:
                dev = placed.dev if placed.kind is Kind.DEVICE else Dev.UNKNOWN
            return Val(Kind.OBJECT, dev, ref=lib, name=q.rsplit(".", 2)[-2] if "." in q else q)
        if lib == "to_pil":
            return Val(Kind.OBJECT, ref=lib) if q.rsplit(".", 1)[-1][:1].isupper() else OTHER
        if lib == "graph":
            # a PyG graph: its attributes are tensors where its inputs are; `.to()` is in place
            tensors = [v for v in pos + list(kw.values()) if v.kind is Kind.TENSOR]
            out = None
            for t in tensors:
                out = join(out, t) if out is not None else t
            dev = out.dev if out is not None else Dev.CPU
            return Val(Kind.TENSOR, dev, key=out.key if out is not None else None, inplace=True)
        if lib == "collate":
            return Val(Kind.OTHER, ref="collate")
        return OTHER

    def call_library_object(self, node: cst.Call, obj: Val, method: str) -> Val:
        """`pipe(prompt)`, `tokenizer(texts, return_tensors="pt")`, `tokenizer.decode(ids)`."""
        lib = obj.ref
        pos, kw = self.args(node)
        if lib == "text_pipeline" or lib == "to_pil":
            return OTHER if method == "__call__" else UNKNOWN
        if lib == "pipeline":
            if method != "__call__":
                if method.startswith(("enable_model_cpu_offload", "enable_sequential_cpu_offload")):
                    self.rebind_text(node.func.value, obj.with_(dev=Dev.UNKNOWN, key=None))
                return UNKNOWN
            wanted = _is_string(self.kwarg_node(node, "output_type"))
            if wanted in libmodel.TENSOR_OUTPUT_TYPES:
                images = Val(Kind.TENSOR, obj.dev, key=obj.key, cond=obj.cond)
            elif self.kwarg_node(node, "output_type") is None or wanted is not None:
                images = OTHER  # PIL images by default, NumPy arrays for "np"
            else:
                images = UNKNOWN
            return Val(Kind.OBJECT, ref="pipeline_output", elem=images)
        if lib == "encoder":
            if method in libmodel.ENCODER_TEXT_METHODS:
                return OTHER
            if method not in libmodel.ENCODER_TENSOR_METHODS:
                return UNKNOWN
            rt = self.kwarg_node(node, "return_tensors")
            if rt is None:
                return OTHER  # Python lists
            if _is_string(rt) != "pt":
                return OTHER if _is_string(rt) is not None else UNKNOWN
            host = Val(Kind.TENSOR, Dev.CPU, loader=f"{_spelling(node.func)}(...)")
            if method == "encode" or (method == "apply_chat_template" and self.kwarg_node(node, "return_dict") is None):
                return host
            return Val(Kind.MAPPING, elem=host, inplace=True)  # a BatchEncoding
        return UNKNOWN

    def dataloader(self, node: cst.Call) -> Val:
        pos, kw = self.args(node)
        dataset = pos[0] if pos else kw.get("dataset", UNKNOWN)
        collate = kw.get("collate_fn")
        if collate is not None and not self._host_collate(collate, self.kwarg_node(node, "collate_fn")):
            return Val(Kind.LOADER, Dev.UNKNOWN)
        pin = self.kwarg_node(node, "pin_memory")
        if any(a.star for a in node.args) or len([a for a in node.args if a.keyword is None]) > 7:
            pin_state = "set"  # **kwargs, or pin_memory given by position: we cannot tell
        elif pin is None:
            pin_state = "missing"
        elif isinstance(pin, cst.Name) and pin.value == "False":
            pin_state = "false"
        else:
            pin_state = "set"
        self.facts.loaders[node] = pin_state
        if dataset.kind in (Kind.DATASET, Kind.TENSOR):
            return Val(Kind.LOADER, dataset.dev, src=node)
        # Datasets we cannot see (torchvision, HF datasets, another module) yield host tensors:
        # the default collate never moves anything.
        return Val(Kind.LOADER, Dev.CPU, src=node)

    def _host_collate(self, collate: Val, node) -> bool:
        """A collate function known to leave the batch on the host: a library collator that never
        moves (DataCollatorWithPadding, default_collate), or a function of this file that neither
        moves, nor builds tensors with `device=`, nor calls a function of this file that does."""
        if collate.ref == "collate":
            return True
        q = self.qual(node) if isinstance(node, (cst.Name, cst.Attribute)) else None
        if q is not None and libmodel.kind_of_call(q) == "collate":
            return True
        if collate.kind is not Kind.FUNC:
            return False
        fn = collate.ref[0]
        if _places_anything(fn):
            return False
        for n in _walk(fn):
            if isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and self.module_frame is not None:
                callee = self.module_frame.state.vars.get(n.func.value)
                if callee is not None and callee.kind is Kind.FUNC and _places_anything(callee.ref[0]):
                    return False
        return True

    def nn_constructor(self, node: cst.Call, cls: str, q: str) -> Val:
        pos, kw = self.args(node)
        wrapped = _wrap_in_place(cls, pos)
        if wrapped is not None:
            return wrapped
        if cls in api.WRAPPERS:
            self.escape(pos + list(kw.values()))
            return Val(Kind.MODULE)
        if cls in ("Parameter", "Buffer"):
            return pos[0].with_(fresh=False) if pos and pos[0].kind is Kind.TENSOR else Val(Kind.TENSOR)
        if cls in api.PARAM_FREE_LAYERS:
            return Val(Kind.MODULE, param_free=True, name=cls)
        if cls.endswith("Loss"):
            weights = [kw[k] for k in ("weight", "pos_weight") if k in kw]
            if not weights:
                return Val(Kind.MODULE, param_free=True, name=cls)
            w = weights[0]
            if w.kind is Kind.TENSOR and w.dev is Dev.CPU:
                return self.new_model(node, built=True, name=cls)
            return Val(Kind.MODULE, w.dev if w.kind is Kind.TENSOR else Dev.UNKNOWN, key=w.key, name=cls)
        if cls in ("Sequential", "ModuleList", "ModuleDict"):
            # param-free only when every part is seen to be: `ModuleDict(dict(wte=...))` holds layers
            parts = [p for a in pos + list(kw.values()) for p in (a.parts or (a.elem,) if a.kind is Kind.SEQ else (a,))]
            if parts and all(p is not None and p.kind is Kind.MODULE and p.param_free for p in parts):
                return Val(Kind.MODULE, param_free=True, name=cls)
        if cls in ("Module",):
            return Val(Kind.MODULE)
        return self.new_model(node, built=True, name=cls, kw=kw)

    def new_model(self, node: cst.Call, built: bool = False, name: str | None = None, kw=None, cls=None) -> Val:
        if not built:
            pos, kw = self.args(node)
        kw = kw or {}
        # `from_pretrained(name, **model_kwargs)`: the unpacked mapping may place it (device_map)
        if any(k in kw for k in libmodel.PLACING_KEYWORDS) or (not built and "**" in kw):
            d = kw.get("device")
            if d is not None and d.kind is Kind.DEVICE:
                return Val(Kind.MODULE, d.dev, key=d.key, moved_at=node, name=name)
            return Val(Kind.MODULE, name=name)
        if cls is not None:
            self.facts.mid_class[node] = cls
        self.facts.build_scopes.setdefault(node, []).append(self.device_names())
        if self.known is not None and node not in self.known.escaped and self.known.move_funcs.get(node) == {self.frame.func}:
            # moved only by the code that builds it: on the host until that move runs (a shape
            # probe, a use in `__init__` or an earlier notebook cell sees it there)
            return Val(Kind.MODULE, Dev.CPU, mid=node, name=name, ref=cls)
        return Val(Kind.MODULE, self.model_dev(node), key=self.model_key(node), mid=node, name=name, ref=cls,
                   cond=self.model_cond(node))

    def model_dev(self, mid) -> Dev:
        if self.known is None:
            return Dev.CPU
        if mid in self.known.escaped:
            return Dev.UNKNOWN
        moves = self.known.model_moves.get(mid)
        if not moves:
            return Dev.CPU
        devs = {d for d, _ in moves}
        return devs.pop() if len(devs) == 1 else Dev.UNKNOWN

    def model_cond(self, mid):
        conds = self.known.move_conds.get(mid) if self.known is not None else None
        return next(iter(conds)) if conds and len(conds) == 1 else None

    def _one_placement(self, mid) -> bool:
        """Every move of this model in the file goes to the same device (no `.cpu()` round trip
        in a checkpoint helper between two moves)."""
        moves = (self.known or self.facts).model_moves.get(mid)
        return not moves or len(moves) == 1

    def model_key(self, mid):
        if self.known is None:
            return None
        moves = self.known.model_moves.get(mid)
        if moves and len({k for _, k in moves}) == 1:
            return next(iter(moves))[1]
        return None

    # ---- file-local classes and functions

    def class_of(self, cls: cst.ClassDef) -> dict:
        info = self.class_info.get(id(cls))
        if info is None:
            # a placeholder first: a class may build instances of itself (trees of blocks)
            self.class_info[id(cls)] = {"methods": {}, "module": True, "dataset": False, "framework": False,
                                        "self_moves": False, "parts": set(), "has_params": True, "opaque": True,
                                        "init_only": set(), "forward_path": set()}
            methods = {}
            for stmt in cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ():
                if isinstance(stmt, cst.FunctionDef):
                    methods[stmt.name.value] = stmt
            module, dataset, framework, inherits_params, opaque = False, False, False, False, False
            for base in cls.bases:
                q = self.imports.qualname(base.value) or ""
                text = dotted(base.value) or ""
                last = text.rsplit(".", 1)[-1]
                local = self.module_frame.state.vars.get(text) if self.module_frame else None
                ext = crossfile.base_facts(self.imports, base.value) if local is None and self.imports.project else None
                if ext is not None:  # a base class from another file of the project
                    module |= ext["module"]
                    inherits_params |= ext["has_params"]
                    dataset |= ext["dataset"]
                    framework |= ext["framework"] or ext["self_moves"]
                    opaque = True
                elif local is not None and local.kind is Kind.CLASS and local.ref is not cls:
                    parent = self.class_of(local.ref)
                    module |= parent["module"]
                    inherits_params |= parent["has_params"]
                    dataset |= parent["dataset"]
                    framework |= parent["framework"]
                    for k, v in parent["methods"].items():
                        methods.setdefault(k, v)
                elif q.startswith("torch.nn.") or q in ("torch.nn.Module",):
                    module = True
                    inherits_params |= q.rsplit(".", 1)[-1] not in ("Module",) and q.rsplit(".", 1)[-1] not in api.PARAM_FREE_LAYERS
                elif q.startswith("torch.utils.data") and "Dataset" in last:
                    dataset = True
                elif "LightningModule" in last or q.startswith(("lightning", "pytorch_lightning")):
                    module = framework = inherits_params = True
                elif last.endswith("PreTrainedModel") or last == "ModelMixin":
                    module = inherits_params = True
                elif last not in ("object", "ABC", "Generic", "Protocol", "NamedTuple", "Enum") and not q.startswith(("abc.", "typing.", "enum.", "dataclasses.")):
                    # defined elsewhere: it may be an nn.Module, or move what it holds
                    opaque = True
            self_moves = any(
                isinstance(n, cst.Call)
                and isinstance(n.func, cst.Attribute)
                and n.func.attr.value in ("to", "cuda", "to_empty")
                and isinstance(n.func.value, cst.Name)
                and n.func.value.value == "self"
                for fn in methods.values()
                for n in _walk(fn)
            ) if module or dataset else False
            has_params = module and (inherits_params or self._builds_state(methods))
            parts = set(methods) - {"__init__", "to", "cuda", "cpu", "train", "eval"} if module else set()
            init = methods.get("__init__")
            if module and init is not None:
                for n in _walk(init):
                    if isinstance(n, cst.AssignTarget) and isinstance(n.target, cst.Attribute):
                        if isinstance(n.target.value, cst.Name) and n.target.value.value == "self":
                            parts.add(n.target.attr.value)
            info = {"methods": methods, "module": module, "dataset": dataset, "framework": framework,
                    "self_moves": self_moves, "parts": parts, "has_params": has_params, "opaque": opaque,
                    "init_only": _reachable(methods, "__init__") if module else set(),
                    "forward_path": _reachable(methods, "forward") if module else set()}
            self.class_info[id(cls)] = info
        return info

    def _builds_state(self, methods) -> bool:
        """Does the class create parameters or buffers (so that it needs moving)? Evidence only:
        a layer with weights, a Parameter, a registered buffer, or something we cannot see."""
        for fn in methods.values():
            for n in _walk(fn):
                if isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and n.func.attr.value in (
                    "register_buffer", "register_parameter", "add_module", "register_module"
                ):
                    return True
                if isinstance(n, cst.Assign) and any(
                    isinstance(t.target, cst.Attribute) and dotted(t.target.value) == "self" for t in n.targets
                ) and self._stateful_value(n.value):
                    return True
        return False

    def _stateful_value(self, value) -> bool:
        if isinstance(value, (cst.List, cst.Tuple)):
            return any(self._stateful_value(e.value) for e in value.elements)
        if not isinstance(value, cst.Call):
            return False
        q = self.imports.qualname(value.func) or ""
        if q.startswith("torch."):
            last = q.rsplit(".", 1)[-1]
            if q.startswith("torch.nn.") and last[:1].isupper():
                if last in ("Sequential", "ModuleList", "ModuleDict"):
                    return any(self._stateful_value(a.value) for a in value.args) or not value.args
                return last not in api.PARAM_FREE_LAYERS and not (last.endswith("Loss") and not value.args)
            return False  # a tensor factory: a plain attribute, not a parameter
        text = dotted(value.func) or ""
        local = self.module_frame.state.vars.get(text) if self.module_frame else None
        if local is not None and local.kind is Kind.CLASS:
            info = self.class_of(local.ref)
            return info["module"] and info.get("has_params", True)
        return True  # a factory we cannot see: assume it builds weights

    def construct(self, node: cst.Call, cls: cst.ClassDef) -> Val:
        info = self.class_of(cls)
        if info["module"]:
            pos, kw = self.args(node)
            if info["framework"] or info["self_moves"] or any(v.kind is Kind.DEVICE for v in pos + list(kw.values())):
                return Val(Kind.MODULE, name=cls.name.value)
            if not info["has_params"]:
                return Val(Kind.MODULE, param_free=True, name=cls.name.value, ref=cls)
            return self.new_model(node, built=True, name=cls.name.value, cls=cls)
        if info["dataset"]:
            pos, kw = self.args(node)
            if info["self_moves"] or any(v.kind is Kind.DEVICE or v.dev is Dev.ACCEL for v in pos + list(kw.values())):
                return Val(Kind.DATASET, Dev.UNKNOWN)
            return Val(Kind.DATASET, Dev.CPU, name=None)
        inst = Instance(cls)
        val = Val(Kind.OBJECT, ref=inst, name=cls.name.value)
        init = info["methods"].get("__init__")
        if init is not None:
            self.inline(node, init, self.module_frame, val)
        else:
            pos, kw = self.args(node)
        return val

    def inline(self, node: cst.Call, fn: cst.FunctionDef, closure: Frame, self_val: Val | None) -> Val:
        pos, kw = self.args(node)
        depth, f = 0, self.frame
        while f is not None:
            if f.func is fn:
                depth = MAX_INLINE_DEPTH
                break
            depth += 1
            f = f.parent
        if depth >= MAX_INLINE_DEPTH or self.steps > STEP_BUDGET or any(d.decorator for d in fn.decorators if not self._harmless_decorator(d)):
            self.escape(pos + list(kw.values()))
            return UNKNOWN
        frame = Frame(fn, self.frame, node, closure, self_val)
        params = _param_names(fn)
        if self_val is not None and params:
            frame.state.vars[params[0].name.value] = self_val
            params = params[1:]
        saved = self.frame
        self.frame = frame
        no_grad = _no_grad_decorated(fn)
        self.no_grad += no_grad
        try:
            for i, p in enumerate(params):
                if i < len(pos):
                    v = pos[i]
                elif p.name.value in kw:
                    v = kw[p.name.value]
                elif p.default is not None:
                    v = self.eval(p.default)
                else:
                    v = UNKNOWN
                frame.state.vars[p.name.value] = v
                if v.mid is not None:
                    frame.param_mids.add(v.mid)
            for p in fn.params.kwonly_params:
                v = kw.get(p.name.value) or (self.eval(p.default) if p.default is not None else UNKNOWN)
                frame.state.vars[p.name.value] = v
                if v.mid is not None:
                    frame.param_mids.add(v.mid)
            if len(pos) > len(params) or "**" in kw:
                self.escape(pos[len(params):] + [kw.get("**", UNKNOWN)])
            self.exec_suite(fn.body)
        finally:
            self.frame = saved
            self.no_grad -= no_grad
        self._forget_rebuilt_args(node, fn, params, pos)
        if frame.generator:
            return UNKNOWN
        out = None
        for r in frame.returns:
            out = join(out, r) if out is not None else r
        return out if out is not None else OTHER

    def _forget_rebuilt_args(self, node: cst.Call, fn: cst.FunctionDef, params: list, pos: list) -> None:
        """`load_adapter(pipe, ...)` doing `pipe.unet = PeftModel.from_pretrained(...)`: the
        caller's moved model now holds a part that may be anywhere."""
        rebuilt = _attr_assigned_params(fn)
        if not rebuilt:
            return
        positional = [a for a in node.args if a.keyword is None and not a.star]
        for i, p in enumerate(params[: len(positional)]):
            v = pos[i] if i < len(pos) else None
            if (p.name.value in rebuilt and v is not None and v.kind in (Kind.MODULE, Kind.OBJECT)
                    and v.moved_at is not None and isinstance(positional[i].value, (cst.Name, cst.Attribute))):
                self.rebind_text(positional[i].value, v.with_(moved_at=None, key=None, dev=Dev.UNKNOWN))

    def _harmless_decorator(self, d) -> bool:
        text = dotted(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator) or ""
        return text.rsplit(".", 1)[-1] in ("no_grad", "inference_mode", "staticmethod", "enable_grad", "wraps", "cache", "lru_cache")


# Methods only an nn.Module has together; on a value from code we cannot see they prove it is one.
_MODULE_PROOF = {"eval", "train", "load_state_dict", "parameters", "named_parameters", "state_dict", "requires_grad_",
                 "named_modules", "children", "modules", "zero_grad"}
# Roots whose objects place what they are given, or that we model elsewhere.
_NOT_MODEL_ROOTS = ("torch", "numpy", "accelerate", "lightning", "pytorch_lightning", "lightning_fabric", "deepspeed",
                    "transformers.Trainer", "transformers.Seq2SeqTrainer", "trl", "collections", "typing", "argparse",
                    "dataclasses", "functools", "itertools", "os", "sys", "pathlib", "logging", "json", "re",
                    "sklearn", "pandas", "PIL", "cv2", "wandb", "tensorboard", "tqdm", "ignite", "fastai", "mmcv",
                    "mmengine", "detectron2", "colossalai", "horovod", "fairscale")
_BUILDER_VERBS = re.compile(r"^(build|load|get|create|make|init|setup|prepare|from|restore|instantiate|wrap|to|"
                            r"convert|parallel|distribute|compile|fetch|read|open)", re.IGNORECASE)


def _maybe_model_builder(q: str) -> bool:
    """A class (`models.Teacher`) or an architecture function (`rc.wide_resnet`) imported from
    code we cannot see. Factories named like verbs (`build_model`, `load_model`) often move what
    they build, so they stay unknown."""
    if q.startswith(_NOT_MODEL_ROOTS) or "." not in q:
        return False
    last = q.rsplit(".", 1)[-1]
    if not last or last.startswith("_"):
        return False
    return last[0].isupper() or not _BUILDER_VERBS.match(last)


def _places_or_holds(v: Val) -> bool:
    """An argument that lets the callee place the model (a device) or wrap another model."""
    return v.kind in (Kind.DEVICE, Kind.MODULE) or (v.kind is Kind.UNKNOWN and v.mid is not None) or v.dev is Dev.ACCEL


# Module methods that take tensors without computing with the weights on them.
_NOT_COMPUTE = ("set_", "register_", "load_", "add_", "save", "push_", "resize_", "tie_", "prune_", "get_input",
                "get_output", "to", "cuda", "cpu", "apply", "half", "float", "double", "bfloat16", "share_memory",
                "buffers", "named_", "enable_", "disable_", "gradient_checkpointing", "print", "freeze", "unfreeze",
                "copy_", "update", "log", "configure_", "hook")


# Callees that turn tensors into images, text, files or numbers.
_CONVERTER = re.compile(r"pil|to_im|decode|save|show|plot|draw|visuali|render|print|log|write|format|dump|json|"
                        r"tolist|numpy|array|metric|score|accura|caption", re.IGNORECASE)


# Parameters named like modules (`new_module`, `child`, `backbone`) are not a forward's tensors.
_MODULE_NAME = re.compile(r"module|model|layer|net$|block|child|parent|encoder|decoder|backbone|head$", re.IGNORECASE)


_FRAMEWORK_CALL = re.compile(r"prepare|accelerat|fabric|setup|trainer|strategy", re.IGNORECASE)


def _iter_source(node) -> str:
    """`enumerate(tqdm(train_loader))` -> "train_loader"."""
    while isinstance(node, cst.Call) and node.args:
        node = node.args[0].value
    return dotted(node) or ""


_LENGTHS = re.compile(r"len|length|lens\b|\bsizes?\b", re.IGNORECASE)
# names of flags that say whether the accelerator is in use (`use_cuda`, `args.gpu`, `self.gpu_mode`,
# `args.no_cuda`), and those whose truth means the host (`no_cuda`, `cpu_only`)
_FLAG_NAME = re.compile(r"cuda|gpu|cpu|accel", re.IGNORECASE)
_CPU_FLAG = re.compile(r"no_?cuda|no_?gpu|cpu|disable_cuda", re.IGNORECASE)


def _flag_merge(merged: State, body: State, other: State, flag) -> None:
    """After `if F: x = x.cuda()`: x is on the accelerator exactly when F holds, not unknown."""
    for k, v in merged.vars.items():
        a, b = body.vars.get(k), other.vars.get(k)
        if a is None or b is None or a.kind is not b.kind:
            continue
        if a.dev is Dev.ACCEL and b.dev is Dev.CPU and a.cond in (None, flag):
            merged.vars[k] = a.with_(cond=flag)
        elif b.dev is Dev.ACCEL and a.dev is Dev.CPU and b.cond in (None, (flag[0], not flag[1])):
            merged.vars[k] = b.with_(cond=(flag[0], not flag[1]))

# Methods / torch functions whose result carries no autograd history (integer or bool results,
# detached copies), and those that return a (values, indices) tuple.
_NO_HISTORY_METHODS = {
    "detach", "detach_", "argmax", "argmin", "argsort", "eq", "ne", "lt", "le", "gt", "ge", "isnan",
    "isinf", "isfinite", "long", "int", "bool", "byte", "short", "nonzero", "bincount", "isclose",
    "count_nonzero", "unique", "sign", "floor_divide", "logical_and", "logical_or", "logical_not",
    "numel", "multinomial", "bernoulli", "searchsorted", "bucketize",
}
_TUPLE_RESULTS = {"sort", "topk", "kthvalue", "mode", "unique", "aminmax", "cummax", "cummin", "unique_consecutive"}
_NO_GRAD_NAMES = {"no_grad", "inference_mode", "set_grad_enabled"}
_LIST_FACTORIES = {"tensor", "as_tensor", "asarray", "Tensor", "FloatTensor", "LongTensor", "IntTensor",
                   "DoubleTensor", "BoolTensor", "ByteTensor", "HalfTensor"}


def _spelling(node) -> str:
    return dotted(node) or "the tokenizer"


def _mentions_no_grad(expr) -> bool:
    """`torch.no_grad()`, `inference_mode()`, `set_grad_enabled(...)` (any argument: we cannot
    tell it is True), also inside `a if b else c`."""
    for n in _walk(expr):
        if isinstance(n, cst.Name) and n.value in _NO_GRAD_NAMES:
            return True
        if isinstance(n, cst.Attribute) and n.attr.value in _NO_GRAD_NAMES:
            return True
    return False


def _no_grad_decorated(fn: cst.FunctionDef) -> int:
    return int(any(_mentions_no_grad(d.decorator) for d in fn.decorators))


def _surely_not_0dim(node: cst.Call) -> bool:
    """A factory call that certainly builds a tensor with at least one dimension (eager CUDA
    lets 0-dim host tensors such as `torch.tensor(2.0)` mix with device tensors)."""
    name = node.func.attr.value if isinstance(node.func, cst.Attribute) else dotted(node.func) or ""
    positional = [a for a in node.args if a.keyword is None]
    first = positional[0] if positional else None
    if name in _LIST_FACTORIES:
        data = first.value if first is not None and not first.star else None
        if isinstance(data, (cst.List, cst.Tuple)):
            return bool(data.elements)
        return isinstance(data, cst.ListComp)
    if first is None:
        return False
    if not first.star and isinstance(first.value, (cst.List, cst.Tuple)) and not first.value.elements:
        return False
    if name in ("empty", "zeros", "ones") and _zero_size(first.value):
        return False  # `torch.empty(0)`: an empty placeholder holds nothing to mix
    return name not in ("complex", "polar", "normal", "full") or (name == "full" and isinstance(first.value, (cst.List, cst.Tuple)))


_NUMBER_NAME = re.compile(
    r"(^|_)(sizes?|dims?|len|length|lengths|num|count|height|width|channels|heads|depth|stride|padding|eps)$|^(num|n)_",
    re.IGNORECASE)
_NUMBER_TYPES = {"int", "float", "bool", "str", "complex", "tuple", "list", "dict", "Size"}


def _number_param(p: cst.Param) -> bool:
    """A parameter that holds a size, a count or a flag, by its annotation or its name."""
    ann = p.annotation.annotation if p.annotation is not None else None
    if ann is not None:
        names = {n.value for n in _walk(ann) if isinstance(n, cst.Name)}
        names |= {n.attr.value for n in _walk(ann) if isinstance(n, cst.Attribute)}
        return bool(names) and names <= _NUMBER_TYPES | {"Optional", "None", "Union", "Sequence", "Tuple", "List", "typing"}
    return bool(_NUMBER_NAME.search(p.name.value))


def _is_staticmethod(fn: cst.FunctionDef) -> bool:
    return any(dotted(d.decorator) == "staticmethod" for d in fn.decorators)


def _zero_size(node) -> bool:
    if isinstance(node, (cst.List, cst.Tuple)) and len(node.elements) == 1:
        node = node.elements[0].value
    return isinstance(node, cst.Integer) and node.value == "0"


def _result_of(vals) -> Val:
    """The tensor an operation on `vals` yields. An operand we know nothing about could be a
    device tensor, so it makes the result's device unknown too."""
    # something moved with .to() is a tensor here, even when we could not tell before
    vals = [v.with_(kind=Kind.TENSOR) if v.kind is Kind.UNKNOWN and v.dev is not Dev.UNKNOWN else v for v in vals]
    tensors = [v for v in vals if v.kind is Kind.TENSOR]
    if not tensors:
        return OTHER if all(v.kind is Kind.OTHER for v in vals) else UNKNOWN
    grad = any(v.grad for v in tensors)
    on_module = any(v.on_module for v in tensors)
    if any(v.kind is Kind.UNKNOWN for v in vals):
        return Val(Kind.TENSOR, grad=grad, on_module=on_module)
    out = tensors[0]
    for v in tensors[1:]:
        out = join(out, v)
    return Val(Kind.TENSOR, out.dev, key=out.key, loader=out.loader, fresh=out.fresh, grad=grad, on_module=on_module,
               attr=out.attr if out.fresh else None, born=out.born if out.fresh else None)


def _dtype_text(call) -> str | None:
    """How a move or factory call spells its dtype (`dtype=` or `.to(device, dtype)`)."""
    if not isinstance(call, cst.Call):
        return None
    positional = [a for a in call.args if a.keyword is None and not a.star]
    for a in call.args:
        if a.keyword is not None and a.keyword.value == "dtype":
            return dotted(a.value) or "?"
    if isinstance(call.func, cst.Attribute) and call.func.attr.value == "to" and len(positional) >= 2:
        return dotted(positional[1].value) or "?"
    return None


_SELF_RETURNING = {"eval", "train", "requires_grad_", "half", "float", "double", "bfloat16", "share_memory", "apply"}


def _chain_root(node):
    """`model.eval()` -> `model`: module methods that return the module itself."""
    while (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
           and node.func.attr.value in _SELF_RETURNING):
        node = node.func.value
    return node


def _places_anything(fn) -> bool:
    """Moves something (`.to()` / `.cuda()`) or builds a tensor with `device=`."""
    for n in _walk(fn):
        if isinstance(n, cst.Call):
            if isinstance(n.func, cst.Attribute) and n.func.attr.value in ("to", "cuda"):
                return True
            if any(a.keyword is not None and a.keyword.value == "device" for a in n.args):
                return True
    return False


def _changed_in(loop):
    """Names (and dotted attributes) a loop rebinds or mutates in place, and how many
    device moves it makes on each."""
    changed = set()
    moves: dict = {}

    def add_target(t):
        if isinstance(t, (cst.Name, cst.Attribute)):
            text = dotted(t)
            if text:
                changed.add(text)
        elif isinstance(t, (cst.Tuple, cst.List)):
            for el in t.elements:
                add_target(el.value)
        elif isinstance(t, (cst.Subscript, cst.StarredElement)):
            add_target(t.value)

    if isinstance(loop, cst.For):
        add_target(loop.target)
    for n in _walk(loop.body):
        if isinstance(n, cst.AssignTarget):
            add_target(n.target)
        elif isinstance(n, (cst.AugAssign, cst.AnnAssign)):
            add_target(n.target)
        elif isinstance(n, (cst.For, cst.CompFor)):
            add_target(n.target)
        elif isinstance(n, cst.NamedExpr):
            add_target(n.target)
        elif isinstance(n, cst.AsName):
            add_target(n.name)
        elif isinstance(n, cst.Del):
            add_target(n.target)
        elif isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute):
            attr = n.func.attr.value
            if attr.endswith("_") or attr in ("append", "extend", "update", "insert", "pop", "clear"):
                add_target(n.func.value)
            elif attr in ("to", "cuda", "cpu"):
                text = expr_text(_chain_root(n.func.value))
                if text:
                    moves[text] = moves.get(text, 0) + 1
    return changed, moves


_EVAL = {
    cst.Name: Interpreter.eval_name,
    cst.Attribute: Interpreter.eval_attribute,
    cst.Call: Interpreter.eval_call,
    cst.Subscript: Interpreter.eval_subscript,
    cst.BinaryOperation: Interpreter.eval_binop,
    cst.UnaryOperation: Interpreter.eval_unary,
    cst.Comparison: Interpreter.eval_compare,
    cst.BooleanOperation: Interpreter.eval_boolop,
    cst.IfExp: Interpreter.eval_ifexp,
    cst.SimpleString: Interpreter.eval_string,
    cst.ConcatenatedString: Interpreter.eval_literal,
    cst.FormattedString: Interpreter.eval_literal,
    cst.Integer: Interpreter.eval_literal,
    cst.Float: Interpreter.eval_literal,
    cst.Imaginary: Interpreter.eval_literal,
    cst.Ellipsis: Interpreter.eval_literal,
    cst.Tuple: Interpreter.eval_sequence,
    cst.List: Interpreter.eval_sequence,
    cst.Set: Interpreter.eval_sequence,
    cst.Dict: Interpreter.eval_dict,
    cst.ListComp: Interpreter.eval_comprehension,
    cst.SetComp: Interpreter.eval_comprehension,
    cst.GeneratorExp: Interpreter.eval_comprehension,
    cst.DictComp: Interpreter.eval_comprehension,
    cst.NamedExpr: Interpreter.eval_named,
    cst.Await: Interpreter.eval_await,
    cst.Yield: Interpreter.eval_yield,
    cst.Lambda: Interpreter.eval_lambda,
}


def infer(module: cst.Module, imports: Imports, default_device_set: bool = False) -> Facts:
    """Run the interpreter twice; the second run's facts know every model's placement."""
    first = Facts()
    interp = Interpreter(module, imports, None, first)
    interp.default_device_set = default_device_set
    interp.run()
    if not _mentions_built_model(first):
        return first  # the second run only refines models built in this file: none took part
    final = Facts(model_moves=first.model_moves, escaped=first.escaped)
    final.accel_classes = _accel_classes(first, interp)
    interp = Interpreter(module, imports, first, final)
    interp.default_device_set = default_device_set
    interp.run()
    # Moves and escapes seen only in the second run (new contexts) still count.
    return final


def _accel_classes(facts: Facts, interp: Interpreter) -> set:
    """File-local nn.Module classes that run on the accelerator: an instance is moved there
    (only there), or called with device data; and the file-local classes they are built from."""
    out = set()
    for mid, moves in facts.model_moves.items():
        cls = facts.mid_class.get(mid)
        if cls is not None and moves and all(d is Dev.ACCEL for d, _ in moves):
            out.add(cls)
    for call in facts.module_calls:
        if isinstance(call.model.ref, cst.ClassDef) and any(contents_on_accel(a) for a in call.args):
            out.add(call.model.ref)
    todo = list(out)
    local = {name: v.ref for name, v in (interp.module_frame.state.vars.items() if interp.module_frame else ())
             if v.kind is Kind.CLASS}
    while todo:
        cls = todo.pop()
        init = interp.class_info.get(id(cls), {}).get("methods", {}).get("__init__")
        if init is None:
            continue
        for n in _walk(init):
            if isinstance(n, cst.Call) and isinstance(n.func, cst.Name):
                part = local.get(n.func.value)
                if part is not None and part not in out and interp.class_of(part)["module"]:
                    out.add(part)
                    todo.append(part)
    return out


# Attributes that hold settings, not tensors, on whatever object.
_SETTINGS_ATTRS = {"hparams", "config", "cfg", "args", "opt", "params", "meta", "metadata", "name", "names", "keys"}

# Methods of logging helpers that yield what they are given (DETR / DINO / MAE's MetricLogger).
_LOGGING_ITER = re.compile(r"log_every$|track$|progress$")

# einops functions whose result is a tensor on its first argument's device
_EINOPS_RESHAPES = {"rearrange", "repeat", "reduce", "einsum"}

# Wrappers that leave the module where it is (unlike FSDP, which may place it), and the mark
# of what they return: calling it scatters host inputs to the module's device.
_KEEPS_PLACEMENT = {"DataParallel", "DistributedDataParallel"}
_SCATTERS = "scatters-inputs"

def _wrap_in_place(cls: str, pos: list) -> Val | None:
    """`nn.DataParallel(net)` / `DistributedDataParallel(net, device_ids=[rank])` move
    nothing: the module must already be on the first device, so the wrapper is where the
    wrapped model (or a moved unknown) is, and a model never moved stays unmoved behind it.
    None for other calls."""
    inner = pos[0] if cls in _KEEPS_PLACEMENT and pos else None
    if inner is None or not (inner.kind is Kind.MODULE or (inner.kind is Kind.UNKNOWN and inner.dev is not Dev.UNKNOWN)):
        return None
    return inner.with_(kind=Kind.MODULE, param_free=False, ref=_SCATTERS)


# Methods that give a plain number (or list) whatever they are called on.
_NUMBER_METHODS = {"size", "dim", "ndimension", "numel", "nelement", "element_size", "item", "tolist"}


def _attr_assigned_params(fn: cst.FunctionDef) -> set:
    """Parameters of `fn` whose attributes it assigns (`pipe.unet = ...`)."""
    names = {p.name.value for p in _param_names(fn)}
    out = set()
    for n in _walk(fn):
        if isinstance(n, cst.AssignTarget) and isinstance(n.target, cst.Attribute):
            root = n.target.value
            if isinstance(root, cst.Name) and root.value in names:
                out.add(root.value)
    return out


def _is_test_case(cls: cst.ClassDef) -> bool:
    return any((dotted(b.value) or "").rsplit(".", 1)[-1].endswith("TestCase") for b in cls.bases)


def _places_inputs(fn: cst.FunctionDef) -> bool:
    """A method that asks where the model is (`next(self.parameters()).is_cuda`, `.device`)
    or moves something itself: what it is given need not be on the device already."""
    for n in _walk(fn):
        if isinstance(n, cst.Attribute) and n.attr.value in ("device", "is_cuda"):
            return True
        if isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and n.func.attr.value in ("to", "cuda"):
            return True
    return False


def _reachable(methods: dict, start: str) -> set:
    """`start` (when the class has it) and the methods it calls through `self.<name>(...)`,
    transitively."""
    seen: set = {start} if start in methods else set()
    todo = [start]
    while todo:
        fn = methods.get(todo.pop())
        if fn is None:
            continue
        for n in _walk(fn):
            if (isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and isinstance(n.func.value, cst.Name)
                    and n.func.value.value == "self" and n.func.attr.value in methods
                    and n.func.attr.value not in seen):
                seen.add(n.func.attr.value)
                todo.append(n.func.attr.value)
    return seen


def _mentions_built_model(facts: Facts) -> bool:
    if facts.model_moves or any(c.model.mid is not None for c in facts.module_calls):
        return True
    vals = [v for m in facts.mixes for v in m.operands] + [m.recv for m in facts.moves] + [n.val for n in facts.numpy]
    return any(v.mid is not None for v in vals)
