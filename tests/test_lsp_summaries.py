"""An open document's own summary is put together from the records of the top-level statements
a keystroke left alone (lsp/summaries.py), and it is the summary `summary.summarize` makes of
the whole text, key order included, after every edit a user makes: inside a function body, to
a signature, to a class attribute, to an import, to a module-level device, a line above
everything, a function defined twice, undo. Through the server's Workspace, the importer's and
the document's own diagnostics are a cold lint's after each edit. The last tests break the
records' invalidation on purpose and check that the comparison then fails."""

import json

import libcst as cst
import pytest

from devicelint import engine, project
from devicelint import summary as sm
from devicelint.lsp import summaries
from devicelint.lsp.incremental import IncrementalParser
from devicelint.lsp.workspace import Workspace
from lsp_project import MODELS, UNMOVED
from test_lsp_large_equivalence import _texts as large_texts

# models.py as a project grows it: a device chosen at import, a factory moving what it builds
# there, a trainer class with a class attribute, helpers calling each other (call sites)
MODELS_PY = MODELS.replace("import torch.nn as nn\n", "import torch\nimport torch.nn as nn\n\n"
                           "DEVICE = \"cuda\"\n") + '''

def make_classifier(in_features, hidden=64, classes=4):
    model = Classifier(in_features, hidden, classes)
    return model.to(DEVICE)


def batch_to_device(batch, device=DEVICE):
    return {k: v.to(device) for k, v in batch.items()}


class Trainer:
    log_every = 10

    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer

    def step(self, batch):
        batch = batch_to_device(batch)
        self.optimizer.zero_grad()
        loss = self.model(batch["x"]).pow(2).mean()
        loss.backward()
        self.optimizer.step()
        return loss.item()


def train(model, loader, epochs):
    trainer = Trainer(model, torch.optim.SGD(model.parameters(), lr=0.1))
    for epoch in range(epochs):
        for batch in loader:
            loss = trainer.step(batch)
        if epoch % Trainer.log_every == 0:
            print(epoch, loss)
'''


# a script that builds its model with the factory: where the factory moves it (DEVICE) decides
# whether its predictions are on the device when it converts them to NumPy (DL003)
FACTORY_TRAIN = UNMOVED.replace("from models import Classifier", "from models import Classifier, make_classifier").replace(
    "model = Classifier(20, 64, 4)", "model = make_classifier(20)")


def _sub(old: str, new: str):
    def edit(text: str) -> str:
        assert old in text, old
        return text.replace(old, new, 1)
    return edit


PLACE = ("            nn.Linear(hidden, classes),\n        )\n",
         "            nn.Linear(hidden, classes),\n        )\n        self.to(DEVICE)\n")
EDITS = [
    # inside a function body
    _sub("    model = Classifier(in_features, hidden, classes)\n",
         "    model = Classifier(in_features, hidden, classes)\n    model.train()\n"),
    # the class places itself: the script's unmoved model is placed (its DL001 goes)
    _sub(*PLACE),
    # a signature
    _sub("def train(model, loader, epochs):", "def train(model, loader, epochs, device=DEVICE):"),
    # a class attribute
    _sub("    log_every = 10\n", "    log_every = 50\n"),
    # an import
    _sub("import torch.nn as nn\n", "from torch import nn\n"),
    # the module-level device: what the unchanged factory and helper move to
    _sub("DEVICE = \"cuda\"\n", "DEVICE = \"cpu\"\n"),
    _sub("DEVICE = \"cpu\"\n", "DEVICE = \"cuda\" if torch.cuda.is_available() else \"cpu\"\n"),
    # lines above everything: every call site moves down
    _sub('"""Models for the classifier."""\n', '"""Models for the classifier.\n\nAnd their training.\n"""\n'),
    # the class no longer places itself: DL001 back in the script
    _sub(PLACE[1], PLACE[0]),
    # a function defined twice (the later one counts), then renamed
    _sub("\n\nclass Trainer:", "\n\ndef make_classifier(in_features):\n    return Classifier(in_features, 8, 2)\n\n\n"
         "class Trainer:"),
    _sub("def make_classifier(in_features):\n", "def make_small_classifier(in_features):\n"),
    # back to the module-level device of the start
    _sub("DEVICE = \"cuda\" if torch.cuda.is_available() else \"cpu\"\n", "DEVICE = \"cuda\"\n"),
]


IMPORT_EDIT = 5  # the text after the import edit: every definition is summarised again


def models_texts() -> list:
    texts = [MODELS_PY]
    for edit in EDITS:
        texts.append(edit(texts[-1]))
    return texts


def _mismatches(texts: list) -> tuple[list, list]:
    """(the edits whose summary from records differs from summary.summarize's, how many
    statements each summarised anew)."""
    parser, pieces = IncrementalParser(), summaries.PieceSummaries()
    wrong, made = [], []
    for i, text in enumerate(texts):
        data = text.encode()
        try:
            parser.parse(data)
        except cst.ParserSyntaxError:
            continue  # a syntax error mid-typing: nothing is analysed, nothing summarised
        mine = pieces.summarize(data, parser.last)
        if json.dumps(mine) != json.dumps(sm.summarize(data)):
            wrong.append(i)
        made.append(pieces.made)
    return wrong, made


def test_the_summary_from_kept_statements_is_the_full_summary_after_each_edit():
    wrong, made = _mismatches(models_texts())
    assert wrong == []
    # the first text summarises every statement; later ones only what the edit changed (or
    # what reads a module-level value the edit changed; all of them after an import edit)
    assert made[0] >= 5 and made[IMPORT_EDIT] == made[0], made
    assert max(m for i, m in enumerate(made) if i not in (0, IMPORT_EDIT)) <= 3, made
    assert made.count(0) + made.count(1) >= len(made) // 2, made


def test_the_summary_of_the_1000_line_script_is_the_full_summary_after_each_keystroke():
    """The latency benchmark's script: functions defined twice (the fixture scripts' `main`s),
    more call sites than summary.MAX_SITES keeps, statements typed key by key."""
    texts = large_texts()
    assert len(sm.summarize(texts[0].encode())["sites"]) == sm.MAX_SITES
    wrong, made = _mismatches(texts)
    assert wrong == []
    assert sum(m <= 2 for m in made[1:]) >= len(made) // 2, made


def test_a_text_the_parser_did_not_cut_is_summarised_whole():
    pieces = summaries.PieceSummaries()
    parser = IncrementalParser()
    parser.parse(MODELS_PY.encode())
    other = models_texts()[3].encode()
    assert pieces.summarize(other, parser.last) == sm.summarize(other)
    assert pieces.made == -1
    assert pieces.summarize(other, None) == sm.summarize(other)


def _cold(path: str, data: bytes, settings) -> list:
    """A cold lint: the files as saved, a store that has summarised nothing."""
    view = project.FileView(path, project.Store())
    return [f for f, _r in engine.analyse(data, path, settings.select, settings.ignore, project=view)[0]]


def _diagnostics_mismatches(tmp_path) -> tuple[list, list]:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "trainer"\n\n[tool.devicelint]\nselect = ["ALL"]\n')
    models = tmp_path / "models.py"
    models.write_text(MODELS_PY)
    ws = Workspace()
    settings = ws.settings(str(models))
    scripts = {}
    for name, text in (("train.py", UNMOVED), ("train_factory.py", FACTORY_TRAIN)):
        (tmp_path / name).write_text(text)
        scripts[str(tmp_path / name)] = text.encode()
        ws.open(str(tmp_path / name), text.encode())
    wrong, seen = [], []
    for i, text in enumerate(models_texts()):
        data = text.encode()
        ws.open(str(models), data)
        files = {str(models): data, **scripts}
        mine = {p: ws.lint(p, d, settings) for p, d in files.items()}
        models.write_bytes(data)  # as saved: the cold lint reads it from disk
        for p, d in files.items():
            lint = mine[p]
            if [lint.with_fix(k) for k in range(len(lint.findings))] != _cold(p, d, settings):
                wrong.append((i, p))
        seen.append([sorted((f.code, f.line) for f in mine[p].findings) for p in scripts])
    return wrong, seen


def test_the_server_s_diagnostics_equal_a_cold_lint_after_each_edit(tmp_path, monkeypatch):
    monkeypatch.setattr(engine, "FREEZE_TREES", True)  # as `devicelint server` runs
    made = []
    real = summaries.PieceSummaries.summarize

    def counted(self, data, parsed):
        out = real(self, data, parsed)
        if data.startswith(b'"""Models'):  # the scripts are summarised whole until linted once
            made.append(self.made)
        return out

    monkeypatch.setattr(summaries.PieceSummaries, "summarize", counted)
    wrong, seen = _diagnostics_mismatches(tmp_path)
    assert wrong == []
    # the importers' findings follow models.py's edits: the unmoved model's DL001 goes and
    # comes back, the factory's model's DL003 goes with DEVICE = "cpu"...
    train, factory = ([s[k] for s in seen] for k in (0, 1))
    assert train[0] == train[-1] != train[2], train
    assert factory[0] == factory[-1] != factory[6], factory
    # ...and models.py was summarised from its kept statements, not whole
    assert len(made) == len(EDITS) + 1 and min(made) >= 0, made
    assert max(m for i, m in enumerate(made) if i not in (0, IMPORT_EDIT)) <= 3, made


# ------------------------------------------------------------------ broken on purpose

def test_a_record_used_whatever_the_module_level_values_is_caught(monkeypatch):
    """Were a record used without checking the module-level values it read (DEVICE), the
    comparison would fail at the edit of DEVICE."""
    monkeypatch.setattr(summaries, "_fits", lambda record, out: True)
    wrong, _made = _mismatches(models_texts())
    assert 6 in wrong, wrong


def test_a_record_kept_at_its_old_lines_is_caught(monkeypatch):
    """Were a record's call sites not moved to where its statement now starts, the comparison
    would fail once lines are added above."""
    monkeypatch.setattr(summaries, "_moved", lambda site, by: list(site))
    wrong, _made = _mismatches(models_texts())
    assert 8 in wrong, wrong


def test_the_server_comparison_fails_when_records_go_stale(tmp_path):
    """Records used without checking the module-level values they read: the factory's kept
    record still moves to "cuda" after `DEVICE = "cpu"`, and the script that builds its
    model with it keeps a DL003 a cold lint no longer reports."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(summaries, "_fits", lambda record, out: True)
        wrong, _seen = _diagnostics_mismatches(tmp_path)
    assert (6, str(tmp_path / "train_factory.py")) in wrong, wrong


SNIPPETS = ["", "\n", "# note\n", "x = 1\n", "DEVICE = 'cpu'\n", "device = torch.device('cuda')\n", "    y = 2\n",
            "def f():\n", "    return model.to(DEVICE)\n", "class Net(nn.Module):\n    pass\n",
            "if __name__ == '__main__':\n    main()\n", "import torch\n", "from torch import nn\n",
            "torch.cuda.set_device(0)\n", "print(\n", "@torch.no_grad()\n", "main()\n", "    train(model, loader, device)\n"]


@pytest.mark.parametrize("seed", range(4))
def test_random_line_edits_summarise_as_the_full_summary_does(seed):
    """Lines deleted, inserted and replaced at random in the fixture training scripts (module-
    level devices, device setters, imports, calls typed at any place), a syntax error now and
    then; after each the summary from records is summary.summarize's."""
    import random
    from pathlib import Path

    rng = random.Random(seed)
    scripts = sorted(Path(__file__).resolve().parent.parent.glob("fixtures/DL00*/*.py"))
    source = rng.choice([p for p in scripts if p.stat().st_size > 1500]).read_text()
    parser, pieces = IncrementalParser(), summaries.PieceSummaries()
    lines, reused = source.splitlines(keepends=True), 0
    for _ in range(40):
        at = rng.randrange(len(lines) + 1)
        what = rng.random()
        if what < 0.35 and lines:
            del lines[min(at, len(lines) - 1)]
        elif what < 0.8:
            lines.insert(at, rng.choice(SNIPPETS))
        else:
            lines[min(at, len(lines) - 1)] = rng.choice(SNIPPETS) or "\n"
        if rng.random() < 0.25:
            lines = source.splitlines(keepends=True)
        data = "".join(lines).encode()
        try:
            parser.parse(data)
        except cst.ParserSyntaxError:
            continue
        assert json.dumps(pieces.summarize(data, parser.last)) == json.dumps(sm.summarize(data))
        reused += pieces.made >= 0
    assert reused >= 5
