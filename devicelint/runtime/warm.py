"""A warm fork server: import torch once, then fork one isolated child per script.

Starting Python and importing torch costs more than most fixture scripts take to run,
so the simulated runs go through a server process that has done the imports once and
forks a child for each script. The child is as isolated as a fresh process: its own
session (so a timeout kills its DataLoader workers too), its own output file, working
directory and environment, and it exits with ``os._exit`` after writing its record.

Forking after ``import torch`` is safe only while the server has not initialised CUDA
(a forked child cannot use a CUDA context made by its parent). The server never touches
CUDA and checks ``torch.cuda.is_initialized()`` before every fork; real-CUDA runs do not
use it at all (runner.py starts one fresh process per script for them).

Protocol, one JSON object per line: the client writes a request
``{"args": [...harness args], "cwd": DIR, "env": {...}, "log": FILE}``; the server
answers ``{"pid": N}`` once the child is forked, then ``{"pid": N, "exit": CODE}`` when
it has ended (``CODE`` negative for a signal, as ``subprocess`` reports it).
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path


def _die_with_parent() -> None:
    """Linux: the server is killed when the process that started it dies."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL
    except (OSError, AttributeError):
        pass


def _child(request: dict) -> None:
    """In the forked child: become a fresh-looking process and run the harness."""
    try:
        os.setsid()
        fd = os.open(request["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.close(fd)
        os.close(null)
        sys.stdout = open(1, "w", buffering=1, encoding="utf-8", errors="backslashreplace", closefd=False)
        sys.stderr = open(2, "w", buffering=1, encoding="utf-8", errors="backslashreplace", closefd=False)
        os.environ.update(request.get("env") or {})
        os.chdir(request["cwd"])
        import faulthandler

        faulthandler.enable()
        from devicelint.runtime import harness

        harness.main(request["args"])  # ends with os._exit(0)
    except BaseException:  # noqa: BLE001 - report, never return into the server's loop
        import traceback

        traceback.print_exc()
        sys.stderr.flush()
    os._exit(70)


def serve() -> None:
    _die_with_parent()
    import torch  # the cost this server exists to pay once

    from devicelint.runtime import harness, sim  # noqa: F401 - warm the imports too

    out = sys.stdout
    for line in sys.stdin:
        request = json.loads(line)
        if torch.cuda.is_initialized():  # never true here; a fork would be unsafe
            out.write(json.dumps({"error": "CUDA is initialised in the fork server"}) + "\n")
            out.flush()
            continue
        pid = os.fork()
        if pid == 0:
            _child(request)
        out.write(json.dumps({"pid": pid}) + "\n")
        out.flush()
        _, status = os.waitpid(pid, 0)
        out.write(json.dumps({"pid": pid, "exit": os.waitstatus_to_exitcode(status)}) + "\n")
        out.flush()


class WarmServer:
    """Client side: one server process, one script at a time."""

    def __init__(self, env: dict):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "devicelint.runtime.warm"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            env=env, text=True, bufsize=1,
        )
        # one reader for the server's whole life: answers arrive in order on a queue
        self._answers: queue.Queue = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        for line in self.proc.stdout:
            self._answers.put(json.loads(line))
        self._answers.put({})  # the server is gone

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def run(self, args: list, cwd: str, env: dict, log: str, timeout: float) -> tuple[int | None, bool]:
        """(exit code or None, timed out). Kills the child's whole session when it ends
        (its own processes, DataLoader workers) and on timeout;
        raises OSError when the server itself is gone (the caller falls back)."""
        request = {"args": args, "cwd": cwd, "env": env, "log": log}
        try:
            self.proc.stdin.write(json.dumps(request) + "\n")
            self.proc.stdin.flush()
        except OSError:
            self.close()
            raise
        started = self._read(timeout=60.0)
        if not started or "pid" not in started:
            self.close()
            raise OSError(f"fork server did not start the script: {started!r}")
        done = self._read(timeout)
        if done:
            _kill_session(started["pid"])  # what the script started ends with it
            return done["exit"], False
        if done is None:  # timed out: the server reaps the killed child and says so
            _kill_session(started["pid"])
            if not self._read(timeout=30.0):
                self.close()
            return None, True
        self.close()
        raise OSError("fork server died while running a script")

    def _read(self, timeout: float) -> dict | None:
        try:
            return self._answers.get(timeout=timeout)
        except queue.Empty:
            return None

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()


def _kill_session(pid: int) -> None:
    import signal

    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def root_on_path(env: dict) -> dict:
    """``env`` with devicelint's own checkout first on PYTHONPATH (used from a checkout too)."""
    root = str(Path(__file__).resolve().parents[2])
    env = dict(env)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    return env


if __name__ == "__main__":
    serve()
