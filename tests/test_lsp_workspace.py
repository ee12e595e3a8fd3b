"""What the language server keeps between keystrokes (devicelint/lsp/workspace.py, no pygls):
a text it already linted is not analysed again while nothing it read has changed."""

from devicelint.lsp import workspace
from devicelint.lsp.workspace import Settings, Workspace
from lsp_project import MODELS, PLACED, UNMOVED


def test_the_same_text_is_not_analysed_again_until_what_it_imports_changes(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "trainer"\n\n[tool.devicelint]\n')
    (tmp_path / "models.py").write_text(MODELS)
    train = str(tmp_path / "train.py")
    (tmp_path / "train.py").write_text(UNMOVED)
    analysed = []
    real = workspace.analyse
    monkeypatch.setattr(workspace, "analyse", lambda data, path, *a, **k: analysed.append(path) or real(data, path, *a, **k))
    ws = Workspace()
    settings = ws.settings(train)
    ws.open(train, UNMOVED.encode())

    first = ws.lint(train, UNMOVED.encode(), settings)
    assert "DL001" in {f.code for f in first.findings}
    assert ws.lint(train, UNMOVED.encode(), ws.settings(train)) is first  # a save: nothing to do
    assert len(analysed) == 1

    ws.open(str(tmp_path / "models.py"), PLACED.encode())  # unsaved: the class places itself now
    placed = ws.lint(train, UNMOVED.encode(), settings)
    assert len(analysed) == 2 and "DL001" not in {f.code for f in placed.findings}
    assert ws.lint(train, UNMOVED.encode(), settings) is placed and len(analysed) == 2

    edited = UNMOVED + "# one more line\n"
    ws.lint(train, edited.encode(), settings)
    ws.lint(train, edited.encode(), Settings(settings.select, ["DL002"]))  # other settings
    assert len(analysed) == 4

    ws.close(train)
    ws.lint(train, edited.encode(), settings)
    assert len(analysed) == 5
