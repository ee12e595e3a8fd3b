"""Top-down parameter values ("call-site contexts", docs/ARCHITECTURE.md §2.4): what the
callers of a module-level function, in this file and in the other files of the project, hand
to each of its parameters, by position or keyword, with the function's default where a
caller leaves one out.

It reads the call sites that summary.py records per file (`sites`: the argument descriptors
where each call runs) and resolves them in the caller's file the way project.py resolves an
imported name (a model built by a factory in `models.py`, moved or not; a device; a loader;
`None`). A caller's own parameter is resolved through the caller's context in turn (bounded
by MAX_DEPTH, cycles unknown). A parameter's context is the join over every call site; it
is unknown (absent: the interpreter guesses as before) when a caller passes something we
cannot tell, when callers disagree, when the function is never called in the project, or is
handed around as a value (`Thread(target=train)`), or the project is too large to scan.

The interpreter asks `entry_values` when it runs a module-level function on its own; calls
inside one file are still followed by inlining, with the real values, so a host model handed
in by a caller of the same file is left to that (DL001 reports it at the call), and only
models from callers in other files become a parameter's identity here.

Cache: the files whose call sites gave a context are added to the view's dependencies. A file
that starts calling the function only later is seen when this file is linted anew.
"""

from __future__ import annotations

import os

import libcst as cst

from devicelint import files as fs
from devicelint import naming
from devicelint import project as pj
from devicelint.knowledge.torch_core import SIGNATURE_KEEPING_DECORATORS
from devicelint.flow.nodes import walk
from devicelint.names import dotted
from devicelint.values import SCATTERS
from devicelint.values import NONE, Dev, Kind, Val

MAX_FILES = 400  # project files scanned for callers; beyond that no context (stay silent)
MAX_DEPTH = 4  # caller-of-caller resolution
MAX_SITES = 400  # summary.MAX_SITES: a caller file with this many sites may have more than its summary kept
# The folders a lint skips (files.py), and `env`, a virtualenv's usual name: this scan does
# not look for the `pyvenv.cfg` that tells a lint any virtualenv (hidden folders: below).
_SKIP_DIRS = fs.DEFAULT_EXCLUDE | {"env"}

_DAMAGE = (KeyError, TypeError, ValueError, IndexError, AttributeError, OSError, RecursionError)

def project_files(root: str):
    """The project's Python files (hidden folders and environments skipped), or None when there
    are more than MAX_FILES. During one run (project.remember_paths) the listing is kept with
    that run's other path facts, so a later run (an editor's next lint) lists anew."""
    run = pj._entries
    key = ("contexts: project files", root)
    if run is not None and key in run:
        return run[key]
    out = []
    for here, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS)
        out.extend(os.path.join(here, f) for f in sorted(files) if f.endswith(".py"))
        if len(out) > MAX_FILES:
            out = None
            break
    if run is not None:
        run[key] = out
    return out


def project_table(store, root: str):
    """(last name -> [("site", file, site) | ("ref", file, text) | ("base", file, text)], file ->
    summary hash) over the project's files: every call site, value read and base class, by
    the last part of the name it spells, built once per run; None for a project too large."""
    run = pj._entries
    key = ("contexts: call sites", root)
    if run is not None and key in run:
        return run[key]
    files = project_files(root)
    out = None
    if files is not None:
        by_name: dict = {}
        hashes = {}
        for cpath in files:
            entry = store.entry_for(cpath)
            s = entry.get("s") if isinstance(entry, dict) else None
            if s is None:
                continue
            hashes[cpath] = entry["h"]
            for cls in s["classes"].values():
                for base in cls["bases"]:
                    by_name.setdefault(base.rsplit(".", 1)[-1], []).append(("base", cpath, base))
            for ref in s.get("refs", ()):
                by_name.setdefault(ref.rsplit(".", 1)[-1], []).append(("ref", cpath, ref))
            for site in s.get("sites", ()):
                by_name.setdefault(site[1].rsplit(".", 1)[-1], []).append(("site", cpath, site))
        out = (by_name, hashes)
    if run is not None:
        run[key] = out
    return out


class Contexts:
    """The contexts of one linted file's functions, seen through its project view."""

    def __init__(self, view) -> None:
        self.view = view
        self.path = view.path
        self._views: dict = {}  # caller path -> its own FileView (the linted view's file budget stays its own)
        self._sites = None  # project_table(), False when there is none
        self._done: dict = {}
        self._busy: set = set()

    # ------------------------------------------------------------------ call sites

    def caller_view(self, path: str):
        v = self._views.get(path)
        if v is None:
            v = self._views[path] = pj.FileView(path, self.view.store)
        return v

    def sites_of(self, path: str, name: str):
        """[(caller path, site)] of the calls of `path`'s function (or class) `name`; None when
        it is read as a value or subclassed somewhere (calls we cannot see)."""
        key = ("sites", path, name)
        if key not in self._done:
            self._done[key] = self._sites_of(path, name)
        return self._done[key]

    def _sites_of(self, path: str, name: str):
        table = self._table()
        if table is None:
            return None
        by_name, hashes = table
        out = []
        for what, cpath, x in by_name.get(name, ()):
            text = x[1] if what == "site" else x
            if self.caller_view(cpath).qualify(cpath, text) not in (("function", path, name), ("class", path, name)):
                continue
            if what != "site":
                return None  # `Thread(target=train)`, `class Sub(Agent)`: it runs where no site shows
            out.append((cpath, x))
            self.view.deps[cpath] = hashes[cpath]
        return out

    def _table(self):
        if self._sites is None:
            self._sites = project_table(self.view.store, self.view.root) or False
        return self._sites or None

    # ------------------------------------------------------------------ values

    def context(self, path: str, name: str, depth: int = 0) -> dict:
        """param -> (fact, whether a caller in the linted file gave it): the join over every
        call site of `path`'s function `name`; a parameter we cannot tell is left out."""
        key = (path, name)
        if key in self._done:
            return self._done[key]
        if key in self._busy or depth > MAX_DEPTH:
            return {}
        self._busy.add(key)
        try:
            out = self._context(path, name, depth)
        except _DAMAGE:
            out = {}
        finally:
            self._busy.discard(key)
        self._done[key] = out
        for v in self._views.values():
            self.view.deps.update({p: s for p, s in v.deps.items() if p != self.path})
        return out

    def signature(self, path: str, name: str):
        """The summary of function `name`, or of `Class.__init__` (its parameters without self)."""
        view = self.view if path == self.path else self.caller_view(path)
        if name.endswith(".__init__"):
            s = view.summary(path)
            cls = s["classes"].get(name[: -len(".__init__")]) if s is not None else None
            return cls.get("init") if cls is not None else None
        return view.function(path, name)

    def _context(self, path: str, name: str, depth: int) -> dict:
        sites = self.sites_of(path, name.split(".", 1)[0])
        if not sites:  # before the signature: a function no other file calls needs no summary
            return {}
        fn = self.signature(path, name)
        if fn is None:
            return {}
        params = list(fn["params"]) + list(fn["kwonly"])
        found: dict = {}
        for cpath, site in sites:
            given = self._bind(fn, site)
            if given is None:
                return {}  # `f(*args)`, `f(**kw)`: we cannot tell which parameter gets what
            for p in params:
                d = given.get(p, fn.get("defaults", {}).get(p))
                fact = self.fact(cpath, site[0], d, depth) if d is not None else None
                found.setdefault(p, []).append((fact, cpath == self.path))
        return _joined(found)

    # ------------------------------------------------------------------ methods

    def method_context(self, cls: cst.ClassDef, fn: cst.FunctionDef) -> dict:
        """param -> (fact, whether a caller in the linted file gave it) for method `fn` of the
        linted file's top-level class `cls`: the join over the calls of it on the instances
        callers build and hold only to call (`trainer = Trainer(); trainer.fit(model, loader)`,
        the summary's `called`). {} (unknown) when an instance goes anywhere else (kept on
        `self`, handed on, returned), the class itself names the method (`self.fit(...)`, a
        callback), a caller passes `*args`/`**kw` or leaves a parameter out, or nobody calls it."""
        key = ("method", self.path, cls.name.value, fn.name.value)
        if key not in self._done:
            try:
                self._done[key] = self._method_context(cls, fn)
            except _DAMAGE:
                self._done[key] = {}
            for v in self._views.values():
                self.view.deps.update({p: s for p, s in v.deps.items() if p != self.path})
        return self._done[key]

    def _method_context(self, cls: cst.ClassDef, fn: cst.FunctionDef) -> dict:
        name = fn.name.value
        if name.startswith("__") or any(p.star for p in fn.params.params):
            return {}  # `__getitem__`, `__call__`: Python calls them, no site shows
        if not _binds_after_self(fn) or _inherits_code(cls):
            return {}
        sites = self.method_sites(cls.name.value, name)
        if not sites or name in self._self_attributes(cls):
            return {}
        sig = {"params": [p.name.value for p in fn.params.params[1:]],
               "kwonly": [p.name.value for p in fn.params.kwonly_params]}
        found: dict = {}
        for cpath, site in sites:
            given = self._bind(sig, site)
            if given is None:
                return {}
            for p in [*sig["params"], *sig["kwonly"]]:
                d = given.get(p)
                fact = self.fact(cpath, site[0], d, 0) if d is not None else None
                found.setdefault(p, []).append((fact, cpath == self.path))
        return _joined(found)

    def _self_attributes(self, cls: cst.ClassDef) -> frozenset:
        key = ("self attributes", id(cls))
        if key not in self._done:
            self._done[key] = _self_attributes(cls)
        return self._done[key]

    def method_sites(self, cls: str, name: str):
        """[(caller path, site)] of the calls `inst.name(...)` on every instance of the linted
        file's class `cls` the project builds; None when some instance is not one local name
        held only to be called in the scope that builds it (its calls may be anywhere)."""
        ctor = self.sites_of(self.path, cls)
        if not ctor:
            return None
        out = []
        for cpath, site in ctor:
            table = self.caller_view(cpath).summary(cpath)
            if table is None or len(table["sites"]) >= MAX_SITES:
                return None  # a file with more calls than its summary keeps: some are missing
            inst = _bound_name(table, site)
            if inst is None:
                return None
            out.extend((cpath, x) for x in table["sites"] if x[0] == site[0] and x[1] == f"{inst}.{name}")
        return out

    def passed(self, path: str, name: str) -> frozenset:
        """The parameters of `path`'s function `name` (or `Class.__init__`) that some caller
        hands a value of its own: their default is not what they hold there."""
        sites = self.sites_of(path, name.split(".", 1)[0])
        fn = self.signature(path, name) if sites else None
        if fn is None:
            return frozenset()
        out = set()
        for _cpath, site in sites:
            given = self._bind(fn, site)
            if given is None:  # `f(*args)`: any parameter may be given
                return frozenset([*fn["params"], *fn["kwonly"]])
            out.update(given)
        return frozenset(out)

    @staticmethod
    def _bind(fn: dict, site) -> dict | None:
        _caller, _text, args, kws, _line, star = site
        if star or "**" in kws:
            return None
        params = list(fn["params"])
        given = dict(zip(params, args))
        given.update({k: d for k, d in kws.items() if k in params or k in fn["kwonly"]})
        return given

    def fact(self, cpath: str, caller: str, d, depth: int):
        """The fact a call site's argument descriptor resolves to in the caller's file."""
        d = self._drop_harmless_escapes(cpath, d)
        if d is None:
            return None
        if self._opaque_loader(cpath, d):
            return ("opaque",)
        if d[:1] == ["const"]:
            return ("const", d[1])
        if d[:1] == ["param"]:
            ctx = self.context(cpath, caller, depth + 1) if caller else {}
            got = ctx.get(d[1])
            return got[0] if got is not None else None
        fact = self.caller_view(cpath)._resolve(cpath, d, 0)
        if fact is None or pj._mentions_param(fact):
            return None
        return fact

    def _opaque_loader(self, cpath: str, d) -> bool:
        """`NeighborLoader(data=data, ...)` (or a join holding one): a loader of a library class
        we do not model, whose batches may be anywhere (pyg's loaders slice a graph the caller
        moved). A `DataLoader` of any library is a torch DataLoader, host batches: not opaque."""
        if d[:1] == ["join"]:
            return any(self._opaque_loader(cpath, x) for x in d[1])
        if d[:1] != ["call"] or not isinstance(d[1], str):
            return False
        sym = self.caller_view(cpath).qualify(cpath, d[1])
        last = sym[1].rsplit(".", 1)[-1] if sym is not None and sym[0] == "lib" else ""
        return last[:1].isupper() and last != "DataLoader" and naming.looks_like_loader_name(last)

    def _drop_harmless_escapes(self, cpath: str, d):
        """`train(model, ...)` then `evaluate(model, ...)`: the first call lets `model` escape
        (["escaped", "train", 0]); when `train` is a project function that leaves that
        parameter alone (its summary's `pure`), the second call still sees the model."""
        if d[:1] == ["escaped"]:
            return None
        if d[:1] != ["join"]:
            return d
        kept = [x for x in d[1] if not (x[:1] == ["escaped"] and self._leaves_alone(cpath, x))]
        if not kept:
            return None
        return kept[0] if all(x == kept[0] for x in kept) else ["join", kept]

    def _leaves_alone(self, cpath: str, escaped) -> bool:
        _, text, where = escaped
        sym = self.caller_view(cpath).qualify(cpath, text)
        if sym is None or sym[0] != "function":
            return False
        fn = self.caller_view(sym[1]).function(sym[1], sym[2])
        if fn is None:
            return False
        params = list(fn["params"])
        p = params[where] if isinstance(where, int) and where < len(params) else where
        return isinstance(p, str) and p in fn["pure"]


# ---------------------------------------------------------------------- classes


class ClassUses:
    """Whether every use of a class of the linted file hands its instances host data only: the
    class is built where a caller binds the instance to a local name, and that name is only
    ever called (`one_hot(target)`, `meter.update(preds)`) with host tensors, constants or
    `None`. Any other use (the instance moved, stored on `self`, handed on, returned), a
    caller we cannot read, or no caller at all: not known (today's guess stays). Everything
    comes from the callers' summaries (`sites`, `called`): no caller file is parsed here."""

    def __init__(self, ctxs: Contexts) -> None:
        self.ctxs = ctxs
        self._done: dict = {}

    def host_only(self, path: str, name: str) -> bool:
        """Asked once per finding of a rule: answered once per class."""
        key = (path, name)
        if key not in self._done:
            self._done[key] = self._host_only(path, name)
        return self._done[key]

    def _host_only(self, path: str, name: str) -> bool:
        try:
            sites = self.ctxs.sites_of(path, name)
            return bool(sites) and all(self._site_host_only(cpath, site) for cpath, site in sites)
        except _DAMAGE:
            return False

    def _site_host_only(self, cpath: str, site) -> bool:
        table = self.ctxs.caller_view(cpath).summary(cpath)
        instance = _bound_name(table, site) if table is not None else None
        if instance is None:
            return False
        calls = [x for x in table["sites"] if x[0] == site[0] and x[1].split(".")[0] == instance]
        return bool(calls) and all(self._host_arguments(cpath, x) for x in calls)

    def _host_arguments(self, cpath: str, site) -> bool:
        if site[5] or "**" in site[3]:
            return False
        return all(_host_fact(self.ctxs.fact(cpath, site[0], _tensor_place(d), 0)) for d in [*site[2], *site[3].values()])


def _joined(found: dict) -> dict:
    """param -> (the fact every site agrees on, whether a site is in the linted file), for the
    parameters whose sites all resolve to facts that join."""
    out = {}
    for p, facts in found.items():
        joined = facts[0][0]
        for fact, _ in facts[1:]:
            joined = pj.join(joined, fact) if joined is not None and fact is not None else None
        if joined is not None:
            out[p] = (joined, any(here for _, here in facts))
    return out


def _binds_after_self(fn: cst.FunctionDef) -> bool:
    """Does `inst.m(a, b)` bind `a, b` to the parameters after `self`? Not for a
    `@staticmethod` (no self), nor where another decorator may change what the method is
    handed (`@classmethod` called on the class, a wrapper that injects a device); grad-mode
    decorators call it with the caller's arguments."""
    for d in fn.decorators:
        text = dotted(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator) or ""
        if text.rsplit(".", 1)[-1] not in SIGNATURE_KEEPING_DECORATORS:
            return False
    return True


# Bases whose own code never calls a method of the subclass (`class Trainer(object)`, `ABC`).
_PLAIN_BASES = frozenset({"object", "ABC", "abc.ABC", "Generic", "typing.Generic"})


def _inherits_code(cls: cst.ClassDef) -> bool:
    """A class with a base that has code of its own: the base's methods may call this one
    through `self` (`fit` calling the `train_step` a subclass overrides) with values no call
    site of an instance shows."""
    return any(dotted(arg.value) not in _PLAIN_BASES for arg in cls.bases)


def _self_attributes(cls: cst.ClassDef) -> frozenset:
    """The names a class reads off `self` anywhere in its body (`self.fit(...)`,
    `callback=self.fit`): a method named there also runs with what the class hands it."""
    return frozenset(n.attr.value for n in walk(cls) if isinstance(n, cst.Attribute)
                     and isinstance(n.value, cst.Name) and n.value.value == "self")


def _bound_name(table: dict, site) -> str | None:
    """`one_hot = OneHotDistribution(...)`: the name the caller's scope holds the instance built
    at `site` in, only to call it (summary's `called`); None when it is not one name."""
    held = table.get("called", {}).get(site[0], {})
    names = [name for name, (line, text) in held.items() if line == site[4] and text == site[1]]
    return names[0] if len(names) == 1 else None


def _tensor_place(d):
    """A tensor handed to another call stays where it is: drop the escapes of a join
    (`one_hot(target)` after `smooth(target)`)."""
    if isinstance(d, list) and d[:1] == ["join"]:
        kept = [x for x in d[1] if x[:1] != ["escaped"]]
        return kept[0] if kept and all(x == kept[0] for x in kept) else (["join", kept] if kept else None)
    return d


def _host_fact(fact) -> bool:
    if fact is None:
        return False
    if fact[0] == "seq":
        return all(_host_fact(f) for f in fact[1])
    return fact == ("tensor", "cpu") or fact[0] in ("const", "none")


def host_only_class(view, name: str) -> bool:
    """Is every use of the linted file's class `name`, across the project, known to hand its
    instances host data only (ClassUses)? False without a project, or for a notebook."""
    if view is None or not view.path.endswith(".py"):
        return False
    ctxs = getattr(view, "contexts", None)
    if ctxs is None:
        ctxs = view.contexts = Contexts(view)
    uses = getattr(ctxs, "class_uses", None)
    if uses is None:
        uses = ctxs.class_uses = ClassUses(ctxs)
    return uses.host_only(view.path, name)


def _target_dev(target) -> Dev:
    if target == "accel" or (isinstance(target, list) and target[:1] == ["param"]
                             and "device" in str(target[1]).lower()):
        return Dev.ACCEL  # `.to(device)` with the caller's `device` parameter: the guess the interpreter makes too
    return Dev.CPU if target == "cpu" else Dev.UNKNOWN


def value_of(fact, param: cst.Param, from_here: bool, key) -> Val | None:
    """The abstract value a context fact gives parameter `param` on entry, or None (guess as
    before). `key`: the device key of a device handed in."""
    name = param.name.value
    tag = fact[0]
    if tag == "module":
        if fact[1] == "host":
            # a model from another file that nothing there moves: its identity is the parameter
            return None if from_here else Val(Kind.MODULE, Dev.CPU, mid=param, name=name)
        if fact[1] == "param_free":
            return Val(Kind.MODULE, param_free=True, name=name)
        if fact[1] == "moved":
            return Val(Kind.MODULE, _target_dev(fact[2]), name=name)
        if fact[1] == "scatters":  # `nn.DataParallel(model).cuda()` handed in: host inputs are fine
            return Val(Kind.MODULE, name=name, ref=SCATTERS)
        return Val(Kind.MODULE, name=name)
    if tag == "device":
        return Val(Kind.DEVICE, Dev.ACCEL, key=key, name=name) if fact[1] == "accel" else \
            Val(Kind.DEVICE, Dev.CPU, key=("lit", "cpu"), name=name)
    if tag == "loader":
        return Val(Kind.LOADER, Dev.CPU, name=name)
    if tag == "opaque":
        return Val(Kind.UNKNOWN, name=name)  # not the name's guess (`loader` -> host batches): unknown, silent
    if tag == "dataset":
        return Val(Kind.DATASET, Dev.UNKNOWN if fact[1] else Dev.CPU)
    if tag == "none":
        return NONE
    if tag == "const":
        return Val(Kind.OTHER, name=str(fact[1]))  # read by constant_test
    if tag == "tensor":
        return Val(Kind.TENSOR, _target_dev(fact[1]) if fact[1] != "cpu" else Dev.CPU)
    if tag == "moved":
        return Val(Kind.UNKNOWN, _target_dev(fact[1]))
    return None


def entry_values(interp, fn: cst.FunctionDef, cls: cst.ClassDef | None = None) -> dict:
    """name -> Val for the parameters of module-level function `fn` (or of `cls.__init__`)
    whose callers agree."""
    view = interp.imports.project
    if view is None or getattr(interp, "module_frame", None) is None or not view.path.endswith(".py"):
        return {}  # a notebook's cells are one module of their own: no callers elsewhere
    ctxs = getattr(view, "contexts", None)
    if ctxs is None:
        ctxs = view.contexts = Contexts(view)
    if cls is not None and fn.name.value != "__init__":
        return _method_values(interp, ctxs, fn, cls)
    qual = f"{cls.name.value}.__init__" if cls is not None else fn.name.value
    found = ctxs.context(view.path, qual)
    out = {}
    params = [*fn.params.params, *fn.params.kwonly_params]
    passed = None
    for p in params:
        got = found.get(p.name.value)
        v = value_of(got[0], p, got[1], ("ctx", id(fn), p.name.value)) if got is not None else None
        if v is None and got is None and p.default is not None:
            # callers disagree or pass what we cannot tell (`device` that is `cuda` or `cpu`):
            # the default (`device="cpu"`) is what the parameter holds only where none passes it
            passed = ctxs.passed(view.path, qual) if passed is None else passed
            if p.name.value in passed:
                v = interp.guess_by_name(p.name.value, scope=fn)
        if v is not None:
            out[p.name.value] = v
    return out


def _method_values(interp, ctxs: Contexts, fn: cst.FunctionDef, cls: cst.ClassDef) -> dict:
    """name -> Val for the parameters of method `fn` of a plain class (a `Trainer`, an
    evaluator: not an `nn.Module`, whose methods run on its own inputs) whose callers agree."""
    if interp.classes.class_of(cls)["module"]:
        return {}
    found = ctxs.method_context(cls, fn)
    out = {}
    for p in [*fn.params.params[1:], *fn.params.kwonly_params]:
        got = found.get(p.name.value)
        v = value_of(got[0], p, got[1], ("ctx", id(fn), p.name.value)) if got is not None else None
        if v is not None:
            out[p.name.value] = v
    return out


def constant_test(interp, test) -> bool | None:
    """The truth of an `if` test on a flag that every caller sets the same way (`if
    self.use_gpu:` where every `Agent(...)` leaves `use_gpu=False`), or None."""
    negate = False
    while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        test, negate = test.expression, not negate
    if not isinstance(test, (cst.Name, cst.Attribute)):
        return None
    v = interp.flags.stored(test)
    if v is None or v.kind is not Kind.OTHER or v.name not in ("True", "False"):
        return None
    return (v.name == "True") != negate


def _flag_literal(node) -> Val | None:
    if isinstance(node, cst.Name) and node.value in ("True", "False"):
        return Val(Kind.OTHER, name=node.value)
    return None


def literal_flags(call: cst.Call, fn: cst.FunctionDef, skip_first: bool) -> dict:
    """param -> constant for the parameters of `fn` that this call (or the default, where the
    call leaves one out) sets to a literal `True`/`False`: the inlined body's flag tests then
    follow the one arm that runs (`Agent(obs, act)` with `use_gpu=False`)."""
    params = [*fn.params.params][1 if skip_first else 0:]
    out = {}
    positional = [a for a in call.args if a.keyword is None and not a.star]
    if len(positional) < len([a for a in call.args if a.keyword is None]):
        return {}  # `f(*args)`
    keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    for i, p in enumerate([*params, *fn.params.kwonly_params]):
        name = p.name.value
        node = positional[i].value if i < len(positional) and i < len(params) else keywords.get(name, p.default)
        v = _flag_literal(node)
        if v is not None:
            out[name] = v
    return out
