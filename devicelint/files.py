"""Which files to lint: walk folders, skip the usual non-source folders and excludes."""

from __future__ import annotations

import fnmatch
import os

# Version control, virtualenvs and installed packages: never the user's own code, skipped
# even when `exclude` replaces the defaults below (a folder holding a `pyvenv.cfg` is a
# virtualenv whatever its name).
ALWAYS_EXCLUDE = {".git", ".hg", ".svn", ".venv", "venv", "site-packages", "__pypackages__", ".devicelint_cache"}

DEFAULT_EXCLUDE = ALWAYS_EXCLUDE | {
    ".tox", ".nox", "__pycache__", "build", "dist", ".mypy_cache", ".pytest_cache", ".ruff_cache",
    "node_modules", ".eggs", ".ipynb_checkpoints",
}


def _excluded(rel: str, name: str, patterns) -> bool:
    return any(fnmatch.fnmatch(rel, p) or fnmatch.fnmatch(name, p) or fnmatch.fnmatch(rel, p.rstrip("/") + "/*") for p in patterns)


# What a folder walk lints: Python files and Jupyter notebooks (`extend-include` adds more).
INCLUDE = ("*.py", "*.pyi", "*.ipynb")


def discover(paths, exclude=None, extend_exclude=(), root=None, force_exclude=False, extend_include=()) -> list:
    """Files to lint, in a stable order. Explicitly named files are always linted; a named
    path that does not exist is returned as is, so the engine reports it. `exclude` (which
    replaces the default folder names, except ALWAYS_EXCLUDE) and `extend-exclude` are names or glob patterns,
    matched against the name, the path below the given folder, and the path below `root`
    (the folder of the config file). With `force_exclude`, named files are filtered too
    (pre-commit names every staged file). `extend_include` adds glob patterns for the files
    a folder walk picks up, matched against the name and the path below the given folder."""
    names = DEFAULT_EXCLUDE if exclude is None else ALWAYS_EXCLUDE | set(exclude)
    include = INCLUDE + tuple(extend_include)
    patterns = list(extend_exclude) + ([] if exclude is None else list(exclude))

    def excluded(rel: str, name: str, full: str) -> bool:
        if _excluded(rel, name, patterns):
            return True
        if root is not None and patterns:
            rel_root = os.path.relpath(os.path.abspath(full), root).replace(os.sep, "/")
            return not rel_root.startswith("../") and _excluded(rel_root, name, patterns)
        return False
    out = []
    seen = set()
    for given in paths:
        if not os.path.isdir(given):
            if not (force_exclude and _named_file_excluded(given, names, excluded)):
                out.append(given)
            continue
        for path in _walk(given, names, include, excluded):
            real = os.path.realpath(path)
            if real in seen:
                continue  # one file reached twice through a link
            seen.add(real)
            out.append(path)
    return out


def _named_file_excluded(given: str, names, excluded) -> bool:
    """A file named on the command line that sits in an excluded folder or matches a pattern."""
    parts = os.path.normpath(given).replace(os.sep, "/").split("/")
    return any(p in names or p.endswith(".egg-info") for p in parts[:-1]) or excluded(
        given.replace(os.sep, "/"), os.path.basename(given), given)


def _walk(given: str, names, include, excluded):
    """The files to lint under folder `given`, in a stable order, skipping excluded folders."""
    for root_dir, dirs, files in os.walk(given):  # followlinks=False: symlink loops cannot trap us
        rel_root = os.path.relpath(root_dir, given)
        dirs[:] = [d for d in sorted(dirs) if not _skipped_dir(root_dir, rel_root, d, names, excluded)]
        for f in sorted(files):
            rel = os.path.normpath(os.path.join(rel_root, f)).replace(os.sep, "/")
            if not any(fnmatch.fnmatch(f, p) or fnmatch.fnmatch(rel, p) for p in include):
                continue
            path = os.path.join(root_dir, f) if given != "." else rel  # `a.py`, not `./a.py`
            if not excluded(rel, f, path):
                yield path


def _skipped_dir(root_dir: str, rel_root: str, d: str, names, excluded) -> bool:
    rel = os.path.normpath(os.path.join(rel_root, d)).replace(os.sep, "/")
    full = os.path.join(root_dir, d)
    return d in names or d.endswith(".egg-info") or os.path.isfile(os.path.join(full, "pyvenv.cfg")) or excluded(rel, d, full)


def ignored_codes(path: str, per_file_ignores: dict, root: str) -> list:
    if not per_file_ignores:
        return []
    rel = os.path.relpath(os.path.abspath(path), root).replace(os.sep, "/")
    name = os.path.basename(path)
    codes = []
    for pattern, pcodes in per_file_ignores.items():
        if fnmatch.fnmatch(rel, pattern) or fnmatch.fnmatch(name, pattern) or fnmatch.fnmatch(path, pattern):
            codes.extend(pcodes)
    return codes
