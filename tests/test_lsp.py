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
from lsp_project import MODELS, MOVED, PLACED, UNMOVED  # noqa: E402

# the async tests share the module-scoped server and its event loop
lsp_test = pytest.mark.asyncio(loop_scope="module")
# seconds for one awaited notification: a bound against a hang, not a timing. 60 s was once
# too short for 22 files on a 2-core machine at load average 13 (test_lsp_concurrency)
TIMEOUT = 180
# seconds for one request's answer (a code action may analyse a 2,000-line file again, round
# after round) and for start and shutdown: a bound against a hang, not a timing
REQUEST_TIMEOUT = 300
ROOT = Path(__file__).resolve().parent.parent

PYPROJECT = '[project]\nname = "trainer"\n\n[tool.devicelint]\nper-file-ignores = {"scratch_*.py" = ["DL007"]}\n'


def uri_of(path: Path) -> str:
    return path.resolve().as_uri()


@pytest.fixture
def project(tmp_path):
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    (tmp_path / "models.py").write_text(MODELS)
    return tmp_path


async def start(cache: Path, capabilities=None):
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    config = ClientServerConfig(server_command=[sys.executable, "-m", "devicelint", "server"], server_env=env)
    lsp = await config.start()
    lsp.registrations = []

    @lsp.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams):
        lsp.registrations.extend(params.registrations)

    capabilities = capabilities if capabilities is not None else client_capabilities("visual-studio-code")
    try:
        await asyncio.wait_for(lsp.initialize_session(types.InitializeParams(capabilities=capabilities)),
                               REQUEST_TIMEOUT)
    except asyncio.TimeoutError:
        await stop(lsp)
        pytest.fail(f"the server did not answer initialize within {REQUEST_TIMEOUT} s")
    lsp.docs_cache = cache
    return lsp


async def stop(lsp) -> None:
    """Shutdown and exit, each bounded: a server that does not answer is killed (and the test
    fails on what it was waiting for, not on a hang)."""
    if lsp.stopped:
        return
    try:
        await asyncio.wait_for(lsp.shutdown_session(), REQUEST_TIMEOUT)
    except asyncio.TimeoutError:
        if lsp._server is not None and lsp._server.returncode is None:
            lsp._server.kill()
        raise
    finally:
        await asyncio.wait_for(lsp.stop(), REQUEST_TIMEOUT)


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
    return await asyncio.wait_for(client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(types.Position(0, 0), end),
        context=types.CodeActionContext(diagnostics=list(diagnostics), only=only))), REQUEST_TIMEOUT)


@lsp_test
async def test_diagnostic_range_docs_and_hover(client, project):
    uri = open_doc(client, project / "train.py", MOVED)
    await until(client, lambda: "DL003" in codes(client, uri))
    diag = next(d for d in client.diagnostics[uri] if d.code == "DL003")
    # `logits.argmax(dim=1).numpy()` on line 43 (1-based), columns 23-51: 0-based in LSP
    assert (diag.range.start.line, diag.range.start.character, diag.range.end.line, diag.range.end.character) == (42, 22, 42, 50)
    assert diag.source == "devicelint" and diag.severity == types.DiagnosticSeverity.Warning
    assert "NumPy" in diag.message
    # the fix is not in `data` (a keystroke does not build fixes): the code action builds it
    assert diag.data["fix"] == "safe" and diag.data["name"] == "numpy-on-cuda"
    fix = next(a for a in await actions(client, uri, [diag]) if "safe fix" in a.title)
    [edit] = fix.edit.changes[uri]
    assert fix.is_preferred and edit.new_text.endswith(".cpu().numpy()") and edit.range.start.line == 42
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
async def test_a_request_for_every_action_leaves_fix_all_to_resolve(client, project):
    # what a client asks at each move of the cursor: every kind, the diagnostics under it;
    # fixing the whole file (another analysis per round) waits for codeAction/resolve
    uri = open_doc(client, project / "train.py", MOVED)
    await until(client, lambda: codes(client, uri) == ["DL003", "DL007"])
    dl003 = [d for d in client.diagnostics[uri] if d.code == "DL003"]
    found = await actions(client, uri, dl003)
    assert any(a.title.endswith("(safe fix, DL003)") and a.edit.changes[uri] for a in found)
    [later] = [a for a in found if a.kind == "source.fixAll.devicelint"]
    assert later.edit is None
    resolved = await client.code_action_resolve_async(later)
    fixed = apply(MOVED, resolved.edit.document_changes[0].edits)
    assert fixed.encode() == fix_source(MOVED.encode(), str(project / "train.py"))[0]
    assert ".cpu().numpy()" in fixed and ".cuda()" in fixed


@pytest.mark.asyncio
async def test_a_client_that_cannot_resolve_gets_fix_all_only_when_it_asks_for_it(project, tmp_path):
    lsp = await start(tmp_path / "xdg-cache", types.ClientCapabilities())
    try:
        uri = open_doc(lsp, project / "train.py", MOVED)
        await until(lsp, lambda: codes(lsp, uri) == ["DL003", "DL007"])
        every = await actions(lsp, uri, lsp.diagnostics[uri])
        assert every and all(a.kind == "quickfix" and a.edit is not None for a in every)
        [asked] = await actions(lsp, uri, [], only=[types.CodeActionKind.Source])
        assert asked.kind == "source.fixAll.devicelint"
        fixed = apply(MOVED, asked.edit.document_changes[0].edits)
        assert fixed.encode() == fix_source(MOVED.encode(), str(project / "train.py"))[0]
    finally:
        await stop(lsp)


@lsp_test
async def test_edit_to_imported_module_updates_the_importer(client, project):
    (project / "train.py").write_text(UNMOVED)
    train = open_doc(client, project / "train.py", UNMOVED)
    await until(client, lambda: "DL001" in codes(client, train))
    models = open_doc(client, project / "models.py", MODELS)
    await until(client, lambda: models in client.diagnostics)
    # unsaved: the class now places itself, so the script's model is no longer unmoved
    change_doc(client, models, PLACED, 2)
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
async def test_server_asks_to_be_told_of_python_files_saved_elsewhere(client, project):
    uri = open_doc(client, project / "train.py", MOVED)  # a round trip: registration is done by now
    await until(client, lambda: uri in client.diagnostics)
    [reg] = [r for r in client.registrations if r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES]
    globs = {w.glob_pattern for w in client.protocol._converter.structure(
        reg.register_options, types.DidChangeWatchedFilesRegistrationOptions).watchers}
    assert {"**/*.py", "**/pyproject.toml"} <= globs


@lsp_test
async def test_a_burst_of_keystrokes_is_linted_once_for_the_last_text(client, project):
    uri = open_doc(client, project / "typing_fast.py", MOVED)
    await until(client, lambda: uri in client.diagnostics)
    versions = []
    features = client.protocol.fm.features
    record = features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

    def spy(params):
        if params.uri == uri:
            versions.append(params.version)
        return record(params)

    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = spy
    try:
        for version in range(2, 7):  # five keystrokes sent at once: within the 150 ms debounce
            change_doc(client, uri, MOVED + "#" * version + "\n", version)
        await until(client, lambda: 6 in versions)
    finally:
        features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = record
    assert versions == [6]


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
    assert diag.data["fix"] == "safe"
    fix = next(a for a in await actions(client, last, [diag]) if "safe fix" in a.title)
    assert [(u, [e.new_text for e in edits]) for u, edits in fix.edit.changes.items()] == [(last, ["out.cpu().numpy()"])]
    [fix_all] = await actions(client, last, [], only=[types.CodeActionKind.SourceFixAll])
    assert fix_all.kind == "source.fixAll.devicelint"
    assert {uri: [e.new_text for e in edits] for uri, edits in fix_all.edit.changes.items()} == {
        last: [NOTEBOOK_CELLS[3][1].replace("out.numpy()", "out.cpu().numpy()")]}  # only the cell it fixes


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


@lsp_test
async def test_a_second_line_named_in_the_message_is_related_information(client, project):
    text = MOVED.replace("        logits = model(features.to(device))",
                         "        features = features.to(device)\n        logits = model(features.to(device))")
    uri = open_doc(client, project / "evaluate.py", text)
    await until(client, lambda: "DL004" in codes(client, uri))
    diag = next(d for d in client.diagnostics[uri] if d.code == "DL004")
    assert "since line 42" in diag.message and diag.range.start.line == 42
    [related] = diag.related_information
    assert related.location.uri == uri and related.location.range.start == types.Position(41, 8)


# ---------------------------------------------------------------- the README's editor snippets

def _readme_section() -> str:
    text = (ROOT / "README.md").read_text()
    start = text.index("### In your editor: `devicelint server`")
    return text[start:text.index("\n### ", start + 1)]


def _blocks(lang: str) -> list:
    import re

    return re.findall(rf"```{lang}\n(.*?)```", _readme_section(), re.S)


def readme_commands() -> dict:
    """{editor: the server command its snippet in the README starts}."""
    import json
    import re

    vscode, jupyter = (json.loads(b) for b in _blocks("json"))
    [lua] = _blocks("lua")
    cmd = re.search(r"cmd = \{(.*?)\}", lua).group(1)
    return {
        "vscode": [vscode["glspc.server.command"], *vscode["glspc.server.commandArguments"]],
        "neovim": re.findall(r"'([^']*)'", cmd),
        "jupyterlab": jupyter["LanguageServerManager"]["language_servers"]["devicelint"]["argv"],
    }


def test_readme_snippets_are_valid_and_name_the_server():
    import json

    vscode, jupyter = (json.loads(b) for b in _blocks("json"))
    assert vscode["glspc.server.languageId"] == ["python"]
    assert vscode["editor.codeActionsOnSave"] == {"source.fixAll.devicelint": "explicit"}
    assert jupyter["LanguageServerManager"]["language_servers"]["devicelint"]["languages"] == ["python"]
    assert readme_commands() == {e: ["devicelint", "server"] for e in ("vscode", "neovim", "jupyterlab")}


@lsp_test
async def test_readme_neovim_command_starts_a_server_that_shuts_down_cleanly(tmp_path, project):
    """The Neovim snippet's `cmd` exactly, found on PATH as Neovim would find it (this
    environment's scripts folder first, where `devicelint` is installed): the server answers,
    lints, and after shutdown and exit ends by itself with status 0. (The VS Code and
    JupyterLab snippets name the same command: see the test above.)"""
    cmd = readme_commands()["neovim"]
    bindir = Path(sys.executable).parent
    assert (bindir / cmd[0]).exists(), f"{cmd[0]} is not installed beside {sys.executable}"
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}",
           "XDG_CACHE_HOME": str(tmp_path / "xdg-cache")}
    lsp = await ClientServerConfig(server_command=cmd, server_env=env).start()
    try:
        result = await lsp.initialize_session(types.InitializeParams(capabilities=client_capabilities("neovim")))
        assert result.server_info.name == "devicelint"
        uri = open_doc(lsp, project / "train.py", MOVED)
        await until(lsp, lambda: codes(lsp, uri) == ["DL003", "DL007"])
        server = lsp._server
        await lsp.shutdown_session()
        assert await asyncio.wait_for(server.wait(), TIMEOUT) == 0
    finally:
        await stop(lsp)


def test_latency_benchmark_builds_a_1000_line_script_of_functions():
    import ast

    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from lsp_latency import large_script
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    text = large_script()
    assert text.count("\n") >= 1000
    kinds = {type(node) for node in ast.parse(text).body}
    assert kinds <= {ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef}
    assert sum(isinstance(n, ast.FunctionDef) for n in ast.parse(text).body) >= 20
