"""A per-file result cache keyed on file content, tool version and the rules that ran.

Entries are small JSON files under `.devicelint_cache/`, written to a temporary name and
renamed into place, so concurrent runs never see half an entry. An entry that cannot be
read or parsed is ignored and rewritten.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from functools import lru_cache

from devicelint import __version__
from devicelint.findings import Finding

DEFAULT_DIR = ".devicelint_cache"


@lru_cache(maxsize=1)
def _code_fingerprint() -> str:
    """The linter's own code: a changed rule must not reuse old results (a development
    checkout keeps its version number while its code changes)."""
    here = os.path.dirname(os.path.abspath(__file__))
    h = hashlib.sha256(__version__.encode())
    for root, dirs, files in os.walk(here):
        dirs[:] = sorted(d for d in dirs if d not in ("runtime", "__pycache__"))
        for f in sorted(files):
            if f.endswith(".py"):
                st = os.stat(os.path.join(root, f))
                h.update(f"{f}:{st.st_size}:{st.st_mtime_ns}".encode())
    return h.hexdigest()[:16]


def key(source: bytes, codes) -> str:
    h = hashlib.sha256(_code_fingerprint().encode())
    h.update(",".join(sorted(codes)).encode())
    h.update(b"\0")
    h.update(source)
    return h.hexdigest()


def _path(cache_dir: str, k: str) -> str:
    return os.path.join(cache_dir, k[:2], k[2:] + ".json")


def load(cache_dir: str, k: str, path: str):
    try:
        with open(_path(cache_dir, k), encoding="utf-8") as f:
            rows = json.load(f)
        return [Finding(path=path, **row) for row in rows]
    except (OSError, ValueError, TypeError):
        return None  # missing or corrupted: lint again and rewrite


def store(cache_dir: str, k: str, findings) -> None:
    target = _path(cache_dir, k)
    rows = []
    for f in findings:
        row = f.to_json()
        del row["path"]  # the same content may live at several paths
        rows.append(row)
    try:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        _ensure_gitignore(cache_dir)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(target), suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(rows, f)
        os.replace(tmp, target)
    except OSError:
        pass  # a read-only checkout still lints, just without a cache


def _ensure_gitignore(cache_dir: str) -> None:
    marker = os.path.join(cache_dir, ".gitignore")
    if not os.path.exists(marker):
        try:
            with open(marker, "w") as f:
                f.write("*\n")
        except OSError:
            pass
