"""What the server keeps warm between keystrokes: each file's configuration, the summaries
of the project's files (open documents' from their unsaved text), and which files each lint
depended on, so that an edit to `models.py` re-lints the open files that import it.

No pygls here: the server hands in paths and text and gets findings back, through the same
config discovery (`config.find_pyproject` / `load` / `selection`, per-file-ignores) and
engine (`engine.analyse` with a `project.FileView`) as the command line.
"""

from __future__ import annotations

import dataclasses
import os

from devicelint import config as cfgmod
from devicelint import project
from devicelint.engine import analyse
from devicelint.files import ignored_codes
from devicelint.lsp.incremental import IncrementalParser
from devicelint.lsp.summaries import PieceSummaries

# Summaries of texts typed in the editor are kept by content; past this many the memory is
# dropped and rebuilt from the texts asked about next (one summary is a few milliseconds).
MAX_SUMMARIES = 4000


class OverlayStore(project.Store):
    """A project.Store that reads an open document's text instead of its file on disk, and
    summarises it from the statements its last keystroke left alone (lsp/summaries.py)."""

    def __init__(self, parsers: dict | None = None) -> None:
        super().__init__(None)
        self.overlay: dict = {}  # absolute path -> bytes of the open document
        self.parsers = parsers if parsers is not None else {}  # absolute path -> its IncrementalParser
        self.pieces = PieceSummaries()

    def entry_for(self, path: str):
        text = self.overlay.get(path)
        if text is None:
            return super().entry_for(path)
        if len(self.memory) > MAX_SUMMARIES:
            self.memory.clear()
        parser = self.parsers.get(path)
        return self.summary_of(text, lambda data: self.pieces.summarize(data, parser and parser.last))


class Settings:
    """(select, ignore) for one file, as `devicelint check FILE` would choose them."""

    def __init__(self, chosen, ignored) -> None:
        self.select, self.ignore = chosen, ignored


class Lint:
    """One lint of a document: its findings, each one's fix made when first asked for (a
    code action). A keystroke costs the analysis only: building a fix can re-render a whole
    top-level function, and most findings are never asked about. A notebook's findings come
    with their fixes (notebook.analyse maps them into the cells)."""

    def __init__(self, pairs: list, fixer=None) -> None:
        self.findings = [f for f, _r in pairs]
        self._reports = [r for _f, r in pairs]
        self._fixer = fixer  # engine.Fixer, or None: the findings carry their fixes
        self._fixed: dict = {}

    def offered(self, i: int) -> str | None:
        """The applicability ("safe"/"unsafe") of the fix the i-th finding's rule offers, without
        building it (the code action may still find that it cannot be made)."""
        if self._fixer is None:
            fix = self.findings[i].fix
            return fix.get("applicability") if fix else None
        report = self._reports[i]
        return report.applicability if report is not None and report.edit is not None else None

    def with_fix(self, i: int):
        """The i-th finding with its fix object (or fix None when none can be made)."""
        if self._fixer is None:
            return self.findings[i]
        if i not in self._fixed:
            self._fixed[i] = dataclasses.replace(self.findings[i], fix=self._fixer(self._reports[i]))
        return self._fixed[i]


def lint_untitled(data: bytes, settings: Settings, suffix: str = ".py") -> Lint:
    """A buffer with no file behind it: linted alone, with the given settings."""
    deferred: list = []
    pairs, _module = analyse(data, "untitled" + suffix, settings.select, settings.ignore, deferred=deferred)
    return Lint(pairs, deferred[0] if deferred else None)


class Workspace:
    def __init__(self) -> None:
        # open path -> its last tree, cut by statement: a keystroke re-parses what it changed
        # (and its summary re-summarises the statements it changed)
        self._parsers: dict = {}
        self.store = OverlayStore(self._parsers)
        self.deps: dict = {}  # linted path -> {path it read: that file's state then}
        self._last: dict = {}  # linted path -> (text, settings, Lint): its newest lint
        self._configs: dict = {}  # pyproject path -> ((mtime, size), Config)

    # ------------------------------------------------------------------ configuration
    def config(self, path: str) -> cfgmod.Config:
        """The Config of the project `path` belongs to; ConfigError when it is broken.
        Re-read whenever the pyproject.toml changed on disk."""
        where = cfgmod.find_pyproject(path)
        if where is None:
            return cfgmod.Config()
        try:
            st = os.stat(where)
            stamp = (st.st_mtime_ns, st.st_size)
        except OSError:
            stamp = None
        known = self._configs.get(where)
        if known is not None and known[0] == stamp and stamp is not None:
            return known[1]
        cfg = cfgmod.load(where)
        self._configs[where] = (stamp, cfg)
        return cfg

    def settings(self, path: str) -> Settings:
        cfg = self.config(path)
        chosen, ignored = cfgmod.selection(cfg)
        return Settings(chosen, ignored + ignored_codes(path, cfg.per_file_ignores, cfg.root))

    # ------------------------------------------------------------------ documents
    def open(self, path: str, data: bytes) -> None:
        """Lints and summaries see `data` for `path` from now on."""
        self.store.overlay[os.path.abspath(path)] = data

    def close(self, path: str) -> None:
        full = os.path.abspath(path)
        self.store.overlay.pop(full, None)
        self.deps.pop(full, None)
        self._last.pop(full, None)
        self._parsers.pop(full, None)

    def lint(self, path: str, data: bytes, settings: Settings) -> Lint:
        """The findings of `data` (the text of `path`), with what they depended on recorded.
        The same text with the same settings, whose dependencies all read as they did, is
        not analysed again (a save, a reopen, a watched file that changed nothing it reads)."""
        full = os.path.abspath(path)
        chosen = (settings.select, settings.ignore)
        last = self._last.get(full)
        if last is not None and last[0] == data and last[1] == chosen and self._unchanged(full):
            return last[2]
        view = project.FileView(full, self.store)
        deferred: list = []
        reuse = self._parsers.setdefault(full, IncrementalParser()) if full in self.store.overlay else None
        pairs, _module = analyse(data, path, settings.select, settings.ignore, project=view, deferred=deferred,
                                 reuse=reuse)
        self.deps[full] = {p: s for p, s in view.deps.items() if p != full}
        lint = Lint(pairs, deferred[0] if deferred else None)
        self._last[full] = (data, chosen, lint)
        return lint

    def _unchanged(self, full: str) -> bool:
        """Whether every file the last lint of `full` read still reads the same."""
        deps = self.deps.get(full)
        return deps is not None and all(
            state is not None and state == project.file_state(self.store, dep) for dep, state in deps.items())

    def fix_all(self, path: str, data: bytes, settings: Settings) -> tuple[bytes, int]:
        """(the text with the file's safe fixes applied, how many), like `devicelint --fix`."""
        from devicelint.fix import fix_source

        return fix_source(data, path, settings.select, settings.ignore, unsafe=False,
                          project=project.FileView(os.path.abspath(path), self.store))

    # ------------------------------------------------------------------ cross-file
    def stale(self, changed: str) -> list:
        """The linted paths whose findings depended on `changed` as it was then, and that
        may read differently now (its summary changed, or it appeared or went)."""
        changed = os.path.abspath(changed)
        out = []
        for path, deps in list(self.deps.items()):  # lint threads add entries meanwhile
            if changed not in deps or path == changed:
                continue
            before = deps[changed]
            if before is None or before != project.file_state(self.store, changed):
                out.append(path)
        return out
