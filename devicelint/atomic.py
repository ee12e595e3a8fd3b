"""Every file devicelint writes (a fixed source, `--add-noqa`, a baseline, cache entries)
goes through here: the new content is written to a temporary file in the target's own
folder and renamed over the target, so that a full disk, a read-only folder or a kill
half-way leaves the old file whole. The temporary file is removed on any exit, an
exception or a signal turned into one (see `stop`)."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile

PREFIX, SUFFIX = ".devicelint-", ".tmp"


@contextlib.contextmanager
def staged(path: str, data: bytes, durable: bool = True):
    """Yield the name of a temporary file beside `path` holding `data` (flushed to disk
    when `durable`); the caller renames it into place or not, and it is gone afterwards
    in every case. OSError when it cannot be made or written (no space, no permission)."""
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path) or ".", prefix=PREFIX, suffix=SUFFIX)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            if durable:
                f.flush()
                os.fsync(f.fileno())
        yield tmp
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)  # after a rename there is nothing left to remove


def write(path: str, data: bytes, durable: bool = True) -> None:
    """Replace (or create) `path` with `data`, never half-written. The file keeps its
    mode; a new one gets the mode `open()` would give it (a temporary file is private)."""
    mode = _mode_for(path)
    with staged(path, data, durable) as tmp:
        os.chmod(tmp, mode)
        os.replace(tmp, path)


def _mode_for(path: str) -> int:
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
