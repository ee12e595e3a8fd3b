"""The abstract state: the values of names and `self` attributes on the current path, and a
frame (one function activation with its scope and closure)."""

from __future__ import annotations

from devicelint.values import join


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
        self.moved_models: set = set()  # identities of models a move ran on in this frame, on any path
        self.versions: dict = {}  # name -> how often it was rebound (for textual device keys)
        self.conds = 0  # how many `if` branches enclose the statement being run
        self.loop_conds: list = []  # `conds` at the entry of each enclosing loop

    def call_path(self) -> frozenset:
        """The functions this frame runs in: its own and every caller it was inlined into."""
        funcs = []
        frame = self
        while frame is not None:
            funcs.append(frame.func)
            frame = frame.parent
        return frozenset(funcs)

    def returned(self):
        """What the function returns on any of its paths (their join), or None."""
        out = None
        for r in self.returns:
            out = join(out, r) if out is not None else r
        return out

    def lookup(self, name: str):
        f = self
        while f is not None:
            v = f.state.vars.get(name)
            if v is not None:
                return v
            f = f.closure
        return None


