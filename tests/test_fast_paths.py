"""The shortcuts the linter takes for speed give exactly what the slow ways give."""

from __future__ import annotations

import ast
import gc

import libcst as cst
import pytest

from devicelint import engine, limits
from devicelint.positions import positions
from devicelint.flow import nodes

TRAIN = '''import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader


class Net(nn.Module):
    def __init__(self, width=16):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, width), nn.ReLU(), nn.Linear(width, 2))

    def forward(self, x):
        return self.body(x)


def train(model, loader, device, epochs=2):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(epochs):
        for batch in loader:
            x, y = batch["x"].to(device), batch["y"].to(device)
            loss = nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {epoch}: {loss.item():.3f}", r"raw\\path", u"unicode", """a
multi-line""", b"bytes", 'it''s')


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    args = parser.parse_args()
    model = Net().to(args.device)
    train(model, DataLoader([]), torch.device(args.device))
'''


def test_the_index_walks_and_finds_what_a_plain_walk_does():
    module = cst.parse_module(TRAIN)
    plain = list(nodes._walk(module))
    with nodes.indexed(module):
        assert list(nodes.walk(module)) == plain
        for sub in plain[::7]:
            below = list(nodes._walk(sub))
            assert list(nodes.walk(sub)) == below
            for kind in (cst.Call, cst.Name, cst.AssignTarget, cst.FunctionDef):
                assert nodes.find(sub, kind) == [n for n in below if type(n) is kind]
    # a node made after the index (a fix's replacement) is walked the plain way
    made = cst.parse_expression("model(x.to(device))")
    with nodes.indexed(module):
        assert list(nodes.walk(made)) == list(nodes._walk(made))
        assert nodes.find(made, cst.Call) == [n for n in nodes._walk(made) if type(n) is cst.Call]


def test_own_nodes_is_the_plain_walk_without_nested_scopes():
    """`own_nodes` (DL007's walk of a function body for its returns) is the plain walk with
    the subtrees of nested functions, classes and lambdas cut off, in the same order."""
    module = cst.parse_module(TRAIN + """
def make(device):
    def helper(t):
        return t.cpu()

    class Holder:
        def get(self):
            return device
    key = lambda b: b.to(device)
    return key(torch.ones(2)) if device else helper(torch.zeros(2))
""")
    make = next(n for n in nodes._walk(module) if type(n) is cst.FunctionDef and n.name.value == "make")
    inner = {id(n) for n in nodes._walk(make.body) if type(n) in (cst.FunctionDef, cst.ClassDef, cst.Lambda)}
    nested = {id(d) for n in nodes._walk(make.body) if id(n) in inner for d in nodes._walk(n)}
    own = list(nodes.own_nodes(make.body))
    assert own == [n for n in nodes._walk(make.body) if id(n) not in nested]
    assert [type(r.value).__name__ for r in own if type(r) is cst.Return] == ["IfExp"]


def test_enclosing_nodes_from_the_index_are_the_parent_chain():
    """`enclosing` (the ancestors DL005 looks at instead of visiting the whole tree) gives,
    with the index and without it, the chain of parents LibCST's own ParentNodeProvider
    gives, outermost first."""
    from libcst.metadata import MetadataWrapper, ParentNodeProvider

    module = cst.parse_module(TRAIN)
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    parents = wrapper.resolve(ParentNodeProvider)
    plain = list(nodes._walk(module))

    def chain(node):
        out = []
        while node in parents:
            node = parents[node]
            out.append(node)
        return out[::-1]

    def ids(found):
        return [[id(n) for n in chain] for chain in found]

    expected = ids(chain(n) for n in plain[::5])
    assert ids(nodes.enclosing(module, n) for n in plain[::5]) == expected
    with nodes.indexed(module):
        assert ids(nodes.enclosing(module, n) for n in plain[::5]) == expected
        assert nodes.enclosing(plain[3], module) == []  # not below
    assert max(map(len, expected)) > 5 and expected[0] == []  # nested nodes; the module itself has none


def test_scopes_read_parents_off_the_index_as_the_parent_map_gives_them(monkeypatch):
    """While a file is linted, Scopes answers parent, ancestors and scope from the module
    index, node by node, without the map of the whole module; the answers are the map's."""
    from devicelint import rewrite

    module = cst.parse_module(NESTED + TRAIN)
    every = list(nodes._walk(module))
    mapped = rewrite.Scopes(module)
    expected = [(mapped.parent(n), list(mapped.ancestors(n)), mapped.scope_of(n)) for n in every]

    def no_map(root):
        raise AssertionError("the whole module's parent map was built")

    monkeypatch.setattr(rewrite, "parent_map", no_map)
    with nodes.indexed(module):
        indexed = rewrite.Scopes(module)
        got = [(indexed.parent(n), list(indexed.ancestors(n)), indexed.scope_of(n)) for n in every]
    assert all(a[0] is b[0] and list(map(id, a[1])) == list(map(id, b[1])) and a[2] is b[2]
               for a, b in zip(got, expected))
    assert got[0] == (None, [], module) and max(len(a[1]) for a in got) > 10


def test_string_literals_read_without_literal_eval_match_it():
    module = cst.parse_module(TRAIN + 'odd = ("tab\\there", "\\N{BULLET}", R"x", U"y", "", \'\', """""", rb"z")\n')
    strings = [n for n in nodes._walk(module) if isinstance(n, cst.SimpleString)]
    assert len(strings) > 10
    for s in strings:
        expected = ast.literal_eval(s.value)
        assert nodes.string_value(s) == (expected if isinstance(expected, str) else None), s.value


def test_parsing_without_validation_gives_the_same_tree_and_leaves_validation_on():
    fast = engine.parse_module(TRAIN.encode())
    assert fast.deep_equals(cst.parse_module(TRAIN))
    assert fast.code == TRAIN
    with pytest.raises(cst.CSTValidationError):  # nodes built after the parse are checked again
        cst.Name("not a name")


def test_positions_match_libcsts_provider():
    module = cst.parse_module(TRAIN)
    from libcst.metadata import MetadataWrapper, PositionProvider

    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    got = positions(module)
    for node in nodes._walk(module):
        assert got.get(node) == expected.get(node)


# Statements in blocks: blocks indented by tabs, by 2 and by 8 spaces in one file, a block's
# comment indented unlike its statements, `elif`/`else`/`except`/`finally` arms, a one-line
# suite (`if x: y`), a `match` (it indents its cases itself), continuation lines, and lines
# spelled alike in two functions (with their indentation: only the function tells which).
NESTED = '''import torch


class Trainer:
	def step(self, batch):
		if batch is None:
			return None
		elif len(batch) > 2: batch = batch[:2]
		else:
			# a comment of the else arm
			pass
		x = batch[0].to(self.device)
		return self.model(x)


def train(model, loader, device):
  for batch in loader:
    try:
        x = batch["x"].to(device)
    except KeyError:
            # a deeper comment
        x = batch[0]
    finally:
        model.train()
    loss = model(x).sum(
        dim=0,
    )
    with torch.no_grad():
        total = loss.item()
  match total:
    case 0:
      print("zero")
    case _:
      print(total)


def evaluate(model, loader, device):
  for batch in loader:
    try:
        x = batch["x"].to(device)
    except KeyError:
        x = batch[1]
'''


# Sources where a statement's place is easy to get wrong: a header comment and blank lines
# before it, decorators, a block's trailing comment (LibCST's footer of that block), "\r\n"
# and lone "\r" line ends, a last line without its newline, tabs, two statements spelled
# alike (only the whole module tells which is which), a statement at the file's first byte.
_PLACES = [
    TRAIN,
    "# a header\n\n\n@torch.no_grad()\n# between\n@staticmethod\ndef f(x):\n    return x.cuda()\n"
    "    # a trailing comment of the block\n\n# before g\ndef g():\n\tpass\n",
    TRAIN.replace("\n", "\r\n"),
    "import torch\r\nx = torch.zeros(3)\ry = x.cuda()\r\nz = (1 +\r\n     2)\r\n",
    "import torch\nmodel.cuda()\nx = 1\nmodel.cuda()\nmodel.cuda()",
    "x = torch.ones(2).cuda()",
    NESTED,
    NESTED.replace("\n", "\r\n"),
    NESTED.rstrip("\n"),
]


@pytest.mark.parametrize("source", _PLACES)
def test_lazy_positions_match_libcsts_provider_and_generate_only_the_statement_asked(source):
    """Context.position code-generates only the statements holding the nodes asked about
    (LazyRanges), with the provider's ranges, asked in any order."""
    import random

    from libcst.metadata import MetadataWrapper, PositionProvider
    from devicelint.positions import LazyRanges

    module = cst.parse_module(source)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    every = list(nodes._walk(module))
    with nodes.indexed(module):
        index = nodes.current_index()
        for seed in range(3):
            lazy = LazyRanges(module, source.encode(), index)
            order = every[:]
            random.Random(seed).shuffle(order)
            for node in order:
                assert lazy.get(node) == expected.get(node), (type(node).__name__, seed)
            assert lazy.get(cst.Name("elsewhere")) is None
        # one node: its statement alone, unless it is spelled like another statement
        for i, stmt in enumerate(module.body):
            lazy = LazyRanges(module, source.encode(), index)
            leaf = list(nodes._walk(stmt))[-1]
            assert lazy.get(leaf) == expected.get(leaf)
            twins = [s for s in module.body if module.code_for_node(s) == module.code_for_node(stmt)]
            assert (lazy._whole is None) == (len(twins) == 1), i
            assert len(lazy._parts) == (1 if len(twins) == 1 else 0)


def test_a_node_in_a_block_generates_only_its_innermost_statement_found_once():
    """A node deep in a function: only the innermost statement around it is code-generated
    (with the indentation of its blocks), unless that statement is spelled like another one
    with the same indentation; then the one around it, and so on up."""
    from libcst.metadata import MetadataWrapper, PositionProvider
    from devicelint.positions import LazyRanges

    module = cst.parse_module(NESTED)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    train, evaluate = (s for s in module.body if isinstance(s, cst.FunctionDef))
    with nodes.indexed(module):
        index = nodes.current_index()

        def generated(node, stmt):
            """Whether asking for `node` code-generated `stmt` and nothing around it."""
            lazy = LazyRanges(module, NESTED.encode(), index)
            assert lazy.get(node) == expected.get(node) and lazy._whole is None
            (part, _line), = lazy._parts
            return stmt in part and nodes.enclosing(module, stmt)[-1] not in part

        def named(fn, name):
            return [n for n in nodes.find(fn, cst.Name) if n.value == name]

        def line_of(node):
            return next(a for a in reversed(nodes.enclosing(module, node)) if type(a) is cst.SimpleStatementLine)

        item = named(train, "item")[0]  # `total = loss.item()` in a `with`
        assert generated(item, line_of(item))
        print_ = named(train, "print")[-1]  # in a `match` case
        assert generated(print_, line_of(print_))
        # `x = batch["x"].to(device)`: the same line, indented alike, in both functions: the
        # `try` around each (their arms differ) tells them apart
        for fn in (train, evaluate):
            to = named(fn, "to")[0]
            assert module.code.count(module.code_for_node(line_of(to))) == 2
            assert generated(to, nodes.find(fn, cst.Try)[0])


def test_a_lint_code_generates_only_the_statements_of_its_findings(monkeypatch):
    """A cold lint of a training script places its findings without the code generation of
    the whole module (LibCST's PositionProvider way), with the same findings as that way."""
    from devicelint.positions import positions as real

    whole = []  # the modules whose whole code was generated
    generate = cst.Module._codegen_impl
    monkeypatch.setattr(cst.Module, "_codegen_impl", lambda self, state: whole.append(self) or generate(self, state))
    bad = TRAIN.replace('x, y = batch["x"].to(device), batch["y"].to(device)', 'x, y = batch["x"], batch["y"]')
    bad += "\nmodel.cuda()\n"
    found = engine.lint_source(bad, "train.py")
    assert [(f.code, f.line) for f in found] == [("DL002", 22), ("DL007", 37)] and whole == []
    assert found[1].fix["edits"][0]["line"] == 37  # the fix is placed by the same positions

    class Whole:  # the editor's way: positions of the whole module, from its own parser
        def parse(self, source):
            return engine.parse_module(source)

        def positions(self, module):
            return real(module)

    assert engine.analyse(bad, "train.py", reuse=Whole())[0] and \
        [f for f, _ in engine.analyse(bad, "train.py", reuse=Whole())[0]] == found


def test_freezing_trees_keeps_findings_and_unfreezes_them(monkeypatch):
    bad = TRAIN.replace("model = Net().to(args.device)", "model = Net()")
    before = engine.lint_source(bad, "train.py")
    monkeypatch.setattr(engine, "FREEZE_TREES", True)
    assert gc.get_freeze_count() == 0
    for _ in range(3):
        assert engine.lint_source(bad, "train.py") == before
    assert gc.get_freeze_count() == 0  # every tree was given back to the collector
    assert any(f.code == "DL001" for f in before)


def test_depth_screen_joins_continuation_lines_into_one_statement():
    joined = b"loss = (a + \\\n    b)\n" + b"total = 1" + b" + \\\n    1" * 900 + b"\n"
    assert not limits._no_long_statement(joined)
    assert limits._no_long_statement(b"if a and \\\n        b:\n    pass\n")


RESUME = '''import argparse

import torch
import torch.nn as nn


def build(args):
    model = nn.Linear(8, 2).to(args.device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, 10)
    if torch.cuda.is_available():
        model.load_state_dict(torch.load(args.ckpt))  # guarded: a GPU is there
    elif args.resume:
        model.load_state_dict(torch.load(args.ckpt))  # the branch a CPU-only run takes
    if torch.load(args.flags):  # in a test: not a load the rule reads
        pass
    state = torch.load(args.ckpt) if torch.cuda.device_count() else None
    sched.load_state_dict(torch.load(args.sched_file))  # no tensors to place
    extra = torch.load(args.extra)
    return model, opt, sched, state, extra


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cuda")
    print(build(parser.parse_args()))
'''


def test_dl009_reads_loads_where_a_run_without_cuda_reaches_them():
    module = cst.parse_module(RESUME)
    with nodes.indexed(module):
        calls = nodes.find(module, cst.Call)
        first_if = nodes.find(module, cst.If)[-1]  # walk order: the last `if` of the file first
        assert all(nodes.contains(module, c) for c in calls)
        assert not any(nodes.contains(first_if.test, c) for c in calls if c not in nodes.find(first_if.test, cst.Call))
    lines = sorted(f.line for f in engine.lint_source(RESUME, "resume.py", select=["DL009"]))
    assert lines == [14, 19]  # the elif branch and the plain load


def _large_script() -> str:
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from lsp_project import large_script

    return large_script()


def test_bound_names_walks_each_scope_once_per_lint_and_changes_no_finding(monkeypatch):
    """The rules ask rewrite.bound_names of one long function once per fix candidate in it:
    each scope is walked once per lint, and the findings are those of a walk at every ask."""
    from devicelint import rewrite

    source = _large_script().encode()
    walked = []
    real = rewrite._bound_names
    monkeypatch.setattr(rewrite, "_bound_names", lambda scope: walked.append(id(scope)) or real(scope))
    memo = engine.lint_source(source, "train_all.py")
    assert walked and len(walked) == len(set(walked))
    asks = []
    monkeypatch.setattr(nodes, "per_lint", lambda what, node, make: asks.append(id(node)) or make(node))
    monkeypatch.setattr(rewrite, "per_lint", nodes.per_lint)
    assert engine.lint_source(source, "train_all.py") == memo
    assert len(asks) > len(set(asks))  # the same scope asked about again: what the memo saves


def test_per_lint_answers_afresh_outside_the_lint_and_for_nodes_made_after_its_index():
    module = cst.parse_module(TRAIN)
    fn = next(s for s in module.body if isinstance(s, cst.FunctionDef))
    made = []
    make = lambda node: made.append(node) or len(made)  # noqa: E731  a new answer each time
    assert nodes.per_lint("t", fn, make) != nodes.per_lint("t", fn, make)  # no lint: no memo
    with nodes.indexed(module):
        assert nodes.per_lint("t", fn, make) == nodes.per_lint("t", fn, make)
        assert nodes.per_lint("u", fn, make) != nodes.per_lint("t", fn, make)  # one memo per question
        new = fn.with_changes(name=cst.Name("train2"))  # built after the index: not in it
        assert nodes.per_lint("t", new, make) != nodes.per_lint("t", new, make)
