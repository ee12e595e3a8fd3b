"""The pre-commit hook definition at the repo root, and the hook's entry run the way
pre-commit runs it (the entry followed by file names)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HOOKS = ROOT / ".pre-commit-hooks.yaml"


def _scalar(value: str):
    value = value.strip()
    if value.startswith("[") and value.endswith("]"):
        return [_scalar(v) for v in value[1:-1].split(",") if v.strip()]
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    if value in ("true", "false"):
        return value == "true"
    return value


def parse_hooks(text: str) -> list:
    """Just enough YAML for a hooks file: a list of flat mappings, `key: value` lines,
    flow lists (`[python]`) and block lists of scalars (PyYAML may not be installed)."""
    hooks, current, list_key = [], None, None
    for raw in text.splitlines():
        line = raw.split(" #", 1)[0].rstrip() if not raw.lstrip().startswith("#") else ""
        if not line.strip():
            continue
        stripped = line.lstrip()
        if line.startswith("- "):
            current = {}
            hooks.append(current)
            stripped = line[2:].lstrip()
            list_key = None
        elif stripped.startswith("- ") and list_key is not None:
            current[list_key].append(_scalar(stripped[2:]))
            continue
        key, sep, value = stripped.partition(":")
        assert sep and current is not None, f"unexpected line in {HOOKS.name}: {raw!r}"
        if value.strip():
            current[key.strip()] = _scalar(value)
            list_key = None
        else:
            current[key.strip()] = []
            list_key = key.strip()
    return hooks


def test_parser_on_a_sample():
    sample = "- id: a\n  name: A  # comment\n  types: [python, pyi]\n  args:\n    - --x\n    - '--y'\n  require_serial: false\n"
    assert parse_hooks(sample) == [
        {"id": "a", "name": "A", "types": ["python", "pyi"], "args": ["--x", "--y"], "require_serial": False}
    ]


def _hook() -> dict:
    if not HOOKS.exists():
        pytest.fail(f"{HOOKS} is missing")
    hooks = parse_hooks(HOOKS.read_text(encoding="utf-8"))
    matching = [h for h in hooks if h.get("id") == "devicelint"]
    assert len(matching) == 1, hooks
    return matching[0]


def test_hook_fields():
    hook = _hook()
    assert hook["entry"] == "devicelint"
    assert hook["language"] == "python"
    # python files and notebooks, as Ruff's hook selects them; `types` would demand both tags
    assert hook["types_or"] == ["python", "jupyter"] and "types" not in hook
    assert hook.get("name")
    assert hook.get("pass_filenames", True) is True  # pre-commit passes the staged files


def test_hook_matches_pyyaml_when_available():
    yaml = pytest.importorskip("yaml")
    assert yaml.safe_load(HOOKS.read_text(encoding="utf-8")) == parse_hooks(HOOKS.read_text(encoding="utf-8"))


def test_console_script_is_the_hook_entry():
    """`entry: devicelint` needs a `devicelint` console script in the package."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'devicelint = "devicelint.cli:main"' in text


def _entry() -> list:
    exe = Path(sys.executable).parent / _hook()["entry"]
    if exe.exists():
        return [str(exe)]
    found = shutil.which(_hook()["entry"])
    if found:
        return [found]
    return [sys.executable, "-m", "devicelint"]


def test_entry_with_one_clean_file_exits_0(tmp_path):
    f = tmp_path / "train.py"
    f.write_text(
        "import torch\nimport torch.nn as nn\n\n"
        "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
        "model = nn.Linear(4, 2).to(device)\n"
        "out = model(torch.randn(8, 4, device=device))\n"
    )
    p = subprocess.run(_entry() + ["train.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr


def test_entry_with_staged_files_reports_bug(tmp_path):
    (tmp_path / "ok.py").write_text("print('hello')\n")
    (tmp_path / "bad.py").write_text("import torch\n\nscaler = torch.cuda.amp.GradScaler()\n")
    p = subprocess.run(_entry() + ["ok.py", "bad.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert p.returncode == 1
    assert "bad.py:3:10: DL005" in p.stdout


def _readme_snippet() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("### pre-commit", 1)[1]
    return section.split("```yaml\n", 1)[1].split("```", 1)[0]


def test_readme_snippet_blocks_a_bad_commit_and_passes_a_clean_one(tmp_path):
    """The README's snippet, copied as is, run by pre-commit itself."""
    pytest.importorskip("pre_commit")
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
               PRE_COMMIT_HOME=str(tmp_path / "pc-home"), GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@e",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@e")
    repo = tmp_path / "project"
    repo.mkdir()

    def run(*cmd):
        return subprocess.run(cmd, cwd=repo, env=env, capture_output=True, text=True, timeout=300)

    run("git", "init", "-q")
    (repo / ".pre-commit-config.yaml").write_text(_readme_snippet(), encoding="utf-8")
    (repo / "train.py").write_text(
        "import torch\n\nscaler = torch.cuda.amp.GradScaler()\n", encoding="utf-8")
    (repo / "notes.txt").write_text("not python\n", encoding="utf-8")
    notebook = {"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                           "source": ["import torch\n", "\n", "scaler = torch.cuda.amp.GradScaler()"]}],
                "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (repo / "explore.ipynb").write_text(json.dumps(notebook, indent=1) + "\n", encoding="utf-8")
    run("git", "add", "-A")
    bad = run(sys.executable, "-m", "pre_commit", "run", "--all-files")
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "train.py:3:10: DL005" in bad.stdout
    assert "explore.ipynb:cell 1:3:10: DL005" in bad.stdout  # `types_or: [python, jupyter]`
    (repo / "train.py").write_text(
        "import torch\n\nscaler = torch.amp.GradScaler('cuda')\n", encoding="utf-8")
    (repo / "explore.ipynb").unlink()
    run("git", "add", "-A")
    good = run(sys.executable, "-m", "pre_commit", "run", "--all-files")
    assert good.returncode == 0, good.stdout + good.stderr
    assert "devicelint" in good.stdout and "Passed" in good.stdout
