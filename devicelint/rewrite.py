"""Small building blocks of the rules' automatic fixes: adding a keyword argument the way the
call is already laid out, calling a method on an expression, and asking which names a scope
binds (a fix that assigns or reads a name must not change which variable the name means)."""

from __future__ import annotations

import libcst as cst

from devicelint.flow import child_nodes
from devicelint.flow.nodes import current_index, per_lint

_PRECISE = (cst.Name, cst.Attribute, cst.Call, cst.Subscript)


def method_call(value: cst.BaseExpression, method: str) -> cst.Call:
    """`value.method()`, parenthesising `value` where the call would bind tighter."""
    if not isinstance(value, _PRECISE) and not value.lpar:
        value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.Call(func=cst.Attribute(value=value, attr=cst.Name(method)))


def keyword(call: cst.Call, name: str):
    return next((a for a in call.args if a.keyword is not None and a.keyword.value == name), None)


def add_keyword(call: cst.Call, name: str, value: cst.BaseExpression) -> cst.Call:
    """`call` with `name=value` appended, in the call's own layout: one line stays one line,
    one argument per line stays so, and a trailing comma stays trailing."""
    new = cst.Arg(
        value=value,
        keyword=cst.Name(name),
        equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
    )
    args = list(call.args)
    if not args:
        return call.with_changes(args=[new])
    last = args[-1]
    between = args[-2].comma if len(args) >= 2 and isinstance(args[-2].comma, cst.Comma) else None
    if between is None and isinstance(call.whitespace_before_args, cst.ParenthesizedWhitespace):
        between = cst.Comma(whitespace_after=call.whitespace_before_args)  # `f(\n    a,\n)`
    if between is None:
        between = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    if isinstance(last.comma, cst.Comma):  # a trailing comma: the new argument inherits it
        args[-1] = last.with_changes(comma=between)
        args.append(new.with_changes(comma=last.comma))
    else:
        args[-1] = last.with_changes(comma=between)
        args.append(new)
    return call.with_changes(args=args)


def set_keyword(call: cst.Call, name: str, value: cst.BaseExpression) -> cst.Call:
    """`call` with the value of its existing `name=` argument replaced."""
    return call.with_changes(
        args=[a.with_changes(value=value) if a.keyword is not None and a.keyword.value == name else a for a in call.args]
    )


# ----------------------------------------------------------------------------- scopes

_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


def parent_map(root) -> dict:
    """{id(node): its parent} for every node below `root`."""
    out = {}
    stack = [root]
    while stack:
        n = stack.pop()
        for c in child_nodes(n):
            out[id(c)] = n
            stack.append(c)
    return out


class Scopes:
    """Parents of the nodes of one module: while the file is linted, read off the module index
    node by node; else a map built once on first use (only files with a fix candidate pay for
    it). `parents(module)`, when given, may hand the map in ready-made (the editor's
    lsp.incremental keeps each unchanged statement's part of it between keystrokes); None
    from it: the map is walked here."""

    def __init__(self, module: cst.Module, parents=None) -> None:
        self.module = module
        self._parent: dict | None = None
        self._parents = parents

    def parent(self, node):
        around = self._around(node)
        if around is not None:
            return around[-1] if around else None
        if self._parent is None:
            given = self._parents(self.module) if self._parents is not None else None
            self._parent = given if given is not None else parent_map(self.module)
        return self._parent.get(id(node))

    def ancestors(self, node):
        around = self._around(node)
        if around is not None:
            yield from reversed(around)
            return
        p = self.parent(node)
        while p is not None:
            yield p
            p = self.parent(p)

    def _around(self, node):
        """`node`'s ancestors, outermost first, read off the module index while the file is
        linted: a file asks about a few nodes, and the map of the whole module cost as much
        as the index itself (~2 % of a cold one-file lint's instructions). None where the
        index does not hold both, or the map is there already (made, or handed in)."""
        if self._parent is not None or self._parents is not None:
            return None
        index = current_index()
        return index.enclosing(self.module, node) if index is not None else None

    def scope_of(self, node):
        """The innermost function, lambda, class body or comprehension around `node`, or the module."""
        return next((a for a in self.ancestors(node) if isinstance(a, _SCOPES)), self.module)

    def function_of(self, node):
        """The innermost function around `node`, or None at module level (or in a class
        body, a lambda or a comprehension: scopes where we do not offer fixes that bind)."""
        scope = self.scope_of(node)
        return scope if isinstance(scope, cst.FunctionDef) else (None if scope is self.module else False)



def bound_names(scope) -> frozenset:
    """Every name `scope` (a FunctionDef or the Module) binds locally: parameters, assignment
    and loop targets, `with ... as`, `except ... as`, imports, nested defs and classes, walrus
    targets. Nested scopes are not entered. `global`/`nonlocal` names are removed. Walked once
    per scope while its file is linted: the rules ask of one long function for every fix
    candidate in it."""
    return per_lint("bound_names", scope, _bound_names)


def _bound_names(scope) -> frozenset:
    names, declared = set(), set()
    if isinstance(scope, cst.FunctionDef):
        names |= _param_names(scope.params)
        body = scope.body
    else:
        body = scope
    stack = list(child_nodes(body))
    while stack:
        n = stack.pop()
        if isinstance(n, (cst.FunctionDef, cst.ClassDef)):
            names.add(n.name.value)
            continue  # decorators and defaults run here, but bind nothing we care about
        if isinstance(n, (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)):
            continue
        if isinstance(n, (cst.Global, cst.Nonlocal)):
            declared.update(item.name.value for item in n.names)
            continue
        if isinstance(n, (cst.Import, cst.ImportFrom)) and not isinstance(n.names, cst.ImportStar):
            names |= _imported_names(n)
        for t in _binding_targets(n):
            names.update(_target_names(t))
        stack.extend(child_nodes(n))
    return frozenset(names - declared)


def _param_names(p: cst.Parameters) -> set:
    names = {param.name.value for param in (*p.posonly_params, *p.params, *p.kwonly_params)}
    for star in (p.star_arg, p.star_kwarg):
        if isinstance(star, cst.Param):
            names.add(star.name.value)
    return names


def _binding_targets(n) -> list:
    """The targets statement or expression `n` itself binds (not those of its children)."""
    if isinstance(n, cst.Assign):
        return [t.target for t in n.targets]
    if isinstance(n, (cst.AnnAssign, cst.AugAssign, cst.For, cst.NamedExpr)):
        return [n.target]
    if isinstance(n, cst.WithItem) and n.asname is not None:
        return [n.asname.name]
    if isinstance(n, cst.ExceptHandler) and n.name is not None:
        return [n.name.name]
    return []


def _imported_names(n) -> set:
    """The local names an import binds: `import a.b` binds `a`."""
    names = set()
    for alias in n.names:
        local = alias.asname.name if alias.asname else alias.name
        head = local
        while isinstance(head, cst.Attribute):
            head = head.value
        if isinstance(head, cst.Name):
            names.add(head.value)
    return names


def bound_in_enclosing_function(scopes: Scopes, node, name: str) -> bool:
    """A function around `node` binds `name` itself (a parameter, a local import): there the
    name is not the module-level one (`def step(torch, x)`)."""
    return any(isinstance(a, cst.FunctionDef) and name in bound_names(a) for a in scopes.ancestors(node))


def _target_names(t) -> set:
    return {n.value for n in target_name_nodes(t)}


def target_name_nodes(t) -> list:
    """The `Name` nodes an assignment or loop target binds: `a`, and each name of `a, b` /
    `[a, b]` / `*a` (an attribute or subscript target binds no name)."""
    if isinstance(t, cst.Name):
        return [t]
    if isinstance(t, (cst.Tuple, cst.List)):
        return [n for el in t.elements for n in target_name_nodes(el.value)]
    if isinstance(t, cst.StarredElement):
        return target_name_nodes(t.value)
    return []


def binds_before(scopes: Scopes, scope, name: str, node) -> bool:
    """Is `name` certainly bound in `scope` when `node` runs? True for a parameter, or for an
    assignment to it in an earlier statement of a block that also holds `node` (it ran on
    every path to `node`). A binding inside a branch, loop or `try` that `node` is not in
    does not count."""
    if isinstance(scope, cst.FunctionDef):
        p = scope.params
        if any(param.name.value == name for param in (*p.posonly_params, *p.params, *p.kwonly_params)):
            return True
    chain = [node, *scopes.ancestors(node)]
    for anc in chain:
        if anc is scope:
            break
        block = scopes.parent(anc)
        if isinstance(block, (cst.IndentedBlock, cst.Module)):
            for stmt in block.body:
                if stmt is anc:
                    break
                if stmt_binds(stmt, name):
                    return True
    return False


def stmt_binds(stmt, name: str) -> bool:
    """`stmt` binds `name` on every path through it that goes on to the next statement: an
    assignment or import, or an `if` / `elif` / `else` whose every branch binds it
    (`if use_cuda: device = ... else: device = torch.device("cpu")`)."""
    if isinstance(stmt, cst.If):
        if stmt.orelse is None or not _suite_binds(stmt.body, name):
            return False
        return stmt_binds(stmt.orelse, name) if isinstance(stmt.orelse, cst.If) else _suite_binds(stmt.orelse.body, name)
    if not isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
        return False
    for small in stmt.body:
        targets = ()
        if isinstance(small, cst.Assign):
            targets = [t.target for t in small.targets]
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            targets = [small.target]
        elif isinstance(small, (cst.Import, cst.ImportFrom)) and not isinstance(small.names, cst.ImportStar):
            for alias in small.names:
                local = alias.asname.name if alias.asname else alias.name
                if isinstance(local, cst.Name) and local.value == name:
                    return True
        for t in targets:
            if name in _target_names(t):
                return True
    return False


def _suite_binds(suite, name: str) -> bool:
    if isinstance(suite, cst.SimpleStatementSuite):
        return stmt_binds(suite, name)
    return any(stmt_binds(s, name) for s in suite.body)


def device_var(scopes: Scopes, node, contexts) -> str | None:
    """The device variable to use at `node`: a name every context in `contexts` (one
    {name: Val} per context `node` ran in) sees as a device, proven by more than its name
    in at least one, and certainly bound when `node` runs. None when there is none."""
    from devicelint.values import Kind

    if not contexts:
        return None
    names = set(contexts[0])
    for ctx in contexts[1:]:
        names &= set(ctx)
    for name in sorted(names, key=lambda n: (n != "device", n)):
        vals = [ctx[name] for ctx in contexts]
        if any(v.kind is not Kind.DEVICE for v in vals):
            continue
        if not any(not (isinstance(v.key, tuple) and v.key[:1] == ("txt",)) for v in vals):
            continue  # a device only by its name in every context: not proof
        if certainly_bound(scopes, node, name):
            return name
    return None


def certainly_bound(scopes: Scopes, node, name: str) -> bool:
    """`name` is bound when `node` runs: in its own function before it, or, when no
    function on the way binds it, at module level by a top-level statement (so also when
    another module imports this one and calls the function)."""
    scope = scopes.scope_of(node)
    while scope is not scopes.module:
        if isinstance(scope, cst.FunctionDef):
            if name in bound_names(scope):
                return binds_before(scopes, scope, name, node)
        elif isinstance(scope, cst.ClassDef):
            pass  # a class body's names are not seen by its methods
        else:
            return False  # lambdas and comprehensions: keep it simple
        scope = scopes.scope_of(scope)
    if scopes.scope_of(node) is scopes.module:
        return binds_before(scopes, scopes.module, name, node)
    return any(stmt_binds(stmt, name) for stmt in scopes.module.body)
