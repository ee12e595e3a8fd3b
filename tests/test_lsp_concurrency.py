"""`devicelint server` under a slow file (issue 22, "Speed in the editor"): lints run off the
event loop, a newer text stops the lint of the older one and only its diagnostics are
published, a slow file holds up no other file, and what the server publishes is what
`devicelint --output-format json` says of the same text. End to end with pytest-lsp, as
tests/test_lsp.py; the slow file is a 2,000-line training script made of the fixture
scripts (benchmarks/lsp_latency.py's `large_script`), seconds of analysis on this machine."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("pygls")
pytest.importorskip("pytest_lsp")
import pytest_asyncio  # noqa: E402
from lsprotocol import types  # noqa: E402

from lsp_project import MODELS, MOVED  # noqa: E402
from test_limits import _grid_search  # noqa: E402
from test_lsp import PYPROJECT, TIMEOUT, actions, change_doc, codes, open_doc, start, stop, until  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
from lsp_latency import large_script  # noqa: E402

lsp_test = pytest.mark.asyncio(loop_scope="module")
SLOW = large_script(2000)


@pytest.fixture
def project(tmp_path):
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    (tmp_path / "models.py").write_text(MODELS)
    return tmp_path


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(tmp_path_factory):
    lsp = await start(tmp_path_factory.mktemp("xdg-cache"))
    yield lsp
    await stop(lsp)


@contextlib.contextmanager
def published(client):
    """The (uri, version) of every publishDiagnostics the client gets, in order."""
    seen = []
    features = client.protocol.fm.features
    record = features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

    def spy(params):
        seen.append((params.uri, params.version))
        return record(params)

    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = spy
    try:
        yield seen
    finally:
        features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = record


@lsp_test
async def test_a_newer_text_supersedes_the_running_lint_of_an_older_one(client, project):
    with published(client) as seen:
        slow = open_doc(client, project / "train_all.py", SLOW)  # linted at once: seconds of analysis
        other = open_doc(client, project / "evaluate.py", MOVED)
        # the other file's diagnostics came: the slow file's lint of version 1 runs now
        await until(client, lambda: other in client.diagnostics, "the other file's diagnostics")
        change_doc(client, slow, MOVED, 2)  # the user replaced the text
        await until(client, lambda: (slow, 2) in seen, "the newer text's diagnostics")
    assert [version for uri, version in seen if uri == slow] == [2]  # version 1's never came
    assert codes(client, slow) == ["DL003", "DL007"]


@lsp_test
async def test_a_slow_file_holds_up_no_other_file(client, project):
    with published(client) as seen:
        slow = open_doc(client, project / "train_all.py", SLOW)
        other = open_doc(client, project / "evaluate.py", MOVED)
        await until(client, lambda: slow in client.diagnostics and other in client.diagnostics)
        assert [uri for uri, _v in seen].index(other) < [uri for uri, _v in seen].index(slow)
        # fixing the slow file (source.fixAll asked for by kind, as on save) analyses it
        # again; the other file's next keystroke is answered meanwhile
        fixing = asyncio.ensure_future(actions(client, slow, [], only=["source.fixAll.devicelint"]))
        change_doc(client, other, MOVED + "# done\n", 2)
        await until(client, lambda: (other, 2) in seen, "the other file's diagnostics")
        assert not fixing.done()
        [fix_all] = await asyncio.wait_for(fixing, TIMEOUT)
    assert fix_all.kind == "source.fixAll.devicelint" and fix_all.edit is not None


def cli_findings(folder: Path, names: list) -> dict:
    """{file name: [(code, line, column, end line, end column, message, fix applicability)]}
    as `devicelint --output-format json` reports them."""
    env = {**os.environ, "XDG_CACHE_HOME": str(folder / ".xdg")}
    out = subprocess.run([sys.executable, "-m", "devicelint", "--output-format", "json", "--no-cache", *names],
                         cwd=folder, capture_output=True, text=True, env=env, timeout=600)
    found: dict = {name: [] for name in names}
    for f in json.loads(out.stdout):
        fix = (f["fix"] or {}).get("applicability")
        found[f["path"]].append((f["code"], f["line"], f["column"], f["end_line"], f["end_column"], f["message"], fix))
    return found


def server_findings(client, uri: str) -> list:
    """The same tuples from the published diagnostics (ASCII text: a character is a column)."""
    out = []
    for d in client.diagnostics[uri]:
        r = d.range
        out.append((d.code, r.start.line + 1, r.start.character + 1, r.end.line + 1, r.end.character + 1,
                    d.message, d.data.get("fix")))
    return out


@lsp_test
async def test_the_server_publishes_what_the_command_line_reports(client, project):
    # the scripts users write, every rule's: each fixture's first bad script, and the large
    # one; and a sweep of 22 nested loops, which its step budget stops (the deterministic
    # bound of every request: DL000 too-complex, the same in the server's lint thread)
    sources = {"train_all.py": large_script(1000), "sweep.py": _grid_search(22)}
    for folder in sorted(ROOT.glob("fixtures/DL*")):
        bad = folder / "bad.py"
        if bad.exists():
            sources[f"{folder.name.split('-')[0].lower()}_script.py"] = bad.read_text()
    for name, text in sources.items():
        (project / name).write_text(text)
    expected = cli_findings(project, sorted(sources))
    uris = {name: open_doc(client, project / name, text) for name, text in sources.items()}
    await until(client, lambda: all(u in client.diagnostics for u in uris.values()))
    assert sum(len(v) for v in expected.values()) > 25  # a real comparison, not of empty lists
    for name, uri in uris.items():
        assert sorted(server_findings(client, uri)) == sorted(expected[name]), name
    assert [f[0] for f in expected["sweep.py"]] == ["DL000"] and "steps" in expected["sweep.py"][0][5]


def test_a_superseded_lint_stops_instead_of_running_to_its_end(tmp_path):
    """The server's CPU time from opening the slow file to the newer text's diagnostics, and
    a moment after, is a fraction of what one whole lint of the slow text costs: its lint
    stopped when the text changed (a thread cannot be killed: it must stop itself), instead
    of running to its end, before the change (on the event loop) or beside it (a thread)."""
    from lsp_latency import Client  # the benchmark's plain JSON-RPC client: it reads /proc for CPU

    from devicelint import engine

    if not os.path.exists("/proc/self/stat"):
        pytest.skip("needs Linux /proc for the server's CPU time")
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    slow_text = large_script(4000)
    started = time.process_time()
    engine.analyse(slow_text.encode(), str(tmp_path / "train_all.py"), deferred=[])
    whole = time.process_time() - started  # seconds on this machine
    client = Client([sys.executable, "-m", "devicelint", "server"], str(tmp_path))
    try:
        client.request("initialize", {"processId": os.getpid(), "rootUri": tmp_path.as_uri(), "capabilities": {}})
        client.notify("initialized", {})
        uri = (tmp_path / "train_all.py").resolve().as_uri()
        small = (tmp_path / "evaluate.py").resolve().as_uri()
        before = client.cpu()
        client.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "python", "version": 1, "text": slow_text}})
        client.notify("textDocument/didOpen", {"textDocument": {
            "uri": small, "languageId": "python", "version": 1, "text": MOVED}})
        client.diagnostics(small, 1)
        client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                                 "contentChanges": [{"text": MOVED}]})
        assert {d["code"] for d in client.diagnostics(uri, 2)} == {"DL003", "DL007"}
        time.sleep(0.5)
        spent = client.cpu() - before
    finally:
        client.close()
    assert spent < 0.5 * whole, f"the server spent {spent:.2f} s of CPU; one lint of the slow text takes {whole:.2f} s"
