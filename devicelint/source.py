"""Reading a file to lint: its bytes, or the DL000 finding that says why it cannot be read.
Apart from the engine (and LibCST), so that a run answered from the cache reads its files
without importing either."""

from __future__ import annotations

import os
import stat

from devicelint.findings import Finding


def meta(path: str, name: str, message: str, line: int = 1, column: int = 1) -> Finding:
    """A DL000 finding: the file could not be linted (`name` says why)."""
    return Finding(path, line, column, line, column, "DL000", name, message)


def read_source(path: str):
    """(bytes, None), or (None, a DL000 finding saying why the file cannot be read)."""
    try:
        mode = os.stat(path).st_mode
        if stat.S_ISDIR(mode):
            return None, meta(path, "unreadable-file", "is a directory")
        if not stat.S_ISREG(mode):  # a FIFO or a device would block or never end
            return None, meta(path, "unreadable-file", "not a regular file")
        with open(path, "rb") as f:
            return f.read(), None
    except FileNotFoundError:
        return None, meta(path, "unreadable-file", "no such file or directory")
    except PermissionError:
        return None, meta(path, "unreadable-file", "permission denied")
    except OSError as e:
        return None, meta(path, "unreadable-file", e.strerror or str(e))
