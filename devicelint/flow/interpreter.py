"""The interpreter: one object composed of the parts of the language and of torch it knows.

Two parts are mixins in their own modules (expressions, calls): they share the state kept
here (frames, the facts being recorded, the caches) and call each other through `self`. The others are composed, objects held here and handed the interpreter
through a declared interface (a Protocol): `self.flags` (flags.DeviceFlags, the device flags
of the path being run), `self.recording` (recording.Recording, where the run stands and the
facts it records there), `self.models` (models.Models, a model's identity and placement),
`self.moves` (moves.Moves, what a `.to()`/`.cuda()`/`.cpu()` gives and the record of each
move), `self.library` (library.Library, what library calls build, DataLoaders and their
collate functions), `self.api` (api_calls.ApiCalls, calls of torch and other libraries by
qualified name), `self.classes` (classes.Classes, the summary of each class of the file),
`self.user_code` (classes.UserCode, calls of the file's functions and classes run inline),
`self.methods` (methods.Methods, method calls on values: tensors', modules', the file's classes')
and `self.statements` (statements.Statements, statements run in order and what each binds);
the other mixins become parts the same way, one per step (docs/ARCHITECTURE.md §3 step 6).
This module holds the entry points: running a file's body and every function and method,
and `infer`, which runs the interpreter twice and returns the facts."""

from __future__ import annotations


import libcst as cst

from devicelint import contexts, naming
from devicelint.names import Imports, dotted
from devicelint.values import OTHER, UNKNOWN, Dev, Instance, Kind, Val, contents_on_accel
from devicelint.flow.facts import Facts
from devicelint.flow.state import Frame
from devicelint.flow.nodes import no_grad_decorated, param_names, text_root, walk
from devicelint.flow.flags import DeviceFlags
from devicelint.flow.statements import Statements
from devicelint.flow.recording import Recording
from devicelint.flow.expressions import EVAL_METHODS, MODULE_NAME, Expressions
from devicelint.flow.calls import Calls
from devicelint.flow.methods import Methods
from devicelint.flow.moves import Moves
from devicelint.flow.api_calls import ApiCalls
from devicelint.flow.library import Library
from devicelint.flow.models import Models
from devicelint.flow.classes import Classes, UserCode
from devicelint.flow.setup_order import setup_order



_NUMBER_TYPES = {"int", "float", "bool", "str", "complex", "tuple", "list", "dict", "Size"}


def _number_param(p: cst.Param) -> bool:
    """A parameter that holds a size, a count or a flag, by its annotation or its name."""
    ann = p.annotation.annotation if p.annotation is not None else None
    if ann is not None:
        names = {n.value for n in walk(ann) if isinstance(n, cst.Name)}
        names |= {n.attr.value for n in walk(ann) if isinstance(n, cst.Attribute)}
        return bool(names) and names <= _NUMBER_TYPES | {"Optional", "None", "Union", "Sequence", "Tuple", "List", "typing"}
    return bool(naming.NUMBER_NAME.search(p.name.value))


def _is_staticmethod(fn: cst.FunctionDef) -> bool:
    return any(dotted(d.decorator) == "staticmethod" for d in fn.decorators)


class Interpreter(Expressions, Calls):
    def __init__(self, module: cst.Module, imports: Imports, known: Facts | None, facts: Facts):
        self.module = module
        self.imports = imports
        self.known = known  # what the previous run learnt about models
        self.facts = facts
        self.frame: Frame | None = None
        self.module_frame: Frame | None = None
        self.steps = 0  # statements run: inlining stops after STEP_BUDGET
        self.work = 0  # expressions evaluated: the file is too complex after work_limit
        self.work_limit = None
        self.escaped_so_far: set = set()  # models handed to code we cannot see, in this run, up to here
        self.default_device_set = False
        self.no_grad = 0  # >0 while gradients are off (dynamic scope, as in torch)
        # the `torch.device(...)` calls of the `with` blocks running now, innermost last: the
        # default device is dynamically scoped, as in torch (callees run under it too)
        self.device_scopes: list = []
        self.last_binop = None  # (node, left, right) of the latest binary operation
        self.loader_loops: set = set()  # id() of loops over a data loader
        self.body_cache: dict = {}
        # the parts (passed explicitly, each with its declared interface, not mixed in)
        self.flags = DeviceFlags(self)  # device flags assumed on the path being run
        self.recording = Recording(self)  # where the run stands, and the facts it records there
        self.models = Models(self)  # models built here: identity and placement
        self.library = Library(self)  # what library calls build, DataLoaders and their collate functions
        self.moves = Moves(self)  # `.to()`/`.cuda()`/`.cpu()`: where a value lands, which moves repeat
        self.api = ApiCalls(self)  # calls of torch and other libraries by qualified name
        self.classes = Classes(self)  # the summary of each class of the file
        self.user_code = UserCode(self)  # calls of this file's functions and classes, run inline
        self.methods = Methods(self)  # method calls on values: tensors', modules', the file's classes'
        self.statements = Statements(self)  # statements run in order, and what each binds
        self.assigning = None  # the value node of the `=` statement being bound
        self.assigning_to = None  # its target, when it is bound whole (one target, no unpacking)

    def run(self) -> None:
        self.module_frame = self.frame = Frame(None, None, None, None)
        self.statements.exec_body(self.module.body)
        self.run_standalone(self.module.body, self.module_frame)

    def run_standalone(self, body, module_frame) -> None:
        """Every top-level function and class method, with unknown parameters."""
        for stmt in body:
            if isinstance(stmt, cst.FunctionDef):
                self.analyze_function(stmt, module_frame, None)
            elif isinstance(stmt, cst.ClassDef):
                info = self.classes.class_of(stmt)
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
                for fn in setup_order(info["methods"]):
                    self.analyze_function(fn, module_frame, self_val)
            elif isinstance(stmt, (cst.If, cst.Try)):
                # functions defined under `if TYPE_CHECKING:` / `try: ... except ImportError:`
                self.run_standalone(getattr(stmt.body, "body", ()), module_frame)

    def analyze_function(self, fn: cst.FunctionDef, closure: Frame, self_val: Val | None) -> None:
        saved = self.frame
        frame = Frame(fn, None, None, closure, self_val)
        self.frame = frame
        no_grad = no_grad_decorated(fn)
        self.no_grad += no_grad
        try:
            params = param_names(fn)
            if self_val is not None and params and not _is_staticmethod(fn):
                frame.state.vars[params[0].name.value] = self_val
                params = params[1:]
            self.bind_params(fn, params, closure, self_val)
            self.statements.exec_body(fn.body.body if isinstance(fn.body, cst.IndentedBlock) else fn.body.body)
            if self_val is not None and frame.returns:
                # every method's: `forward`'s number parts, another method's lists of numbers
                self.facts.forward_returns[fn] = frame.returned()
        finally:
            self.frame = saved
            self.no_grad -= no_grad

    def bind_params(self, fn: cst.FunctionDef, params, closure: Frame, self_val: Val | None) -> None:
        """The parameters of `fn` run on its own: what its callers agree on (contexts.py), else
        a guess by default value and name."""
        module_method = self.recording.mod_cls() is not None and fn.name.value not in ("__init__", "__call__")
        if module_method and fn.name.value != "forward" and fn.name.value in self.classes.class_of(self.recording.mod_cls())["forward_path"]:
            # a helper `forward` calls runs inlined there with the real arguments; on its own
            # its parameters are no more inputs than counts or windows (`left_chunk`)
            module_method = False
        cls = self_val.ref.cls if self_val is not None and isinstance(self_val.ref, Instance) else None
        given = contexts.entry_values(self, fn, cls) if closure is self.module_frame and (
            self_val is None or cls is not None) else {}
        for p in (*params, *fn.params.kwonly_params):
            v = given.get(p.name.value) or self.param_guess(p)
            if module_method and v.kind is Kind.UNKNOWN and _number_param(p):
                v = OTHER  # `q_size: int`, `embedding_dim`, `num_heads`: sizes, not inputs
            if module_method and v.kind is Kind.UNKNOWN and v.dev is Dev.UNKNOWN and p.star not in ("*", "**") and (
                p.default is None or (isinstance(p.default, cst.Name) and p.default.value == "None")
            ) and not MODULE_NAME.search(p.name.value):
                # an input of a module's forward: it lives wherever the module lives
                v = Val(Kind.TENSOR, on_module=True)
            self.frame.state.vars[p.name.value] = v

    def param_guess(self, p: cst.Param) -> Val:
        name = p.name.value
        if p.default is not None:
            default = self.eval(p.default)
            if default.kind is not Kind.UNKNOWN and default.kind is not Kind.OTHER:
                return default
        guess = self.guess_by_name(name, scope=self.frame.func)
        if guess.kind is Kind.LOADER and self.library.file_hands_placing_collate():
            return UNKNOWN  # the loaders handed in may be ones whose collate_fn moves each batch
        return guess

    def txt_key(self, scope, text: str) -> tuple:
        """A device known only by its spelling (`inputs_embeds.device`): equal keys mean the
        same device only while nothing it is spelled with has been rebound."""
        versions = self.frame.versions if self.frame is not None else {}
        return ("txt", id(scope), text, versions.get(text_root(text), 0), versions.get(text, 0))

    def guess_by_name(self, text: str, scope) -> Val:
        """Names are the last resort: `device`, `args.device` -> a device; `train_loader` -> a loader."""
        if naming.looks_like_device_name(text) and "cpu" in text.rsplit(".", 1)[-1].lower():
            return Val(Kind.DEVICE, Dev.CPU, key=("lit", "cpu"), name=text)  # `self._cpu_device`
        if "." in text and text.split(".")[0] not in naming.CONFIG_OBJECTS:
            if naming.looks_like_device_name(text):
                return Val(Kind.DEVICE, Dev.UNKNOWN, key=self.txt_key(scope, text), name=text)
            return UNKNOWN
        if naming.looks_like_device_name(text):
            return Val(Kind.DEVICE, Dev.ACCEL, key=self.txt_key(scope, text), name=text)
        if naming.looks_like_loader_name(text):
            return Val(Kind.LOADER, Dev.CPU, name=text)
        return UNKNOWN


# The expression dispatch table holds plain functions (not names) because eval is the hottest
# path; it can only be built once every part's methods are on the class.
Interpreter.dispatch = {node_type: getattr(Interpreter, name) for node_type, name in EVAL_METHODS.items()}


def infer(module: cst.Module, imports: Imports, default_device_set: bool = False, budget: int | None = None) -> Facts:
    """Run the interpreter twice; the second run's facts know every model's placement.
    `budget`: the expressions both runs may evaluate together (limits.TooComplex beyond)."""
    first = Facts()
    interp = Interpreter(module, imports, None, first)
    interp.default_device_set = default_device_set
    interp.work_limit = budget
    interp.run()
    if not _mentions_built_model(first):
        return first  # the second run only refines models built in this file: none took part
    final = Facts(model_moves=first.model_moves, escaped=first.escaped, gpu_wraps=first.gpu_wraps)
    final.accel_classes = _accel_classes(first, interp)
    used = interp.work
    interp = Interpreter(module, imports, first, final)
    interp.default_device_set = default_device_set
    interp.work, interp.work_limit = used, budget
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
        init = interp.classes.class_info.get(id(cls), {}).get("methods", {}).get("__init__")
        if init is None:
            continue
        for n in walk(init):
            if isinstance(n, cst.Call) and isinstance(n.func, cst.Name):
                part = local.get(n.func.value)
                if part is not None and part not in out and interp.classes.class_of(part)["module"]:
                    out.add(part)
                    todo.append(part)
    return out


def _is_test_case(cls: cst.ClassDef) -> bool:
    return any((dotted(b.value) or "").rsplit(".", 1)[-1].endswith("TestCase") for b in cls.bases)


def _mentions_built_model(facts: Facts) -> bool:
    if facts.model_moves or any(c.model.mid is not None for c in facts.module_calls):
        return True
    vals = [v for m in facts.mixes for v in m.operands] + [m.recv for m in facts.moves] + [n.val for n in facts.numpy]
    return any(v.mid is not None for v in vals)