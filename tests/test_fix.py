"""`--fix` and `--diff`: safe rewrites only, never a broken file."""

import os
import subprocess
import sys
import tempfile

import pytest
from click.testing import CliRunner

from devicelint.cli import cli
from devicelint.engine import lint_source
from devicelint.fix import fix_source

SCRIPT = '''import numpy as np
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 2).to(device)
scaler = torch.cuda.amp.GradScaler(init_scale=1024.0)


def predict(x):
    with torch.cuda.amp.autocast(dtype=torch.float16):
        out = model(x.to(device))
    probs = out.softmax(-1).detach().numpy()
    return np.asarray(out.argmax(-1) + 1), probs
'''

FIXED = '''import numpy as np
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 2).to(device)
scaler = torch.amp.GradScaler("cuda", init_scale=1024.0)


def predict(x):
    with torch.amp.autocast("cuda", dtype=torch.float16):
        out = model(x.to(device))
    probs = out.softmax(-1).detach().cpu().numpy()
    return np.asarray((out.argmax(-1) + 1).cpu()), probs
'''


def test_fix_source_rewrites_and_the_result_is_clean():
    new, count = fix_source(SCRIPT.encode(), "predict.py")
    assert new.decode() == FIXED
    assert count == 4
    assert lint_source(new, "predict.py") == []


def test_unsafe_forms_are_left_alone():
    # positional arguments shift meaning between the old and new signatures; without an
    # `import torch` there is no module to spell the new API through
    src = b"""import torch
with torch.cuda.amp.autocast(True):
    pass
"""
    assert fix_source(src, "x.py") == (src, 0)
    no_torch = b"""from torch.cuda.amp import autocast
with autocast():
    pass
"""
    assert fix_source(no_torch, "x.py") == (no_torch, 0)
    assert [f.code for f in lint_source(src + no_torch, "x.py")] == ["DL005", "DL005"]


def test_names_imported_from_torch_cuda_amp_are_rewritten_through_torch():
    src = b"""import torch
from torch.cuda.amp import GradScaler, autocast as amp_autocast
import torch.cuda.amp as amp

scaler = GradScaler(enabled=True)
with amp_autocast():
    pass
with amp.autocast(cache_enabled=False):
    pass


def evaluate(torch, model, x):
    with amp_autocast():  # here `torch` is a parameter, not the module
        return model(x)
"""
    new, count = fix_source(src, "x.py")
    assert count == 3
    assert new == src.replace(b"scaler = GradScaler(enabled=True)", b'scaler = torch.amp.GradScaler("cuda", enabled=True)').replace(
        b"with amp_autocast():\n    pass", b'with torch.amp.autocast("cuda", dtype=torch.float16):\n    pass').replace(
        b"with amp.autocast(cache_enabled=False):", b'with torch.amp.autocast("cuda", cache_enabled=False, dtype=torch.float16):')
    assert [f.line for f in lint_source(new, "x.py")] == [13]
    assert fix_source(new, "x.py") == (new, 0)


def test_cli_fix_writes_and_reports_the_rest(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "predict.py").write_text(SCRIPT)
    r = CliRunner().invoke(cli, ["predict.py", "--fix", "--no-cache", "--output-format", "concise"])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "predict.py").read_text() == FIXED


def test_cli_diff_changes_nothing(tmp_path):
    (tmp_path / "predict.py").write_text(SCRIPT)
    r = subprocess.run(
        [sys.executable, "-m", "devicelint", "predict.py", "--diff", "--no-cache"], cwd=tmp_path, capture_output=True, text=True
    )
    assert r.returncode == 1
    assert "+    probs = out.softmax(-1).detach().cpu().numpy()" in r.stdout
    assert (tmp_path / "predict.py").read_text() == SCRIPT


def test_an_internal_error_while_fixing_is_one_line_and_the_file_is_left_alone(tmp_path, monkeypatch):
    """Linting the file works, re-analysing it after a first fix does not: the error is named."""
    import devicelint.fix as fixmod

    monkeypatch.chdir(tmp_path)
    (tmp_path / "predict.py").write_text(SCRIPT)
    real, calls = fixmod.analyse_python, []

    def second_round_fails(*args, **kw):
        calls.append(1)
        if len(calls) > 1:
            raise AttributeError("'Call' object has no attribute 'value'")
        return real(*args, **kw)

    monkeypatch.setattr(fixmod, "analyse_python", second_round_fails)
    r = CliRunner().invoke(cli, ["predict.py", "--diff", "--no-cache"])
    assert "devicelint: internal error while fixing predict.py: AttributeError: 'Call' object has no attribute 'value'" \
        in r.output
    assert (tmp_path / "predict.py").read_text() == SCRIPT


def test_fix_keeps_file_mode_and_never_writes_broken_code(tmp_path, monkeypatch):
    import devicelint.fix as fixmod

    path = tmp_path / "predict.py"
    path.write_text(SCRIPT)
    path.chmod(0o751)
    monkeypatch.setattr(fixmod, "_parses", lambda source, p: False)  # pretend every fix breaks the file
    new, count = fix_source(SCRIPT.encode(), str(path))
    assert (new, count) == (SCRIPT.encode(), 0)
    monkeypatch.undo()
    fixmod.write_atomically(str(path), FIXED.encode())
    assert path.read_text() == FIXED and (path.stat().st_mode & 0o777) == 0o751
    assert not list(tmp_path.glob(".devicelint-*"))


# --- writing safely: links, concurrent edits, file-system faults, owners ---------------------

AMP = b"import torch\n\nscaler = torch.cuda.amp.GradScaler()\n"
AMP_FIXED = b'import torch\n\nscaler = torch.amp.GradScaler("cuda")\n'


def _fix(*args):
    return CliRunner().invoke(cli, [*args, "--fix", "--no-cache", "--output-format", "concise"])


def test_fix_through_a_symlink_fixes_the_target_and_keeps_the_link(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "amp_utils.py").write_bytes(AMP)
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "amp_link.py").symlink_to(lib / "amp_utils.py")
    (pkg / "inside.py").write_bytes(AMP)
    (pkg / "alias.py").symlink_to("inside.py")  # same folder: the walk sees link and target
    for args in (["pkg/amp_link.py"], ["pkg"]):
        r = _fix(*args)
        assert r.exit_code == 0, r.output
    assert (pkg / "amp_link.py").is_symlink() and (pkg / "alias.py").is_symlink()
    assert (lib / "amp_utils.py").read_bytes() == AMP_FIXED
    assert (pkg / "inside.py").read_bytes() == AMP_FIXED


def test_an_edit_made_while_fixing_is_not_lost(tmp_path, monkeypatch):
    import devicelint.fix as fixmod

    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_bytes(AMP)
    (tmp_path / "b.py").write_bytes(AMP)
    real = fixmod.fix_source
    users_edit = AMP + b"# the user's new line\n"

    def fix_while_user_types(source, path, *a, **k):
        out = real(source, path, *a, **k)
        if path.endswith("a.py"):
            (tmp_path / "a.py").write_bytes(users_edit)  # saved from the editor meanwhile
        return out

    monkeypatch.setattr(fixmod, "fix_source", fix_while_user_types)
    r = _fix(".")
    assert (tmp_path / "a.py").read_bytes() == users_edit
    assert (tmp_path / "b.py").read_bytes() == AMP_FIXED
    assert "a.py:1:1: DL000 [file-changed] not fixed: the file changed while devicelint ran" in r.stderr
    assert "Traceback" not in r.output


def test_same_size_same_mtime_edit_is_caught_by_the_content_hash(tmp_path):
    import devicelint.fix as fixmod

    p = tmp_path / "a.py"
    p.write_bytes(AMP)
    before = os.stat(p)
    p.write_bytes(AMP.replace(b"scaler", b"SCALER"))
    os.utime(p, ns=(before.st_atime_ns, before.st_mtime_ns))
    with pytest.raises(fixmod.Changed):
        fixmod.write_fixed(str(p), AMP, AMP_FIXED, before)
    assert b"SCALER" in p.read_bytes()
    assert not list(tmp_path.glob(".devicelint-*"))


def test_read_only_folder_and_vanished_file_are_one_line_each(tmp_path, monkeypatch):
    """As root no folder is read-only: the refusal is simulated where it would happen."""
    import devicelint.fix as fixmod

    monkeypatch.chdir(tmp_path)
    for name in ("locked.py", "gone.py", "ok.py"):
        (tmp_path / name).write_bytes(AMP)
    real_mkstemp, real_write = tempfile.mkstemp, fixmod.write_fixed

    def mkstemp(*a, **k):
        fd, name = real_mkstemp(*a, **k)
        if writing[0] == "locked.py":
            os.close(fd)
            os.unlink(name)
            raise PermissionError(13, "Permission denied", name)
        return fd, name

    writing = [None]

    def vanish_then_write(path, *a, **k):
        # the fix was worked out; the file goes away before it is written back
        writing[0] = os.path.basename(path)
        if path.endswith("gone.py"):
            (tmp_path / "gone.py").unlink()
        return real_write(path, *a, **k)

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)
    monkeypatch.setattr(fixmod, "write_fixed", vanish_then_write)
    r = _fix(".")
    assert "Traceback" not in r.output
    assert "locked.py:1:1: DL000 [unwritable-file] not fixed: permission denied" in r.stderr
    assert "gone.py:1:1: DL000 [unwritable-file] not fixed: no such file or directory" in r.stderr
    assert (tmp_path / "locked.py").read_bytes() == AMP
    assert (tmp_path / "ok.py").read_bytes() == AMP_FIXED
    assert not list(tmp_path.glob(".devicelint-*"))
    assert r.exit_code == 1  # locked.py still has its finding


def test_failed_rename_leaves_the_file_and_no_temporary(tmp_path, monkeypatch):
    import devicelint.fix as fixmod

    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_bytes(AMP)

    def refuse(src, dst):
        raise PermissionError(13, "Permission denied", dst)

    monkeypatch.setattr(fixmod.os, "replace", refuse)
    r = _fix("a.py")
    assert "a.py:1:1: DL000 [unwritable-file] not fixed: permission denied" in r.stderr
    assert (tmp_path / "a.py").read_bytes() == AMP
    assert not list(tmp_path.glob(".devicelint-*"))


def test_fix_keeps_owner_and_group(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("only root can give a file away")
    p = tmp_path / "a.py"
    p.write_bytes(AMP)
    os.chown(p, 12345, 23456)
    p.chmod(0o640)
    r = _fix(str(p))
    assert r.exit_code == 0, r.output
    st = os.stat(p)
    assert (st.st_uid, st.st_gid, st.st_mode & 0o777) == (12345, 23456, 0o640)
    assert p.read_bytes() == AMP_FIXED


def test_fix_keeps_hard_links(tmp_path):
    p = tmp_path / "a.py"
    p.write_bytes(AMP)
    os.link(p, tmp_path / "also.py")
    inode = os.stat(p).st_ino
    r = _fix(str(p))
    assert r.exit_code == 0, r.output
    assert os.stat(p).st_ino == inode and os.stat(p).st_nlink == 2
    assert (tmp_path / "also.py").read_bytes() == AMP_FIXED == p.read_bytes()
    assert not list(tmp_path.glob(".devicelint-*"))


def test_in_place_write_that_fails_puts_the_old_content_back(tmp_path, monkeypatch):
    import devicelint.fix as fixmod

    p = tmp_path / "a.py"
    p.write_bytes(AMP)
    os.link(p, tmp_path / "also.py")
    before = os.stat(p)
    real_open = open

    class HalfWriter:
        def __init__(self, f):
            self.f = f

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.f.close()

        def write(self, data):
            self.f.write(data[:10])
            raise OSError(28, "No space left on device")

        def __getattr__(self, name):
            return getattr(self.f, name)

    calls = []

    def flaky_open(file, mode="r", *a, **k):
        f = real_open(file, mode, *a, **k)
        if mode == "r+b" and not calls:
            calls.append(file)
            return HalfWriter(f)
        return f

    monkeypatch.setattr(fixmod, "open", flaky_open, raising=False)
    with pytest.raises(OSError):
        fixmod.write_fixed(str(p), AMP, AMP_FIXED, before)
    assert p.read_bytes() == AMP == (tmp_path / "also.py").read_bytes()


# --- DL005: fixes that keep meaning ---------------------------------------------------------


def test_autocast_fix_keeps_the_old_default_dtype():
    src = b'''import torch


def evaluate(model, loader):
    model.eval()
    with torch.no_grad(), torch.cuda.amp.autocast():
        outs = [model(x.cuda()) for x, _ in loader]
    with torch.cuda.amp.autocast(enabled=True):
        outs.append(model(loader.dataset[0][0].cuda()))
    with torch.cpu.amp.autocast(cache_enabled=False):
        outs.append(model.cpu()(loader.dataset[0][0]))
    with torch.cuda.amp.autocast(dtype=torch.bfloat16):
        outs.append(model(loader.dataset[1][0].cuda()))
    return outs
'''
    new, count = fix_source(src, "evaluate.py", select=["DL005"])
    assert count == 4
    text = new.decode()
    # torch.cuda.amp.autocast() is float16; torch.amp.autocast("cuda") would inherit an
    # enclosing bfloat16 autocast instead
    assert 'torch.no_grad(), torch.amp.autocast("cuda", dtype=torch.float16):' in text
    assert 'torch.amp.autocast("cuda", enabled=True, dtype=torch.float16):' in text
    assert 'torch.amp.autocast("cpu", cache_enabled=False, dtype=torch.bfloat16):' in text
    assert 'torch.amp.autocast("cuda", dtype=torch.bfloat16):' in text


def test_shadowed_torch_is_neither_flagged_nor_rewritten():
    src = b'''import torch


def run_step(torch, model, batch):
    # `torch` is whatever backend shim the caller passes, not the module
    with torch.cuda.amp.autocast():
        return model(batch)


class Trainer:
    def fit(self, model, batch):
        torch = self.backend
        scaler = torch.cuda.amp.GradScaler()
        make = lambda torch: torch.cuda.amp.autocast()
        return scaler, make


def real_step(model, batch):
    with torch.cuda.amp.autocast():
        return model(batch)
'''
    found = [(f.code, f.line) for f in lint_source(src, "shim.py", select=["DL005"])]
    assert found == [("DL005", 19)]
    new, count = fix_source(src, "shim.py", select=["DL005"])
    assert count == 1
    assert new.count(b"torch.cuda.amp") == 3


def test_compatibility_fallbacks_are_left_alone():
    src = b'''import torch

try:
    autocast = torch.amp.autocast
    scaler = torch.amp.GradScaler("cuda")
except (AttributeError, ImportError, TypeError):  # torch < 2.3
    autocast = torch.cuda.amp.autocast
    scaler = torch.cuda.amp.GradScaler()

if hasattr(torch, "amp") and hasattr(torch.amp, "GradScaler"):
    scaler2 = torch.amp.GradScaler("cuda")
else:
    scaler2 = torch.cuda.amp.GradScaler()

try:
    cfg = load_config()
except ValueError:
    scaler3 = torch.cuda.amp.GradScaler()
'''
    assert [(f.code, f.line) for f in lint_source(src, "compat.py", select=["DL005"])] == [("DL005", 18)]
    new, count = fix_source(src, "compat.py", select=["DL005"])
    assert count == 1 and new.count(b"torch.cuda.amp") == 3


# --- byte-exact fixes and diffs that apply ---------------------------------------------------

ODD_FILES = {
    "no_newline.py": b"import torch\n\nscaler = torch.cuda.amp.GradScaler()",
    "cr_only.py": b"import torch\r\rscaler = torch.cuda.amp.GradScaler()\rsteps = 10\r",
    "form_feed.py": b"\fimport torch\n\f\nscaler = torch.cuda.amp.GradScaler()\n\f\n# end\n",
    "crlf.py": b"import torch\r\n\r\nscaler = torch.cuda.amp.GradScaler()\r\n",
    "bom.py": b"\xef\xbb\xbfimport torch\nscaler = torch.cuda.amp.GradScaler()\n",
    "latin1.py": b"# -*- coding: latin-1 -*-\nimport torch  # caf\xe9\nscaler = torch.cuda.amp.GradScaler()\n",
}


def _expected(src: bytes) -> bytes:
    return src.replace(b"torch.cuda.amp.GradScaler()", b'torch.amp.GradScaler("cuda")')


@pytest.mark.parametrize("name", sorted(ODD_FILES))
def test_fix_changes_only_the_fixed_bytes(tmp_path, name):
    (tmp_path / name).write_bytes(ODD_FILES[name])
    r = _fix(str(tmp_path / name))
    assert r.exit_code == 0, r.output
    assert (tmp_path / name).read_bytes() == _expected(ODD_FILES[name])


def _diff_in(folder) -> bytes:
    p = subprocess.run([sys.executable, "-m", "devicelint", ".", "--diff", "--no-cache"], cwd=folder, capture_output=True)
    assert p.returncode == 1, p.stderr
    return p.stdout


@pytest.mark.parametrize("tool", ["git", "patch"])
def test_diff_is_a_patch_that_applies(tmp_path, tool):
    import shutil

    if shutil.which(tool) is None:
        pytest.skip(f"{tool} not installed")
    work = tmp_path / "work"
    work.mkdir()
    for name, src in ODD_FILES.items():
        (work / name).write_bytes(src)
    patch = _diff_in(work)
    assert patch.count(b"\\ No newline at end of file\n") >= 2  # no_newline.py, before and after
    assert all((work / n).read_bytes() == s for n, s in ODD_FILES.items())  # --diff writes nothing
    (tmp_path / "fix.patch").write_bytes(patch)
    if tool == "git":
        subprocess.run(["git", "init", "-q"], cwd=work, check=True)
        p = subprocess.run(["git", "apply", "--whitespace=nowarn", str(tmp_path / "fix.patch")], cwd=work, capture_output=True, text=True)
    else:
        p = subprocess.run(["patch", "-p1", "-i", str(tmp_path / "fix.patch")], cwd=work, capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    for name, src in ODD_FILES.items():
        assert (work / name).read_bytes() == _expected(src), name


@pytest.mark.parametrize("name", ["cr_only.py", "form_feed.py", "no_newline.py"])
def test_json_fix_object_points_where_fix_edits(tmp_path, name):
    """The JSON edit counts lines as Python does (a lone \\r ends one) and is found in the
    file even where LibCST dropped a leading form feed; applying it gives what --fix writes."""
    import json

    from devicelint.lines import split_lines

    src = ODD_FILES[name]
    (tmp_path / name).write_bytes(src)
    r = CliRunner().invoke(cli, [str(tmp_path / name), "--output-format", "json", "--no-cache"])
    (finding,) = json.loads(r.stdout)
    (edit,) = finding["fix"]["edits"]
    lines = split_lines(src.decode(), keepends=True)
    start = sum(map(len, lines[: edit["line"] - 1])) + edit["column"] - 1
    end = sum(map(len, lines[: edit["end_line"] - 1])) + edit["end_column"] - 1
    text = src.decode()
    assert (text[:start] + edit["content"] + text[end:]).encode() == _expected(src)


def test_fix_in_parallel_writes_and_prints_what_one_process_does(tmp_path):
    """Enough files for a process pool: the fixes are worked out by the workers and written
    by the parent in path order, so --jobs changes neither the files nor the output."""
    scripts = {
        f"train_{i:02d}.py": (
            "import numpy as np\nimport torch\n\n"
            "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
            f"model = torch.nn.Linear({i + 2}, 2).to(device)\n"
            "scaler = torch.cuda.amp.GradScaler()\n"
            f"x = torch.randn(4, {i + 2}).to(device)\n"
            "probs = model(x).softmax(-1).detach().numpy()\n"
            + ("" if i % 3 else "mask = torch.ones(4).to(device)\n")
        )
        for i in range(30)
    }
    outputs = []
    for jobs in ("1", "2"):
        root = tmp_path / f"jobs{jobs}"
        root.mkdir()
        for name, text in scripts.items():
            (root / name).write_text(text)
        r = subprocess.run([sys.executable, "-m", "devicelint", ".", "--fix", "--no-cache", "--jobs", jobs,
                            "--output-format", "concise"], cwd=root, capture_output=True, text=True)
        outputs.append((r.returncode, r.stdout, r.stderr, {n: (root / n).read_text() for n in scripts}))
    assert outputs[0] == outputs[1]
    code, stdout, stderr, files = outputs[0]
    assert stderr.count("Fixed") == 30
    assert all(".cpu().numpy()" in text and 'GradScaler("cuda")' in text for text in files.values())


def test_dl003_moves_each_tensor_of_a_list_but_leaves_a_mapping_alone():
    """A converting library call given a sequence of device tensors gets `[t.cpu() for t in ...]`;
    given a dict of them, no edit (iterating a dict gives its keys)."""
    src = '''import numpy as np
import pandas as pd
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(4, 2).to(device)
preds = model(torch.randn(8, 4, device=device)).argmax(1)
report = pd.DataFrame({"pred": preds})
outs = [model(torch.randn(2, 4, device=device)) for _ in range(3)]
stacked = np.concatenate((outs[0], outs[1]))
'''
    new, count = fix_source(src.encode(), "report.py", select=["DL003"])
    assert count == 1
    assert new.decode() == src.replace("np.concatenate((outs[0], outs[1]))",
                                       "np.concatenate([t.cpu() for t in (outs[0], outs[1])])")
    left = [f for f in lint_source(new.decode(), "report.py", select=["DL003"])]
    assert [(f.line, "mapping" in f.message) for f in left] == [(9, True)]


SAMPLER = '''import argparse

import torch
import torch.nn as nn


def sample(model: nn.Module, n: int, device: torch.device) -> torch.Tensor:
    model.eval()
    with torch.no_grad():
        noise = torch.rand(n, 3, 32, 32).to(device)
        return model(noise)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=16)
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    net = nn.Conv2d(3, 3, 3).to(device)
    print(sample(net, args.n, device).shape)
'''


def test_diff_with_only_unsafe_fixes_says_so(tmp_path):
    """`--diff` that has no safe fix to show says it on stderr rather than printing nothing
    (the DL008 fix here is unsafe: random values then come from the device generator)."""
    (tmp_path / "sample.py").write_text(SAMPLER)
    run = lambda *extra: subprocess.run([sys.executable, "-m", "devicelint", "sample.py", "--diff", "--no-cache", *extra],
                                        cwd=tmp_path, capture_output=True, text=True)
    r = run()
    assert (r.returncode, r.stdout) == (0, "")
    assert "No fixes would be applied (fixes marked [-] show with --diff --unsafe-fixes)." in r.stderr
    r = run("--unsafe-fixes")
    assert r.returncode == 1 and "device=device" in r.stdout and "No fixes" not in r.stderr
    assert (tmp_path / "sample.py").read_text() == SAMPLER
