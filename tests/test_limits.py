"""Bounded time and memory per file: what is too big, too deep or too slow for LibCST is one
`DL000 too-complex` finding with the reason, a crash in native code costs only its own file,
and every other file is still linted."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from test_bad_input import GOOD  # DL001 at line 9 (`out = model(x)`)

from devicelint import engine, limits, lint
from devicelint.cli import cli

HEAD = "import torch\nimport numpy as np\n\nx = torch.randn(3).cuda()\n"
TAIL = "preds = np.asarray(x)\n"  # DL003 at the line after the body


def shaped(kind: str, n: int) -> str:
    body = {
        "and": "ok = " + " and ".join(f"flag{i}" for i in range(n)),
        "plus": "total = " + " + ".join(f"w{i}" for i in range(n)),
        "to": "y = x" + ".to('cuda')" * n,
        "not": "y = " + "not " * n + "x",
        "unary": "y = " + "-" * n + "x",
        "lambda": "f = " + "lambda: " * n + "x",
        "ifexp": "y = " + "a if b else " * n + "x",
        "strings": "s = (" + " ".join("'a'" for _ in range(n)) + ")",
        # the same depth spread over short lines
        "to_lines": "y = x" + ".to(\n    device\n)" * n,
        "plus_lines": "total = (\n" + "".join(f"    + w{i}\n" for i in range(n)) + ")",
        "strings_lines": "s = (\n" + "".join("    'a'\n" for _ in range(n)) + ")",
    }[kind]
    return HEAD + body + "\n" + TAIL


def _lint_folder(folder, *extra, limit_as=None, timeout=120):
    """devicelint in a fresh process (a native crash would kill it), optionally under an
    address-space limit, as JSON."""

    def preexec():
        if limit_as:
            import resource

            resource.setrlimit(resource.RLIMIT_AS, (limit_as, limit_as))

    (folder / "good.py").write_bytes(GOOD)
    started = time.monotonic()
    p = subprocess.run(
        [sys.executable, "-m", "devicelint", ".", "--output-format", "json", "--no-cache", *extra],
        cwd=folder, capture_output=True, text=True, timeout=timeout, preexec_fn=preexec,
    )
    assert "Traceback" not in p.stderr, p.stderr[-3000:]
    return p, json.loads(p.stdout or "null"), time.monotonic() - started


def _by_file(found):
    out = {}
    for f in found:
        out.setdefault(os.path.basename(f["path"]), []).append(f)
    return out


@pytest.mark.parametrize(
    "kind, n",
    [("and", 10_000), ("plus", 100_000), ("to", 5_000), ("not", 10_000), ("unary", 10_000),
     ("lambda", 10_000), ("ifexp", 10_000), ("strings", 100_000), ("to_lines", 5_000), ("plus_lines", 20_000),
     ("strings_lines", 20_000)],
)
def test_pathological_expressions_are_too_complex(tmp_path, kind, n):
    """Each of these crashed LibCST (segfault), ran for minutes or took 4+ GB. Now: a quick
    DL000 too-complex under a 1.5 GB address-space limit, with --jobs 1."""
    (tmp_path / "deep.py").write_text(shaped(kind, n))
    p, found, elapsed = _lint_folder(tmp_path, "--jobs", "1", limit_as=1536 * 2**20)
    assert p.returncode == 1, (p.returncode, p.stderr[-2000:])
    files = _by_file(found)
    assert [(f["code"], f["name"]) for f in files["deep.py"]] == [("DL000", "too-complex")]
    assert files["deep.py"][0]["message"].startswith("not analysed: ")
    assert [(f["code"], f["line"]) for f in files["good.py"]] == [("DL001", 9)]
    assert elapsed < 30


@pytest.mark.parametrize(
    "kind, n",
    [("and", 600), ("plus", 600), ("and", 990), ("unary", 990), ("strings", 990), ("to", 240), ("lambda", 480),
     ("ifexp", 480), ("to_lines", 240), ("plus_lines", 900)],
)
def test_deep_but_within_limits_keeps_its_findings(kind, n):
    """A 600-operand chain used to lose every finding of its file (a RecursionError in a
    rule's visitor, swallowed); below the limit the findings are all there."""
    found = engine.lint_source(shaped(kind, n), "deep.py")
    tail_line = shaped(kind, n).count("\n")
    assert ("DL003", tail_line) in [(f.code, f.line) for f in found]
    assert "DL000" not in [f.code for f in found]


def test_the_cheap_screen_lets_ordinary_files_skip_the_parse():
    """Most files need no `ast.parse`: no statement in them is long enough to nest deep."""
    ordinary = GOOD + b"CONFIG = {\n" + b"".join(b"    'key_%d': 'value',\n" % i for i in range(400)) + b"}\n"
    assert limits._no_long_statement(ordinary)
    for kind, n in [("and", 900), ("to_lines", 300), ("strings_lines", 900), ("unary", 900)]:
        assert not limits._no_long_statement(shaped(kind, n).encode()), kind
    # a backslash continuation joins its lines: short, they pass; one long statement does not
    assert limits._no_long_statement(b"total = 1 + \\\n    2\nwidth = (3 + \\\r\n  4)\n")
    assert not limits._no_long_statement(b"x = 1" + b" + \\\n    1" * 900 + b"\n")


def test_recursion_error_in_the_analysis_is_reported_not_silent(monkeypatch):
    from devicelint.rules import dl003_numpy_on_cuda as dl003

    def deep(self, ctx):
        raise RecursionError("maximum recursion depth exceeded")
        yield

    monkeypatch.setattr(dl003.NumpyOnCuda, "check", deep)
    found = engine.lint_source(shaped("plus", 3), "x.py")
    assert [(f.code, f.name) for f in found] == [("DL000", "too-complex")]
    assert "nested too deeply" in found[0].message


def test_file_size_and_line_count_limits(tmp_path, monkeypatch):
    million = "import torch\n" + "x=1\n" * 1_000_000  # 4 MB, a million lines: LibCST needed 9 GB
    found = engine.lint_source(million, "million.py")
    assert [(f.code, f.name) for f in found] == [("DL000", "too-complex")]
    assert "1,000,001 lines (limit 200,000)" in found[0].message
    wide = "import torch\nblob = '" + "a" * 5_000_000 + "'\n"
    found = engine.lint_source(wide, "wide.py")
    assert [(f.code, f.name) for f in found] == [("DL000", "too-complex")]
    assert "bytes (limit 4,194,304)" in found[0].message
    monkeypatch.setattr(limits, "MAX_LINES", 1000)
    found = engine.lint_source("import torch\n" + "x = 1\n" * 1000, "lines.py")
    assert "1,001 lines (limit 1,000)" in found[0].message
    # \f and U+2028 end no line for Python; \r alone does
    assert limits.count_lines(b"a\fb\xe2\x80\xa8c\rd\r\ne\n") == 3


def test_timeout_stops_a_slow_file_and_the_rest_goes_on(tmp_path, monkeypatch):
    from devicelint.rules import dl003_numpy_on_cuda as dl003

    real = dl003.NumpyOnCuda.check

    def slow(self, ctx):
        if ctx.path.endswith("slow.py"):
            while True:  # pure Python: the timer reaches it
                pass
        yield from real(self, ctx)

    monkeypatch.setattr(dl003.NumpyOnCuda, "check", slow)
    monkeypatch.setattr(limits, "FILE_TIMEOUT", 1.0)
    (tmp_path / "slow.py").write_text(shaped("plus", 3))
    (tmp_path / "fast.py").write_text(shaped("plus", 3))
    started = time.monotonic()
    r = CliRunner().invoke(cli, [str(tmp_path), "--output-format", "json", "--no-cache", "--jobs", "1"])
    assert time.monotonic() - started < 20
    files = _by_file(json.loads(r.stdout))
    assert [(f["name"], f["message"]) for f in files["slow.py"]] == [("too-complex", "not analysed: analysis took longer than 1 s")]
    assert ("DL003", 6) in [(f["code"], f["line"]) for f in files["fast.py"]]
    assert r.exit_code == 1


_HUNGRY = """
import json, sys
from devicelint import engine, limits
from devicelint.rules import dl003_numpy_on_cuda as dl003

def hungry(self, ctx):
    hoard = [bytearray(16 * 2**20) for _ in range(64)]  # 1 GiB
    yield from ()
    del hoard

dl003.NumpyOnCuda.check = hungry
limits.MAX_MEMORY = 256 * 2**20
found = engine.lint_source(sys.argv[1], "x.py")
lifted = len(bytearray(512 * 2**20)) == 512 * 2**20  # the cap is lifted afterwards
print(json.dumps({"found": [[f.code, f.name, f.message] for f in found], "lifted": lifted}))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS is enforced on Linux")
def test_memory_cap_stops_a_hungry_file():
    # in a process of its own: the cap binds every thread, and the patched rule every caller
    # (the runtime checker's threads lint and fix beside the tests in this one)
    r = subprocess.run([sys.executable, "-c", _HUNGRY, shaped("plus", 3)], capture_output=True, text=True,
                       timeout=120, env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    found = out["found"]
    assert [(code, name) for code, name, _message in found] == [("DL000", "too-complex")]
    assert "more than 256 MiB" in found[0][2]
    assert out["lifted"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS is enforced on Linux")
def test_the_memory_cap_waits_until_no_other_thread_runs():
    """A cap on the whole process while another thread works would fail that thread's
    allocations (an autofix of the runtime checker abandoned mid-way)."""
    import resource
    import threading

    before = resource.getrlimit(resource.RLIMIT_AS)
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        with limits.bounded(memory=256 * 2**20):
            assert resource.getrlimit(resource.RLIMIT_AS) == before
    finally:
        release.set()
        other.join()
    if threading.active_count() == 1:  # alone (no runtime checker threads in this session)
        with limits.bounded(memory=256 * 2**20):
            assert resource.getrlimit(resource.RLIMIT_AS) != before
    assert resource.getrlimit(resource.RLIMIT_AS) == before


def _folder_with_good_files(folder, n=30):
    for i in range(n):
        (folder / f"m{i:02d}.py").write_bytes(GOOD)


def test_a_native_crash_costs_only_its_own_file(tmp_path, monkeypatch):
    """With the pre-check off, a 10,000-operand `and` really segfaults LibCST in its worker:
    every other file keeps its findings and the culprit is named."""
    monkeypatch.setattr(limits, "precheck", lambda source: None)
    _folder_with_good_files(tmp_path)
    (tmp_path / "crash.py").write_text(shaped("and", 10_000))
    r = CliRunner().invoke(cli, [str(tmp_path), "--output-format", "json", "--no-cache", "--jobs", "2"])
    files = _by_file(json.loads(r.stdout))
    assert [(f["code"], f["name"]) for f in files["crash.py"]] == [("DL000", "too-complex")]
    assert "crashed" in files["crash.py"][0]["message"]
    assert all([(f["code"], f["line"]) for f in files[f"m{i:02d}.py"]] == [("DL001", 9)] for i in range(30))
    assert r.exit_code == 1  # findings; no internal error
    assert "internal error" not in r.output


def test_a_hung_worker_is_stopped_and_named(tmp_path, monkeypatch):
    import libcst as cst

    real = cst.parse_module

    def parse(source, *a, **k):
        if b"# hang" in source:
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})  # as if stuck in native code
            time.sleep(600)
        return real(source, *a, **k)

    monkeypatch.setattr(engine.cst, "parse_module", parse)
    monkeypatch.setattr(lint, "HUNG_AFTER", 3.0)
    _folder_with_good_files(tmp_path)
    (tmp_path / "stuck.py").write_text(shaped("plus", 3) + "# hang\n")
    started = time.monotonic()
    r = CliRunner().invoke(cli, [str(tmp_path), "--output-format", "json", "--no-cache", "--jobs", "2"])
    assert time.monotonic() - started < 60
    files = _by_file(json.loads(r.stdout))
    assert [(f["code"], f["name"]) for f in files["stuck.py"]] == [("DL000", "too-complex")]
    assert "did not finish" in files["stuck.py"][0]["message"]
    assert all([(f["code"], f["line"]) for f in files[f"m{i:02d}.py"]] == [("DL001", 9)] for i in range(30))


def test_syntax_error_on_a_crashing_line_is_reported_by_cpython(tmp_path):
    (tmp_path / "bad.py").write_text(shaped("and", 10_000) + "def broken(:\n")
    p, found, _ = _lint_folder(tmp_path, "--jobs", "1")
    files = _by_file(found)
    assert [(f["code"], f["name"], f["line"]) for f in files["bad.py"]] == [("DL000", "syntax-error", 7)]
    assert p.returncode == 1


def _children(pid: int) -> set:
    kids = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                kids.add(int(entry))
    return kids


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs /proc")
def test_workers_die_with_a_killed_parent(tmp_path):
    body = "import torch\n" + "".join(f"x{i} = torch.randn(3).to('cpu') * {i}\n" for i in range(400))
    for i in range(300):
        (tmp_path / f"m{i}.py").write_text(body)
    p = subprocess.Popen([sys.executable, "-m", "devicelint", ".", "--no-cache", "--jobs", "2"], cwd=tmp_path,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        workers = set()
        while time.monotonic() < deadline and len(workers) < 2:
            workers = _children(p.pid)
            time.sleep(0.2)
        assert workers, "no worker started"
        assert p.poll() is None
        p.send_signal(signal.SIGKILL)
        p.wait()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(_alive(w) for w in workers):
            time.sleep(0.2)
        assert not any(_alive(w) for w in workers), "workers outlived their parent"
    finally:
        for w in _children(p.pid) | workers:
            try:
                os.kill(w, signal.SIGKILL)
            except OSError:
                pass


def test_the_precheck_prints_no_warnings(tmp_path):
    """CPython warns about invalid escapes while parsing ("\\d" is a SyntaxWarning in 3.12):
    the user's file is not ours to lecture about."""
    (tmp_path / "regex.py").write_text('import torch\nimport re\nPATTERN = re.compile("\\d+")\nx = torch.zeros(3)\n')
    p = subprocess.run([sys.executable, "-W", "always", "-m", "devicelint", "regex.py", "--no-cache"], cwd=tmp_path,
                       capture_output=True, text=True)
    assert p.returncode == 0 and p.stderr == "", p.stderr


def test_a_file_linted_in_another_thread_leaves_the_process_wide_settings_alone():
    # the runtime checker lints fixtures in threads while pytest runs other tests: the
    # recursion limit, the address-space cap and the warning filters belong to the whole
    # process, and a thread that changed and restored them raced with the main thread's own
    import threading
    import warnings

    limit, filters = sys.getrecursionlimit(), list(warnings.filters)
    seen = {}

    def work():
        with limits.bounded(), limits.quiet(SyntaxWarning):
            seen["inside"] = (sys.getrecursionlimit(), list(warnings.filters))
        seen["findings"] = engine.lint_source(GOOD, "train.py")

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert seen["inside"] == (limit, filters)
    assert seen["findings"] == engine.lint_source(GOOD, "train.py")  # the same findings as here
    with limits.bounded():  # the main thread still raises the limit for LibCST's deep trees
        assert sys.getrecursionlimit() >= limits.RECURSION_LIMIT
    assert sys.getrecursionlimit() == limit
