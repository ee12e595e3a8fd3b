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
        "and_lines": "ok = (\n" + "".join(f"    flag{i} and\n" for i in range(n)) + "    True\n)",
        "lists_lines": "grid = " + "[\n" * n + "    0\n" + "]\n" * n,
    }[kind]
    return HEAD + body + "\n" + TAIL


def _devicelint(args, cwd, limit_as=None, timeout=600, **kwargs):
    """devicelint in a fresh process (a native crash would kill it), optionally under an
    address-space limit: (the completed process, the CPU seconds it and its workers used).
    CPU time, not wall-clock time: what a test measures must not depend on how busy the
    machine is. `timeout` only stops a hang."""
    import resource

    def preexec():
        if limit_as:
            resource.setrlimit(resource.RLIMIT_AS, (limit_as, limit_as))

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run([sys.executable, "-m", "devicelint", *args], cwd=cwd, capture_output=True, text=True,
                       timeout=timeout, preexec_fn=preexec, **kwargs)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    assert "Traceback" not in p.stderr, p.stderr[-3000:]
    return p, cpu


def _lint_folder(folder, *extra, limit_as=None):
    """`_devicelint` on `folder` (with a known-good buggy file added) as JSON: (the completed
    process, the findings, CPU seconds)."""
    (folder / "good.py").write_bytes(GOOD)
    p, cpu = _devicelint([".", "--output-format", "json", "--no-cache", *extra], folder, limit_as=limit_as)
    return p, json.loads(p.stdout or "null"), cpu


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
    p, found, cpu = _lint_folder(tmp_path, "--jobs", "1", limit_as=1536 * 2**20)
    assert p.returncode == 1, (p.returncode, p.stderr[-2000:])
    files = _by_file(found)
    assert [(f["code"], f["name"]) for f in files["deep.py"]] == [("DL000", "too-complex")]
    assert files["deep.py"][0]["message"].startswith("not analysed: ")
    assert [(f["code"], f["line"]) for f in files["good.py"]] == [("DL001", 9)]
    assert cpu < 30


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


def _slow_rule(monkeypatch, wait):
    """DL003 `wait()`s in files named slow.py, and is itself everywhere else."""
    from devicelint.rules import dl003_numpy_on_cuda as dl003

    real = dl003.NumpyOnCuda.check

    def slow(self, ctx):
        if ctx.path.endswith("slow.py"):
            wait()
        yield from real(self, ctx)

    monkeypatch.setattr(dl003.NumpyOnCuda, "check", slow)


def test_the_cpu_backstop_stops_a_busy_file_and_the_rest_goes_on(tmp_path, monkeypatch):
    def spin():
        while True:  # pure Python: the CPU timer's signal reaches it
            pass

    _slow_rule(monkeypatch, spin)
    monkeypatch.setattr(limits, "CPU_BACKSTOP", 1.0)
    (tmp_path / "slow.py").write_text(shaped("plus", 3))
    (tmp_path / "fast.py").write_text(shaped("plus", 3))
    started = time.process_time()
    r = CliRunner().invoke(cli, [str(tmp_path), "--output-format", "json", "--no-cache", "--jobs", "1"])
    assert time.process_time() - started < 20
    files = _by_file(json.loads(r.stdout))
    assert [(f["name"], f["message"]) for f in files["slow.py"]] == [
        ("too-complex", "not analysed: analysis took more than 1 s of CPU time")]
    assert ("DL003", 6) in [(f["code"], f["line"]) for f in files["fast.py"]]
    assert r.exit_code == 1


def test_wall_clock_time_never_stops_a_file(tmp_path, monkeypatch):
    """A file that waits (as a busy machine makes every file wait for a core) keeps all its
    findings: only its own work counts. It used to be `too-complex` after 60 s of wall-clock
    time, so a big file lost its findings on a loaded CI runner."""
    _slow_rule(monkeypatch, lambda: time.sleep(2.5))
    monkeypatch.setattr(limits, "CPU_BACKSTOP", 1.0, raising=False)
    monkeypatch.setattr(limits, "FILE_TIMEOUT", 1.0, raising=False)  # the wall-clock timer it replaces
    (tmp_path / "slow.py").write_text(shaped("plus", 3))
    r = CliRunner().invoke(cli, [str(tmp_path), "--output-format", "json", "--no-cache", "--jobs", "1"])
    assert ("DL003", 6) in [(f["code"], f["line"]) for f in json.loads(r.stdout)]
    assert "DL000" not in r.stdout
    assert r.exit_code == 1


GRID_SEARCH = """\
import argparse

import numpy as np
import torch
import torch.nn as nn

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=1)
args = parser.parse_args()
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(16, 1).to(device)
best = None
"""


def _grid_search(depth: int) -> str:
    """A sweep over `depth` hyper-parameters written as nested loops, the last score read
    back on the host: DL003 on the last line. Each loop is interpreted twice (the second
    round sees what the first carried round the back edge): 2**depth rounds of the body."""
    lines = []
    for i in range(depth):
        lines.append("    " * i + f"for option{i} in (0.0, 0.1):")
    pad = "    " * depth
    lines += [pad + "x = torch.randn(8, 16, device=device) * option0",
              pad + "score = model(x).mean()",
              pad + "best = score if best is None else max(best, score)",
              "print(best, np.asarray(score))"]
    return GRID_SEARCH + "\n".join(lines) + "\n"


def test_the_step_budget_stops_an_exponential_analysis_the_same_way_every_time():
    """22 nested loops cost the interpreter 2**22 rounds: a count of its steps (a function of
    the file's size) stops it, not a clock, so the result is the same on any machine."""
    source = _grid_search(22)
    started = time.process_time()
    found = engine.lint_source(source, "sweep.py")
    assert time.process_time() - started < 30
    budget = limits.STEP_BASE + limits.STEPS_PER_BYTE * len(source.encode())
    assert [(f.code, f.name, f.message) for f in found] == [
        ("DL000", "too-complex", f"not analysed: analysis needed more than {budget:,} steps (the limit for a file of this size)")]
    assert engine.lint_source(source, "sweep.py") == found
    # a sweep of ordinary depth is analysed in full, far below its budget
    shallow = _grid_search(4)
    assert [(f.code, f.line) for f in engine.lint_source(shallow, "sweep.py")] == [("DL003", shallow.count("\n"))]


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


_WITHOUT_PRECHECK = """
import sys
from devicelint import limits
from devicelint.cli import cli

limits.precheck = lambda source: None  # the workers are forked with it off
cli(sys.argv[1:])
"""


def test_a_native_crash_costs_only_its_own_file(tmp_path):
    """With the pre-check off, a 10,000-operand `and` really segfaults LibCST in its worker:
    every other file keeps its findings and the culprit is named. In a process of its own,
    whose stderr is captured: the crashes' "Fatal Python error" dumps (faulthandler on, as
    in a test runner) are asserted here, not printed among the test run's output."""
    _folder_with_good_files(tmp_path)
    (tmp_path / "crash.py").write_text(shaped("and", 10_000))
    p = subprocess.run([sys.executable, "-c", _WITHOUT_PRECHECK, ".", "--output-format", "json", "--no-cache", "--jobs", "2"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=600,
                       env=dict(os.environ, PYTHONFAULTHANDLER="1", PYTHONPATH=os.pathsep.join(sys.path)))
    assert "Fatal Python error: Segmentation fault" in p.stderr  # the crash was real
    files = _by_file(json.loads(p.stdout))
    assert [(f["code"], f["name"]) for f in files["crash.py"]] == [("DL000", "too-complex")]
    assert "crashed" in files["crash.py"][0]["message"]
    assert all([(f["code"], f["line"]) for f in files[f"m{i:02d}.py"]] == [("DL001", 9)] for i in range(30))
    assert p.returncode == 1  # findings; no internal error
    assert "internal error" not in p.stdout + p.stderr


def test_a_hung_worker_is_stopped_and_named(tmp_path, monkeypatch):
    import libcst as cst

    real = cst.parse_module

    def parse(source, *a, **k):
        if b"# hang" in source:
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGPROF})  # as if stuck in native code
            time.sleep(600)
        return real(source, *a, **k)

    monkeypatch.setattr(engine.cst, "parse_module", parse)
    # Long enough that no gap between two good files' results reaches it on a busy runner
    # (a worker's start-up imports alone took seconds under load), short against the hang.
    monkeypatch.setattr(lint, "HUNG_AFTER", 15.0)
    _folder_with_good_files(tmp_path)
    (tmp_path / "stuck.py").write_text(shaped("plus", 3) + "# hang\n")
    started = time.monotonic()
    r = CliRunner().invoke(cli, [str(tmp_path), "--output-format", "json", "--no-cache", "--jobs", "2"])
    assert time.monotonic() - started < 120
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


# Syntax newer than some Pythons still run: their parser stops at it, before it could measure
# how deep the rest nests. (name, lines put after HEAD)
NEWER_SYNTAX = [
    ("type-alias-3.12", "type Batch = dict[str, torch.Tensor]\n"),
    ("except-without-parentheses-3.14",
     "try:\n    from apex import amp\nexcept ImportError, AttributeError:\n    amp = None\n"),
]


def _newer(syntax: str, kind: str, n: int) -> str:
    return shaped(kind, n).replace(HEAD, HEAD + dict(NEWER_SYNTAX)[syntax], 1)


def _run_mode(folder, mode: str, name: str, source: str):
    """devicelint on `source` saved as `name` (beside good.py, or 30 more good files for the
    pool) the way `mode` runs it: (process, findings by file name, CPU seconds)."""
    (folder / "good.py").write_bytes(GOOD)
    if mode == "stdin":
        args, kw = ["-", "--stdin-filename", name], {"input": source}
    else:
        (folder / name).write_text(source)
        args, kw = ["."], {}
    if mode == "pool":
        _folder_with_good_files(folder)
    extra = {"jobs1": ["--jobs", "1"], "default": [], "pool": ["--jobs", "2"], "stdin": [], "fix": ["--fix", "--jobs", "1"]}
    p, cpu = _devicelint([*args, "--output-format", "json", "--no-cache", *extra[mode]], folder, **kw)
    return p, _by_file(json.loads(p.stdout or "[]")), cpu


def _assert_one_dl000(p, files, name, names=("too-complex",)):
    assert p.returncode == 1, (p.returncode, p.stderr[-2000:])  # findings; not a crash (-11, -6)
    assert "Fatal Python error" not in p.stderr
    assert [(f["code"], f["name"] in names) for f in files[name]] == [("DL000", True)], files[name]


@pytest.mark.parametrize("mode", ["jobs1", "stdin", "fix", "default", "pool"])
@pytest.mark.parametrize("syntax", [s for s, _ in NEWER_SYNTAX])
def test_newer_syntax_does_not_skip_the_depth_check(tmp_path, syntax, mode):
    """Python 3.11 cannot parse a type alias, so it could not measure the 10,000-operand
    condition below it, spread over short lines, and LibCST (which knows the syntax) crashed
    on it: exit -11 and nothing printed, with --jobs 1 and on stdin (editors, pre-commit).
    Now the depth is told from the tokens: one DL000 naming the file, in every mode, and the
    other files linted. Where this Python knows the syntax, its parser measures it as before."""
    p, files, _ = _run_mode(tmp_path, mode, "deep.py", _newer(syntax, "and_lines", 10_000))
    _assert_one_dl000(p, files, "deep.py", ("syntax-error", "too-complex"))
    finding = files["deep.py"][0]
    if finding["name"] == "syntax-error":  # this Python's parser stopped at the newer syntax
        assert f"Python {sys.version_info[0]}.{sys.version_info[1]}" in finding["message"]
        assert finding["line"] in (5, 7)
    if mode == "pool":
        assert all([(f["code"], f["line"]) for f in files[f"m{i:02d}.py"]] == [("DL001", 9)] for i in range(30))
    if mode != "stdin":
        assert [(f["code"], f["line"]) for f in files["good.py"]] == [("DL001", 9)]


@pytest.mark.parametrize("kind, n", [("to_lines", 5_000), ("lists_lines", 3_000), ("strings_lines", 20_000),
                                     ("plus_lines", 20_000)])
def test_newer_syntax_with_other_deep_shapes(tmp_path, kind, n):
    """The other shapes that crash LibCST or run for minutes in it (5,000 chained `.to()`
    calls over short lines: 620 s, then a segfault), behind a type alias."""
    p, files, cpu = _run_mode(tmp_path, "jobs1", "deep.py", _newer("type-alias-3.12", kind, n))
    _assert_one_dl000(p, files, "deep.py", ("syntax-error", "too-complex"))
    assert [(f["code"], f["line"]) for f in files["good.py"]] == [("DL001", 9)]
    assert cpu < 30


def test_newer_syntax_that_nests_shallowly_is_still_linted(tmp_path):
    """Long lines are not deep ones: a type alias above a 3,000-number table is given to
    LibCST, which knows the syntax, and its findings are reported (it used to be a
    syntax-error on any Python that cannot parse the alias, for one line over 1,000 bytes)."""
    table = "CLASS_WEIGHTS = [" + ", ".join(f"-{i % 7}.5" for i in range(3_000)) + "]\n"
    source = shaped("plus", 3).replace(HEAD, HEAD + "type Batch = dict[str, torch.Tensor]\n" + table, 1)
    p, files, _ = _run_mode(tmp_path, "jobs1", "table.py", source)
    found = [(f["code"], f["line"]) for f in files["table.py"]]
    assert ("DL003", 8) in found and "DL000" not in [code for code, _line in found]
    assert p.returncode == 1


def _huge(kind: str) -> str:
    body = {
        # a generated label table: 1.3 M items over 65,000 lines of one list literal
        "list": "LABELS = [\n" + "    0,1,0,1,1,0,0,1,0,1,1,1,0,0,0,1,0,1,1,0,\n" * 65_000 + "]\n",
        # a 500,000-slice subscript over 25,000 lines
        "subscript": "y = x[\n" + "    :, :, :, :, :, :, :, :, :, :, :, :, :, :, :, :, :, :, :, :,\n" * 25_000 + "]\n",
    }[kind]
    return HEAD + body + TAIL


@pytest.mark.parametrize("mode", ["jobs1", "stdin"])
@pytest.mark.parametrize("kind", ["list", "subscript"])
def test_a_huge_literal_is_too_complex_before_parsing(tmp_path, kind, mode):
    """LibCST keeps ~2.5 KB a token and cannot be stopped once it parses: a 1.3 M-item list
    aborted in its allocator under the 3 GB cap (exit -6, nothing printed), a 500,000-slice
    subscript ran past a minute. Both are within the byte and line limits; their token
    count is not, and is measured before parsing."""
    p, files, cpu = _run_mode(tmp_path, mode, "huge.py", _huge(kind))
    _assert_one_dl000(p, files, "huge.py")
    assert files["huge.py"][0]["message"] == f"not analysed: file has more than {limits.MAX_TOKENS:,} tokens"
    assert cpu < 30


def test_the_token_count_is_exact_near_the_limit(monkeypatch):
    """The cheap estimate only decides whether to count: a file of comments and docstrings
    (many words, few tokens) is not over a limit its estimate passes."""
    monkeypatch.setattr(limits, "MAX_TOKENS", 2_000)
    monkeypatch.setattr(limits, "_FEW_TOKENS", 999)
    prose = 'import torch\n"""' + "a word " * 2_000 + '"""\n' + "# more words here\n" * 100
    assert limits._TOKENISH.subn(b"", prose.encode())[1] > 2_000  # the estimate is over
    assert limits.precheck(prose.encode()) is None
    code = "import torch\nx = [" + "1," * 1_000 + "]\n"
    assert str(limits.precheck(code.encode())) == "file has more than 2,000 tokens"


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
