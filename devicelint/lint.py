"""Lint many files: in-process for a few, a process pool for many; sorted, deterministic output."""

from __future__ import annotations

import os
import traceback

from devicelint.engine import lint_file, lint_source, read_source

# Below this many files a pool costs more to start than it saves.
POOL_THRESHOLD = 24


def _one(task):
    path, data, select, ignore, cache_dir = task
    try:
        if data is None and cache_dir is not None:
            return path, _cached(path, select, ignore, cache_dir), None
        if data is not None:
            return path, lint_source(data, path, select, ignore), None
        return path, lint_file(path, select, ignore), None
    except Exception as e:  # an internal error on one file must not stop the others
        where = traceback.extract_tb(e.__traceback__)[-1]
        return path, [], f"{type(e).__name__}: {e} ({os.path.basename(where.filename)}:{where.lineno})"


def _cached(path, select, ignore, cache_dir):
    from devicelint import cache
    from devicelint.rules import resolve

    source, problem = read_source(path)
    if problem is not None:
        return [problem]
    rules = resolve(select, ignore)
    k = cache.key(source, [r.code for r in rules])
    found = cache.load(cache_dir, k, path)
    if found is None:
        found = lint_source(source, path, rule_classes=rules)
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


def lint_many(tasks, jobs=None):
    jobs = jobs or os.cpu_count() or 1
    if jobs > 1 and len(tasks) >= POOL_THRESHOLD:
        from concurrent.futures import ProcessPoolExecutor

        from concurrent.futures.process import BrokenProcessPool

        # Largest files first, in small chunks: a few huge files at the end would leave the
        # other workers idle. Output order does not depend on this (findings are sorted).
        tasks = sorted(tasks, key=_size, reverse=True)
        pool = ProcessPoolExecutor(max_workers=jobs)
        try:
            results = list(pool.map(_one, tasks, chunksize=2))
            pool.shutdown()
        except KeyboardInterrupt:
            # Ctrl-C: drop the queued files instead of linting them all before exiting
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        except BrokenProcessPool:
            # a worker died in native code (a parser crash): name the way to find the file
            return [], [("<worker>", "a worker process crashed; run with --jobs 1 to find the file")]
    else:
        results = [_one(t) for t in tasks]
    findings, errors = [], []
    for path, found, error in results:
        findings.extend(found)
        if error:
            errors.append((path, error))
    findings.sort()
    return findings, errors
