"""Bad input never produces a traceback: a file that cannot be read or parsed is itself a
DL000 finding (path and line), the other files are still linted, and the exit code is
non-zero. Files that are merely unusual (PEP 263 coding line, BOM, CRLF, empty) lint fine."""

from __future__ import annotations

import builtins
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from devicelint import engine, source
from devicelint.cli import cli

# DL001 at line 9 (`out = model(x)`)
GOOD = b'''\
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(4, 2)
x = torch.randn(8, 4)
x = x.to(device)
scaler = 1
out = model(x)
'''
GOOD_LINE = 9

AMP = "import torch\n\nscaler = torch.cuda.amp.GradScaler()\n"  # DL005 at line 3


def run(*args, input=None):
    return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)


def as_json(result) -> list:
    return json.loads(result.stdout)


def lint_dir(folder: Path, *extra):
    """Lint `folder` (with a known-good buggy file beside the bad one) as JSON."""
    (folder / "good.py").write_bytes(GOOD)
    r = run(str(folder), "--output-format", "json", *extra)
    assert "Traceback" not in r.output
    return r, as_json(r)


def only(found, name):
    return [f for f in found if os.path.basename(f["path"]) == name]


def assert_dl000(r, found, name, line, kind=None):
    """`name` is reported as DL000 at `line`, the good file is still linted, exit non-zero."""
    bad = only(found, name)
    assert len(bad) == 1, found
    assert bad[0]["code"] == "DL000"
    assert bad[0]["line"] == line
    assert bad[0]["column"] >= 1
    if kind:
        assert bad[0]["name"] == kind
    assert bad[0]["message"]
    assert [(f["code"], f["line"]) for f in only(found, "good.py")] == [("DL001", GOOD_LINE)]
    assert r.exit_code != 0


def test_syntax_error(tmp_path):
    (tmp_path / "broken.py").write_text("import torch\n\n\ndef train(model:\n    pass\n")
    r, found = lint_dir(tmp_path)
    bad = only(found, "broken.py")
    assert [f["code"] for f in bad] == ["DL000"] and bad[0]["name"] == "syntax-error"
    assert bad[0]["line"] in (4, 5)  # at the broken `def`, or the line the parser gave up on
    assert_dl000(r, found, "broken.py", bad[0]["line"])


def test_syntax_error_concise_and_stdin(tmp_path):
    r = run("-", "--stdin-filename", "cell.py", "--output-format", "concise", input="import torch\nx = (\n")
    assert r.exit_code == 1
    assert r.stdout.startswith("cell.py:")
    assert "DL000 [syntax-error]" in r.stdout
    assert "Traceback" not in r.output


def test_nul_bytes(tmp_path):
    (tmp_path / "nul.py").write_bytes(b"import torch\nx = 1\x00\ny = 2\n")
    r, found = lint_dir(tmp_path)
    assert_dl000(r, found, "nul.py", 2)


def test_latin1_without_coding_line(tmp_path):
    (tmp_path / "cafe.py").write_bytes(b"# caf\xe9\nimport torch\nscaler = torch.cuda.amp.GradScaler()\n")
    r, found = lint_dir(tmp_path)
    assert_dl000(r, found, "cafe.py", 1)


def test_unknown_coding(tmp_path):
    (tmp_path / "enc.py").write_bytes(b"# -*- coding: no-such-codec -*-\nimport torch\n")
    r, found = lint_dir(tmp_path)
    assert_dl000(r, found, "enc.py", 1)


def test_pep263_latin1_lints_fine(tmp_path):
    src = b"# -*- coding: latin-1 -*-\n# caf\xe9 cr\xe8me\nimport torch\n\nscaler = torch.cuda.amp.GradScaler()\n"
    (tmp_path / "latin.py").write_bytes(src)
    r, found = lint_dir(tmp_path)
    assert [(f["code"], f["line"]) for f in only(found, "latin.py")] == [("DL005", 5)]
    assert r.exit_code == 1


def test_pep263_latin1_full_output_no_crash(tmp_path):
    # the full format re-reads the source to show the line; a non-UTF-8 file must not crash it
    src = b"# -*- coding: latin-1 -*-\nimport torch\nscaler = torch.cuda.amp.GradScaler()  # \xe9t\xe9\n"
    (tmp_path / "latin.py").write_bytes(src)
    r = run(str(tmp_path / "latin.py"))
    assert r.exit_code == 1
    assert "DL005" in r.stdout and "scaler = torch.cuda.amp.GradScaler()" in r.stdout


def test_utf8_bom(tmp_path):
    (tmp_path / "bom.py").write_bytes(b"\xef\xbb\xbf" + AMP.encode())
    r, found = lint_dir(tmp_path)
    got = only(found, "bom.py")
    assert [(f["code"], f["line"], f["column"]) for f in got] == [("DL005", 3, 10)]


def test_crlf_line_endings(tmp_path):
    (tmp_path / "crlf.py").write_bytes(GOOD.replace(b"\n", b"\r\n"))
    r = run(str(tmp_path / "crlf.py"), "--output-format", "json")
    assert [(f["code"], f["line"], f["column"]) for f in as_json(r)] == [("DL001", GOOD_LINE, 7)]
    assert r.exit_code == 1
    full = run(str(tmp_path / "crlf.py"))
    assert f"{GOOD_LINE} | out = model(x)\n" in full.stdout  # no stray \r in the excerpt


def test_mixed_line_endings(tmp_path):
    src = GOOD.replace(b"\n", b"\r\n", 4)
    (tmp_path / "mixed.py").write_bytes(src)
    r = run(str(tmp_path / "mixed.py"), "--output-format", "json")
    assert [(f["code"], f["line"]) for f in as_json(r)] == [("DL001", GOOD_LINE)]


def test_empty_file(tmp_path):
    (tmp_path / "empty.py").write_bytes(b"")
    (tmp_path / "blank.py").write_bytes(b"\n\n   \n")
    r = run(str(tmp_path), "--output-format", "json")
    assert r.exit_code == 0
    assert as_json(r) == []
    assert run("-", input="").exit_code == 0


def test_directory_named_x_py(tmp_path):
    (tmp_path / "x.py").mkdir()
    (tmp_path / "x.py" / "inner.py").write_text(AMP)
    r, found = lint_dir(tmp_path)
    assert [(os.path.basename(f["path"]), f["code"]) for f in found if f["code"] != "DL001"] == [("inner.py", "DL005")]


def test_directory_given_to_engine():
    found = engine.lint_file(os.path.dirname(__file__))
    assert [(f.code, f.name) for f in found] == [("DL000", "unreadable-file")]


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root can read a chmod 000 file")
def test_unreadable_file_chmod(tmp_path):
    p = tmp_path / "secret.py"
    p.write_text(AMP)
    p.chmod(0)
    try:
        r, found = lint_dir(tmp_path)
        assert_dl000(r, found, "secret.py", 1, "unreadable-file")
        assert "permission" in only(found, "secret.py")[0]["message"]
    finally:
        p.chmod(0o644)


def test_unreadable_file_simulated(tmp_path, monkeypatch):
    """Works as root too: `open` raises PermissionError for one file."""
    secret = tmp_path / "secret.py"
    secret.write_text(AMP)
    real_open = builtins.open

    def fake_open(file, *a, **k):
        if os.fspath(file).endswith("secret.py"):
            raise PermissionError(13, "Permission denied", os.fspath(file))
        return real_open(file, *a, **k)

    monkeypatch.setattr(source, "open", fake_open, raising=False)  # where files are read
    r, found = lint_dir(tmp_path, "--jobs", "1")
    assert_dl000(r, found, "secret.py", 1, "unreadable-file")
    assert "permission" in only(found, "secret.py")[0]["message"]


def test_missing_path(tmp_path):
    (tmp_path / "good.py").write_bytes(GOOD)
    r = run(str(tmp_path / "nope.py"), str(tmp_path / "good.py"), str(tmp_path / "no_dir"), "--output-format", "json")
    found = as_json(r)
    assert r.exit_code != 0
    missing = sorted((os.path.basename(f["path"]), f["code"], f["line"]) for f in found if f["code"] == "DL000")
    assert missing == [("no_dir", "DL000", 1), ("nope.py", "DL000", 1)]
    assert [(f["code"], f["line"]) for f in only(found, "good.py")] == [("DL001", GOOD_LINE)]
    assert "Traceback" not in r.output


def test_deeply_nested_expression(tmp_path):
    (tmp_path / "deep.py").write_text("import torch\nx = " + "(" * 5000 + "1" + ")" * 5000 + "\n")
    start = time.process_time()  # CPU time (linted in this process): the same on a busy machine
    r, found = lint_dir(tmp_path)
    assert time.process_time() - start < 30
    deep = only(found, "deep.py")
    assert all(f["code"] == "DL000" for f in deep)
    assert [(f["code"], f["line"]) for f in deep] in ([], [("DL000", 2)])
    assert [(f["code"], f["line"]) for f in only(found, "good.py")] == [("DL001", GOOD_LINE)]


@pytest.mark.parametrize("opener, closer", [("[", "]"), ("f(", ")"), ("{", "}")])
def test_deeply_nested_in_subprocess(tmp_path, opener, closer):
    """In a fresh process (a crash in native code would kill it: exit -11, no output)."""
    (tmp_path / "deep.py").write_text("import torch\nx = " + opener * 3000 + "1" + closer * 3000 + "\n")
    (tmp_path / "good.py").write_bytes(GOOD)
    p = subprocess.run(
        [sys.executable, "-m", "devicelint", ".", "--output-format", "json", "--jobs", "1"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )
    assert p.returncode == 1, (p.returncode, p.stderr[-2000:])
    assert "Traceback" not in p.stderr
    found = json.loads(p.stdout)
    assert [(f["code"], f["line"]) for f in only(found, "deep.py")] in ([], [("DL000", 2)])
    assert [(f["code"], f["line"]) for f in only(found, "good.py")] == [("DL001", GOOD_LINE)]


def test_brackets_in_strings_do_not_count_as_nesting(tmp_path):
    # hundreds of unbalanced brackets in strings and comments are not nesting
    src = "import torch\n" + "s = '((((((((((('  # (((((\n" * 60 + AMP.split("\n", 1)[1]
    (tmp_path / "strs.py").write_text(src)
    r = run(str(tmp_path / "strs.py"), "--output-format", "json")
    assert [(f["code"], f["line"]) for f in as_json(r)] == [("DL005", 63)]


def test_100k_line_file(tmp_path):
    head = GOOD.decode().replace("out = model(x)\n", "")
    body = "".join(f"v{i} = {i}\n" if i % 10 == 0 else "# padding\n" for i in range(100_000))
    (tmp_path / "big.py").write_text(head + body + "out = model(x)\n")
    # CPU time (one file is linted in this process): a busy machine takes longer to give it,
    # and must change neither the findings (no clock stops the analysis) nor this figure
    start = time.process_time()
    r = run(str(tmp_path / "big.py"), "--output-format", "json")
    cpu = time.process_time() - start
    assert r.exit_code == 1
    n_lines = head.count("\n") + 100_000 + 1
    assert [(f["code"], f["line"]) for f in as_json(r)] == [("DL001", n_lines)]
    assert cpu < 45, f"100k lines took {cpu:.1f} CPU-s"


def test_symlink_loop_in_folder(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "m.py").write_text(AMP)
    (pkg / "up").symlink_to(tmp_path, target_is_directory=True)  # pkg/up/pkg/up/... forever
    (pkg / "self_loop.py").symlink_to(pkg / "self_loop.py")  # ELOOP when opened
    (pkg / "dangling.py").symlink_to(tmp_path / "gone.py")
    r, found = lint_dir(tmp_path)
    assert [(f["code"], f["line"]) for f in only(found, "m.py")] == [("DL005", 3)]
    for name in ("self_loop.py", "dangling.py"):
        assert [f["code"] for f in only(found, name)] == ["DL000"]
    assert len(found) == 4  # nothing walked twice through `up`


def _run_with_deadline(args, seconds=30):
    """CliRunner in a thread; fail (not hang) if it does not finish."""
    box = {}

    def target():
        box["r"] = run(*args)

    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), f"devicelint {' '.join(args)} hung"
    return box["r"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fifo_in_folder_not_named_py(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    r = _run_with_deadline([str(tmp_path), "--output-format", "json"])
    (tmp_path / "good.py").write_bytes(GOOD)
    assert r.exit_code == 0 and as_json(r) == []
    r = _run_with_deadline([str(tmp_path), "--output-format", "json"])
    assert [(f["code"], f["line"]) for f in as_json(r)] == [("DL001", GOOD_LINE)]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fifo_named_py(tmp_path):
    os.mkfifo(tmp_path / "f.py")
    (tmp_path / "good.py").write_bytes(GOOD)
    r = _run_with_deadline([str(tmp_path), "--output-format", "json", "--jobs", "1"])
    found = as_json(r)
    assert [(f["code"], f["name"]) for f in only(found, "f.py")] == [("DL000", "unreadable-file")]
    assert [(f["code"], f["line"]) for f in only(found, "good.py")] == [("DL001", GOOD_LINE)]
    assert r.exit_code == 1
    # named explicitly, too
    r = _run_with_deadline([str(tmp_path / "f.py"), "--output-format", "json"])
    assert [f["code"] for f in as_json(r)] == ["DL000"]


def test_file_vanishes_between_discovery_and_reading(tmp_path, monkeypatch):
    import devicelint.files as files

    (tmp_path / "good.py").write_bytes(GOOD)
    (tmp_path / "gone.py").write_text(AMP)
    real_discover = files.discover

    def discover_then_delete(*a, **k):
        out = real_discover(*a, **k)
        (tmp_path / "gone.py").unlink()
        return out

    monkeypatch.setattr(files, "discover", discover_then_delete)
    r = run(str(tmp_path), "--output-format", "json", "--jobs", "1")
    found = as_json(r)
    assert [(f["code"], f["name"]) for f in only(found, "gone.py")] == [("DL000", "unreadable-file")]
    assert [(f["code"], f["line"]) for f in only(found, "good.py")] == [("DL001", GOOD_LINE)]
    assert r.exit_code == 1
    assert "Traceback" not in r.output


def test_engine_lint_file_missing_path(tmp_path):
    found = engine.lint_file(str(tmp_path / "missing.py"))
    assert [(f.code, f.name, f.line) for f in found] == [("DL000", "unreadable-file", 1)]


def test_full_format_survives_file_deleted_before_rendering(tmp_path, monkeypatch):
    """The full format re-reads each file for the excerpt; if it is gone by then the
    finding is still printed."""
    p = tmp_path / "bad.py"
    p.write_bytes(GOOD)
    from devicelint import checking

    monkeypatch.setattr(checking, "_read_lines", lambda path: [])
    r = run(str(p))
    assert r.exit_code == 1
    assert f"bad.py:{GOOD_LINE}:7: DL001" in r.stdout


def test_binary_garbage(tmp_path):
    (tmp_path / "blob.py").write_bytes(bytes(range(1, 256)) * 4 + b"torch")
    r, found = lint_dir(tmp_path)
    blob = only(found, "blob.py")
    assert [f["code"] for f in blob] == ["DL000"]
    assert r.exit_code != 0


def test_ctrl_c_stops_quickly_with_a_clear_message(tmp_path):
    """SIGINT mid-run: exit 130, one line on stderr, no traceback, queued files dropped."""
    import signal
    import time

    body = "import torch\n" + "".join(f"x{i} = torch.randn(3).to('cpu') * {i}\n" for i in range(400))
    for i in range(400):
        (tmp_path / f"m{i}.py").write_text(body)
    p = subprocess.Popen(
        [sys.executable, "-m", "devicelint", ".", "--no-cache", "--jobs", "2"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        # a job started in the background by a non-interactive shell (CI) inherits SIGINT
        # ignored; a terminal's Ctrl-C does not: give the child the terminal's disposition
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        # the first progress line says the run is under way (not still starting Python,
        # however loaded the machine is)
        env=dict(os.environ, DEVICELINT_PROGRESS="always"),
    )
    first = p.stderr.read(1)
    assert first and p.poll() is None, "the run ended before it could be interrupted; make the folder bigger"
    started = time.monotonic()
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 130
    assert "interrupted" in err and "Traceback" not in err
    assert time.monotonic() - started < 30


@pytest.mark.parametrize("odd", ["\f", "\u2028", "\x1c", "\x85", "\v"])
def test_noqa_and_excerpt_after_characters_splitlines_would_break_at(tmp_path, odd):
    """Only \\n, \\r\\n and \\r end a line for Python; a form feed or U+2028 inside a line must
    not shift the line a `# noqa` applies to, nor the excerpt shown."""
    src = (
        f"import torch\n{odd if odd == chr(12) else ''}\n"  # a form feed may stand alone
        f"note = 'a{odd}b'  # {odd}\n"
        "scaler = torch.cuda.amp.GradScaler()  # noqa: DL005\n"
        "other = torch.cuda.amp.GradScaler()\n"
    )
    (tmp_path / "odd.py").write_text(src, encoding="utf-8")
    r = run(str(tmp_path / "odd.py"), "--output-format", "json")
    assert [(f["code"], f["line"]) for f in as_json(r)] == [("DL005", 5)]
    full = run(str(tmp_path / "odd.py"))
    assert "5 | other = torch.cuda.amp.GradScaler()\n" in full.stdout


def test_split_lines_counts_as_python_does():
    from devicelint.lines import split_lines

    text = "a\fb\u2028c\rd\r\ne\n"
    assert split_lines(text) == ["a\fb\u2028c", "d", "e"]
    assert split_lines(text, keepends=True) == ["a\fb\u2028c\r", "d\r\n", "e\n"]
    assert split_lines("x") == ["x"] and split_lines("") == []
