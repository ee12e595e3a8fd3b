"""Ctrl-C and SIGTERM as exceptions, so that every `finally` runs on the way out: a
temporary file beside a source being fixed, the run's shared summary folder in /tmp and
the worker processes are cleaned up however a run ends (only SIGKILL skips them).

`Stopped` is not a KeyboardInterrupt on purpose: click turns that into "Aborted!" and
exit 1; devicelint exits 128 + the signal's number (130 for Ctrl-C, 143 for SIGTERM), as
Ruff and shells do."""

from __future__ import annotations

import os
import signal

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Stopped(BaseException):
    """The run was interrupted by `signum`."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return 128 + self.signum

    @property
    def message(self) -> str:
        return "interrupted" if self.signum == signal.SIGINT else "terminated"


def _raise(signum, _frame):
    raise Stopped(signum)


def install() -> None:
    """In the main process (the main thread only: Python's rule for signal handlers). A
    signal the parent set to be ignored stays ignored (a background job of a
    non-interactive shell ignores Ctrl-C, `nohup` and the like)."""
    for signum in SIGNALS:
        if signal.getsignal(signum) is not signal.SIG_IGN:
            signal.signal(signum, _raise)


# A pool worker: between two files nothing needs cleaning, and an exception raised into
# the pool's own loop would print a traceback; during one, the file's writes unwind first.
_busy = False


def _in_worker(signum, _frame):
    if _busy:
        raise Stopped(signum)
    os._exit(128 + signum)


def install_in_worker() -> None:
    for signum in SIGNALS:
        if signal.getsignal(signum) is not signal.SIG_IGN:
            signal.signal(signum, _in_worker)


def guarded(work, task):
    """Run `work(task)` in a worker; a signal during it unwinds it, then ends the worker."""
    global _busy
    _busy = True
    try:
        return work(task)
    except Stopped as e:
        os._exit(e.exit_code)
    finally:
        _busy = False
