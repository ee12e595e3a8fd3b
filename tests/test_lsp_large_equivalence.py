"""What the server reports after each keystroke in a 1,000-line training script is what a
fresh full lint of the same text reports, although the keystroke re-parsed only the
statements it changed and the rules' parent map was put together from the statements the
keystroke left alone (lsp/incremental.py, engine.Context.scopes).

The edits are those of a user at work on the script (benchmarks/lsp_latency.py lints the
same one): a statement typed letter by letter inside a training function (a syntax error at
most keys), a move deleted so that a finding appears, an edit across two functions, a
signature changed, an import changed, a model built in one function moved so that another
function's finding goes, a function added, undo back to an earlier text. After each edit
the findings, their fixes built as a code action builds them, are compared with a fresh
lint's; the edits must change the findings far from the edited statement, so that reusing
the wrong part of the old analysis would show."""

import libcst as cst

from devicelint import engine, rewrite
from devicelint.flow import nodes
from devicelint.lsp.incremental import IncrementalParser
from devicelint.lsp.workspace import Workspace
from lsp_project import MODELS, large_script

LARGE = large_script()


def _sub(old: str, new: str):
    def edit(text: str) -> str:
        assert old in text, old
        return text.replace(old, new, 1)
    return edit


def _typed(anchor: str, typed: str) -> list:
    """One edit per character of `typed`, typed right after `anchor` (its first occurrence)."""
    return [_sub(anchor + typed[:i], anchor + typed[:i + 1]) for i in range(len(typed))]


def _undo_to(step: int):
    """Back to the text after edit number `step` (0: the text as opened), as undo gives it."""
    return lambda _text, texts: texts[step]


TRAIN_STEP = "        optimizer.zero_grad(set_to_none=True)\n"
TYPED = "    seen = 0\n"
EDITS = [
    # inside the first training function: a statement typed key by key (mostly syntax errors)
    *_typed("    model.train()\n", TYPED),
    # a batch no longer moved: a finding appears in the loop of the same function
    _sub("        x = x.to(device, non_blocking=True)\n        y = y.to(device, non_blocking=True)\n"
         + TRAIN_STEP, "        y = y.to(device, non_blocking=True)\n" + TRAIN_STEP),
    # the model of the first main() moved where it is built: the findings where it is used go
    _sub("    model = MLP(args.num_features, args.hidden, num_classes=2)\n",
         "    model = MLP(args.num_features, args.hidden, num_classes=2).to(device)\n"),
    # a move deleted in another function: its model is used unmoved, the fix moves it where built
    _sub("    model = Regressor().to(device)\n", "    model = Regressor()\n"),
    # an edit across two functions: the end of one, the decorator and first line of the next
    _sub("    return torch.stack(losses).mean().item()\n\n\n@torch.no_grad()\ndef evaluate(model, loader, device):\n"
         "    model.eval()\n",
         "    return torch.stack(losses).mean().item()\n\n\ndef evaluate(model, loader, device):\n    model.train()\n"),
    # a signature changed (a parameter dropped, its callers unchanged)
    _sub("def make_loaders(num_samples, num_features, batch_size, pin_memory):",
         "def make_loaders(num_samples, num_features, batch_size, pin_memory=False):"),
    # a syntax error mid-typing in a call, then closed
    _sub("    model.eval()\n", "    model.eval(\n"),
    _sub("    model.eval(\n", "    model.eval()\n"),
    # an import changed: numpy under another name (the DL003 findings read `np`)
    _sub("import numpy as np\n", "import numpy\n"),
    _sub("import numpy\n", "import numpy as np\n"),
    # a new function between two others, built on the accelerator
    _sub("\n\ndef progress(iterable):\n", "\n\ndef warm_up(model, device):\n    model.to(device)\n"
         "    return model(torch.zeros(4, 8, device=device))\n\n\ndef progress(iterable):\n"),
    # undo: back to the text as opened, then redo up to the model moved where it is built
    _undo_to(0),
    _undo_to(len(TYPED) + 2),
    # a function deleted (its callers stay)
    _sub("def progress(iterable):\n", "def progress_(iterable):\n"),
    # the first statement: a new import at the top
    _sub("import torch\n", "import os\nimport torch\n"),
]


def _project(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "trainer"\n\n[tool.devicelint]\nselect = ["ALL"]\n')
    (tmp_path / "models.py").write_text(MODELS)
    path = tmp_path / "large_train.py"
    path.write_text(LARGE)
    return str(path)


def _texts() -> list:
    texts = [LARGE]
    for edit in EDITS:
        try:
            texts.append(edit(texts[-1]))
        except TypeError:  # an undo: it reads the texts before it
            texts.append(edit(texts[-1], texts))
    return texts


def test_every_keystroke_lints_as_a_fresh_full_lint_of_a_1000_line_script(tmp_path, monkeypatch):
    monkeypatch.setattr(engine, "FREEZE_TREES", True)  # as `devicelint server` runs
    path = _project(tmp_path)
    ws = Workspace()
    settings = ws.settings(path)
    texts = _texts()
    assert len(LARGE.splitlines()) >= 1000
    reused, seen = [], []
    for text in texts:
        data = text.encode()
        ws.open(path, data)
        lint = ws.lint(path, data, settings)
        reused.append(ws._parsers[path].reused)
        mine = [lint.with_fix(i) for i in range(len(lint.findings))]
        # the fresh lint reads the file's own summary (its call sites) from disk, as after a save
        with open(path, "wb") as f:
            f.write(data)
        fresh = [f for f, _r in engine.analyse(data, path, settings.select, settings.ignore)[0]]
        assert mine == fresh, f"edit {len(reused) - 1}"
        seen.append({(f.code, f.line, f.column) for f in fresh if f.code != "DL000"})
    # the splice was taken for most edits (of about 90 top-level statements)...
    assert sum(r > 60 for r in reused) >= len(texts) // 2, reused
    # ...and the findings moved, appeared and went far from the statements each edit changed
    changed = [a ^ b for a, b in zip(seen, seen[1:])]
    assert sum(bool(c) for c in changed) >= 6, changed
    assert any(len(c) >= 2 for c in changed)
    # a syntax error mid-typing is one DL000 finding
    assert any(not s for s in seen[1:len(TYPED)])


def test_the_parent_map_from_the_kept_statements_is_the_walked_one():
    """rewrite.Scopes' map of the spliced tree, made of the statements' own maps, is the map
    a walk of the whole tree makes; a statement the edit left alone keeps its map."""
    parser, before, checked = IncrementalParser(), {}, 0
    for text in _texts():
        try:
            module = parser.parse(text.encode())
        except cst.ParserSyntaxError:
            continue  # a syntax error: nothing is analysed
        assert parser.parents(module) == rewrite.parent_map(module)
        kept = [p for p in parser.last.pieces if id(p.node) in before]
        assert len(kept) >= parser.reused
        assert all(p.parents() is before[id(p.node)][1] for p in kept)
        before = {id(p.node): (p.node, p.parents()) for p in parser.last.pieces}
        checked += parser.reused > 60
    assert checked >= 8
    assert parser.parents(cst.parse_module(LARGE)) is None  # another tree: Scopes walks it


def test_the_module_index_from_the_kept_statements_is_the_walked_one():
    """flow.nodes' index of the spliced 1,000-line tree, joined from the statements' own
    parts, is the one a walk of the whole tree makes, after every keystroke."""
    from test_lsp_incremental import same_index

    parser, checked = IncrementalParser(), 0
    for text in _texts():
        try:
            module = parser.parse(text.encode())
        except cst.ParserSyntaxError:
            continue
        assert same_index(parser.index(module), nodes._Index(module))
        checked += parser.reused > 60
    assert checked >= 8
