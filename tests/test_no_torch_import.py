"""The static linter never imports torch or numpy: it must run where neither is installed,
and importing torch would cost seconds per run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SCRIPT = r"""
import io, json, sys
from pathlib import Path

root = Path(sys.argv[1])
import devicelint.cli
from devicelint.engine import lint_source
from devicelint.lint import lint_many

files = sorted(root.glob("fixtures/DL*/*.py")) + sorted(root.glob("tests/corpus/*.py")) + sorted(root.glob("tests/clean/*.py"))
assert len(files) > 50, len(files)
found, errors = lint_many([(str(p), None, ["ALL"], [], None) for p in files], jobs=1)  # lint_file on each
assert not errors, errors
api = len(found)
for p in files[:10]:
    lint_source(p.read_bytes(), str(p), select=["ALL"])

# the command-line entry, in this process
from click.testing import CliRunner
r = CliRunner().invoke(devicelint.cli.cli, [str(root / "fixtures"), str(root / "tests" / "corpus"), "--jobs", "1", "--select", "ALL", "--output-format", "json"])
assert r.exit_code == 1, r.output
cli_count = len(json.loads(r.stdout))
for fmt in ("full", "concise", "github", "sarif"):
    CliRunner().invoke(devicelint.cli.cli, [str(root / "fixtures" / "DL003-numpy-on-cuda"), "--jobs", "1", "--output-format", fmt])
CliRunner().invoke(devicelint.cli.cli, ["rules"])
CliRunner().invoke(devicelint.cli.cli, ["explain", "DL003"])

heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("torch", "numpy", "torchvision", "transformers", "jax"))
print(json.dumps({"api": api, "cli": cli_count, "heavy": heavy}))
"""


def test_linting_imports_neither_torch_nor_numpy():
    p = subprocess.run([sys.executable, "-c", SCRIPT, str(ROOT)], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert p.returncode == 0, p.stderr[-3000:]
    out = json.loads(p.stdout.strip().splitlines()[-1])
    assert out["api"] > 20 and out["cli"] > 20  # it really linted buggy files
    assert out["heavy"] == [], f"imported: {out['heavy'][:10]}"


def test_cli_entry_point_imports_no_torch():
    code = (
        "import os, sys, runpy\n"
        "os._exit = sys.exit  # the module ends with os._exit (cli.entry): let it end here as SystemExit\n"
        "sys.argv = ['devicelint', sys.argv[1], '--jobs', '1', '--output-format', 'concise']\n"
        "try:\n"
        "    runpy.run_module('devicelint', run_name='__main__')\n"
        "except SystemExit as e:\n"
        "    code = e.code\n"
        "print('EXIT', code, 'torch' in sys.modules, 'numpy' in sys.modules, file=sys.stderr)\n"
    )
    p = subprocess.run(
        [sys.executable, "-c", code, str(ROOT / "fixtures")], capture_output=True, text=True, timeout=300, cwd=ROOT
    )
    last = p.stderr.strip().splitlines()[-1]
    assert last == "EXIT 1 False False", p.stderr[-3000:]
    assert "DL001" in p.stdout


def test_runtime_checker_without_torch_names_an_install_line_that_works(tmp_path):
    """devicelint is not on PyPI: the advice must be the checkout's own extra, and the
    extra and constraints file it names must exist."""
    blocker = tmp_path / "sitecustomize.py"
    blocker.write_text(
        "import sys\n"
        "class _NoTorch:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'torch' or name.startswith('torch.'):\n"
        "            raise ModuleNotFoundError(\"No module named 'torch'\")\n"
        "        return None\n"
        "sys.meta_path.insert(0, _NoTorch())\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT)]))
    p = subprocess.run([sys.executable, "-m", "devicelint", "verify", "--simulate", str(ROOT / "fixtures")],
                       capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 2
    assert "devicelint[runtime]'" not in p.stderr
    assert "pip install -e '.[runtime]' -c constraints.txt" in p.stderr
    assert (ROOT / "constraints.txt").exists()
    assert "runtime = [" in (ROOT / "pyproject.toml").read_text(encoding="utf-8")
