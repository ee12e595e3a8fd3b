"""Lint many files: in-process for a few, a process pool for many; sorted, deterministic output."""

from __future__ import annotations

import os
import traceback

from devicelint.engine import lint_file, lint_source

# Below this many files a pool costs more to start than it saves.
POOL_THRESHOLD = 24


def _one(task):
    path, data, select, ignore = task
    try:
        if data is not None:
            return path, lint_source(data, path, select, ignore), None
        return path, lint_file(path, select, ignore), None
    except Exception as e:  # an internal error on one file must not stop the others
        where = traceback.extract_tb(e.__traceback__)[-1]
        return path, [], f"{type(e).__name__}: {e} ({os.path.basename(where.filename)}:{where.lineno})"


def lint_many(tasks, jobs=None):
    jobs = jobs or os.cpu_count() or 1
    if jobs > 1 and len(tasks) >= POOL_THRESHOLD:
        from concurrent.futures import ProcessPoolExecutor

        from concurrent.futures.process import BrokenProcessPool

        try:
            with ProcessPoolExecutor(max_workers=jobs) as pool:
                results = list(pool.map(_one, tasks, chunksize=max(1, len(tasks) // (jobs * 8))))
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
