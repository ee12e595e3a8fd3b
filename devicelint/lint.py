"""Lint many files: in-process for a few, a process pool for many; sorted, deterministic output."""

from __future__ import annotations

import gc
import os
import signal
import stat
import sys
from contextlib import contextmanager

from devicelint import limits, stop
from devicelint.source import meta as _meta
from devicelint.source import read_source

# The engine (LibCST, the inference, the rules) is imported only when a file is linted: a
# run answered from the cache never loads it.

# Below this many files a pool costs more to start than it saves.
POOL_THRESHOLD = 24
# Allocations between two young-generation collections while linting. A file's LibCST tree
# and inference allocate hundreds of thousands of objects that live until the file is done;
# at Python's default (700) the collector walks them over and over, about a tenth of the
# run's CPU, for little garbage. Only the pace of collection changes, not what the analysis finds.
GC_THRESHOLD = (10_000, 10, 10)
# A worker's own backstop stops a file after limits.CPU_BACKSTOP seconds of CPU time; a worker
# silent for far longer (as if it got a third of a core all along) is stuck in native code,
# where no timer reaches. Wall-clock time, so only as a last resort: a busy machine must not
# turn a slow file into a finding.
HUNG_AFTER = 3 * limits.CPU_BACKSTOP + 60


def _one(task):
    path, data, select, ignore, cache_dir = task
    try:
        if data is None and cache_dir is not None:
            return path, _cached(path, select, ignore, cache_dir), None
        engine, rules = _engine(select, ignore)
        if data is not None:
            return path, engine.lint_source(data, path, rule_classes=rules), None
        return path, engine.lint_file(path, rule_classes=rules), None
    except Exception as e:  # an internal error on one file must not stop the others
        import traceback  # an internal error only

        where = traceback.extract_tb(e.__traceback__)[-1]
        return path, [], f"{type(e).__name__}: {e} ({os.path.basename(where.filename)}:{where.lineno})"


def _cached(path, select, ignore, cache_dir):
    from devicelint import cache, project
    from devicelint.codes import resolve_codes

    source, problem = read_source(path)
    if problem is not None:
        return [problem]
    k = cache.key(source, resolve_codes(select, ignore))
    store = project.store_for(cache_dir)
    deps = cache.load_deps(cache_dir, k)
    # findings that depended on other files hold only while those files' summaries do
    found = cache.load(cache_dir, cache.with_deps(k, project.dependency_key(store, deps)) if deps else k, path)
    if found is None:
        engine, rules = _engine(select, ignore)
        view = engine.project_view(path, store)
        found = engine.lint_source(source, path, rule_classes=rules, project=view)
        deps = [p for p in view.deps if p != view.path] if view is not None else []
        if any(f.name == "too-complex" for f in found):
            pass  # the CPU backstop and the memory cap depend on the machine: never remember one
        elif deps:
            cache.store_deps(cache_dir, k, deps)
            cache.store(cache_dir, cache.with_deps(k, project.dependency_key(store, deps)), found)
        else:
            cache.store(cache_dir, k, found)
    return found


def _size(task) -> int:
    path, data = task[0], task[1]
    if data is not None:
        return len(data)
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def lint_many(tasks, jobs=None, progress=None):
    """(sorted findings, [(path, internal error)]); `progress(n_findings)` is called as each
    file is done."""
    tick = progress or (lambda _n: None)
    jobs = jobs or os.cpu_count() or 1
    if jobs > 1 and len(tasks) >= POOL_THRESHOLD:
        # Largest files first: a few huge files at the end would leave the other workers
        # idle. Output order does not depend on this (findings are sorted).
        tasks = sorted(tasks, key=_size, reverse=True)
        import shutil
        import tempfile

        _preload()
        shared = tempfile.mkdtemp(prefix="devicelint-summaries-") if any(t[4] is None for t in tasks) else None
        try:
            results = _pooled(tasks, jobs, tick, shared=shared)
        finally:
            if shared is not None:
                shutil.rmtree(shared, ignore_errors=True)
    else:
        results = []
        old = gc.get_threshold()
        gc.set_threshold(*GC_THRESHOLD)
        _run_settings(True)
        try:
            for t in tasks:
                results.append(_one(t))
                tick(len(results[-1][1]))
        finally:
            gc.set_threshold(*old)
            _run_settings(False)
    findings, errors = [], []
    for path, found, error in results:
        findings.extend(found)
        if error:
            errors.append((path, error))
    findings.sort()
    return findings, errors


def read_with_stat(path: str):
    """(bytes, the stat they were read with) or (None, None) when unreadable (the lint run
    that follows reports why)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # a FIFO would block
            return None, None
        with open(path, "rb") as f:
            return f.read(), os.fstat(f.fileno())
    except OSError:
        return None, None


def _fix_one(task):
    """(path, (source, its stat, fixed source, fixes applied, lines on fixes refused) or None,
    internal error)."""
    path, select, ignore, unsafe = task
    from devicelint.fix import fix_source

    try:
        source, before = read_with_stat(path)
        if source is None:
            return path, None, None
        refused: list = []
        new, count = fix_source(source, path, select, ignore, unsafe, refused)
        return path, (source, before, new, count, refused), None
    except Exception as e:  # one file's internal error must not stop the others
        return path, None, f"{type(e).__name__}: {e}"


def fix_many(tasks, jobs=None):
    """The fixes of many files, computed in a process pool like `lint_many` and returned in
    the order of `tasks` ((path, select, ignore, unsafe) each), so that what is written and
    printed does not depend on --jobs. Nothing is written here."""
    jobs = jobs or os.cpu_count() or 1
    if jobs > 1 and len(tasks) >= POOL_THRESHOLD:
        _preload()
        order = sorted(range(len(tasks)), key=lambda i: _size((tasks[i][0], None)), reverse=True)
        results = _pooled([tasks[i] for i in order], jobs, lambda _n: None, work=_fix_one,
                          crashed=lambda path, e: (path, None, str(e)))
        out: list = [None] * len(tasks)
        for j, i in enumerate(order):
            out[i] = results[j]
        return out
    return [_fix_one(t) for t in tasks]


def _too_complex(path, e):
    return path, [_meta(path, "too-complex", f"not analysed: {e}")], None


def _pooled(tasks, jobs, tick, work=_one, crashed=_too_complex, shared=None):
    """Every task's result. A worker that dies in native code (a parser crash, an abort on
    memory exhaustion) or hangs loses only its own file: the files without a result are
    done again one at a time in a fresh worker, and the one that kills it again gets
    `crashed(path, error)` (for linting, DL000 too-complex)."""
    from concurrent.futures.process import BrokenProcessPool  # only runs with a pool need it

    done: dict = {}
    try:
        _run_pool(tasks, range(len(tasks)), jobs, done, tick, work, shared)
    except BrokenProcessPool:
        rest = [i for i in range(len(tasks)) if i not in done]
        while rest:
            try:
                _run_pool(tasks, rest, 1, done, tick, work, shared)
                break
            except BrokenProcessPool:
                rest = [i for i in rest if i not in done]
                # one worker takes the files in order: the first without a result was the
                # one running; confirm it alone before blaming it
                first, rest = rest[0], rest[1:]
                try:
                    _run_pool(tasks, [first], 1, done, tick, work, shared)
                except BrokenProcessPool as e:
                    done[first] = crashed(tasks[first][0], e)
                    tick(1)
    return [done[i] for i in range(len(tasks))]


def _found(result) -> int:
    return len(result[1]) if isinstance(result[1], list) else 0


def _run_pool(tasks, indices, jobs, done, tick, work=_one, shared=None) -> None:
    """Lint tasks[i] for i in `indices` into `done[i]`; BrokenProcessPool when a worker died
    or no file finished within HUNG_AFTER seconds."""
    import queue
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    pool = ProcessPoolExecutor(max_workers=min(jobs, len(indices)), initializer=_worker_start, initargs=(os.getpid(), shared))
    futures: dict = {}
    finished: queue.SimpleQueue = queue.SimpleQueue()  # each future as it is done: O(1) a file
    try:
        for i in indices:
            future = pool.submit(stop.guarded, work, tasks[i])
            futures[future] = i
            future.add_done_callback(finished.put)
        for _ in range(len(futures)):
            try:
                future = finished.get(timeout=HUNG_AFTER)
            except queue.Empty:
                _kill_workers(pool)
                raise BrokenProcessPool(f"the analysis did not finish in {HUNG_AFTER:g} s (the worker was stopped)") from None
            if isinstance(future.exception(), BrokenProcessPool):
                # keep what others finished before the crash; the rest is linted again
                while True:
                    try:
                        other = finished.get_nowait()
                    except queue.Empty:
                        break
                    if other.exception() is None:
                        done[futures[other]] = result = other.result()
                        tick(_found(result))
                raise BrokenProcessPool("the analysis crashed (its worker process died)")
            done[futures[future]] = result = future.result()
            tick(_found(result))
        pool.shutdown()
    except BrokenProcessPool:
        _kill_workers(pool)  # the pool fails every queued file by itself
        pool.shutdown(wait=False)
        raise
    except BaseException:
        # Ctrl-C, SIGTERM: drop the queued files instead of linting them all first, and let
        # no worker outlive this (one still running would write into the run's summary
        # folder after the caller removed it). The pool fails the queued files itself once
        # its workers are gone; cancelling them here as well would make its manager thread
        # fail on them (Python 3.11 sets an exception on each pending future).
        _kill_workers(pool, wait=True)
        pool.shutdown(wait=False, cancel_futures=True)
        raise


def _kill_workers(pool, wait: bool = False) -> None:
    procs = list((getattr(pool, "_processes", None) or {}).values())
    for proc in procs:
        try:
            proc.kill()
        except (OSError, AttributeError):
            pass
    for proc in procs if wait else ():
        try:
            proc.join(5)
        except (OSError, AttributeError, AssertionError):
            pass


# Whether this process is inside a run (_run_settings); handed to the engine when a file
# first needs it (_engine), so that setting it does not import the engine.
_in_run = False


def _run_settings(on: bool) -> None:
    """While this process lints the files of one run (which do not change under it): what a
    path is gets asked once, and trees are parsed out of the collector's sight."""
    global _in_run
    from devicelint import project

    project.remember_paths(on)
    _in_run = on
    engine = sys.modules.get("devicelint.engine")
    if engine is not None:
        engine.FREEZE_TREES = on


def _preload() -> None:
    """Before a pool starts: import the engine and every rule here, once. The workers are
    forked from this process and share them; imported lazily, each worker would import them
    again (a third of a second of CPU each), though a single file answered from the cache
    still imports none of them."""
    with _out_of_gc():
        from devicelint import engine, rules  # noqa: F401

        rules.resolve(["ALL"])


@contextmanager
def _out_of_gc():
    """Imports (of the engine, the rules) with the cyclic collector off, then what they made
    frozen: classes, functions and tables that live as long as the process. A collection
    among them finds no garbage, yet walked them again and again as they were made, and
    once more when they aged (some 15 ms of CPU in a cold single-file run). Before a pool
    forks, frozen objects also stay shared with the workers (a collection writes to them).
    Only when something was imported: the next files' young garbage is left to collection."""
    enabled = gc.isenabled()
    modules = len(sys.modules)
    gc.disable()
    try:
        yield
    finally:
        if len(sys.modules) > modules:
            gc.freeze()
        if enabled:
            gc.enable()


def _engine(select=None, ignore=None):
    """(the engine module, the rule classes `select`/`ignore` choose), imported on the first
    file that is linted (not answered from the cache), with this run's settings."""
    with _out_of_gc():
        from devicelint import engine
        from devicelint.rules import resolve

        rule_classes = resolve(select, ignore)
    engine.FREEZE_TREES = _in_run
    return engine, rule_classes


def _worker_start(parent: int, shared: str | None = None) -> None:
    """Workers die with devicelint: after a `kill -9` of the parent they must not live on.
    `shared`: the run's summary folder for files linted without a cache (see
    project.share_summaries)."""
    gc.set_threshold(*GC_THRESHOLD)
    _run_settings(True)  # a worker lives for one run
    stop.install_in_worker()
    if shared is not None:
        from devicelint import project

        project.share_summaries(shared)
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            PR_SET_PDEATHSIG = 1
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        except (OSError, AttributeError):
            _watch_parent(parent)
    else:
        _watch_parent(parent)
    if os.getppid() != parent:  # the parent died before we asked to be told
        os._exit(1)


def _watch_parent(parent: int) -> None:
    import threading
    import time

    def watch():
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()
