"""Import-alias resolution of our own: cheaper than LibCST's QualifiedNameProvider.

We only need "which torch/numpy API does this dotted name mean", so one walk over the
statements (never the expressions) collects every import binding in the file. A local
name bound to two different imports is ambiguous and resolves to nothing.
"""

from __future__ import annotations

import libcst as cst

from devicelint.knowledge.consumers import REEXPORTS, reexported
from devicelint.project import read_or

_AMBIGUOUS = object()


_EMPTY = cst.Module(body=())


def source_of(node: cst.CSTNode) -> str:
    """The code of `node` as written (`model.classifier[6]`, `np.concatenate`)."""
    return _EMPTY.code_for_node(node)


def dotted(node: cst.BaseExpression) -> str | None:
    """`a.b.c` for a Name/Attribute chain, else None. (Exact type tests: both are concrete
    LibCST classes, and an `isinstance` on one is a call into ABCMeta; this runs for most
    names and attributes the inference and the rules meet.)"""
    parts = []
    while type(node) is cst.Attribute:
        parts.append(node.attr.value)
        node = node.value
    if type(node) is not cst.Name:
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


_REEXPORT_HEADS = frozenset(alias.split(".", 1)[0] for alias in REEXPORTS)


def _import_path(node: cst.BaseExpression) -> str:
    return dotted(node) or ""


class Imports:
    def __init__(self, module: cst.Module, project=None) -> None:
        self._bindings: dict[str, object] = {}
        self._reexporting: set[str] = set()  # local names bound in a module that re-exports another
        # With a project (project.FileView): local name -> what it names in another file of
        # the project, for imports of the project's own modules (relative ones and stars too).
        self.project = project
        self._project: dict[str, object] = {}
        self._collect(module.body)

    def _bind(self, local: str, target: str) -> None:
        old = self._bindings.get(local)
        self._bindings[local] = target if old in (None, target) else _AMBIGUOUS
        if target.split(".", 1)[0] in _REEXPORT_HEADS:
            self._reexporting.add(local)  # `import matplotlib.pylab as plt`: resolved through it

    def _collect(self, body) -> None:
        for stmt in body:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if self.project is not None and isinstance(small, (cst.Import, cst.ImportFrom)):
                        self._collect_project(small)
                    if isinstance(small, cst.Import):
                        for alias in small.names:
                            full = _import_path(alias.name)
                            if alias.asname is not None:
                                self._bind(alias.asname.name.value, full)
                            else:
                                # `import torch.nn` binds `torch`, and `torch.nn.X` resolves itself.
                                top = full.split(".")[0]
                                self._bind(top, top)
                    elif isinstance(small, cst.ImportFrom) and not small.relative and small.module:
                        base = _import_path(small.module)
                        if isinstance(small.names, cst.ImportStar):
                            continue
                        for alias in small.names:
                            name = _import_path(alias.name)
                            local = alias.asname.name.value if alias.asname else name
                            self._bind(local, f"{base}.{name}")
            else:
                for child in child_bodies(stmt):
                    self._collect(child)

    def _bind_project(self, local: str, sym) -> None:
        old = self._project.get(local, sym)
        self._project[local] = sym if old == sym else _AMBIGUOUS

    def _collect_project(self, small) -> None:
        """The project symbols an import binds. Only the view's reads of summary data are
        guarded (project.read_or): a damaged summary leaves that name unknown."""
        view, here = self.project, self.project.path
        if isinstance(small, cst.Import):
            for alias in small.names:
                full = _import_path(alias.name)
                local = alias.asname.name.value if alias.asname is not None else full.split(".")[0]
                target = read_or(None, view.module, here, 0, full if alias.asname is not None else local)
                if target is not None:
                    self._bind_project(local, ("module", target))
            return
        level = len(small.relative)
        mod = _import_path(small.module) if small.module is not None else ""
        target = read_or(None, view.module, here, level, mod)
        if target is None:
            return
        if isinstance(small.names, cst.ImportStar):
            for name, sym in read_or({}, view.star_names, here, level, mod).items():
                if sym[0] == "lib":
                    self._bind(name, sym[1])  # `torch`, `nn`, `np` re-exported by the module
                else:
                    self._bind_project(name, sym)
            return
        for alias in small.names:
            name = _import_path(alias.name)
            local = alias.asname.name.value if alias.asname else name
            sym = read_or(None, view.lookup, target, [name])
            if sym is not None and sym[0] != "lib":
                self._bind_project(local, sym)
            elif sym is not None and level:
                self._bind(local, sym[1])

    def from_project(self, local: str) -> bool:
        return local in self._project

    def project_symbol(self, text: str):
        """What a dotted name (`Net`, `m.build`, `pkg.models.Net`) means in another file of
        the project: a project.FileView symbol, or None."""
        if not self._project:
            return None
        head, _, rest = text.partition(".")
        sym = self._project.get(head)
        if sym is None or sym is _AMBIGUOUS:
            return None
        if not rest:
            return sym
        if sym[0] == "module":
            return self.project.lookup(sym[1], rest.split("."))
        return None

    def qualname(self, node: cst.BaseExpression) -> str | None:
        """The imported API a Name/Attribute chain refers to, e.g. `T.cuda.amp.autocast`
        -> `torch.cuda.amp.autocast` after `import torch as T`."""
        text = dotted(node)
        if text is None:
            return None
        head, _, rest = text.partition(".")
        target = self._bindings.get(head)
        if not isinstance(target, str):
            return None
        full = f"{target}.{rest}" if rest else target
        return reexported(full) if head in self._reexporting else full

    def binds(self, local: str) -> bool:
        return local in self._bindings


def child_bodies(stmt):
    """Statement bodies nested in a compound statement (if/for/with/try/def/class/match)."""
    out = []
    body = getattr(stmt, "body", None)
    if isinstance(body, cst.BaseSuite):
        out.append(body.body)
    for attr in ("orelse", "finalbody"):
        extra = getattr(stmt, attr, None)
        while extra is not None:
            if isinstance(getattr(extra, "body", None), cst.BaseSuite):
                out.append(extra.body.body)
            extra = getattr(extra, "orelse", None) if isinstance(extra, cst.If) else None
    for handler in getattr(stmt, "handlers", ()) or ():
        out.append(handler.body.body)
    for case in getattr(stmt, "cases", ()) or ():
        out.append(case.body.body)
    return out
