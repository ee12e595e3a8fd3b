"""Imports across the files of one project: which file a module name means, and what the
names it offers do to devices (from summary.py's per-file summaries).

A FileView answers for one linted file and records every file it consulted (and every
place it looked for a module and found nothing), so the result cache can tell when an
answer may have changed. Anything it cannot follow (a cycle, a missing file, a syntax error,
`importlib`) resolves to None: the inference then knows nothing, as for any unseen code.
"""

from __future__ import annotations

import json
import os
import stat
import sys

from devicelint import knowledge as kb
from devicelint import naming

ROOT_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", ".git")
_SKIP = kb.frameworks.THIRD_PARTY | set(getattr(sys, "stdlib_module_names", ()))
MAX_DEPTH = 8

# What reading a damaged summary (a cache entry of an unexpected shape) through a FileView can
# raise. A caller guards only its reads of summary data with it: its own work runs outside the
# `try`, so that a programming error there is the lint's "internal error" line, never a
# silent "unknown" and a lost finding (tests/test_crossfile_damage.py).
SUMMARY_DAMAGE = (KeyError, TypeError, ValueError, IndexError, AttributeError, OSError)


def read_or(default, read, *args):
    """`read(*args)`: a read of summary data (a FileView method, or a function made of such
    reads); `default` where the summary is damaged."""
    try:
        return read(*args)
    except SUMMARY_DAMAGE:
        return default

_roots: dict = {}


# During one lint run (a pool worker's life, or lint_many in one process) the files do not
# change: what a path is gets asked of the file system once. None outside a run, so that a
# program linting, editing and linting again in one process sees its edits.
_kinds: dict | None = None
# Also during a run: what a module name resolved to from one importer, and the probes that
# found it (replayed into each view's deps: a cached result must know them).
_resolved: dict | None = None
# Also during a run: each path's summary entry, "dir" or "absent" (Store.entry_for).
_entries: dict | None = None


def remember_paths(on: bool) -> None:
    global _kinds, _resolved, _entries
    _kinds = {} if on else None
    _resolved = {} if on else None
    _entries = {} if on else None


def _kind(path: str) -> str | None:
    """"file" (a regular file), "dir", or None (absent or something else)."""
    kinds = _kinds
    if kinds is not None:
        found = kinds.get(path, 0)
        if found != 0:
            return found
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        found = None
    else:
        found = "file" if stat.S_ISREG(mode) else "dir" if stat.S_ISDIR(mode) else None
    if kinds is not None:
        kinds[path] = found
    return found


def find_root(path: str) -> str:
    """The nearest folder above `path` with a pyproject.toml, setup.cfg, setup.py or .git;
    the file's own folder when there is none."""
    start = os.path.dirname(os.path.abspath(path))
    if start in _roots:
        return _roots[start]
    d = start
    while True:
        if any(os.path.exists(os.path.join(d, m)) for m in ROOT_MARKERS):
            break
        parent = os.path.dirname(d)
        if parent == d:
            d = start
            break
        d = parent
    _roots[start] = d
    return d


class Store:
    """Summaries by content hash, shared by every file of a run (and, with a cache folder,
    across runs)."""

    def __init__(self, cache_dir: str | None = None) -> None:
        self.cache_dir = cache_dir
        self.memory: dict = {}
        # (path, inode, size, mtime) -> entry: many files of a run import the same module,
        # and reading and hashing it again for each is most of the cost of a warm lookup
        self._by_stat: dict = {}

    def entry_for(self, path: str):
        """The summary entry of the file at `path` ({"s", "h"}), "dir", or "absent". During a
        run (remember_paths) each path is looked at once: the module paths an import could
        name are mostly absent, and every file of a package asks about the same ones."""
        entries = _entries
        if entries is not None and path in entries:
            return entries[path]
        kind = _kind(path)
        if kind != "file":
            found = "dir" if kind == "dir" else "absent"
        else:
            try:
                with open(path, "rb") as f:
                    st = os.fstat(f.fileno())
                    key = (path, st.st_ino, st.st_size, st.st_mtime_ns)
                    found = self._by_stat.get(key)
                    if found is None:
                        found = self._by_stat[key] = self.summary_of(f.read())
            except IsADirectoryError:
                found = "dir"
            except OSError:
                found = "absent"
        if entries is not None:
            entries[path] = found
        return found

    def summary_of(self, data: bytes, summarize=None):
        """The entry of a file whose bytes are `data`. `summarize` (the editor's: from the
        statements a keystroke left alone) stands for summary.summarize and must give what it
        gives."""
        from devicelint import summary as sm  # not on a cache hit without dependencies
        from devicelint.cache import _code_fingerprint
        import hashlib  # only where a file is summarized: not for a file that imports no other

        digest = hashlib.sha256(_code_fingerprint().encode() + b"\0" + data).hexdigest()
        found = self.memory.get(digest)
        if found is not None:
            return found
        path = os.path.join(self.cache_dir, "summaries", digest[:2], digest[2:] + ".json") if self.cache_dir else None
        if path is not None:
            try:
                with open(path, encoding="utf-8") as f:
                    found = json.load(f)
            except (OSError, ValueError):
                found = None
        if not (isinstance(found, dict) and isinstance(found.get("h"), str) and (
            found.get("s") is None or (isinstance(found["s"], dict) and found["s"].get("v") == sm.VERSION
                                       and sm.KEYS <= set(found["s"]))
        )):
            found = None  # missing or damaged: summarize again
        if found is None:
            s = (summarize or sm.summarize)(data)
            h = hashlib.sha256(json.dumps(s, sort_keys=True).encode()).hexdigest()[:20] if s is not None else "bad"
            found = {"s": s, "h": h}
            if path is not None:
                _write(path, found)
        self.memory[digest] = found
        return found


def _write(path: str, obj) -> None:
    from devicelint import atomic

    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        atomic.write(path, json.dumps(obj).encode("utf-8"), durable=False)
    except OSError:
        pass


_default_store = Store()
_stores: dict = {}


def share_summaries(folder: str) -> None:
    """Keep this process's summaries (for runs without a cache) in `folder`, shared with the
    other workers of the run: a module many files import is summarized once per run, not
    once per worker. Summaries depend only on content, so where one was made never matters."""
    global _default_store
    _default_store = Store(folder)


def store_for(cache_dir: str | None) -> Store:
    """One store per cache folder and process (summaries are read from disk once)."""
    if cache_dir is None:
        return _default_store
    if cache_dir not in _stores:
        _stores[cache_dir] = Store(cache_dir)
    return _stores[cache_dir]


def file_state(store: Store, path: str) -> str:
    """What a dependency looks like now: its summary's hash, "absent", "dir" or "bad"."""
    found = store.entry_for(path)
    return found if isinstance(found, str) else found["h"]


# Files of the project one linted file may read summaries of. A training script's own
# modules (models, utils, datasets) are a handful; a library's file can pull in thousands.
MAX_FILES_PER_VIEW = 48


class FileView:
    """The project as seen from one linted file."""

    def __init__(self, path: str, store: Store | None = None) -> None:
        self.path = os.path.abspath(path)
        self.store = store or _default_store
        self.root = find_root(self.path)
        here = os.path.dirname(self.path)
        self.bases = list(dict.fromkeys([here, self.root, os.path.join(self.root, "src")]))
        self.deps: dict = {}  # path -> state (see file_state)
        self._summaries: dict = {}
        self._classes: dict = {}
        self._returns: dict = {}
        self._unplaced: dict = {}
        self._stars: dict = {}
        self._busy: set = set()
        self._modules: dict = {}
        self._bases_key = tuple(self.bases)
        self._probes: list | None = None  # what _module's probes found, while one runs

    # ---------------------------------------------------------------- files and modules

    def summary(self, path: str):
        if path in self._summaries:
            return self._summaries[path]
        if len(self._summaries) >= MAX_FILES_PER_VIEW:
            # A file that reaches this far into the project (library code importing its
            # whole package) is not worth the reading: what lies beyond stays unknown.
            # The limit counts this view's own reads, so the result never depends on
            # what other files of the run have summarized.
            return None
        s = None
        entry = self.store.entry_for(path)
        if isinstance(entry, str):
            self.deps[path] = entry
        else:
            self.deps[path] = entry["h"]
            s = entry["s"]
        self._summaries[path] = s
        return s

    def _probe(self, base: str, name: str) -> str | None:
        """`name.py`, `name/__init__.py` or a namespace folder `name/` in `base`."""
        for cand in (os.path.join(base, name + ".py"), os.path.join(base, name, "__init__.py")):
            if _kind(cand) == "file":
                self._note(cand, None)
                return cand
            self._note(cand, "absent")
        d = os.path.join(base, name)
        if _kind(d) == "dir":
            self._note(d, "dir")
            return d
        self._note(d, "absent")
        return None

    def module(self, importer: str, level: int, dotted: str) -> str | None:
        """The file (or namespace folder) `import dotted` means in `importer`, if it is ours."""
        key = (importer, level, dotted)
        if key in self._modules:
            return self._modules[key]  # its probes are in self.deps already
        shared = _resolved
        if shared is None:
            found = self._module(importer, level, dotted)
        else:
            # an absolute import is looked for in this view's bases too
            run_key = (importer, level, dotted, None if level else self._bases_key)
            known = shared.get(run_key)
            if known is None:
                self._probes = []
                try:
                    found = self._module(importer, level, dotted)
                    shared[run_key] = (found, tuple(self._probes))
                finally:
                    self._probes = None
            else:
                found, probes = known
                for path, state in probes:
                    self._note(path, state)
        self._modules[key] = found
        return found

    def _note(self, path: str, state) -> None:
        """A probe's finding into deps: a file found (its state is read later), "absent", "dir"."""
        if state is None:
            self.deps.setdefault(path, None)
        else:
            self.deps[path] = state
        if self._probes is not None:
            self._probes.append((path, state))

    def _shadows(self, here: str, name: str) -> bool:
        """A file of the script's own folder named like a library (`datasets.py`, holding the
        project's Dataset classes): `python train.py` puts that folder first on `sys.path`, so
        `from datasets import Pairs` imports it, not Hugging Face's package. A plain folder of
        that name (a namespace, often just data files) does not win over an installed package."""
        if name not in kb.frameworks.SHADOWED_BY_PROJECT_FILES:
            return False
        for cand in (os.path.join(here, name + ".py"), os.path.join(here, name, "__init__.py")):
            found = _kind(cand) == "file"
            self._note(cand, None if found else "absent")
            if found:
                return True
        return False

    def _module(self, importer: str, level: int, dotted: str) -> str | None:
        parts = [p for p in dotted.split(".") if p]
        if level:
            base = os.path.dirname(importer)
            for _ in range(level - 1):
                base = os.path.dirname(base)
            if not parts:
                init = os.path.join(base, "__init__.py")
                return init if _kind(init) == "file" else base
        else:
            here = os.path.dirname(importer)
            if not parts or parts[0] in _SKIP and not self._shadows(here, parts[0]):
                return None
            bases = [here] + [b for b in self.bases if b != here]
            for b in bases:
                found = self._probe(b, parts[0])
                if found is not None:
                    base = b
                    break
            else:
                return None
        found = None
        for p in parts:
            found = self._probe(base, p)
            if found is None:
                return None
            base = os.path.dirname(found) if found.endswith("__init__.py") else found
        return found

    # ---------------------------------------------------------------- names

    def lookup(self, path: str, chain, depth: int = 0):
        """What `chain` (["Net"], ["sub", "build"]) names in module `path`: ("class", path,
        name), ("function", path, name), ("module", path), ("lib", qualname), or None."""
        if depth > MAX_DEPTH or not chain:
            return ("module", path) if chain == [] else None
        name, rest = chain[0], list(chain[1:])
        s = self.summary(path) if _kind(path) != "dir" else None
        sym = None
        if s is not None:
            if name in s["classes"]:
                sym = ("class", path, name)
            elif name in s["functions"]:
                sym = ("function", path, name)
            elif name in s["imports"]:
                sym = self._imported(path, s["imports"][name], depth)
            elif name in s["values"] and name not in s["imports"]:
                sym = ("value", path, name)
            else:
                for level, mod in s["stars"]:
                    target = self.module(path, level, mod)
                    if target is None or (path, name) in self._busy:
                        continue
                    self._busy.add((path, name))
                    try:
                        sym = self.lookup(target, [name], depth + 1)
                    finally:
                        self._busy.discard((path, name))
                    if sym is not None:
                        break
        if sym is None and (path.endswith("__init__.py") or _kind(path) == "dir"):
            sub = self.module(path if _kind(path) != "dir" else os.path.join(path, "__init__.py"), 1, name)
            if sub is not None:
                sym = ("module", sub)
        if sym is None or not rest:
            return sym
        if sym[0] == "module":
            return self.lookup(sym[1], rest, depth + 1)
        if sym[0] == "lib":
            return ("lib", sym[1] + "." + ".".join(rest))
        return None

    def _imported(self, path: str, spec, depth: int):
        if spec is None:
            return None  # bound twice differently
        level, mod, name = spec
        target = self.module(path, level, mod)
        if target is None:
            return None if level else ("lib", f"{mod}.{name}" if name else mod)
        if name is None:
            return ("module", target)
        return self.lookup(target, [name], depth + 1)

    def star_names(self, importer: str, level: int, mod: str, depth: int = 0) -> dict:
        """name -> symbol for every name `from mod import *` brings into `importer`."""
        key = (importer, level, mod)
        if key in self._stars:
            return self._stars[key]
        self._stars[key] = {}  # a cycle of star imports brings nothing more
        target = self.module(importer, level, mod)
        if target is None or depth > MAX_DEPTH or _kind(target) == "dir":
            return {}
        s = self.summary(target)
        if s is None:
            return {}
        out = {}
        for lvl, m in s["stars"]:
            out.update(self.star_names(target, lvl, m, depth + 1))
        names = s["all"] if s["all"] is not None else [n for n in s["names"] if not n.startswith("_")]
        for n in names:
            sym = self.lookup(target, [n], depth + 1)
            if sym is not None:
                out[n] = sym
        self._stars[key] = out
        return out

    def qualify(self, path: str, text: str, depth: int = 0):
        """A dotted name as module `path` spells it -> a symbol (see lookup)."""
        s = self.summary(path)
        if s is None or depth > MAX_DEPTH:
            return None
        parts = text.split(".")
        head = parts[0]
        if head in s["classes"] or head in s["functions"] or head in s["imports"] or head in s["values"]:
            return self.lookup(path, parts, depth + 1)
        for level, mod in s["stars"]:
            got = self.star_names(path, level, mod, depth + 1).get(head)
            if got is not None:
                if len(parts) == 1:
                    return got
                if got[0] == "module":
                    return self.lookup(got[1], parts[1:], depth + 1)
                if got[0] == "lib":
                    return ("lib", ".".join([got[1]] + parts[1:]))
        return None

    # ---------------------------------------------------------------- classes

    def class_facts(self, path: str, name: str) -> dict | None:
        """Is this class an nn.Module (through any chain of bases, in any file), a Dataset,
        a framework module; does it place itself, does it hold weights?"""
        key = (path, name)
        if key in self._classes:
            return self._classes[key]
        self._classes[key] = None  # a cycle of bases: unknown
        s = self.summary(path)
        c = s["classes"].get(name) if s is not None else None
        if c is None:
            return None
        module = dataset = framework = inherits = opaque = False
        self_moves, any_move = c["self_moves"], c["any_move"]
        for text in c["bases"]:
            last = text.rsplit(".", 1)[-1]
            sym = self.qualify(path, text) if text != "?" else None
            q = sym[1] if sym is not None and sym[0] == "lib" else ""
            if sym is not None and sym[0] == "class":
                parent = self.class_facts(sym[1], sym[2])
                if parent is None:
                    opaque = True
                    continue
                module |= parent["module"]
                inherits |= parent["has_params"]
                dataset |= parent["dataset"]
                framework |= parent["framework"]
                self_moves |= parent["self_moves"]
                any_move |= parent["any_move"]
                opaque |= parent["opaque"]
            elif (lib := kb.base_class(q, last)) is not None:
                module |= lib.module
                inherits |= lib.weights
                dataset |= lib.dataset
                framework |= lib.framework
            elif not kb.is_plain_base(q, last):
                opaque = True
        facts = {"module": module, "dataset": dataset, "framework": framework, "self_moves": self_moves,
                 "any_move": any_move, "has_params": module and (inherits or c["state"]), "opaque": opaque,
                 "item": c.get("item"),  # its own __getitem__'s placed positions (an inherited one: unknown)
                 "init_params": c.get("init_params"), "iterates": c.get("iterates", []),
                 # a base's methods may move the module it keeps: only a class of no base of note
                 "runs": c.get("runs", {}) if all(kb.is_plain_base("", b.rsplit(".", 1)[-1]) for b in c["bases"])
                 else {}}
        self._classes[key] = facts
        return facts

    # ---------------------------------------------------------------- functions

    def function(self, path: str, name: str):
        s = self.summary(path)
        return s["functions"].get(name) if s is not None else None

    def returns(self, path: str, name: str):
        """What calling the function yields (a fact, see _resolve), or None."""
        key = (path, name)
        if key in self._returns:
            return self._returns[key]
        self._returns[key] = None  # recursion through other files: unknown
        fn = self.function(path, name)
        out = self._resolve(path, fn["ret"], 0) if fn is not None else None
        self._returns[key] = out
        return out

    def never_places(self, path: str, name: str, depth: int = 0) -> bool:
        """Does nothing the function runs decide a device: it neither moves, nor passes a
        device, nor restores pickles, and neither does any project function it calls; no class
        it builds places itself; it calls no library factory named like a builder
        (`build_model`, `load_net`), which might."""
        key = (path, name)
        if key in self._unplaced:
            return self._unplaced[key]
        self._unplaced[key] = False  # a cycle: unsure
        fn = self.function(path, name)
        ok = fn is not None and fn.get("places") is False and depth <= MAX_DEPTH
        for text in (fn.get("calls", ()) if ok else ()):
            sym = self.qualify(path, text)
            if sym is None:
                continue  # a local's method or a builtin: a move there is in `places` already
            if sym[0] in ("lib", "value", "module"):
                last = text.rsplit(".", 1)[-1]
                # a class (`transforms.ToTensor`) is no builder verb, as api_calls reads it too
                ok = last[:1].isupper() or not naming.BUILDER_VERBS.match(last)
            elif sym[0] == "function":
                ok = self.never_places(sym[1], sym[2], depth + 1)
            elif sym[0] == "class":
                facts = self.class_facts(sym[1], sym[2])
                ok = facts is not None and not facts["self_moves"] and not facts["framework"]
            if not ok:
                break
        self._unplaced[key] = ok
        return ok

    def import_defaults(self, importer: str, level: int, mod: str, name: str | None = None) -> list:
        """The default device types ("cuda", "cpu", "unknown") that `import mod` / `from mod
        import name` in `importer` sets while it runs: the module-level setters of that module,
        of the packages above it and of every project module they import in turn (DL019)."""
        found: list = []
        self._import_defaults(importer, level, mod, name, found, set(), 0)
        return found

    def _import_defaults(self, importer, level, mod, name, found, seen, depth) -> None:
        parts = [p for p in mod.split(".") if p]
        paths = [self.module(importer, level, ".".join(parts[:i])) for i in range(1, len(parts) + 1)] \
            if parts else [self.module(importer, level, "")]
        if name is not None:  # `from pkg import sub`: a submodule runs too
            paths.append(self.module(importer, level, ".".join([*parts, name])))
        for path in paths:
            if path is None or path in seen or depth > MAX_DEPTH or _kind(path) == "dir":
                continue
            seen.add(path)
            s = self.summary(path)
            if s is None:
                continue
            found.extend(s["defaults"])
            for spec in s["imports"].values():
                if spec is not None:
                    self._import_defaults(path, spec[0], spec[1], spec[2], found, seen, depth + 1)
            for lvl, m in s["stars"]:
                self._import_defaults(path, lvl, m, None, found, seen, depth + 1)

    def imports_set_device(self, importer: str, level: int, mod: str, name: str | None = None) -> bool:
        """Does a project module that `import mod` / `from mod import name` in `importer` reads
        call `torch.cuda.set_device` (a helper picking each process's GPU, DL020)?"""
        parts = [p for p in mod.split(".") if p]
        paths = [self.module(importer, level, ".".join(parts))] if parts else []
        if name is not None:  # `from pkg import helpers`: the submodule
            paths.append(self.module(importer, level, ".".join([*parts, name])))
        for path in paths:
            if path is None or _kind(path) == "dir":
                continue
            s = self.summary(path)
            if s is not None and s.get("sets_device"):
                return True
        return False

    def builds_host_models(self, path: str) -> bool:
        """Is module `path` a registry of architectures (`vits.__dict__[args.arch](...)`): at
        least one public function or class builds a module with weights, no function returns a
        moved one, and no module class places itself?"""
        s = self.summary(path)
        if s is None:
            return False
        found = False
        for name in s["classes"]:
            facts = self.class_facts(path, name)
            if facts is not None and facts["module"]:
                if facts["self_moves"] or facts["framework"]:
                    return False
                found |= facts["has_params"] and not name.startswith("_")
        for name in s["functions"]:
            fact = self.returns(path, name)
            if not name.startswith("_") and fact is not None and fact[0] == "module":
                if fact[1] == "moved":
                    return False
                found = True  # "unknown" too: a `**kwargs` pass-through that no registry call fills with a device
        return found

    def _resolve(self, path: str, d, depth: int):
        """A descriptor of module `path` -> a fact:
        ("module", "host" | "param_free" | "unknown" | "scatters") / ("module", "moved", target),
        ("tensor", target), ("device", "accel" | "cpu"), ("loader",), ("dataset", moves),
        ("moved", target) (something unknown, moved), ("moved_param", param, target),
        ("param", name), ("seq", [facts]), ("none",), or None."""
        if depth > MAX_DEPTH or not d:
            return None
        tag = d[0]
        if tag == "call":
            return self._call(path, d, depth)
        if tag == "move":
            return _moved(self._resolve(path, d[1], depth + 1), d[2])
        if tag == "each_move":
            return ("moved_param", d[1], d[2])
        if tag == "param":
            return ("param", d[1])
        if tag == "device":
            return ("device", d[1])
        if tag == "none":
            return ("none",)
        if tag == "tuple":
            return ("seq", [self._resolve(path, x, depth + 1) for x in d[1]])
        if tag == "join":
            return self._join_all(path, d[1], depth)
        if tag == "global":
            s = self.summary(path)
            v = s["values"].get(d[1]) if s is not None else None
            if v is not None and d[1] not in s["imports"]:
                return self._resolve(path, v, depth + 1)
        return None

    def _splat_cannot_place(self, path: str, name: str) -> bool:
        """`VGG(features, **kwargs)`: the class's own `__init__` takes no `**kwargs` and no
        parameter that names a device, so whatever the splat holds cannot place the module."""
        s = self.summary(path)
        init = s["classes"].get(name, {}).get("init") if s is not None else None
        if init is None or init.get("varkw", True):
            return False  # an inherited constructor, or one that forwards what it is handed
        return not any(naming.looks_like_device_name(p) or p == "device_map" for p in [*init["params"], *init["kwonly"]])

    def _join_all(self, path: str, ds, depth: int):
        """The fact that holds for every descriptor of `ds` (the return paths), or None."""
        out = None
        for i, x in enumerate(ds):
            f = self._resolve(path, x, depth + 1)
            out = f if i == 0 else join(out, f)
            if out is None:
                return None
        return out

    def _call(self, path: str, d, depth: int):
        _, text, kws, args = d
        sym = self.qualify(path, text)
        if sym is None:
            return None
        if sym[0] == "class":
            facts = self.class_facts(sym[1], sym[2])
            if facts is None:
                return None
            if facts["module"]:
                if facts["framework"] or facts["self_moves"] or "device" in kws or (
                        "**" in kws and not self._splat_cannot_place(sym[1], sym[2])):
                    return ("module", "unknown")
                return ("module", "host") if facts["has_params"] else ("module", "param_free")
            if facts["dataset"]:
                return ("dataset", facts["any_move"] or "device" in kws)
            return None
        if sym[0] == "function":
            out = self.returns(sym[1], sym[2])
            if out is None or _mentions_param(out):
                # a nested call's parameters are not the caller's: only a module's
                # placement survives, as "moved somewhere"
                if out is not None and out[0] == "module" and out[1] == "moved":
                    return ("module", "unknown")
                return None
            return out
        if sym[0] == "lib":
            return self._library(path, sym[1], kws, args, depth)
        return None

    def _library(self, path: str, q: str, kws, args, depth: int):
        """The fact of a call to library function or class `q`, or None."""
        parts = q.split(".")
        last = parts[-1]
        if q == "torch.device":
            first = self._resolve(path, args[0], depth + 1) if args else None
            return ("device", "cpu") if first == ("device", "cpu") else ("device", "accel")
        if parts[0] == "torch" and len(parts) == 2 and last in kb.torch_core.TENSOR_FACTORIES:
            return None if "device" in kws or "**" in kws else ("tensor", "cpu")
        if last == "DataLoader" and parts[0] == "torch":
            return self._data_loader(path, kws, args, depth)
        if q == "torch.compile":
            return self._resolve(path, args[0], depth + 1) if args else None
        if parts[0] == "torch" and parts[1:2] == ["nn"] and last[:1].isupper() and len(parts) <= 4:
            return self._nn_class(path, last, kws, args, depth)
        if _builds_hub_model(parts, q):
            return ("module", "unknown") if {"device", "device_map", "**"} & set(kws) else ("module", "host")
        return None

    def _data_loader(self, path: str, kws, args, depth: int):
        """A `DataLoader(ds)`: host batches, unless its dataset or collate_fn may move them."""
        if "collate_fn" in kws or "**" in kws or not args:
            return None
        ds = self._resolve(path, args[0], depth + 1)
        if ds is not None and (ds == ("dataset", True) or ds[0] in ("moved", "moved_param") or (ds[0] == "tensor" and ds[1] != "cpu")):
            return None
        return ("loader",)

    def _nn_class(self, path: str, last: str, kws, args, depth: int):
        """A `torch.nn` class built here: a host module, with or without weights."""
        if last in kb.distributed.KEEPS_PLACEMENT:
            return ("module", "scatters")  # calling it copies host inputs to its device itself
        if last in kb.distributed.WRAPPERS or last == "Module" or "device" in kws or "**" in kws:
            return ("module", "unknown")
        if last in kb.nn.PARAM_FREE_LAYERS:
            return ("module", "param_free")
        if kb.nn.is_loss(last):
            return ("module", "param_free") if not ({"weight", "pos_weight"} & set(kws)) else None
        if last in kb.nn.CONTAINERS:
            inner = [self._resolve(path, a, depth + 1) for a in args]
            if inner and all(f == ("module", "param_free") for f in inner):
                return ("module", "param_free")
            # 8 arguments: the summary's cap on a call's arguments, so some may be missing
            if any(f is None or f[0] != "module" for f in inner) or len(args) == 8:
                return None
        return ("module", "host")


def _builds_hub_model(parts: list, q: str) -> bool:
    """A model zoo builder (torchvision, timm, torch.hub, a hub `from_pretrained`): a host model."""
    return ((parts[0] == "torchvision" and "models" in parts and parts[-1][:1].islower() and parts[-1] != "get_weight")
            or q in kb.MODEL_BUILDERS
            or (parts[-1] == "from_pretrained" and parts[0] in kb.hf.HUB_ROOTS and len(parts) >= 2
                and kb.hf.is_model_hub_class(parts[-2])))


def _moved(inner, target):
    """The fact of `x.to(target)` where `x` has fact `inner`."""
    if inner is None or inner[0] == "moved":
        return ("moved", target)
    if inner == ("module", "scatters"):
        return inner  # `nn.DataParallel(model).cuda()`: still the wrapper that scatters its inputs
    if inner[0] == "module" and inner[1] != "param_free":
        return ("module", "moved", target)
    if inner[0] == "module":
        return inner  # a module without weights has nothing to move
    if inner[0] == "tensor":
        return ("tensor", target)
    if inner[0] == "param":
        return ("moved_param", inner[1], target)
    return None


def _mentions_param(fact) -> bool:
    if fact is None:
        return False
    if fact[0] in ("param", "moved_param"):
        return True
    if fact[0] == "seq":
        return any(_mentions_param(f) for f in fact[1])
    return any(isinstance(x, list) and x[:1] == ["param"] for x in fact)


def join(a, b):
    """The fact that holds on either return path, or None."""
    if a == b:
        return a
    if a is None or b is None:
        return None
    if a == ("none",):
        return b
    if b == ("none",):
        return a
    if a[0] == b[0] == "device":
        return ("device", "accel")
    if a[0] == b[0] == "module":
        return ("module", "unknown")
    return None


def dependency_key(store: Store, deps: dict) -> str:
    """One hash over the present state of the files a result depended on."""
    import hashlib

    h = hashlib.sha256()
    for path in sorted(deps):
        h.update(path.encode("utf-8", "surrogateescape"))
        h.update(b"\0")
        h.update(file_state(store, path).encode())
        h.update(b"\0")
    return h.hexdigest()
