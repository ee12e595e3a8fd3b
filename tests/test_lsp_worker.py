"""The language server's lint threads (devicelint/lsp/worker.py, no pygls): a lint stopped
anywhere (parse, inference, positions, a rule) leaves nothing behind that changes the next
lint's findings, and a stop that comes too late to matter is silent."""

from __future__ import annotations

import asyncio
import gc
import sys
import threading
import time
from pathlib import Path

from devicelint import engine
from devicelint.lsp import worker
from devicelint.lsp.workspace import Workspace
from lsp_project import MODELS

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
from lsp_latency import large_script  # noqa: E402


def findings(lint) -> list:
    return [(f.code, f.line, f.column, f.end_line, f.end_column, f.message) for f in lint.findings]


async def lint_in_job(ws: Workspace, path: str, data: bytes, stop_after: float | None):
    loop = asyncio.get_running_loop()
    ended = loop.create_future()
    job = worker.Job(lambda: ws.lint(path, data, ws.settings(path)),
                     lambda _job, outcome, value: ended.set_result((outcome, value)), loop).start()
    if stop_after is not None:
        await asyncio.sleep(stop_after)
        job.cancel()
    return await asyncio.wait_for(ended, 120)


def test_a_lint_stopped_anywhere_leaves_the_next_lint_unchanged(tmp_path, monkeypatch):
    monkeypatch.setattr(engine, "FREEZE_TREES", True)  # as in the server: the parse turns gc off and on
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "trainer"\n\n[tool.devicelint]\n')
    (tmp_path / "models.py").write_text(MODELS)
    path = str(tmp_path / "train_all.py")
    text = large_script(1000)
    (tmp_path / "train_all.py").write_text(text)
    reference = findings(Workspace().lint(path, text.encode(), Workspace().settings(path)))
    assert len(reference) > 10

    async def scenario():
        ws = Workspace()
        stopped = 0
        # stops spread over one lint's life: parse, inference, positions, rules
        for i, delay in enumerate([0.0, 0.05, 0.15, 0.3, 0.5]):
            data = (text + f"# keystroke {i}\n").encode()  # a new text each time: no lint is reused
            outcome, _ = await lint_in_job(ws, path, data, delay)
            stopped += outcome == worker.CANCELLED
            assert gc.isenabled()
            outcome, lint = await lint_in_job(ws, path, data, None)
            assert outcome == worker.DONE and findings(lint) == reference
        return stopped

    assert asyncio.run(scenario()) >= 3  # most of them were stopped mid-way


def _spin(n: int) -> int:
    total = 0
    for k in range(n):  # Python bytecode: where a stop can land
        total += k
    return total


def test_a_stop_that_comes_too_late_is_silent(monkeypatch):
    hooked = []
    monkeypatch.setattr(threading, "excepthook", lambda args: hooked.append(args))

    async def scenario():
        loop = asyncio.get_running_loop()
        outcomes = []
        for i in range(300):  # stops landing before, during and after the work's end
            ended = loop.create_future()
            job = worker.Job(lambda n=i: _spin(100 * n), lambda _j, outcome, v, f=ended: f.set_result(outcome),
                             loop).start()
            if i % 3:
                await asyncio.sleep(0)
            job.cancel()
            outcomes.append(await asyncio.wait_for(ended, 30))
            job.cancel()  # after its end: nothing to stop
        # one job that cannot end by itself: the stop must land (whatever the machine's load
        # did to the race above, where every job may have ended first)
        ended = loop.create_future()
        job = worker.Job(_spin_until_stopped, lambda _j, outcome, v, f=ended: f.set_result(outcome), loop).start()
        await asyncio.sleep(0.01)
        job.cancel()
        outcomes.append(await asyncio.wait_for(ended, 30))
        job.cancel()
        return outcomes

    outcomes = asyncio.run(scenario())
    assert set(outcomes) <= {worker.DONE, worker.CANCELLED} and outcomes[-1] == worker.CANCELLED
    assert hooked == []  # no thread ended with a stray Cancelled


def _spin_until_stopped() -> None:
    while True:  # Python bytecode only a stop ends
        pass


def test_a_request_run_in_a_thread_gives_its_value_or_its_error():
    async def scenario():
        loop = asyncio.get_running_loop()
        assert await worker.run(lambda: 6 * 7, loop) == 42
        try:
            await worker.run(lambda: 1 / 0, loop)
        except RuntimeError as e:
            return str(e)

    assert "ZeroDivisionError" in asyncio.run(scenario())


def _descheduled_at_start(monkeypatch, seconds: float) -> None:
    """Each thread started from now on waits `seconds` between its start() returning and its
    first line of Job._run (in threading's start-up code): what a loaded machine does to a
    thread it does not schedule at once."""
    run = threading.Thread.run

    def late(thread):
        time.sleep(seconds)
        run(thread)

    monkeypatch.setattr(threading.Thread, "run", late)


def test_a_stop_before_the_thread_runs_its_first_line_still_ends_the_job(monkeypatch):
    # the keystroke after a document's lint started came before its thread ran: the stop must
    # not end the thread in threading's start-up code, unreported (the server would wait for
    # that job forever and never lint the document again)
    hooked = []
    monkeypatch.setattr(threading, "excepthook", lambda args: hooked.append(args.exc_type))
    _descheduled_at_start(monkeypatch, 0.2)
    ran = []

    async def scenario():
        loop = asyncio.get_running_loop()
        ended = loop.create_future()
        job = worker.Job(lambda: ran.append(1), lambda _j, outcome, v: ended.set_result(outcome), loop).start()
        job.cancel()
        job.cancel()  # each keystroke stops the running lint again
        return await asyncio.wait_for(ended, 10)

    assert asyncio.run(scenario()) == worker.CANCELLED
    assert ran == [] and hooked == []  # stopped before its work began: no work done for nothing


def test_a_stop_for_a_job_that_ended_never_lands_in_another_thread(monkeypatch):
    # the server stops a document's job again at each keystroke; once its thread is gone,
    # another job's thread may have the same identity (the C library reuses them): a stop
    # aimed at the old job must not stop the other document's lint
    hooked = []
    monkeypatch.setattr(threading, "excepthook", lambda args: hooked.append(args.exc_type))
    _descheduled_at_start(monkeypatch, 0.2)

    async def scenario():
        loop = asyncio.get_running_loop()
        first = worker.Job(lambda: None, lambda *_: None, loop).start()
        first.cancel()
        await asyncio.sleep(0.5)  # its thread is gone
        outcomes = []
        for _ in range(5):
            ended = loop.create_future()
            other = worker.Job(lambda: _spin(3_000_000), lambda _j, outcome, v, f=ended: f.set_result(outcome),
                               loop).start()
            await asyncio.sleep(0.3)  # the other's work runs now
            first.cancel()
            outcomes.append((other._thread.ident == first._thread.ident, await asyncio.wait_for(ended, 30)))
        return outcomes

    outcomes = asyncio.run(scenario())
    assert [outcome for _same, outcome in outcomes] == [worker.DONE] * 5, outcomes
    assert hooked == []
