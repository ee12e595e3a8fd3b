"""An open document's own summary (summary.py) put together from its top-level statements.

Every keystroke is a text the server has not summarised, and the lint reads the document's
own summary (contexts.py: its call sites, through project_table): summarising 1,000 lines
anew was a quarter of a keystroke's analysis. The incremental parser already cuts the text
into top-level statements (lsp/incremental.Piece, each with its text); here each function
and class statement keeps what summary.py made of it, keyed by its text, and a keystroke
summarises only the statements it changed.

What summary.py makes of a `def` or `class` depends on more than its text, and each of
those inputs is checked before a kept record is used (else the statement is summarised
anew, as the full summary would):
- the module-level values its walker looked up (`out["values"].get(name)`: a device bound
  above it), recorded with what they held, and read again;
- the call sites recorded before it (MAX_SITES caps them for the whole file): a record is
  used only when all its sites still fit, or when it was made past the cap (no site kept)
  and the cap is still reached before it; none is kept of a statement the cap cut through;
- the imports above it (read by no definition's walker today: checked so that none goes
  stale if one starts to);
- the lines above it: its call sites and `called` entries carry line numbers, kept
  relative to its first line and moved to where it now starts.
The module-level statements (imports, assignments, `if __name__ == ...:`, `try:`) are
summarised anew at every keystroke through summary.py's own functions (they are few and
they change what the others read); so are the whole-file parts (`refs`, `sets_device`,
`called`) from per-statement parts, and anything unusual (a statement that does not parse
alone, two top-level definitions of one name, a text the parser did not cut) goes through
`summary.summarize` whole. The equivalence tests compare with `summary.summarize` after
every edit, key order included.
"""

from __future__ import annotations

import ast

from devicelint import summary as sm

# Statement records kept by text; past this many the memory is dropped and rebuilt.
MAX_RECORDS = 20000

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


_MISSING = object()


class _Lookups(dict):
    """out["values"] while one statement is summarised: remembers each name looked up and what
    it held (the walker reads module-level values with .get only)."""

    def __init__(self, values: dict) -> None:
        super().__init__(values)
        self.seen: dict = {}

    def get(self, name, default=None):
        self.seen.setdefault(name, dict.get(self, name, _MISSING))
        return dict.get(self, name, default)


class Record:
    """What summary.py made of one top-level `def` or `class` statement, its lines counted
    from the statement's first line."""

    __slots__ = ("kind", "name", "entry", "names", "sites", "seen", "imports", "refs", "heads", "called", "nested",
                 "past_cap")

    def __init__(self, stmt, out: dict, sites_before: int, names_before: int, seen: dict, imports: dict,
                 first: int) -> None:
        self.kind = "classes" if isinstance(stmt, ast.ClassDef) else "functions"
        self.name = stmt.name
        self.entry = out[self.kind][stmt.name]
        self.names = out["names"][names_before:]
        self.sites = [_moved(site, -first) for site in out["sites"][sites_before:]]
        self.past_cap = sites_before >= sm.MAX_SITES  # then no site of it was kept
        self.seen = seen
        # the imports above it: no walker of a definition reads them today; checked all the
        # same, so that one that starts to does not make a record stale (an edit of an
        # import is rare, and then the definitions are summarised again)
        self.imports = {k: list(v) if isinstance(v, list) else v for k, v in imports.items()}
        nodes = sm._walk(stmt)
        self.refs, self.heads = _value_texts(nodes), _setter_heads(nodes)
        scopes = sm._called_by_scope(ast.Module(body=[stmt], type_ignores=[]))
        # every scope of the statement, an empty one too: a name defined twice keeps the
        # place of its last definition and the names of its first (the walk's stack)
        self.called = [(k, _shift_called(scopes.get(k, {}), -first)) for k in _scope_keys(stmt)]
        # every name of a top-level definition counts as used in a nested scope of the module's
        self.nested = {n.id for n in nodes if isinstance(n, ast.Name)}


def _scope_keys(stmt) -> list:
    """The scopes summary._called_by_scope records for a top-level definition, in the order
    its walk meets them."""
    if not isinstance(stmt, ast.ClassDef):
        return [stmt.name]
    methods = [f"{stmt.name}.{fn.name}" for fn in stmt.body if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))]
    return list(dict.fromkeys(reversed(methods)))


def _moved(site: list, by: int) -> list:
    return [*site[:4], site[4] + by, *site[5:]]


def _shift_called(names: dict, by: int) -> dict:
    return {name: [line + by, text] for name, (line, text) in names.items()}


def _value_texts(nodes) -> set:
    """summary._refs before its filter by the module's known names: the dotted names read as
    values, not called (every call of a name is inside the statement that spells it)."""
    called = {id(n.func) for n in nodes if isinstance(n, ast.Call)}
    called |= {id(a) for n in nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
               and n.func.id == "super" for a in n.args}
    out = set()
    for n in nodes:
        if isinstance(n, (ast.Name, ast.Attribute)) and isinstance(n.ctx, ast.Load) and id(n) not in called:
            text = sm.dotted(n)
            if text is not None:
                out.add(text)
    return out


def _setter_heads(nodes) -> set:
    """summary._sets_device before its check of the imports: the first names of the calls of
    a device setter."""
    out = set()
    for node in nodes:
        if isinstance(node, ast.Call):
            head, _, rest = (sm.dotted(node.func) or "").partition(".")
            if "torch." + rest in sm.kb.distributed.SET_DEVICE:
                out.add(head)
    return out


class _Fallback(Exception):
    """This text is summarised whole by summary.summarize."""


class PieceSummaries:
    """Statement records shared by the open documents (a record depends on its text and the
    inputs it checks, not on the document)."""

    def __init__(self) -> None:
        self.records: dict = {}
        self.made = 0  # statements summarised anew by the latest summarize (tests read it)

    def summarize(self, data: bytes, parsed) -> dict | None:
        """summary.summarize(data), from `parsed` (lsp/incremental.Parsed, the document's last
        tree cut into statements) when it is the tree of `data`."""
        try:
            if parsed is None or parsed.text.encode("utf-8") != data:
                raise _Fallback
            return self._from_pieces(parsed)
        except (_Fallback, SyntaxError, ValueError, RecursionError, MemoryError):
            self.made = -1
            return sm.summarize(data)

    def _from_pieces(self, parsed) -> dict:
        out = {"v": sm.VERSION, "imports": {}, "stars": [], "all": None, "classes": {}, "functions": {},
               "values": {}, "names": [], "sites": [], "defaults": []}
        self.made = 0
        line = parsed.header.count("\n")
        module_level, parts = [], []
        for piece in parsed.pieces:
            placed = self._kept(piece.text, line, out)
            if placed is None:
                stmts = _parse(piece.text, line)
                if len(stmts) == 1 and isinstance(stmts[0], _DEFS):
                    placed = self._record(stmts[0], piece.text, line, out)
                else:
                    sm._module_body(stmts, out)
                    module_level.extend(stmts)
                    nodes = [n for s in stmts for n in sm._walk(s)]
                    placed = (_value_texts(nodes), _setter_heads(nodes))
            parts.append(placed)
            line += piece.lines
        sm._module_sites(module_level, out)
        _finish(out, parts, module_level)
        return out

    def _kept(self, text: str, line: int, out: dict):
        """The kept record of the definition `text`, starting after line `line`, applied to
        `out` as summarising it now would; None when there is none, or it may differ now."""
        record = self.records.get((text, len(out["sites"]) >= sm.MAX_SITES))
        if record is None or not _fits(record, out):
            return None
        out[record.kind][record.name] = record.entry
        out["names"].extend(record.names)
        out["sites"].extend(_moved(site, line) for site in record.sites)
        return _Placed(record, line)

    def _record(self, stmt, text: str, line: int, out: dict):
        self.made += 1
        values = out["values"]
        lookups = out["values"] = _Lookups(values)
        sites, names, imports = len(out["sites"]), len(out["names"]), dict(out["imports"])
        try:
            sm._module_body([stmt], out)
        finally:
            out["values"] = values
        record = Record(stmt, out, sites, names, lookups.seen, imports, line)
        if len(out["sites"]) < sm.MAX_SITES or record.past_cap:  # else some of its sites were cut
            if len(self.records) >= MAX_RECORDS:
                self.records.clear()
            # by text and by the side of the cap it was made on (a script can hold one
            # function twice, once on each side)
            self.records[(text, record.past_cap)] = record
        return _Placed(record, line)


def _fits(record: Record, out: dict) -> bool:
    """Whether summarising the record's statement now would make the record again."""
    if record.past_cap != (len(out["sites"]) >= sm.MAX_SITES):
        return False
    if not record.past_cap and len(out["sites"]) + len(record.sites) >= sm.MAX_SITES:
        return False  # some of its sites would be cut now
    if out["imports"] != record.imports:
        return False
    values = out["values"]
    return all(values.get(name, _MISSING) == held for name, held in record.seen.items())


class _Placed:
    """A record where its statement now starts."""

    __slots__ = ("record", "line")

    def __init__(self, record: Record, line: int) -> None:
        self.record, self.line = record, line


def _parse(text: str, line: int) -> list:
    """The statements of one piece, their line numbers those of the whole text."""
    return ast.parse("\n" * line + text).body


def _finish(out: dict, parts: list, module_level: list) -> None:
    """summary.summarize's whole-file parts, from the statements' parts."""
    known = set(out["imports"]) | set(out["functions"]) | set(out["classes"])
    refs, heads = set(), set()
    for part in parts:
        texts, found = (part.record.refs, part.record.heads) if isinstance(part, _Placed) else part[:2]
        refs |= texts
        heads |= found
    out["refs"] = sorted(t for t in refs if t.split(".", 1)[0] in known)
    torch = [0, "torch", None]
    out["sets_device"] = any(out["imports"].get(head) == torch for head in heads)
    out["called"] = _called(parts, module_level)
    out["names"] = sorted(set(out["names"]))


def _called(parts: list, module_level: list) -> dict:
    """summary._called_by_scope: the module body's scope from its own statements and every
    name spelled inside a definition; a definition's scopes from its record, in the order
    the whole-tree walk (a stack: the last statement first) finds them."""
    own, nested = _module_scope(module_level)
    for part in parts:
        if isinstance(part, _Placed):
            nested |= part.record.nested
    found = {"": sm._called_names(own, nested)}
    for part in reversed(parts):
        if isinstance(part, _Placed):
            for key, names in part.record.called:
                found[key] = _shift_called(names, part.line)
    return {key: names for key, names in found.items() if names}


def _module_scope(stmts: list) -> tuple:
    """(the module scope's own nodes, the names spelled in scopes nested in it) of the
    module-level statements, as summary._called_by_scope's walk gathers them (none of them
    is a definition whose scope is recorded)."""
    own, nested = [], set()
    stack = [(s, False) for s in stmts]
    while stack:
        n, inner = stack.pop()
        t = type(n)
        if t is ast.Name:
            (nested.add(n.id) if inner else own.append(n))
            continue
        if not inner and t in sm._CALLED_PARTS:
            own.append(n)
        inner = inner or t in sm._NESTED
        stack.extend((c, inner) for c in sm._children(n))
    return own, nested
