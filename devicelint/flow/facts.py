"""What the interpreter records for the rules: module calls, device mixes, moves, NumPy
conversions, accumulations, syncs, loader moves. Rules read these facts and never re-derive them."""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from devicelint.values import Val


@dataclass
class ModuleCall:
    node: cst.Call
    model: Val
    args: list
    blame: cst.CSTNode  # where the model, not a function parameter, enters the call chain
    method: str | None = None  # `model.generate(ids)`: the model's method, not the model itself
    # the module class whose `forward` (or a method it calls) makes this call: its inputs are
    # where that module is, on the device when this file moves it only there
    cls: cst.ClassDef | None = None
    # a library function that runs the model on inputs it makes (`summary(model, (3, 32, 32))`):
    # the model is its argument, the inputs are the function's own
    runner: str | None = None
    # a method of a project object that runs the model its constructor kept
    # (`explainer.saliency(x)`, crossfile.Runner): the caller's name of that model
    via: str | None = None
    # the argument that hands the model to a function running it (`writer.add_graph(model=net,
    # ...)`, `torch.jit.trace(net, x)`): how messages name the model, not by the callee
    handed: cst.BaseExpression | None = None


@dataclass
class Mix:
    node: cst.CSTNode
    operands: list  # Val of every tensor / module taking part
    cls: cst.ClassDef | None = None  # the nn.Module class whose method does this, if any
    in_forward: bool = False  # in that class's `forward` or a method it calls
    # inlined here through these calls, innermost first: (the call, the function it is in,
    # the function it calls)
    calls: tuple = ()


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
    # a tensor already on the very device it is sent to (same device key, no dtype change): the
    # move returns it unchanged, so throwing the result away loses nothing
    noop: bool = False


@dataclass
class NumpyConv:
    node: cst.Call
    val: Val
    # a library call that converts its inputs (`accuracy_score(y, preds)`): the argument
    # converted; None for `.numpy()`, `np.array(t)`, `np.asarray(t)` (the call converts)
    arg: cst.BaseExpression | None = None
    # an input of a module that runs on the device whatever the file moves, and why:
    # "aware" / "lightning" (methods.Methods.aware_module_input); None otherwise
    module_input: str | None = None


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
class Back:
    """A tensor brought back to the host (`.cpu()`, `.to("cpu")`, `.item()`, `.tolist()`) while
    its value is still exactly what a move put on the device (only casts and `detach` between):
    a round trip when nothing used it there (DL021 asks where the name is read)."""
    node: cst.Call
    what: str
    move: cst.Call  # the move whose result this is (`Val.moved_at`)
    func: cst.FunctionDef | None  # the function running both (None: the module's code)


@dataclass
class LoaderMove:
    node: cst.Call  # `x.to(device)` of a batch that came straight from `loader`
    loader: cst.Call  # the DataLoader(...) call
    non_blocking: bool


@dataclass
class ParamMix:
    """The parameters of a model on the host meeting tensors on the device (an EMA update,
    a momentum encoder): `param` carries the model's identity in `mid`."""
    node: cst.CSTNode
    param: Val
    blame: cst.CSTNode  # where the model, not a function parameter, enters the call chain


@dataclass(frozen=True)
class PlacedItems:
    """The mark a Dataset value carries when its own `__getitem__` (or a method it calls) puts
    what it returns on the device: the call that does it, and the class."""
    place: cst.Call
    cls: cst.ClassDef


@dataclass
class PlacingLoader:
    """`DataLoader(ds, ...)` over a dataset whose `__getitem__` places its items on the device.
    `scope` is where the call is (its FunctionDef, None at module level), for reading the
    values of `num_workers=` / `pin_memory=`."""
    node: cst.Call
    items: PlacedItems
    scope: cst.FunctionDef | None


@dataclass(frozen=True)
class OptimizerOf:
    """The mark an optimizer value carries when it was built from the parameters of a model of
    this file still on the host: the model's identity and how the code spelled it there
    (`model`, `self.net`), and whether its state holds tensors (SGD without momentum has none)."""
    mid: object
    model_text: str
    stateful: bool


@dataclass
class OptimizerLoad:
    """`optimizer.load_state_dict(...)` with the model whose parameters it holds still on the
    host here (`model` is its value at this point), in a file that moves that model to the
    accelerator: the loaded state is cast to the host."""
    node: cst.Call
    model: Val
    model_text: str  # how the optimizer's construction spelled the model (`model`, `self.net`)


@dataclass
class Facts:
    module_calls: list = field(default_factory=list)
    param_mixes: list = field(default_factory=list)
    mixes: list = field(default_factory=list)
    moves: list = field(default_factory=list)
    numpy: list = field(default_factory=list)
    accums: list = field(default_factory=list)
    # host syncs every step of a training loop over a loader (no `if` between the loop and them)
    syncs: list = field(default_factory=list)
    backs: list = field(default_factory=list)  # Back: device copies brought back to the host
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
    # model identity -> one frozenset per move: the functions on the call path the move ran
    # in (its own and every caller it was inlined into), so a move made by a helper the model
    # was handed to is seen as coming after the build in the builder
    move_paths: dict = field(default_factory=dict)
    escaped: set = field(default_factory=set)
    api_calls: list = field(default_factory=list)  # (call node, qualified name) of every library call
    # torch.load call -> one {name: Val} per context it ran in: the device-named variables in
    # scope there (for the `map_location=` fix)
    load_scopes: dict = field(default_factory=dict)
    # model construction call -> one {name: Val} per context it ran in (for DL001's `.to(device)` fix)
    build_scopes: dict = field(default_factory=dict)
    # call of a file-local function that returns a model it built -> one (the model's
    # construction call, device names in scope at the call) per context (DL001's fix)
    helper_builds: dict = field(default_factory=dict)
    # `for` over a loader -> one (device names in scope, loop-target names bound to a host
    # batch tensor) per context it ran in (for DL002's fix)
    batch_loops: dict = field(default_factory=dict)
    # (`for` statement or `iter(...)` call, the DataLoader(...) call that built the loader it iterates, the
    # `torch.device(...)` of the innermost `with` block it runs in or None), per context: where
    # a loader's sampler draws its permutation (DL019)
    loader_loops: list = field(default_factory=list)
    # (`random_split(...)` call, the innermost `with torch.device(...)` it runs in or None) (DL019)
    random_splits: list = field(default_factory=list)
    # factory call making a fresh host tensor -> device names in scope, per context (DL011's fix)
    factory_scopes: dict = field(default_factory=dict)
    saves: list = field(default_factory=list)  # (torch.save call, Val of what it saves)
    # a method (`forward` first) of a file-local class -> what it returns when run on its own
    # (which parts of a returned tuple are plain numbers, such as a pooling ratio; a training
    # method's lists of `loss.item()` numbers)
    forward_returns: dict = field(default_factory=dict)
    # (`DistributedDataParallel(model, device_ids=[gpu])` call, the wrapped model's value, whether
    # the model was handed to code we cannot see before): the wrapper wants it on that GPU already
    gpu_wraps: list = field(default_factory=list)
    placing_loaders: list = field(default_factory=list)  # PlacingLoader
    optimizer_loads: list = field(default_factory=list)  # OptimizerLoad
    # `if` statement or conditional expression whose test is a device condition -> whether the
    # test holds where the accelerator is used (True) or where it is not (False); None where
    # the contexts it ran in disagree
    place_tests: dict = field(default_factory=dict)

    def note_place_test(self, branch, accel: bool) -> None:
        old = self.place_tests.get(branch, accel)
        self.place_tests[branch] = accel if old == accel else None

    def device_arms(self, branch) -> tuple | None:
        """(host arm, device arm) of an `if` or conditional expression on a device condition
        (`if not use_gpu:`, `x.cpu() if args.cuda else x`): the statements or expression that
        run where no accelerator is used, and those that run where one is. None for a branch
        on anything else, or one the interpreter never ran."""
        accel = self.place_tests.get(branch)
        if accel is None:
            return None
        return (branch.orelse, branch.body) if accel else (branch.body, branch.orelse)


