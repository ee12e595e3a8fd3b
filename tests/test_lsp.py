"""`devicelint server` end to end: a real LSP client (pytest-lsp) drives
`python -m devicelint server` over stdio, on a small training project copied to a temp folder.
Every wait is for a published notification (no fixed sleeps), bounded by TIMEOUT."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("pygls")
pytest.importorskip("pytest_lsp")
import pytest_asyncio  # noqa: E402
from lsprotocol import types  # noqa: E402
from pytest_lsp import ClientServerConfig, client_capabilities  # noqa: E402

from devicelint.fix import fix_source  # noqa: E402

# the async tests share the module-scoped server and its event loop
lsp_test = pytest.mark.asyncio(loop_scope="module")
TIMEOUT = 60  # seconds for one awaited notification: generous for a loaded 2-core machine
ROOT = Path(__file__).resolve().parent.parent

MODELS = '''\
"""Models for the classifier."""
import torch.nn as nn


class Classifier(nn.Module):
    def __init__(self, in_features: int, hidden: int, classes: int) -> None:
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(in_features, hidden),
            nn.ReLU(),
            nn.Linear(hidden, classes),
        )

    def forward(self, x):
        return self.body(x)
'''

TRAIN = '''\
"""Train a small classifier on random features and report its accuracy."""
import argparse

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from models import Classifier


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--batch-size", type=int, default=32)
    return parser.parse_args()


def main():
    args = parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    features = torch.randn(512, 20)
    labels = torch.randint(0, 4, (512,))
    loader = DataLoader(TensorDataset(features, labels), batch_size=args.batch_size, shuffle=True)

    model = Classifier(20, 64, 4){move}
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    class_weights = torch.tensor([1.0, 2.0, 1.0, 1.0]).cuda()
    loss_fn = nn.CrossEntropyLoss(weight=class_weights)

    for epoch in range(args.epochs):
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
        print(f"epoch {{epoch}}: loss {{loss.item():.4f}}")

    with torch.no_grad():
        logits = model(features.to(device))
        predictions = logits.argmax(dim=1).numpy()
    accuracy = np.mean(predictions == labels.numpy())
    print(f"accuracy: {{accuracy:.3f}}")


if __name__ == "__main__":
    main()
'''
MOVED = TRAIN.format(move=".to(device)")  # DL003 (safe fix) on line 43, DL007 (unsafe) on 29
UNMOVED = TRAIN.format(move="")  # the model is never moved: DL001 where it is called
PYPROJECT = '[project]\nname = "trainer"\n\n[tool.devicelint]\nper-file-ignores = {"scratch_*.py" = ["DL007"]}\n'


def uri_of(path: Path) -> str:
    return path.resolve().as_uri()


@pytest.fixture
def project(tmp_path):
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    (tmp_path / "models.py").write_text(MODELS)
    return tmp_path


async def start(cache: Path):
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    config = ClientServerConfig(server_command=[sys.executable, "-m", "devicelint", "server"], server_env=env)
    lsp = await config.start()
    await lsp.initialize_session(types.InitializeParams(capabilities=client_capabilities("visual-studio-code")))
    lsp.docs_cache = cache
    return lsp


async def stop(lsp) -> None:
    if not lsp.stopped:
        await lsp.shutdown_session()
        await lsp.stop()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(tmp_path_factory):
    """One server for the module (it starts in seconds on a busy machine); each test works
    in its own project folder, so no two tests share a document."""
    lsp = await start(tmp_path_factory.mktemp("xdg-cache"))
    yield lsp
    await stop(lsp)


async def until(client, check, what: str = "diagnostics"):
    """Wait for notifications until `check()` holds."""
    async def loop():
        while not check():
            await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    try:
        await asyncio.wait_for(loop(), TIMEOUT)
    except asyncio.TimeoutError:
        pytest.fail(f"no {what} within {TIMEOUT} s; last: {client.diagnostics}")


def codes(client, uri: str) -> list:
    return sorted(d.code for d in client.diagnostics.get(uri, ()))


def open_doc(client, path: Path, text: str, version: int = 1) -> str:
    uri = uri_of(path)
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri=uri, language_id="python", version=version, text=text)))
    return uri


def change_doc(client, uri: str, text: str, version: int) -> None:
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))


def offset(text: str, pos: types.Position) -> int:
    lines = text.splitlines(keepends=True)
    return sum(len(line) for line in lines[:pos.line]) + pos.character  # ASCII text: units are characters


def apply(text: str, edits) -> str:
    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[:offset(text, e.range.start)] + e.new_text + text[offset(text, e.range.end):]
    return text


async def actions(client, uri: str, diagnostics, only=None):
    end = types.Position(line=10_000, character=0)
    return await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(types.Position(0, 0), end),
        context=types.CodeActionContext(diagnostics=list(diagnostics), only=only)))


@lsp_test
async def test_diagnostic_range_docs_and_hover(client, project):
    uri = open_doc(client, project / "train.py", MOVED)
    await until(client, lambda: "DL003" in codes(client, uri))
    diag = next(d for d in client.diagnostics[uri] if d.code == "DL003")
    # `logits.argmax(dim=1).numpy()` on line 43 (1-based), columns 23-51: 0-based in LSP
    assert (diag.range.start.line, diag.range.start.character, diag.range.end.line, diag.range.end.character) == (42, 22, 42, 50)
    assert diag.source == "devicelint" and diag.severity == types.DiagnosticSeverity.Warning
    assert "NumPy" in diag.message
    assert diag.data["fix"]["applicability"] == "safe"
    assert diag.data["fix"]["edits"][0]["newText"].endswith(".cpu().numpy()")
    docs = Path(diag.code_description.href.removeprefix("file://"))
    assert docs.read_text().startswith("# DL003 numpy-on-cuda") and docs.is_relative_to(client.docs_cache)

    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(42, 30)))
    assert hover.contents.value.startswith("# DL003 numpy-on-cuda")
    explained = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="devicelint.explain", arguments=["dl007"]))
    assert explained.startswith("# DL007 hardcoded-cuda")


@lsp_test
async def test_code_actions_list_fix_and_noqa_and_the_fix_clears_it(client, project):
    uri = open_doc(client, project / "train.py", MOVED)
    await until(client, lambda: codes(client, uri) == ["DL003", "DL007"])
    found = await actions(client, uri, client.diagnostics[uri], only=[types.CodeActionKind.QuickFix])
    titles = {a.title: a for a in found}
    safe = next(a for t, a in titles.items() if "(safe fix, DL003)" in t)
    unsafe = next(a for t, a in titles.items() if "(unsafe fix, DL007)" in t)
    assert safe.is_preferred is True and unsafe.is_preferred is False
    assert {"Suppress DL003 with # noqa", "Suppress DL007 with # noqa"} <= set(titles)

    fixed = apply(MOVED, safe.edit.changes[uri])
    assert "logits.argmax(dim=1).cpu().numpy()" in fixed
    change_doc(client, uri, fixed, 2)
    await until(client, lambda: codes(client, uri) == ["DL007"])

    noqa = titles["Suppress DL007 with # noqa"]
    quiet = apply(fixed, noqa.edit.changes[uri])
    assert "torch.tensor([1.0, 2.0, 1.0, 1.0]).cuda()  # noqa: DL007\n" in quiet
    change_doc(client, uri, quiet, 3)
    await until(client, lambda: codes(client, uri) == [])


@lsp_test
async def test_fix_all_applies_only_the_safe_fixes(client, project):
    uri = open_doc(client, project / "train.py", MOVED)
    await until(client, lambda: codes(client, uri) == ["DL003", "DL007"])
    found = await actions(client, uri, [], only=[types.CodeActionKind.SourceFixAll])
    assert [a.kind for a in found] == ["source.fixAll.devicelint"]
    edits = found[0].edit.document_changes[0].edits
    fixed = apply(MOVED, edits)
    assert fixed.encode() == fix_source(MOVED.encode(), str(project / "train.py"))[0]
    assert ".cpu().numpy()" in fixed and ".cuda()" in fixed  # the unsafe DL007 fix is left alone
    change_doc(client, uri, fixed, 2)
    await until(client, lambda: codes(client, uri) == ["DL007"])


@lsp_test
async def test_edit_to_imported_module_updates_the_importer(client, project):
    (project / "train.py").write_text(UNMOVED)
    train = open_doc(client, project / "train.py", UNMOVED)
    await until(client, lambda: "DL001" in codes(client, train))
    models = open_doc(client, project / "models.py", MODELS)
    await until(client, lambda: models in client.diagnostics)
    # unsaved: the class now places itself, so the script's model is no longer unmoved
    placed = MODELS.replace("import torch.nn as nn", "import torch\nimport torch.nn as nn").replace(
        "            nn.Linear(hidden, classes),\n        )\n",
        "            nn.Linear(hidden, classes),\n        )\n        self.to(\"cuda\" if torch.cuda.is_available() else \"cpu\")\n")
    change_doc(client, models, placed, 2)
    await until(client, lambda: "DL001" not in codes(client, train), "importer update")
    assert "DL003" in codes(client, train)


@lsp_test
async def test_file_saved_outside_the_editor_is_picked_up(client, project):
    (project / "train.py").write_text(UNMOVED)
    train = open_doc(client, project / "train.py", UNMOVED)
    await until(client, lambda: "DL001" in codes(client, train))
    placed = MODELS.replace("        )\n", "        )\n        self.cuda()\n", 1)
    (project / "models.py").write_text(placed)
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=uri_of(project / "models.py"), type=types.FileChangeType.Changed)]))
    await until(client, lambda: "DL001" not in codes(client, train), "re-lint after the watched change")


@lsp_test
async def test_per_file_ignores_apply(client, project):
    uri = open_doc(client, project / "scratch_run.py", MOVED)
    await until(client, lambda: uri in client.diagnostics)
    assert codes(client, uri) == ["DL003"]  # DL007 ignored for scratch_*.py by the pyproject


@lsp_test
async def test_syntax_error_mid_typing_keeps_the_server_and_other_files(client, project):
    other = open_doc(client, project / "scratch_eval.py", MOVED)
    uri = open_doc(client, project / "train.py", MOVED)
    await until(client, lambda: codes(client, uri) == ["DL003", "DL007"] and codes(client, other) == ["DL003"])
    typing = MOVED.replace("    accuracy = np.mean(", "    accuracy = np.mean((", 1)
    change_doc(client, uri, typing, 2)
    await until(client, lambda: codes(client, uri) == ["DL000"])
    diag = client.diagnostics[uri][0]
    assert diag.severity == types.DiagnosticSeverity.Error and "cannot parse" in diag.message
    assert codes(client, other) == ["DL003"]
    change_doc(client, uri, MOVED, 3)
    await until(client, lambda: codes(client, uri) == ["DL003", "DL007"])


@lsp_test
async def test_broken_config_is_a_message_not_a_dead_server(client, project):
    (project / "pyproject.toml").write_text('[tool.devicelint]\nselct = ["DL003"]\n')
    uri = open_doc(client, project / "train.py", MOVED)
    await until(client, lambda: uri in client.diagnostics)
    assert codes(client, uri) == []
    message = next(m for m in client.messages if "selct" in m.message)
    assert message.type == types.MessageType.Error and "did you mean `select`" in message.message
    (project / "pyproject.toml").write_text(PYPROJECT)
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=uri_of(project / "pyproject.toml"), type=types.FileChangeType.Changed)]))
    await until(client, lambda: codes(client, uri) == ["DL003", "DL007"], "diagnostics after the config is mended")


NOTEBOOK_CELLS = [
    ("code", "import torch\nimport torch.nn as nn\n\ndevice = torch.device('cuda' if torch.cuda.is_available() else 'cpu')"),
    ("markdown", "## Model"),
    ("code", "model = nn.Linear(8, 2).to(device)\nx = torch.randn(4, 8, device=device)"),
    ("code", "with torch.no_grad():\n    out = model(x)\nscores = out.numpy()"),
]


@lsp_test
async def test_notebook_gets_diagnostics_per_cell(client, project):
    nb_uri = uri_of(project / "explore.ipynb")
    cells = [types.TextDocumentItem(uri=f"{nb_uri}#cell{i}", language_id="python" if kind == "code" else "markdown",
                                    version=1, text=text) for i, (kind, text) in enumerate(NOTEBOOK_CELLS)]
    kinds = {"code": types.NotebookCellKind.Code, "markdown": types.NotebookCellKind.Markup}
    client.notebook_document_did_open(types.DidOpenNotebookDocumentParams(
        notebook_document=types.NotebookDocument(uri=nb_uri, notebook_type="jupyter-notebook", version=1, cells=[
            types.NotebookCell(kind=kinds[kind], document=c.uri) for (kind, _), c in zip(NOTEBOOK_CELLS, cells)]),
        cell_text_documents=cells))
    last = cells[3].uri
    await until(client, lambda: "DL003" in codes(client, last))
    diag = client.diagnostics[last][0]
    assert (diag.range.start.line, diag.range.start.character) == (2, 9)  # `out.numpy()`, line 3 of its own cell
    assert codes(client, cells[0].uri) == [] and codes(client, cells[2].uri) == []
    fix = diag.data["fix"]["edits"][0]
    assert fix["uri"] == last and fix["newText"] == "out.cpu().numpy()"


@lsp_test
async def test_shutdown_and_exit_are_clean(tmp_path, project):
    lsp = await start(tmp_path / "xdg-cache")
    try:
        open_doc(lsp, project / "train.py", MOVED)
        await until(lsp, lambda: bool(lsp.diagnostics))
        server = lsp._server
        await lsp.shutdown_session()  # shutdown, then exit: the process must end by itself, with 0
        assert await asyncio.wait_for(server.wait(), TIMEOUT) == 0
    finally:
        await stop(lsp)


def test_server_without_the_extra_says_how_to_get_it():
    code = ("import sys; sys.modules['pygls'] = None; sys.argv = ['devicelint', 'server']\n"
            "from devicelint.cli import main; main()")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert done.stderr == "error: devicelint server needs the lsp extra: pip install 'devicelint[lsp]'\n"


def test_plain_linter_never_imports_pygls(tmp_path):
    (tmp_path / "train.py").write_text(MOVED)
    code = textwrap.dedent("""
        import sys
        from click.testing import CliRunner
        from devicelint.cli import cli
        result = CliRunner().invoke(cli, [sys.argv[1]])
        assert result.exit_code == 1, result.output
        assert not [m for m in sys.modules if m.split('.')[0] in ('pygls', 'lsprotocol', 'watchfiles')], sorted(sys.modules)
    """)
    subprocess.run([sys.executable, "-c", code, str(tmp_path / "train.py")], check=True, timeout=TIMEOUT)


def test_server_is_a_listed_subcommand():
    from click.testing import CliRunner

    from devicelint.cli import cli

    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0
    assert any(line.split()[:1] == ["server"] for line in result.output.splitlines())
