"""The language server: LSP over stdio on pygls. Lints a document when it is opened, saved,
and 150 ms after the last change; publishes diagnostics, offers code actions (each fix,
built when code actions are asked for the diagnostic, `# noqa`, `source.fixAll.devicelint`),
hovers and a command with the rule's docs, re-lints open importers when a module they use
changes, and syncs notebooks (LSP 3.17) with diagnostics per cell.

Linting runs off the event loop, in a thread per lint (worker.py), so that the server keeps
answering while a file is analysed and a slow file never holds up another's diagnostics. A
change stops the running lint of the document's older text, and only the newest text's
diagnostics are ever published. Each lint is bounded as the command line's is: by the
pre-check of the file's size and nesting and by a count of the analysis's steps that depends
on the text alone (limits.py), so the same text gets the same findings however busy the
machine is; no clock decides a result."""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import os
import tempfile
import traceback
from pathlib import Path
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from devicelint import __version__
from devicelint import config as cfgmod
from devicelint import rules as registry
from devicelint.lsp import convert, worker
from devicelint.lsp.workspace import Workspace, lint_untitled

# Seconds after the last keystroke. Short: a keystroke during the lint stops it (worker.py),
# so starting early costs only the CPU of a lint that the next keystroke throws away.
DEBOUNCE = 0.05
FIX_ALL = "source.fixAll.devicelint"
EXPLAIN = "devicelint.explain"
log = logging.getLogger("devicelint.lsp")


def path_of(uri: str) -> str | None:
    """The file system path of a `file:` URI, else None (untitled buffers, cells)."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    return os.path.normpath(unquote(parsed.path))


def write_docs() -> dict:
    """{code: file URI of its Markdown docs}, written once per version under the user's
    cache (XDG), for `codeDescription`: a link any client can open. {} when nowhere is
    writable: the hover and the command still give the docs."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = os.path.join(base, "devicelint", "docs", __version__)
    out = {}
    try:
        os.makedirs(folder, exist_ok=True)
        for rule in registry.ALL_RULES:
            target = os.path.join(folder, f"{rule.code}-{rule.name}.md")
            text = convert.explain(rule.code)
            if not _same(target, text):
                _write_atomically(target, text)
            out[rule.code] = Path(target).as_uri()
    except OSError:
        return {}
    return out


def _same(path: str, text: str) -> bool:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read() == text
    except OSError:
        return False


def _write_atomically(path: str, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


_SERIALS = itertools.count(1)


class Published:
    """What the server last said about one document (or cell): its diagnostics, the findings
    behind them, the text they were computed on, and how to get each one's fix. Each
    diagnostic's `data["id"]` is "<serial>:<index>": the publication and its place in it."""

    def __init__(self, text: convert.Text, pairs: list, serial: int = 0, fix_of=None, place=None) -> None:
        self.text = text
        self.pairs = pairs  # [(Diagnostic, Finding)]
        self.serial = serial
        self.fix_of = fix_of or (lambda i: pairs[i][1])  # index -> the Finding with its fix
        self.place = place  # a notebook's cell number -> (cell uri, Text), for fixes across cells

    def index_of(self, diag: types.Diagnostic) -> int | None:
        """Which published diagnostic the client sent back: by its id when it is one of this
        publication, else the one at the same range with the same code."""
        ref = diag.data.get("id") if isinstance(diag.data, dict) else None
        serial, _, index = str(ref).partition(":")
        if serial == str(self.serial) and index.isdigit() and int(index) < len(self.pairs):
            return int(index)
        return next((i for i, (d, _f) in enumerate(self.pairs) if d.range == diag.range and d.code == diag.code), None)


class DeviceLintServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "devicelint", __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            notebook_document_sync=types.NotebookDocumentSyncOptions(
                notebook_selector=[types.NotebookDocumentFilterWithCells(
                    notebook="*", cells=[types.NotebookCellLanguage(language="python")])],
                save=True),
        )
        self.project = Workspace()
        self.docs: dict = {}
        self.published: dict = {}  # uri (document or cell) -> Published
        self.cells_of: dict = {}  # notebook uri -> cell uris published
        self._pending: dict = {}  # uri -> asyncio.TimerHandle: a lint waiting for the debounce
        self._jobs: dict = {}  # uri -> worker.Job: the lint running for it
        self._wanted: dict = {}  # uri -> how many lints were asked for: only the newest publishes
        self._again: set = set()  # uris asked for while their stopped lint still unwinds
        self._told: set = set()  # config errors already shown

    # ------------------------------------------------------------------ scheduling
    # A document's lint is a Job (worker.py): its text is taken on the event loop, analysed
    # in a thread, and its diagnostics published back on the loop only if no newer text came
    # meanwhile (`_wanted`, bumped by every change, is still the one the job was started
    # for). A change stops the running lint of the older text at once, and a document never
    # has two lints running: the next waits for the stopped one to end (`_again`).
    def schedule(self, uri: str, delay: float = DEBOUNCE) -> None:
        self.unschedule(uri)
        self._wanted[uri] = self._wanted.get(uri, 0) + 1
        running = self._jobs.get(uri)
        if running is not None:
            running.cancel()  # it lints a text that is no longer the newest
        self._pending[uri] = asyncio.get_running_loop().call_later(delay, self._start, uri)

    def unschedule(self, uri: str) -> None:
        """Drop the lint still waiting for `uri` (a newer text replaces it, or it closed)."""
        pending = self._pending.pop(uri, None)
        if pending is not None:
            pending.cancel()

    def forget(self, uri: str) -> None:
        """The document closed: nothing waiting or running for it may publish any more."""
        self.unschedule(uri)
        self._wanted[uri] = self._wanted.get(uri, 0) + 1
        self._again.discard(uri)
        running = self._jobs.get(uri)
        if running is not None:
            running.cancel()

    def _start(self, uri: str) -> None:
        self._pending.pop(uri, None)
        if uri in self._jobs:  # the stopped lint of an older text is still unwinding
            self._again.add(uri)
            return
        try:
            work = self._notebook_work(uri) if self.workspace.get_notebook_document(notebook_uri=uri) is not None \
                else self._text_work(uri)
        except Exception as e:  # one document's failure must not take the server down
            self._failed(uri, traceback.format_exc(), e)
            return
        if work is None:
            return
        wanted = self._wanted.get(uri, 0)
        self._jobs[uri] = worker.Job(work, lambda job, outcome, value: self._ended(uri, wanted, outcome, value),
                                     asyncio.get_running_loop()).start()

    def _ended(self, uri: str, wanted: int, outcome: str, value) -> None:
        """On the loop: a lint of `uri` ended. Its result is published only if it is for the
        newest text; a lint asked for while it ran starts now."""
        self._jobs.pop(uri, None)
        if outcome == worker.FAILED:
            self._failed(uri, value)
        elif outcome == worker.DONE and wanted == self._wanted.get(uri):
            try:
                value()  # publish
            except Exception as e:
                self._failed(uri, traceback.format_exc(), e)
        if uri in self._again:
            self._again.discard(uri)
            self._start(uri)

    def _failed(self, uri: str, trace: str, error=None) -> None:
        log.error("linting %s failed: %s", uri, trace)
        what = f"{type(error).__name__}: {error}" if error is not None else trace.strip().splitlines()[-1]
        self.window_show_message(types.ShowMessageParams(
            types.MessageType.Error, f"devicelint: internal error while linting {uri}: {what}"))

    # ------------------------------------------------------------------ linting
    def settings(self, path: str | None):
        """The file's settings, or None after showing why its config cannot be read."""
        if path is None:
            return _default_settings()
        try:
            return self.project.settings(path)
        except cfgmod.ConfigError as e:
            message = f"devicelint: {e}"
            if message not in self._told:
                self._told.add(message)
                self.window_show_message(types.ShowMessageParams(types.MessageType.Error, message))
            return None

    def _text_work(self, uri: str):
        """What the lint thread runs for a text document: the analysis of its text as it is now,
        returning what publishes the result on the loop. None when it is published already
        (a config that cannot be read: no diagnostics)."""
        doc = self.workspace.get_text_document(uri)
        path, version, source = path_of(uri), doc.version, doc.source
        data = source.encode("utf-8")
        if path is not None:
            self.project.open(path, data)
        settings = self.settings(path)
        text = convert.Text(source, self.workspace.position_codec)
        if settings is None:
            self.publish(uri, text, [], version)
            return None

        def work():
            lint = self.project.lint(path, data, settings) if path else lint_untitled(data, settings)
            serial = next(_SERIALS)
            pairs = [(convert.diagnostic(f, text, uri, self.docs, ref=f"{serial}:{i}", offered=lint.offered(i)), f)
                     for i, f in enumerate(lint.findings)]

            def publish():
                self.publish(uri, text, pairs, version, serial, lint.with_fix)
                if path is not None:
                    self.relint_importers(path)  # only those that read it, and only if they could see the edit
            return publish
        return work

    def relint_importers(self, path: str) -> None:
        """Open documents whose findings read `path`'s summary as it was: lint them again."""
        for stale in self.project.stale(path):
            for uri in self._open_uris(stale):
                self.schedule(uri, 0)

    def _open_uris(self, path: str) -> list:
        out = [d.uri for d in self.workspace.text_documents.values()
               if path_of(d.uri) == path and self.workspace.get_notebook_document(cell_uri=d.uri) is None]
        out += [uri for uri in self.workspace.notebook_documents if _notebook_path(uri) == path]
        return out

    def _notebook_work(self, uri: str):
        """`_text_work` for a notebook: its cells' texts now, their diagnostics from the thread."""
        nb = self.workspace.get_notebook_document(notebook_uri=uri)
        cells, data = self._notebook_json(nb)
        path = _notebook_path(uri)
        settings = self.settings(path)
        texts = {i + 1: (doc.uri, convert.Text(doc.source, self.workspace.position_codec))
                 for i, (_c, doc) in enumerate(cells)}
        code_cells = [doc.uri for c, doc in cells if c.kind == types.NotebookCellKind.Code]

        def work():
            by_cell: dict = {cell_uri: [] for cell_uri in code_cells}
            serial = next(_SERIALS)
            if settings is not None:
                lint = self.project.lint(path, data, settings) if path else lint_untitled(data, settings, ".ipynb")
                for i, f in enumerate(lint.findings):
                    cell_uri, text = texts.get(f.cell or 1, (None, None))
                    if cell_uri is None:
                        continue
                    at = len(by_cell.setdefault(cell_uri, []))
                    d = convert.diagnostic(f, text, cell_uri, self.docs, ref=f"{serial}:{at}", offered=lint.offered(i))
                    by_cell[cell_uri].append((d, f))  # a notebook's findings carry their fixes
            return lambda: self._publish_cells(uri, texts, by_cell, serial)
        return work

    def _publish_cells(self, uri: str, texts: dict, by_cell: dict, serial: int) -> None:
        gone = self.cells_of.get(uri, set()) - set(by_cell)
        for cell_uri in gone:
            self.publish(cell_uri, convert.Text("", self.workspace.position_codec), [], None)
        text_of = dict(texts.values())  # cell uri -> Text
        for cell_uri, pairs in by_cell.items():
            self.publish(cell_uri, text_of[cell_uri], pairs, None, serial, place=texts.get)
        self.cells_of[uri] = set(by_cell)

    def _notebook_json(self, nb) -> tuple[list, bytes]:
        """([(cell, its text document)], the notebook as .ipynb JSON): what notebook.py reads."""
        cells = [(c, self.workspace.get_text_document(c.document)) for c in nb.cells]
        data = json.dumps({
            "cells": [{"cell_type": "code" if c.kind == types.NotebookCellKind.Code else "markdown",
                       "source": doc.source, "metadata": {}} for c, doc in cells],
            "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5,
        }).encode("utf-8")
        return cells, data

    def publish(self, uri: str, text: convert.Text, pairs: list, version, serial: int = 0, fix_of=None,
                place=None) -> None:
        self.published[uri] = Published(text, pairs, serial, fix_of, place)
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=uri, diagnostics=[d for d, _f in pairs], version=version))

    def clear(self, uri: str) -> None:
        self.published.pop(uri, None)
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    def watch_files(self) -> None:
        """Ask the client to report Python files and pyproject.toml changed outside the
        editor (clients send workspace/didChangeWatchedFiles only for registered globs)."""
        caps = self.client_capabilities.workspace
        watched = caps.did_change_watched_files if caps is not None else None
        if watched is None or not watched.dynamic_registration:
            return
        globs = ["**/*.py", "**/*.pyi", "**/pyproject.toml"]
        self.client_register_capability(types.RegistrationParams(registrations=[types.Registration(
            id="devicelint-watched-files", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=types.DidChangeWatchedFilesRegistrationOptions(
                watchers=[types.FileSystemWatcher(glob_pattern=g) for g in globs]))]))

    # ------------------------------------------------------------------ code actions
    async def code_actions(self, params: types.CodeActionParams) -> list:
        uri = params.text_document.uri
        only = params.context.only
        out = []
        seen = self.published.get(uri)
        if _wanted(types.CodeActionKind.QuickFix, only) and seen is not None:
            for diag in params.context.diagnostics:
                if diag.source == convert.SOURCE:
                    out.extend(self._quick_fixes(uri, diag, seen))
        if _wanted(FIX_ALL, only):
            # asked for by kind (on save, the Source Action menu): made now; asked with every
            # other action (at each move of the cursor): only as a promise to resolve
            action = await self._fix_all(uri) if only else self._fix_all_later(uri) if self._resolves_edits() else None
            if action is not None:
                out.append(action)
        return out

    def _resolves_edits(self) -> bool:
        """Whether the client fills in an action's edit by codeAction/resolve."""
        caps = self.client_capabilities.text_document
        actions = caps.code_action if caps is not None else None
        support = actions.resolve_support if actions is not None else None
        return support is not None and "edit" in support.properties

    def _fix_all_later(self, uri: str):
        """`source.fixAll` without its edit, for a request that did not ask for it by kind (a
        client asks for every action at each move of the cursor): fixing the file means
        analysing it again, round after round, so that waits for codeAction/resolve. None
        when nothing published for the document offers a safe fix."""
        nb = self.workspace.get_notebook_document(cell_uri=uri)
        uris = self.cells_of.get(nb.uri, ()) if nb is not None else (uri,)
        offered = [d for u in uris for d, _f in getattr(self.published.get(u), "pairs", ())
                   if isinstance(d.data, dict) and d.data.get("fix") == "safe"]
        if not offered:
            return None
        return types.CodeAction(title="devicelint: apply the safe fixes", kind=FIX_ALL, data={"fixAll": uri})

    async def resolve(self, action: types.CodeAction) -> types.CodeAction:
        """A `source.fixAll` offered by `_fix_all_later`, with its edit (an empty one when
        nothing is left to fix)."""
        uri = action.data.get("fixAll") if isinstance(action.data, dict) else None
        if action.kind != FIX_ALL or not isinstance(uri, str):
            return action
        done = await self._fix_all(uri)
        action.edit = done.edit if done is not None else types.WorkspaceEdit(changes={})
        return action

    def _quick_fixes(self, uri: str, diag: types.Diagnostic, seen: Published) -> list:
        """The fix of the published finding behind `diag` (built now: the lint did not) and
        its `# noqa` action; nothing for a diagnostic no longer published."""
        index = seen.index_of(diag)
        if index is None:
            return []
        finding = seen.fix_of(index)
        out = []
        fix = convert.fix_data(finding, seen.text, uri, seen.place)
        if fix:
            changes: dict = {}
            for e in fix["edits"]:
                changes.setdefault(e["uri"], []).append(types.TextEdit(_range(e["range"]), e["newText"]))
            out.append(types.CodeAction(title=fix["title"], kind=types.CodeActionKind.QuickFix, diagnostics=[diag],
                                        edit=types.WorkspaceEdit(changes=changes),
                                        is_preferred=fix["applicability"] == "safe"))
        if finding.code != "DL000":
            edit = convert.noqa_edit(finding, seen.text)
            if edit is not None:
                out.append(types.CodeAction(title=f"Suppress {finding.code} with # noqa",
                                            kind=types.CodeActionKind.QuickFix, diagnostics=[diag],
                                            edit=types.WorkspaceEdit(changes={uri: [edit]}), is_preferred=False))
        return out

    async def _fix_all(self, uri: str):
        """One edit replacing the document with its safely fixed text, or None. Fixing
        analyses the file again, round after round: in a lint thread, so that the other
        documents' diagnostics go on meanwhile."""
        nb = self.workspace.get_notebook_document(cell_uri=uri)
        work = self._fix_all_cells(nb) if nb is not None else self._fix_all_text(uri)
        return await worker.run(work, asyncio.get_running_loop()) if work is not None else None

    def _fix_all_text(self, uri: str):
        """What `_fix_all`'s thread runs for a text document (its text as it is now), or None."""
        path = path_of(uri)
        if path is None:
            return None
        settings = self.settings(path)
        if settings is None:
            return None
        doc = self.workspace.get_text_document(uri)
        source, version = doc.source, doc.version
        text = convert.Text(source, self.workspace.position_codec)

        def work():
            new, count = self.project.fix_all(path, source.encode("utf-8"), settings)
            if not count:
                return None
            edit = types.TextEdit(text.whole(), new.decode("utf-8"))
            return types.CodeAction(
                title=f"devicelint: apply {count} safe fix{'es' if count > 1 else ''}", kind=FIX_ALL,
                edit=types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(
                    text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
                    edits=[edit])]))
        return work

    def _fix_all_cells(self, nb):
        """For `_fix_all`'s thread: the notebook's safe fixes (notebook.fix, as `devicelint
        --fix` makes them), one whole-cell edit per changed cell; None when nothing changes."""
        path = _notebook_path(nb.uri)
        settings = self.settings(path) if path is not None else _default_settings()
        if settings is None:
            return None
        cells, data = self._notebook_json(nb)
        wholes = {doc.uri: convert.Text(doc.source, self.workspace.position_codec).whole() for _c, doc in cells}

        def work():
            new, count = self.project.fix_all(path or "untitled.ipynb", data, settings)
            if not count:
                return None
            changes = {}
            for (_cell, doc), fixed in zip(cells, json.loads(new)["cells"]):
                text = fixed["source"] if isinstance(fixed["source"], str) else "".join(fixed["source"])
                if text != doc.source:
                    changes[doc.uri] = [types.TextEdit(wholes[doc.uri], text)]
            return types.CodeAction(title=f"devicelint: apply {count} safe fix{'es' if count > 1 else ''}",
                                    kind=FIX_ALL, edit=types.WorkspaceEdit(changes=changes))
        return work

    # ------------------------------------------------------------------ docs
    def hover(self, params: types.HoverParams):
        seen = self.published.get(params.text_document.uri)
        if seen is None:
            return None
        pos = params.position
        codes = []
        for d, _f in seen.pairs:
            if _contains(d.range, pos) and d.code not in codes:
                codes.append(d.code)
        docs = [convert.explain(c) for c in codes]
        docs = [d for d in docs if d]
        if not docs:
            return None
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value="\n---\n".join(docs)))


def _default_settings():
    from devicelint.lsp.workspace import Settings

    return Settings(None, [])


def _notebook_path(uri: str) -> str | None:
    path = path_of(uri)
    if path is None:
        return None
    return path if path.lower().endswith(".ipynb") else path + ".ipynb"


def _range(r: dict) -> types.Range:
    return types.Range(types.Position(r["start"]["line"], r["start"]["character"]),
                       types.Position(r["end"]["line"], r["end"]["character"]))


def _contains(r: types.Range, p: types.Position) -> bool:
    return (r.start.line, r.start.character) <= (p.line, p.character) <= (r.end.line, r.end.character)


def _wanted(kind: str, only) -> bool:
    """Whether a code action of `kind` answers a request limited to `only` (kinds nest by dots)."""
    if not only:
        return True
    return any(kind == k or kind.startswith(k + ".") for k in only)


def build() -> DeviceLintServer:
    server = DeviceLintServer()

    @server.feature(types.INITIALIZED)
    def initialized(ls: DeviceLintServer, _params):
        ls.docs = write_docs()
        ls.watch_files()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: DeviceLintServer, params: types.DidOpenTextDocumentParams):
        ls.schedule(params.text_document.uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: DeviceLintServer, params: types.DidChangeTextDocumentParams):
        uri = params.text_document.uri
        nb = ls.workspace.get_notebook_document(cell_uri=uri)
        ls.schedule(nb.uri if nb is not None else uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: DeviceLintServer, params: types.DidSaveTextDocumentParams):
        ls.schedule(params.text_document.uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: DeviceLintServer, params: types.DidCloseTextDocumentParams):
        uri = params.text_document.uri
        ls.forget(uri)
        path = path_of(uri)
        if path is not None:
            ls.project.close(path)  # importers now read the file on disk
            ls.relint_importers(path)
        ls.clear(uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
    def nb_open(ls: DeviceLintServer, params: types.DidOpenNotebookDocumentParams):
        ls.schedule(params.notebook_document.uri, 0)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def nb_change(ls: DeviceLintServer, params: types.DidChangeNotebookDocumentParams):
        ls.schedule(params.notebook_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_SAVE)
    def nb_save(ls: DeviceLintServer, params: types.DidSaveNotebookDocumentParams):
        ls.schedule(params.notebook_document.uri, 0)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def nb_close(ls: DeviceLintServer, params: types.DidCloseNotebookDocumentParams):
        uri = params.notebook_document.uri
        ls.forget(uri)
        for cell in params.cell_text_documents:
            ls.clear(cell.uri)
        ls.cells_of.pop(uri, None)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched(ls: DeviceLintServer, params: types.DidChangeWatchedFilesParams):
        for change in params.changes:
            path = path_of(change.uri)
            if path is None:
                continue
            if os.path.basename(path) == "pyproject.toml":  # settings may have changed: everything
                for uri in list(ls.published):
                    nb = ls.workspace.get_notebook_document(cell_uri=uri)
                    ls.schedule(nb.uri if nb is not None else uri, 0)
                continue
            ls.relint_importers(path)

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL], resolve_provider=True))
    async def code_action(ls: DeviceLintServer, params: types.CodeActionParams):
        return await ls.code_actions(params)

    @server.feature(types.CODE_ACTION_RESOLVE)
    async def code_action_resolve(ls: DeviceLintServer, action: types.CodeAction):
        return await ls.resolve(action)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: DeviceLintServer, params: types.HoverParams):
        return ls.hover(params)

    @server.command(EXPLAIN)
    def explain(ls: DeviceLintServer, code: str):
        """The rule's docs as Markdown (what `devicelint explain CODE` prints)."""
        text = convert.explain(str(code).strip().upper())
        if text is None:
            raise ValueError(f"unknown rule code {code!r}")
        return text

    return server


def serve() -> None:
    import sys

    from devicelint import engine, limits

    logging.basicConfig(level=logging.WARNING)  # stderr: stdout is the protocol's
    # this process is ours, as the command line's is: a tree is kept out of the cyclic
    # collector while its file is analysed (engine._parse_out_of_gc), a tenth of a lint
    engine.FREEZE_TREES = True
    # limits.bounded() raises the recursion limit for the analysis in the main thread only:
    # the lint threads get the same depth for the whole life of the server
    sys.setrecursionlimit(max(sys.getrecursionlimit(), limits.RECURSION_LIMIT))
    _import_the_lint_path()
    build().start_io()


def _import_the_lint_path() -> None:
    """Import now what a lint imports on first need: a lint stopped by a newer keystroke
    (worker.Cancelled) must not stop in the middle of an import."""
    import hashlib  # noqa: F401

    from devicelint import cache, edits, fix, notebook, summary  # noqa: F401
    from devicelint.rules.dl002_batch_not_moved import dictbatch  # noqa: F401
    from devicelint.rules.dl004_redundant_to import bindonce  # noqa: F401
    from devicelint.rules.dl007_hardcoded_cuda import cpu_run  # noqa: F401
    from devicelint.flow import program  # noqa: F401
