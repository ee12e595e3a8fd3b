"""What a cold lint of one file no longer pays for (issue 21, "One file, fast";
benchmarks/one_file.py measures it): LibCST's `.children` visitor in the inference's walks,
and the summary of the linted file itself when no call site needs it. The findings stay
the same (the cost is what changes)."""

from __future__ import annotations

import libcst as cst

from devicelint import contexts, engine
from devicelint.flow import containers, setup_order
from devicelint.project import FileView

# Methods that set what others read (the setup order), a plain list of layers handed to
# nn.Sequential (the lists handed on), a trainer moved by a later method.
SCRIPT = '''\
import torch
import torch.nn as nn


class Tower(nn.Module):
    def __init__(self, depth):
        super().__init__()
        self.layers = []
        for _ in range(depth):
            self.layers.append(nn.Linear(8, 8))
        self.body = nn.Sequential(*self.layers)

    def forward(self, x):
        return self.body(x)


class Trainer:
    def __init__(self, model):
        self.model = model

    def fit(self, batch):
        out = self.model(batch.to(self.device))
        return out.sum()

    def setup(self):
        self.device = torch.device("cuda")
        self.model = self.model.to(self.device)


def main():
    t = Trainer(Tower(3))
    t.setup()
    print(t.fit(torch.randn(4, 8)))


if __name__ == "__main__":
    main()
'''


def test_the_inference_walks_without_libcsts_children_visitor(monkeypatch, tmp_path):
    """`node.children` runs a LibCST visitor per node: the setup order and the lists a class
    hands on walked every method with it (a sixth of a cold run's CPU)."""
    calls = {"_calls": 0, "_self_attrs": 0}
    for mod, name in ((containers, "_calls"), (setup_order, "_self_attrs")):
        real = getattr(mod, name)

        def counted(*a, _real=real, _name=name):
            calls[_name] += 1
            return _real(*a)

        monkeypatch.setattr(mod, name, counted)
    expected = [(f.code, f.line) for f in engine.lint_source(SCRIPT, str(tmp_path / "train.py"))]

    def no_visitor(self):
        raise AssertionError("LibCST's children visitor ran")

    monkeypatch.setattr(cst.CSTNode, "children", property(no_visitor))
    found = [(f.code, f.line) for f in engine.lint_source(SCRIPT, str(tmp_path / "train.py"))]
    assert found == expected == [("DL007", 26)]
    assert calls["_calls"] >= 2 and calls["_self_attrs"] >= 10  # both walks ran, twice each


def test_no_call_site_means_no_summary_of_the_linted_file(monkeypatch, tmp_path):
    """In a project too large to scan for callers, no parameter gets a context: the file's
    own summary (a second parse, with `ast`) was made for the signatures all the same."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'big'\n")
    for i in range(4):
        (tmp_path / f"util_{i}.py").write_text(f"def helper_{i}(x):\n    return x\n")
    path = tmp_path / "train.py"
    path.write_text(SCRIPT)
    monkeypatch.setattr(contexts, "MAX_FILES", 3)
    view = FileView(str(path))
    found, _module = engine.analyse(SCRIPT, str(path), project=view)
    assert [(f.code, f.line) for f, _r in found] == [("DL007", 26)]
    assert getattr(view, "contexts", None) is not None  # the contexts were asked
    assert str(path) not in view._summaries


def test_val_with_is_dataclasses_replace():
    """Val.with_ skips replace's __init__ (hundreds of calls a file): the same value, equal
    and hashing alike, the original untouched, and an unknown field still a TypeError."""
    import dataclasses

    import pytest

    from devicelint.values import Dev, Kind, Val

    v = Val(Kind.TENSOR, Dev.CPU, loader="train_loader", name="x", parts=(Val(Kind.OTHER),))
    for changes in ({"dev": Dev.ACCEL}, {"grad": True, "name": "y"}, {"born": None, "cond": ("flag", True)}, {}):
        got, want = v.with_(**changes), dataclasses.replace(v, **changes)
        assert type(got) is Val and got == want and hash(got) == hash(want) and vars(got) == vars(want)
        assert got is not v
    assert v.dev is Dev.CPU and v.name == "x"
    with pytest.raises(TypeError):
        v.with_(colour="red")
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.with_(dev=Dev.ACCEL).dev = Dev.CPU


def test_a_pyproject_without_our_table_is_not_parsed(tmp_path):
    """Most projects' pyproject.toml never mentions devicelint: a plain lint reads it, sees
    no `devicelint` in it, and imports no TOML parser; one with the table is still obeyed."""
    import subprocess
    import sys

    (tmp_path / "pyproject.toml").write_text('[project]\nname = "mlp"\n\n[tool.black]\nline-length = 100\n')
    (tmp_path / "train.py").write_text(SCRIPT)
    code = ("import sys\nsys.argv = ['devicelint', '--no-cache', '--output-format', 'concise', 'train.py']\n"
            "from devicelint.cli import main\ntry:\n    main()\nexcept SystemExit as e:\n"
            "    print('exit', e.code, 'tomllib' in sys.modules)\n")

    def run():
        done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300)
        return done.stdout.splitlines()

    out = run()
    assert out[-1] == "exit 1 False" and any("DL007" in line for line in out), out
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "mlp"\n\n[tool.devicelint]\nignore = ["DL007"]\n')
    out = run()
    assert out[-1] == "exit 0 True" and not any("DL007" in line for line in out), out


def test_the_command_ends_without_the_interpreters_teardown(tmp_path):
    """`python -m devicelint FILE` flushes its report and ends there (cli.entry): the
    interpreter's teardown, ~3 % of a cold one-file lint, is skipped, so exit hooks do not
    run; the report and the exit code are whole. With a process pool imported (its hook
    joins the workers) the ordinary exit runs."""
    import json
    import subprocess
    import sys

    (tmp_path / "train.py").write_text(SCRIPT)
    code = ("import atexit, sys\natexit.register(lambda: print('teardown', file=sys.stderr))\n{pre}"
            "sys.argv = ['devicelint', '--no-cache', '--output-format', 'json', 'train.py']\n"
            "from devicelint.cli import entry\nentry()\n")

    def run(pre=""):
        return subprocess.run([sys.executable, "-c", code.format(pre=pre)], cwd=tmp_path, capture_output=True,
                              text=True, timeout=300)

    done = run()
    assert done.returncode == 1 and "teardown" not in done.stderr, done.stderr
    assert any(f["code"] == "DL007" for f in json.loads(done.stdout))
    pooled = run("import concurrent.futures.process\n")
    assert pooled.returncode == 1 and "teardown" in pooled.stderr and pooled.stdout == done.stdout


def test_a_pyproject_that_only_lists_devicelint_is_not_parsed(tmp_path):
    """A project that lists devicelint (a dependency, a script, a comment) without our table:
    no TOML parser is imported; every spelling TOML has for [tool.devicelint] is still found."""
    import subprocess
    import sys

    from devicelint import config

    listed = ('[project]\nname = "mlp"\ndependencies = ["torch"]\n\n[project.optional-dependencies]\n'
              'dev = ["devicelint>=0.1", "pytest"]  # devicelint checks the training scripts\n\n'
              '[project.scripts]\ndevicelint-all = "mlp.tools:lint"\n\n'
              '[tool.poetry.group.dev.dependencies]\ndevicelint = "^0.1"\n\n[tool.black]\nline-length = 100\n')
    (tmp_path / "pyproject.toml").write_text(listed)
    (tmp_path / "train.py").write_text(SCRIPT)
    code = ("import sys\nfrom devicelint import config\n"
            "print(config.find_pyproject('train.py'), 'tomllib' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.stdout.split() == ["None", "False"], done.stdout + done.stderr
    tables = [
        '[tool.devicelint]\nignore = ["DL007"]\n',
        '[ tool . "devicelint" ]\nignore = ["DL007"]\n',
        "['tool'.devicelint.per-file-ignores]\n\"a.py\" = [\"DL007\"]\n",
        '[tool]\ndevicelint = { ignore = ["DL007"] }\n',
        '[ "tool" ]  # ours\ndevicelint.ignore = ["DL007"]\n',
        'tool.devicelint.ignore = ["DL007"]\n',
        'tool = { devicelint = { ignore = ["DL007"] } }\n',
        '[tool."\\u0064evicelint"]\nignore = ["DL007"]\n# devicelint\n',
        '[tool.isort]\r\nprofile = "black"\r\n[tool.devicelint]\r\nignore = ["DL007"]\r\n',
    ]
    for table in tables:
        # a root key (`tool.devicelint... = `, `tool = {...}`) comes before the first header
        both = table + "\n" + listed if table.startswith("tool") else listed + "\n" + table
        if table.startswith("tool = "):  # an inline table is whole: no [tool.*] header after it
            both = table + '[project]\nname = "mlp"\ndependencies = ["devicelint"]\n'
        (tmp_path / "pyproject.toml").write_bytes(both.encode())
        assert config.find_pyproject(str(tmp_path / "train.py")) == str(tmp_path / "pyproject.toml"), table
        assert config.load(str(tmp_path / "pyproject.toml")).ignore or \
            config.load(str(tmp_path / "pyproject.toml")).per_file_ignores, table
