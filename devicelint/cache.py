"""A per-file result cache keyed on file content, tool version and the rules that ran, and
(for a file whose findings depend on other files of the project) on those files' summaries.

Entries are small JSON files under `.devicelint_cache/`, written to a temporary name and
renamed into place, so concurrent runs never see half an entry. An entry that cannot be
read or parsed is ignored and rewritten. At most once a day a run prunes the cache: entries
unused for MAX_AGE_DAYS go, then the oldest until it is under MAX_BYTES.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from functools import lru_cache

from devicelint import __version__
from devicelint.findings import Finding

DEFAULT_DIR = ".devicelint_cache"
MAX_BYTES = 256 * 1024 * 1024
MAX_AGE_DAYS = 30
PRUNE_EVERY = 24 * 3600  # seconds between two prunes
_STAMP = ".last-prune"
_MARKER = ".gitignore"  # every cache folder has it: `clean` removes nothing else


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


def _read(cache_dir: str, k: str):
    entry = _path(cache_dir, k)
    try:
        with open(entry, encoding="utf-8") as f:
            obj = json.load(f)
            st = os.fstat(f.fileno())
        if time.time() - st.st_mtime > PRUNE_EVERY:
            os.utime(entry)  # in use: the age-based prune keeps it
        return obj
    except (OSError, ValueError):
        return None  # missing or corrupted: lint again and rewrite


def load(cache_dir: str, k: str, path: str):
    rows = _read(cache_dir, k)
    try:
        return [Finding(path=path, **row) for row in rows]
    except (TypeError, ValueError, AttributeError):
        return None  # not a list of findings (a list of dependencies, or damaged)


def load_deps(cache_dir: str, k: str):
    """The files a result with this key depended on, when it depended on any: the entry
    under the plain key then lists them, and the findings live under `with_deps(...)`."""
    entry = _read(cache_dir, k)
    if isinstance(entry, dict) and isinstance(entry.get("deps"), list) and all(isinstance(p, str) for p in entry["deps"]):
        return entry["deps"]
    return None


def with_deps(k: str, dependency_key: str) -> str:
    return hashlib.sha256(f"{k}:{dependency_key}".encode()).hexdigest()


def store_deps(cache_dir: str, k: str, deps) -> None:
    _write(cache_dir, k, {"deps": sorted(deps)})


def store(cache_dir: str, k: str, findings) -> None:
    rows = []
    for f in findings:
        row = f.to_json()
        del row["path"]  # the same content may live at several paths
        rows.append(row)
    _write(cache_dir, k, rows)


def _write(cache_dir: str, k: str, obj) -> None:
    from devicelint import atomic

    target = _path(cache_dir, k)
    try:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        _ensure_gitignore(cache_dir)
        # a cache entry may be lost, never half-written: no fsync, the rename suffices
        atomic.write(target, json.dumps(obj).encode("utf-8"), durable=False)
    except OSError:
        pass  # a read-only checkout or a full disk still lints, just without a cache


def prune(cache_dir: str, force: bool = False) -> int:
    """Remove old entries (see the module docstring); returns how many. Cheap when not due:
    one stat of the stamp file."""
    stamp = os.path.join(cache_dir, _STAMP)
    now = time.time()
    try:
        if not force and now - os.stat(stamp).st_mtime < PRUNE_EVERY:
            return 0
    except FileNotFoundError:
        if not os.path.isdir(cache_dir):
            return 0
    except OSError:
        return 0
    entries = []
    for root, _dirs, files in os.walk(cache_dir):
        for name in files:
            if name.endswith((".json", ".tmp")):
                full = os.path.join(root, name)
                try:
                    st = os.stat(full)
                except OSError:
                    continue
                entries.append((st.st_mtime, st.st_size, full, name.endswith(".tmp")))
    entries.sort()
    total = sum(size for _, size, _, _ in entries)
    removed = 0
    for mtime, size, full, is_tmp in entries:
        old = now - mtime > MAX_AGE_DAYS * 86400
        # a .tmp an hour old is left over from a run that died
        if old or total > MAX_BYTES or (is_tmp and now - mtime > 3600):
            try:
                os.unlink(full)
                total -= size
                removed += 1
            except OSError:
                pass
    try:
        with open(stamp, "w"):
            pass
    except OSError:
        pass
    return removed


def clean(cache_dir: str) -> bool:
    """Remove the cache folder; False when there is none. Refuses a folder that is not a
    devicelint cache (no marker), so a mistyped --cache-dir deletes nothing."""
    if not os.path.isdir(cache_dir):
        return False
    marker = os.path.join(cache_dir, _MARKER)
    try:
        with open(marker) as f:
            if f.read() != "*\n":
                raise ValueError
    except (OSError, ValueError):
        raise ValueError(f"{cache_dir} does not look like a devicelint cache (no {_MARKER} marker); not removed") from None
    import shutil

    shutil.rmtree(cache_dir)
    return True


def _ensure_gitignore(cache_dir: str) -> None:
    marker = os.path.join(cache_dir, ".gitignore")
    if not os.path.exists(marker):
        from devicelint import atomic

        try:
            atomic.write(marker, b"*\n", durable=False)  # `clean` trusts only a whole marker
        except OSError:
            pass
