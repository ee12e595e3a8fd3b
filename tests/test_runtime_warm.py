"""The warm fork server (runtime/warm.py): scripts forked from a process that imported
torch once must be as isolated as fresh processes, and a failing server must never
decide a verdict."""

import os
import sys
import textwrap
import time

import pytest

pytest.importorskip("torch")

from devicelint.runtime.runner import PairRunner, run_script  # noqa: E402
from devicelint.runtime.warm import WarmServer, root_on_path  # noqa: E402


@pytest.fixture(scope="module")
def server():
    srv = WarmServer(root_on_path(os.environ))
    yield srv
    srv.close()


def _script(tmp_path, name, body):
    path = tmp_path / name
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return path


def test_each_script_starts_from_the_same_clean_state(tmp_path, server):
    # the first script changes process-wide state that a shared interpreter would leak
    polluter = _script(tmp_path, "polluter.py", """
        import os, sys
        import torch

        torch.set_default_dtype(torch.float64)
        os.environ["TRAINING_RUN"] = "first"
        sys.modules["leaked_helper"] = object()
        weights = torch.ones(3, device="cuda")
    """)
    observer = _script(tmp_path, "observer.py", """
        import os, sys
        import torch

        assert torch.get_default_dtype() == torch.float32, torch.get_default_dtype()
        assert "TRAINING_RUN" not in os.environ
        assert "leaked_helper" not in sys.modules
        print("device", torch.zeros(1).device)
    """)
    first = run_script(polluter, True, 60, server=server)
    second = run_script(observer, True, 60, server=server)
    assert first.exited_clean, first.stderr_tail
    assert second.exited_clean, second.stderr_tail
    assert "device cpu" in second.stderr_tail
    assert second.record["simulated"] is True


def test_warm_and_fresh_runs_record_the_same_outcome(server):
    script = os.path.join(os.path.dirname(__file__), "runtime_cases", "copies.py")
    warm = run_script(script, True, 60, server=server)
    fresh = run_script(script, True, 60)
    for key in ("exit_code", "exception", "copies", "syncs", "simulated", "torch"):
        assert warm.record[key] == fresh.record[key], key


def test_extra_environment_reaches_the_script_only(tmp_path, server):
    script = _script(tmp_path, "env.py", """
        import os
        import torch

        print("visible=%r" % os.environ.get("CUDA_VISIBLE_DEVICES"))
        print("available=%s" % torch.cuda.is_available())
    """)
    run = run_script(script, False, 60, env_extra={"CUDA_VISIBLE_DEVICES": ""}, server=server)
    assert run.exited_clean and "visible=''" in run.stderr_tail and "available=False" in run.stderr_tail
    assert "CUDA_VISIBLE_DEVICES" not in os.environ or os.environ["CUDA_VISIBLE_DEVICES"] != ""


def test_timeout_kills_the_script_and_its_children_and_the_server_goes_on(tmp_path, server):
    marker = tmp_path / "child.pid"
    script = _script(tmp_path, "hang.py", f"""
        import subprocess, sys, time

        worker = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        open({str(marker)!r}, "w").write(str(worker.pid))
        time.sleep(600)
    """)
    start = time.monotonic()
    run = run_script(script, True, timeout=6, server=server)
    assert run.record is None and run.problem == "timed out after 6s"
    assert time.monotonic() - start < 40
    worker = int(marker.read_text())
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _alive(worker):
        time.sleep(0.2)
    assert not _alive(worker), "the script's own child survived the timeout"
    again = run_script(os.path.join(os.path.dirname(__file__), "runtime_cases", "copies.py"), True, 60,
                       server=server)
    assert again.exited_clean


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_a_native_crash_is_a_run_without_record(tmp_path, server):
    script = _script(tmp_path, "abort.py", """
        import os
        import torch

        model = torch.nn.Linear(2, 2)
        os.abort()
    """)
    run = run_script(script, True, 60, server=server)
    assert run.record is None
    assert run.problem == "harness wrote no result (exit code -6)"
    assert server.alive


def test_a_dead_server_falls_back_to_a_fresh_process(tmp_path):
    srv = WarmServer(root_on_path(os.environ))
    srv.proc.kill()
    srv.proc.wait()
    run = run_script(os.path.join(os.path.dirname(__file__), "runtime_cases", "raises.py"), True, 60, server=srv)
    assert run.record is not None and run.exception["type"] == "RuntimeError"


def test_real_cuda_runs_never_fork():
    assert PairRunner(simulate=False).warm is False
    assert PairRunner(simulate=True).warm is (os.environ.get("DEVICELINT_FRESH_PROCESSES", "") in ("", "0"))


@pytest.mark.skipif(sys.platform != "linux", reason="PR_SET_PDEATHSIG is Linux only")
def test_the_server_dies_with_its_parent(tmp_path):
    # a parent that starts a server and is then killed: the server must not live on
    parent = _script(tmp_path, "parent.py", """
        import os, sys, time
        from devicelint.runtime.warm import WarmServer, root_on_path

        srv = WarmServer(root_on_path(os.environ))
        print(srv.proc.pid, flush=True)
        time.sleep(600)
    """)
    import subprocess

    proc = subprocess.Popen([sys.executable, str(parent)], stdout=subprocess.PIPE, text=True,
                            env=root_on_path(os.environ))
    server_pid = int(proc.stdout.readline())
    proc.kill()
    proc.wait()
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and _alive(server_pid):
        time.sleep(0.2)
    assert not _alive(server_pid)
