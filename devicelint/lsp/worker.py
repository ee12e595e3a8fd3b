"""Lints off the server's event loop, each in a thread of its own that a newer text can stop.

The event loop keeps reading the client while a file is analysed (a keystroke, a code action,
another file's diagnostics are never queued behind a slow file), and a lint whose text was
superseded is stopped instead of finishing for nothing: `Job.cancel` raises `Cancelled` in its
thread (CPython's PyThreadState_SetAsyncExc), at the next bytecode the thread runs, wherever
the analysis is (parse, inference, positions, a rule). What decides publication is not the
cancellation but the server's own check that a result is for the newest text: a lint that
ends before its cancellation arrives is dropped all the same.

A thread per lint, not a pool: the exception is aimed at a thread, and a pooled thread could
already be running the next job when it lands. No pygls here (tests drive it directly).
"""

from __future__ import annotations

import ctypes
import gc
import threading
import traceback

# The analysis recurses as deep as the command line's (limits.RECURSION_LIMIT Python frames,
# LibCST's native parser below them): a thread gets the main thread's usual stack, not less.
STACK_BYTES = 64 * 2**20


class Cancelled(BaseException):
    """Raised in a lint's thread when a newer text superseded it. A BaseException, as
    limits.TooComplex is, so that no `except Exception` in the analysis swallows it."""


CANCELLED = "cancelled"
DONE = "done"
FAILED = "failed"

_set_async_exc = getattr(ctypes.pythonapi, "PyThreadState_SetAsyncExc", None)
if _set_async_exc is not None:
    _set_async_exc.argtypes = (ctypes.c_ulong, ctypes.py_object)


def _raise_in(ident: int, exc) -> None:
    """Have thread `ident` raise `exc` at its next bytecode (None: forget one still pending)."""
    if _set_async_exc is not None:
        _set_async_exc(ident, exc if exc is not None else ctypes.py_object())  # py_object(): NULL


class Job:
    """`work()` run in a new thread; `done(job, outcome, value)` then called on `loop` with
    outcome DONE (value: what work returned), FAILED (value: the traceback) or CANCELLED.

    Every job reports, whenever its stop comes. A stop raises `Cancelled` in the thread only
    while the thread is inside `_run`'s `try` (from `_enter` to `_leave`), and at most once:
    one raised earlier would land in threading's own start-up code (a loaded machine runs a
    new thread late, after `start()` returned and the next keystroke came), one raised later
    in a thread that reuses this one's identity (the C library reuses them: another
    document's lint), and a second one could land in the `except` that caught the first. Each
    of those ended a thread unreported, and its document was never linted again."""

    def __init__(self, work, done, loop, name: str = "devicelint-lint") -> None:
        self.work, self.done, self.loop, self.name = work, done, loop, name
        self.cancelled = False
        self._lock = threading.Lock()  # between cancel() and the thread's _enter and _leave
        self._ident: int | None = None  # the thread's, while a stop may be raised in it
        self._raised = False
        self._thread: threading.Thread | None = None

    def start(self) -> Job:
        self._thread = _start_thread(self._run, self.name)
        return self

    def cancel(self) -> None:
        """Stop the work if it still runs. Whatever it returns from now on is CANCELLED."""
        with self._lock:
            self.cancelled = True
            if self._ident is not None and not self._raised:
                self._raised = True
                _raise_in(self._ident, Cancelled)

    def _run(self) -> None:
        outcome = None
        while True:  # until the end is recorded (the one Cancelled may land anywhere in here)
            try:
                if outcome is None:
                    outcome = self._attempt() if self._enter() else (CANCELLED, None)
                self._leave()
                break
            except Cancelled:
                outcome = (CANCELLED, None)
        if self.cancelled:
            outcome = (CANCELLED, None)
            # stopped anywhere, even between the parse's gc.disable() and its enable()
            if not gc.isenabled():
                gc.enable()
        try:
            self.loop.call_soon_threadsafe(self.done, self, *outcome)
        except RuntimeError:  # the loop closed: the server is shutting down
            pass

    def _enter(self) -> bool:
        """From now on cancel() raises in this thread. False: stopped before it began."""
        with self._lock:
            self._ident = threading.get_ident()
            return not self.cancelled

    def _leave(self) -> None:
        with self._lock:
            self._ident = None  # cancel() raises no more
            # one raised as the work returned would end the thread with a traceback on stderr
            _raise_in(threading.get_ident(), None)

    def _attempt(self) -> tuple:
        try:
            return DONE, self.work()
        except Cancelled:
            return CANCELLED, None
        except BaseException:  # even SystemExit: a thread that ends unreported leaves its document unlinted
            return FAILED, traceback.format_exc()


async def run(work, loop):
    """What `work()` returns, computed in a Job's thread; its traceback as a RuntimeError when
    it failed. An awaiting request that is cancelled (the client's $/cancelRequest) stops it."""
    future = loop.create_future()

    def done(_job, outcome, value):
        if not future.done():
            future.set_result((outcome, value))

    job = Job(work, done, loop, "devicelint-request").start()
    try:
        outcome, value = await future
    except BaseException:  # asyncio.CancelledError: nobody wants the answer any more
        job.cancel()
        raise
    if outcome == FAILED:
        raise RuntimeError(value)
    if outcome == CANCELLED:
        raise RuntimeError("stopped")
    return value


def _start_thread(target, name: str) -> threading.Thread:
    """A started daemon thread with STACK_BYTES of stack (the size is the process's setting,
    read when a thread starts: restored after)."""
    old = threading.stack_size()
    try:
        threading.stack_size(STACK_BYTES)
    except (ValueError, RuntimeError):  # a platform that sets no thread stack size
        pass
    try:
        thread = threading.Thread(target=target, name=name, daemon=True)
        thread.start()
        return thread
    finally:
        try:
            threading.stack_size(old)
        except (ValueError, RuntimeError):
            pass
