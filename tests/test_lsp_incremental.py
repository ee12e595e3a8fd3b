"""A keystroke re-parses only the statements it changed (devicelint/lsp/incremental.py), and
what the server then reports is what a fresh full lint of the same text reports.

Each test applies a series of edits as a user makes them in a training script (typing in a
function letter by letter, syntax errors on the way, a new function, a module-level device
that other functions use, comments, a `# noqa`) and compares, after every edit, the tree and
positions of the incremental parse, or the diagnostics of the incremental lint, with those
of a full parse / a fresh lint."""

import random
from pathlib import Path

import libcst as cst
import pytest

from devicelint import engine
from devicelint.flow import nodes
from devicelint.flow.nodes import walk
from devicelint.lsp.incremental import IncrementalParser
from devicelint.lsp.workspace import Workspace
from devicelint.positions import positions
from lsp_project import MODELS, UNMOVED

TRAIN = (Path(__file__).resolve().parent.parent / "benchmarks" / "data" / "train_classifier.py").read_text()


def _sub(old: str, new: str, count: int = 1):
    def edit(text: str) -> str:
        assert old in text, old
        return text.replace(old, new, count)
    return edit


def _typed(anchor: str, typed: str) -> list:
    """One edit per character of `typed`, typed right after `anchor` (the first time it occurs)."""
    return [_sub(anchor + typed[:i], anchor + typed[:i + 1]) for i in range(len(typed))]


EDITS = [
    # typing a new statement at the end of a loop body, one key at a time (mostly syntax errors)
    *_typed("        scaler.update()\n", "        print(loss.item())\n"),
    # a new function between two others
    _sub("\n\n@torch.no_grad()\ndef evaluate(", "\n\ndef warm_up(model, device):\n"
         "    model.to(device)\n    return model(torch.zeros(1, 3, 32, 32, device=device))\n\n\n@torch.no_grad()\ndef evaluate("),
    # a module-level device that functions then read
    _sub("from torch.utils.data import DataLoader, Dataset, random_split\n",
         "from torch.utils.data import DataLoader, Dataset, random_split\n\nDEVICE = torch.device(\"cuda\")\n"),
    _sub("            logits = model(batch[\"image\"].to(device))", "            logits = model(batch[\"image\"].to(DEVICE))"),
    _sub("DEVICE = torch.device(\"cuda\")", "DEVICE = torch.device(\"cpu\")"),
    _sub("DEVICE = torch.device(\"cpu\")", "DEVICE = \"cuda\" if torch.cuda.is_available() else \"cpu\""),
    # a syntax error in a function, then fixed
    _sub("    model.eval()\n    rows = []\n", "    model.eval(\n    rows = []\n"),
    _sub("    model.eval(\n    rows = []\n", "    model.eval()\n    rows = []\n"),
    # comments: at column 0 between functions, indented at the end of a function, a suppression
    _sub("\n\ndef main():\n", "\n\n# the entry point\ndef main():\n"),
    _sub("    return running_loss / len(loader)\n", "    return running_loss / len(loader)\n    # per-batch mean\n"),
    _sub("        running_loss += loss\n", "        running_loss += loss  # noqa: DL003\n"),
    # a line of spaces and an indented comment between two functions
    _sub("\n\ndef cosine_with_warmup(", "\n    \n    # scheduler\ndef cosine_with_warmup("),
    # a deleted function, then the end of the file edited
    _sub("def seed_everything(seed):\n", "def seed_everything_(seed):\n"),
    lambda text: text + "# trailing note\n",
    lambda text: text.replace("# trailing note\n", "    # indented trailing note\n"),
    lambda text: text.rstrip("\n"),  # no newline at the end
    lambda text: text + "\n",
    # the first statement (the docstring) and the imports
    _sub("import argparse\n", "import argparse\nimport sys\n"),
    _sub("Usage:", "Use:"),
]


def _same_tree(parser: IncrementalParser, text: str) -> bool:
    """Whether the text parses; if so, the parser's tree and positions are a full parse's."""
    source = text.encode()
    try:
        full = cst.parse_module(source)
    except cst.ParserSyntaxError:
        with pytest.raises(cst.ParserSyntaxError):
            parser.parse(source)
        return False
    module = parser.parse(source)
    assert module.code == full.code  # not always the text: LibCST drops a line's lone backslash
    assert module.deep_equals(full)
    mine, theirs = parser.positions(module), positions(module)
    for node in walk(module):
        assert mine.get(node) == theirs.get(node), node
    joined = parser.index(module)  # None: no pieces kept of this text, indexed() walks it
    assert joined is None or same_index(joined, nodes._Index(module))
    return True


def same_index(mine, walked) -> bool:
    """Whether two module indexes (flow.nodes) are the same: the same node objects in the same
    order, and every table the same."""
    return (len(mine.nodes) == len(walked.nodes) and all(a is b for a, b in zip(mine.nodes, walked.nodes))
            and mine.at == walked.at and mine.ends == walked.ends and mine.by_type == walked.by_type)


def test_the_spliced_tree_and_positions_equal_a_full_parse_after_each_edit():
    parser, text = IncrementalParser(), TRAIN
    _same_tree(parser, text)
    reused = []
    for edit in EDITS:
        text = edit(text)
        if _same_tree(parser, text):
            reused.append(parser.reused)
    # of the 31 statements, most edits re-parsed one or two: the rest came from before
    assert sum(1 for r in reused if r >= 28) >= len(reused) * 2 // 3, reused


def test_windows_and_old_mac_line_ends_give_a_full_parse_s_tree_and_positions():
    parser = IncrementalParser()
    crlf = TRAIN.replace("\n", "\r\n")
    assert _same_tree(parser, crlf)
    edited = crlf.replace("    model.eval()\r\n", "    model.eval()\r\n    rows = None\r\n", 1)
    assert _same_tree(parser, edited) and parser.reused > 20
    # a lone \r (old Mac) ends a line for LibCST too: such a text is parsed whole
    lone = edited.replace("    rows = None\r\n", "    # none yet\r    rows = None\r\n", 1)
    assert _same_tree(parser, lone) and parser.reused == 0
    assert _same_tree(parser, lone.replace("# none yet\r", "# none yet\r\r")) and parser.reused == 0


SNIPPETS = ["", "\n", "# note\n", "    # indented note\n", "   \n", "x = 1\n", "    y = 2\n", "def f():\n",
            "    return torch.zeros(3).cuda()\n", "class Net(nn.Module):\n    pass\n", "if __name__ == '__main__':\n",
            "\"\"\"doc\n", "print(\n", ")\n", "\tz = 3\n", "@torch.no_grad()\n", "model.to(device)\n", "\\\n"]


@pytest.mark.parametrize("seed", range(6))
def test_random_line_edits_parse_as_a_full_parse_does(seed):
    rng = random.Random(seed)
    parser, lines = IncrementalParser(), TRAIN.splitlines(keepends=True)
    _same_tree(parser, "".join(lines))
    reused = 0
    for _ in range(40):
        at = rng.randrange(len(lines) + 1)
        what = rng.random()
        if what < 0.4 and lines:
            del lines[min(at, len(lines) - 1)]
        elif what < 0.8:
            lines.insert(at, rng.choice(SNIPPETS))
        else:
            lines[min(at, len(lines) - 1)] = rng.choice(SNIPPETS) or "\n"
        if rng.random() < 0.3:
            lines = TRAIN.splitlines(keepends=True)  # back to a text that parses
        _same_tree(parser, "".join(lines))
        reused += parser.reused > 0
    assert reused >= 10  # the splice was taken, not only the full parse


def _project(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "trainer"\n\n[tool.devicelint]\nselect = ["ALL"]\n')
    (tmp_path / "models.py").write_text(MODELS)
    (tmp_path / "train.py").write_text(UNMOVED)
    path = tmp_path / "train_classifier.py"
    path.write_text(TRAIN)
    return str(path)


def _with_fixes(lint) -> list:
    return [lint.with_fix(i) for i in range(len(lint.findings))]


def test_incremental_lint_equals_a_fresh_full_lint_after_each_edit(tmp_path):
    path = _project(tmp_path)
    ws = Workspace()
    settings = ws.settings(path)
    text, reused = TRAIN, []
    for edit in [lambda t: t, *EDITS]:
        text = edit(text)
        data = text.encode()
        ws.open(path, data)
        incremental = ws.lint(path, data, settings)
        reused.append(ws._parsers[path].reused)
        fresh = engine.analyse(data, path, settings.select, settings.ignore)[0]
        assert _with_fixes(incremental) == [f for f, _r in fresh], text
    assert max(reused) > 20, reused


def test_an_edit_to_a_module_level_device_relints_the_functions_that_read_it(tmp_path, monkeypatch):
    """The device a module-level name holds decides the findings of functions far from the
    edit: the statements are reused, the analysis is not. Trees kept out of the cyclic
    collector while analysed, as `devicelint server` keeps them (engine.FREEZE_TREES)."""
    monkeypatch.setattr(engine, "FREEZE_TREES", True)
    path = _project(tmp_path)
    text = TRAIN.replace("from torch.utils.data import DataLoader, Dataset, random_split\n",
                         "from torch.utils.data import DataLoader, Dataset, random_split\n\nDEVICE = \"cuda\"\n").replace(
        "    model = Classifier(len(classes)).to(device)\n", "    model = Classifier(len(classes)).to(DEVICE)\n")
    ws = Workspace()
    settings = ws.settings(path)
    seen = []
    for device in ("cuda", "cpu", "cuda"):
        data = text.replace("DEVICE = \"cuda\"", f"DEVICE = \"{device}\"").encode()
        ws.open(path, data)
        lint = ws.lint(path, data, settings)
        fresh = [f for f, _r in engine.analyse(data, path, settings.select, settings.ignore)[0]]
        assert _with_fixes(lint) == fresh
        seen.append(sorted((f.code, f.line) for f in lint.findings))
    assert ws._parsers[path].reused > 20
    assert seen[0] == seen[2] != seen[1]


def test_the_module_index_joined_from_kept_statements_is_the_walked_one_and_reuses_their_parts():
    """flow.nodes' module index of a spliced tree is joined from the statements' own indexes:
    the same tables a walk of the whole tree makes; a statement the edit left alone keeps
    its part, an edited one gets a new part, and a part handed in for another node is not
    used (the join walks that statement instead)."""
    parser = IncrementalParser()
    module = parser.parse(TRAIN.encode())
    before = {id(p.node): p.index() for p in parser.last.pieces}
    edited = TRAIN.replace("    model.eval()\n", "    model.eval()\n    rows = None\n", 1)
    module = parser.parse(edited.encode())
    assert parser.reused > 20
    assert same_index(parser.index(module), nodes._Index(module))
    kept = [p for p in parser.last.pieces if id(p.node) in before]
    assert len(kept) == parser.reused and all(p.index() is before[id(p.node)] for p in kept)
    changed = [p for p in parser.last.pieces if id(p.node) not in before]
    assert changed and all(p.index().nodes[0] is p.node for p in changed)
    # a stale part (another statement's) under a statement's id: walked, not spliced in
    first, other = module.body[0], module.body[-1]
    wrong = {id(p.node): p.index() for p in parser.last.pieces}
    wrong[id(first)] = nodes.subtree_index(other)
    assert same_index(nodes.joined_index(module, wrong), nodes._Index(module))
    assert not same_index(nodes._Index(module.body[1]), nodes._Index(module))  # the check can fail
    assert parser.index(cst.parse_module(edited)) is None  # another tree: indexed() walks it
