"""The command line (DESIGN.md section 2): options, output formats, exit codes, config,
suppressions and file discovery. Most tests drive click's CliRunner in-process; a few run
`python -m devicelint` and the `devicelint` console script in a subprocess."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from devicelint import __version__
from devicelint.cli import cli
from devicelint.rules import ALL_RULES

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
CORPUS = ROOT / "tests" / "corpus"
# every registered rule, in code order (the mission five first, then DL006+)
CODES = [r.code for r in ALL_RULES]
assert CODES[:5] == ["DL001", "DL002", "DL003", "DL004", "DL005"]

# A small training script: the model is never moved, the batch is. DL001 on line 19
# (`model(x)`, columns 7..15 1-based, end exclusive).
TRAIN = '''\
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)


model = Net()
x = torch.randn(8, 4)
x = x.to(device)
out = model(x)
print(out.sum().item())
'''
TRAIN_LINE = 19

# DL005 (line 6) and DL001 (line 9) in one file.
MIXED = '''\
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(4, 2)
scaler = torch.cuda.amp.GradScaler()
x = torch.randn(8, 4)
x = x.to(device)
out = model(x)
'''

CLEAN = '''\
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(4, 2).to(device)
x = torch.randn(8, 4, device=device)
out = model(x)
print(out.detach().cpu().numpy())
'''


def run(*args, input=None):
    return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)


def findings(result):
    assert result.stdout.lstrip().startswith("["), result.stdout
    return json.loads(result.stdout)


def paths(result) -> list:
    """Finding paths, normalised (`./a.py` and `a.py` are the same file), sorted."""
    return sorted(os.path.normpath(f["path"]) for f in findings(result))


def codes_lines(result):
    return sorted((f["code"], f["line"]) for f in findings(result))


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# --- paths -----------------------------------------------------------------------------


def test_default_path_is_current_folder(proj):
    write(proj / "train.py", TRAIN)
    write(proj / "pkg" / "mixed.py", MIXED)
    r = run("--output-format", "json")
    assert r.exit_code == 1
    got = sorted((os.path.normpath(f["path"]), f["code"], f["line"]) for f in findings(r))
    assert got == [
        (os.path.join("pkg", "mixed.py"), "DL001", 9),
        (os.path.join("pkg", "mixed.py"), "DL005", 6),
        ("train.py", "DL001", TRAIN_LINE),
    ]


def test_folder_argument(proj):
    write(proj / "src" / "a.py", TRAIN)
    write(proj / "src" / "deep" / "b.py", CLEAN)
    write(proj / "other.py", TRAIN)  # not under src: not linted
    r = run("src", "--output-format", "json")
    assert r.exit_code == 1
    assert [f["path"] for f in findings(r)] == [os.path.join("src", "a.py")]


def test_several_paths(proj):
    write(proj / "a.py", TRAIN)
    write(proj / "b" / "m.py", MIXED)
    write(proj / "c.py", CLEAN)
    r = run("a.py", "b", "c.py", "--output-format", "json")
    assert r.exit_code == 1
    assert sorted({f["path"] for f in findings(r)}) == sorted(["a.py", os.path.join("b", "m.py")])


def test_clean_file_exit_zero_and_summary(proj):
    write(proj / "ok.py", CLEAN)
    r = run("ok.py")
    assert r.exit_code == 0
    assert "All checks passed!" in r.stdout


def test_stdin_with_filename(proj):
    r = run("-", "--stdin-filename", "snippet.py", "--output-format", "json", input=TRAIN)
    assert r.exit_code == 1
    (f,) = findings(r)
    assert (f["path"], f["line"], f["code"]) == ("snippet.py", TRAIN_LINE, "DL001")


def test_stdin_default_name_and_full_source_line(proj):
    r = run("-", input=TRAIN)
    assert r.exit_code == 1
    assert f"<stdin>:{TRAIN_LINE}:7: DL001" in r.stdout
    assert "out = model(x)" in r.stdout  # full format shows stdin source too


def test_stdin_clean(proj):
    r = run("-", input=CLEAN)
    assert r.exit_code == 0


# --- rule selection --------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, want",
    [
        ([], {"DL001", "DL005"}),
        (["--select", "DL005"], {"DL005"}),
        (["--select", "DL001,DL005"], {"DL001", "DL005"}),
        (["--select", "DL001", "--select", "DL005"], {"DL001", "DL005"}),
        (["--select", "dl00"], {"DL001", "DL005"}),  # prefix, case-insensitive
        (["--select", "ALL"], {"DL001", "DL005"}),
        (["--select", "DL002,DL003"], set()),
        (["--ignore", "DL001"], {"DL005"}),
        (["--ignore", "DL001,DL005"], set()),
        (["--ignore", "DL001", "--ignore", "DL005"], set()),
        (["--ignore", "DL00"], set()),
        (["--select", "DL005", "--extend-select", "DL001"], {"DL001", "DL005"}),
        (["--extend-select", "DL001"], {"DL001", "DL005"}),
        (["--select", "DL00", "--ignore", "DL005"], {"DL001"}),
    ],
)
def test_select_ignore(proj, args, want):
    write(proj / "m.py", MIXED)
    r = run("m.py", "--output-format", "json", *args)
    assert {f["code"] for f in findings(r)} == want
    assert r.exit_code == (1 if want else 0)


@pytest.mark.parametrize("option", ["--select", "--ignore", "--extend-select"])
def test_unknown_code_is_usage_error(proj, option):
    write(proj / "m.py", MIXED)
    r = run("m.py", option, "DL001,DL999")
    assert r.exit_code == 2
    assert "DL999" in r.stderr
    assert "Traceback" not in r.output


# --- output formats --------------------------------------------------------------------


def test_full_format_shows_source_and_carets(proj):
    write(proj / "train.py", TRAIN)
    r = run("train.py")  # full is the default
    assert r.exit_code == 1
    lines = r.stdout.splitlines()
    head = f"train.py:{TRAIN_LINE}:7: DL001 [model-not-moved] "
    i = next(i for i, line in enumerate(lines) if line.startswith(head))
    assert lines[i + 2] == f"{TRAIN_LINE} | out = model(x)"
    caret_line = lines[i + 3]
    assert caret_line.endswith("      ^^^^^^^^")  # under `model(x)`: 6 spaces, 8 carets
    assert caret_line.index("^") == lines[i + 2].index("model(x)")
    assert "Found 1 finding (1 fixable with --fix --unsafe-fixes)." in r.stdout
    r2 = run("train.py", "--output-format", "full")
    assert r2.stdout == r.stdout


def test_concise_one_line_per_finding(proj):
    write(proj / "m.py", MIXED)
    r = run("m.py", "--output-format", "concise")
    assert r.exit_code == 1
    lines = r.stdout.splitlines()
    assert lines[:2] == [
        # DL005 here is spelled through `torch`: `--fix` rewrites it, hence the `[*]`
        "m.py:6:10: DL005 [*] [deprecated-cuda-amp] " + lines[0].split("] ", 2)[2],
        "m.py:9:7: DL001 [model-not-moved] " + lines[1].split("] ", 1)[1],
    ]
    assert lines[2:] == ["Found 2 findings (1 fixable with --fix, 1 more with --unsafe-fixes)."]
    assert "|" not in r.stdout  # no source excerpt


def test_json_exact_values(proj):
    write(proj / "train.py", TRAIN)
    r = run("train.py", "--output-format", "json")
    assert r.exit_code == 1
    data = findings(r)
    assert isinstance(data, list) and len(data) == 1
    f = data[0]
    assert set(f) >= {"path", "line", "column", "end_line", "end_column", "code", "name", "message", "fix"}
    assert f["path"] == "train.py"
    assert (f["line"], f["column"], f["end_line"], f["end_column"]) == (TRAIN_LINE, 7, TRAIN_LINE, 15)
    assert (f["code"], f["name"]) == ("DL001", "model-not-moved")
    assert "model" in f["message"] and "never moved" in f["message"]
    # DL001's unsafe fix: `.to(device)` after `Net()` on line 16 (columns of `Net()`)
    assert f["fix"]["applicability"] == "unsafe"
    [edit] = f["fix"]["edits"]
    assert (edit["line"], edit["column"], edit["end_line"], edit["end_column"]) == (16, 9, 16, 14)
    assert edit["content"] == "Net().to(device)"
    # the 1-based columns point at `model(x)` in the source line
    src_line = TRAIN.splitlines()[f["line"] - 1]
    assert src_line[f["column"] - 1 : f["end_column"] - 1] == "model(x)"


def test_json_clean_is_empty_array(proj):
    write(proj / "ok.py", CLEAN)
    r = run("ok.py", "--output-format", "json")
    assert r.exit_code == 0
    assert json.loads(r.stdout) == []


def test_json_path_as_given(proj):
    write(proj / "sub" / "train.py", TRAIN)
    r = run("./sub/train.py", "--output-format", "json")
    assert findings(r)[0]["path"] == "./sub/train.py"


def test_github_format(proj):
    write(proj / "m.py", MIXED)
    r = run("m.py", "--output-format", "github")
    assert r.exit_code == 1
    lines = r.stdout.splitlines()
    assert len(lines) == 2
    for line, (code, ln, col) in zip(lines, [("DL005", 6, 10), ("DL001", 9, 7)]):
        assert line.startswith("::error ")
        assert "file=m.py," in line
        assert f"line={ln}," in line and f"col={col}," in line
        assert f"::{code} [" in line


def test_sarif_format(proj):
    write(proj / "m.py", MIXED)
    r = run("m.py", "--output-format", "sarif")
    assert r.exit_code == 1
    doc = json.loads(r.stdout)
    assert doc["version"] == "2.1.0"
    run0 = doc["runs"][0]
    assert run0["tool"]["driver"]["name"] == "devicelint"
    assert {rule["id"] for rule in run0["tool"]["driver"]["rules"]} >= set(CODES)
    got = sorted(
        (res["ruleId"], res["locations"][0]["physicalLocation"]["region"]["startLine"]) for res in run0["results"]
    )
    assert got == [("DL001", 9), ("DL005", 6)]
    uris = {res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for res in run0["results"]}
    assert uris == {"m.py"}


def test_sarif_clean_has_empty_results(proj):
    write(proj / "ok.py", CLEAN)
    r = run("ok.py", "--output-format", "sarif")
    assert r.exit_code == 0
    assert json.loads(r.stdout)["runs"][0]["results"] == []


def test_unknown_output_format_is_usage_error(proj):
    write(proj / "ok.py", CLEAN)
    r = run("ok.py", "--output-format", "xml")
    assert r.exit_code == 2


# --- exit codes and statistics ---------------------------------------------------------


def test_exit_zero(proj):
    write(proj / "train.py", TRAIN)
    r = run("train.py", "--exit-zero", "--output-format", "json")
    assert r.exit_code == 0
    assert len(findings(r)) == 1  # still reported


def test_statistics_text(proj):
    write(proj / "a.py", MIXED)
    write(proj / "b.py", TRAIN)
    r = run("a.py", "b.py", "--statistics")
    assert r.exit_code == 1
    *rows, total = r.stdout.splitlines()
    rows = [line.split("\t") for line in rows]
    # like Ruff: count, code, `[*] ` when every finding of the rule is fixable, name
    assert [(int(n), c, name) for n, c, name in rows] == [(2, "DL001", "    model-not-moved (2 fixable with --unsafe-fixes)"),
                                                          (1, "DL005", "[*] deprecated-cuda-amp")]
    assert total == "Found 3 findings (1 fixable with --fix, 2 more with --unsafe-fixes)."


def test_statistics_json(proj):
    write(proj / "a.py", MIXED)
    write(proj / "b.py", TRAIN)
    r = run("a.py", "b.py", "--statistics", "--output-format", "json")
    assert r.exit_code == 1
    assert json.loads(r.stdout) == [
        {"code": "DL001", "name": "model-not-moved", "count": 2, "fixable": False, "fixable_count": 0, "unsafe_fixable_count": 2},
        {"code": "DL005", "name": "deprecated-cuda-amp", "count": 1, "fixable": True, "fixable_count": 1, "unsafe_fixable_count": 0},
    ]


def test_statistics_clean(proj):
    write(proj / "ok.py", CLEAN)
    r = run("ok.py", "--statistics", "--output-format", "json")
    assert r.exit_code == 0
    assert json.loads(r.stdout) == []


def test_unknown_option_is_usage_error(proj):
    r = run("--no-such-option")
    assert r.exit_code == 2


# --- rules, explain, version -----------------------------------------------------------


FIXABLE = ["DL001", "DL002", "DL003", "DL004", "DL005", "DL006", "DL007", "DL008", "DL009", "DL010", "DL011", "DL014", "DL015"]
UNSAFE = {"DL001", "DL002", "DL004", "DL007", "DL008", "DL011", "DL015"}  # rules with unsafe fixes (`--unsafe-fixes`)


def test_rules_text():
    r = run("rules")
    assert r.exit_code == 0
    for code in CODES:
        assert any(line.startswith(code) for line in r.stdout.splitlines()), code
    assert "model-not-moved" in r.stdout
    fixable = sorted(line.split()[0] for line in r.stdout.splitlines() if line.split()[1] == "[*]")
    assert fixable == FIXABLE
    for line in r.stdout.splitlines():
        code = line.split()[0]
        if code in FIXABLE:
            assert ("unsafe" in line.rsplit("(fix:", 1)[1]) is (code in UNSAFE), line
        else:
            assert "(fix:" not in line, line


def test_rules_json():
    r = run("rules", "--output-format", "json")
    assert r.exit_code == 0
    data = json.loads(r.stdout)
    assert [d["code"] for d in data] == CODES
    for d in data:
        assert isinstance(d["name"], str) and d["name"]
        assert isinstance(d["default"], bool)
        assert isinstance(d["summary"], str) and d["summary"]
        assert d["fixable"] is (d["code"] in FIXABLE)
        assert ("unsafe" in d["fix_applicability"]) is (d["code"] in UNSAFE)
        assert bool(d["fix_applicability"]) is d["fixable"]
    assert data[0]["name"] == "model-not-moved"


def test_explain_subcommand():
    r = run("explain", "DL003")
    assert r.exit_code == 0
    assert r.stdout.startswith("# DL003 numpy-on-cuda")
    assert ".cpu()" in r.stdout


def test_explain_option_and_lowercase():
    r = run("--explain", "DL003")
    assert r.exit_code == 0
    assert r.stdout == run("explain", "DL003").stdout
    assert run("explain", "dl003").stdout == r.stdout


def test_explain_json():
    r = run("explain", "DL001", "--output-format", "json")
    assert r.exit_code == 0
    d = json.loads(r.stdout)
    assert (d["code"], d["name"]) == ("DL001", "model-not-moved")
    assert "## Use instead" in d["explanation"]


@pytest.mark.parametrize("args", [["explain", "DL999"], ["--explain", "DL999"], ["explain", "DL000"]])
def test_explain_unknown_code(args):
    r = run(*args)
    assert r.exit_code == 2
    assert args[-1] in r.stderr
    assert "Traceback" not in r.output


def test_version():
    r = run("--version")
    assert r.exit_code == 0
    assert __version__ in r.stdout and "devicelint" in r.stdout


def test_help():
    r = run("--help")
    assert r.exit_code == 0
    assert "rules" in r.stdout and "explain" in r.stdout


# --- parallelism -----------------------------------------------------------------------


def test_jobs_1_and_2_identical(tmp_path, monkeypatch):
    # enough files to use the process pool (lint.POOL_THRESHOLD); the smallest ones, for speed
    files = sorted(list(FIXTURES.glob("DL*/*.py")) + list(CORPUS.glob("*.py")), key=lambda p: (p.stat().st_size, p.name))[:34]
    assert len(files) > 30
    for src in files:
        shutil.copy(src, tmp_path / f"{src.parent.name}__{src.name}")
    monkeypatch.chdir(tmp_path)
    one = run(".", "--jobs", "1", "--output-format", "json")
    two = run(".", "--jobs", "2", "--output-format", "json")
    assert one.exit_code == two.exit_code == 1
    assert one.stdout == two.stdout
    assert len({f["path"] for f in findings(one)}) >= 5


def test_jobs_zero_is_usage_error(proj):
    write(proj / "ok.py", CLEAN)
    assert run("ok.py", "--jobs", "0").exit_code == 2


# --- configuration ---------------------------------------------------------------------


def pyproject(folder: Path, body: str) -> Path:
    return write(folder / "pyproject.toml", "[project]\nname = 'demo'\n\n[tool.devicelint]\n" + body)


def test_config_found_upwards_from_linted_path(tmp_path, monkeypatch):
    pyproject(tmp_path / "repo", 'ignore = ["DL001"]\n')
    write(tmp_path / "repo" / "src" / "pkg" / "m.py", MIXED)
    monkeypatch.chdir(tmp_path)  # the config is not in the working directory
    r = run("repo/src/pkg", "--output-format", "json")
    assert {f["code"] for f in findings(r)} == {"DL005"}
    r = run("repo/src/pkg/m.py", "--output-format", "json")
    assert {f["code"] for f in findings(r)} == {"DL005"}


def test_pyproject_without_table_is_skipped(tmp_path, monkeypatch):
    pyproject(tmp_path, 'select = ["DL005"]\n')
    write(tmp_path / "inner" / "pyproject.toml", "[project]\nname = 'inner'\n")
    write(tmp_path / "inner" / "m.py", MIXED)
    monkeypatch.chdir(tmp_path)
    r = run("inner", "--output-format", "json")
    assert {f["code"] for f in findings(r)} == {"DL005"}


def test_config_select(proj):
    pyproject(proj, 'select = ["DL005"]\n')
    write(proj / "m.py", MIXED)
    assert {f["code"] for f in findings(run("--output-format", "json"))} == {"DL005"}
    # the command line wins over the config
    assert {f["code"] for f in findings(run("--select", "DL001", "--output-format", "json"))} == {"DL001"}


def test_config_ignore_adds_to_cli_ignore(proj):
    pyproject(proj, 'ignore = ["DL005"]\n')
    write(proj / "m.py", MIXED)
    assert {f["code"] for f in findings(run("--output-format", "json"))} == {"DL001"}
    r = run("--ignore", "DL001", "--output-format", "json")
    assert findings(r) == [] and r.exit_code == 0


def test_config_extend_select(proj):
    pyproject(proj, 'select = ["DL005"]\nextend-select = ["DL001"]\n')
    write(proj / "m.py", MIXED)
    assert {f["code"] for f in findings(run("--output-format", "json"))} == {"DL001", "DL005"}


def test_config_extend_exclude(proj):
    pyproject(proj, 'extend-exclude = ["generated", "legacy_*.py", "scripts/old"]\n')
    write(proj / "keep.py", TRAIN)
    write(proj / "generated" / "g.py", TRAIN)
    write(proj / "legacy_train.py", TRAIN)
    write(proj / "scripts" / "old" / "s.py", TRAIN)
    write(proj / "scripts" / "new" / "s.py", TRAIN)
    write(proj / "build" / "b.py", TRAIN)  # default excludes still apply
    r = run("--output-format", "json")
    assert paths(r) == sorted(["keep.py", os.path.join("scripts", "new", "s.py")])


def test_config_extend_exclude_relative_to_config_root(proj):
    """A path pattern in the config is relative to the config's folder, also when a
    subfolder is linted."""
    pyproject(proj, 'extend-exclude = ["scripts/old"]\n')
    write(proj / "scripts" / "old" / "s.py", TRAIN)
    write(proj / "scripts" / "new" / "s.py", TRAIN)
    r = run("scripts", "--output-format", "json")
    assert [f["path"] for f in findings(r)] == [os.path.join("scripts", "new", "s.py")]


def test_config_exclude_replaces_defaults(proj):
    pyproject(proj, 'exclude = ["third_party", "skip_me.py"]\n')
    write(proj / "third_party" / "t.py", TRAIN)
    write(proj / "build" / "b.py", TRAIN)  # no longer excluded: exclude replaces the defaults
    write(proj / "skip_me.py", TRAIN)
    write(proj / "keep.py", TRAIN)
    r = run("--output-format", "json")
    assert paths(r) == sorted([os.path.join("build", "b.py"), "keep.py"])


def test_explicit_file_is_linted_even_if_excluded(proj):
    pyproject(proj, 'extend-exclude = ["generated"]\n')
    write(proj / "generated" / "g.py", TRAIN)
    r = run("generated/g.py", "--output-format", "json")
    assert len(findings(r)) == 1


def test_config_per_file_ignores(proj):
    pyproject(proj, '[tool.devicelint.per-file-ignores]\n"tests/*" = ["DL001"]\n"amp_*.py" = ["DL005"]\n')
    write(proj / "tests" / "t.py", MIXED)
    write(proj / "amp_m.py", MIXED)
    write(proj / "main.py", MIXED)
    r = run("--output-format", "json")
    got = sorted((os.path.normpath(f["path"]), f["code"]) for f in findings(r))
    assert got == sorted(
        [
            ("amp_m.py", "DL001"),
            ("main.py", "DL001"),
            ("main.py", "DL005"),
            (os.path.join("tests", "t.py"), "DL005"),
        ]
    )
    # also when only the subfolder is linted: patterns are relative to the config file
    r = run("tests", "--output-format", "json")
    assert [(f["code"]) for f in findings(r)] == ["DL005"]


def test_config_unknown_key(proj):
    pyproject(proj, 'selct = ["DL001"]\n')
    write(proj / "m.py", MIXED)
    r = run()
    assert r.exit_code == 2
    assert "selct" in r.stderr
    assert "Traceback" not in r.output


@pytest.mark.parametrize(
    "body, named",
    [
        ('select = ["DL999"]\n', "DL999"),
        ('ignore = ["XX1"]\n', "XX1"),
        ('extend-select = ["DL6"]\n', "DL6"),
        ('[tool.devicelint.per-file-ignores]\n"a.py" = ["DL123"]\n', "DL123"),
    ],
)
def test_config_unknown_code(proj, body, named):
    pyproject(proj, body)
    write(proj / "m.py", MIXED)
    r = run()
    assert r.exit_code == 2
    assert named in r.stderr


def test_config_wrong_type(proj):
    pyproject(proj, 'select = "DL001"\n')
    write(proj / "m.py", MIXED)
    r = run()
    assert r.exit_code == 2
    assert "select" in r.stderr


def test_config_invalid_toml_found_upwards(proj):
    write(proj / "pyproject.toml", '[tool.devicelint]\nselect = ["DL001"\n')
    write(proj / "m.py", MIXED)
    r = run()
    assert r.exit_code == 2
    assert "invalid TOML" in r.stderr
    assert "Traceback" not in r.output


def test_config_option_file(proj):
    write(proj / "m.py", MIXED)
    write(proj / "cfg" / "devicelint.toml", 'select = ["DL005"]\n')  # a bare table
    r = run("--config", "cfg/devicelint.toml", "m.py", "--output-format", "json")
    assert {f["code"] for f in findings(r)} == {"DL005"}
    write(proj / "cfg" / "pyproject.toml", '[tool.devicelint]\nignore = ["DL005"]\n')
    r = run("--config", "cfg/pyproject.toml", "m.py", "--output-format", "json")
    assert {f["code"] for f in findings(r)} == {"DL001"}


def test_config_option_overrides_discovered(proj):
    pyproject(proj, 'select = ["DL001"]\n')
    write(proj / "other.toml", 'select = ["DL005"]\n')
    write(proj / "m.py", MIXED)
    r = run("--config", "other.toml", "--output-format", "json")
    assert {f["code"] for f in findings(r)} == {"DL005"}


@pytest.mark.parametrize(
    "text, needle",
    [(None, "cannot read"), ("select = [\n", "invalid TOML"), ("colour = 1\n", "colour"), ('select = ["DLX"]\n', "DLX")],
)
def test_config_option_errors(proj, text, needle):
    write(proj / "m.py", MIXED)
    if text is not None:
        write(proj / "c.toml", text)
    r = run("--config", "c.toml", "m.py")
    assert r.exit_code == 2
    assert needle in r.stderr
    assert "Traceback" not in r.output


# --- suppressions ----------------------------------------------------------------------

HEAD = '''\
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(4, 2)
x = torch.randn(8, 4, device=device)
'''


@pytest.mark.parametrize(
    "lines, flagged",
    [
        (["out = model(x)"], True),
        (["out = model(x)  # noqa: DL001"], False),
        (["out = model(x)  # noqa"], False),
        (["out = model(x)  # NOQA:dl001"], False),
        (["out = model(x)  # noqa: DL002"], True),
        (["out = model(x)  # noqa: DL002,DL003"], True),
        (["out = model(x)  # noqa: DL003, DL001"], False),
        (["out = model(x)  # noqa: DL003 DL001"], False),
        (["out = model(x)  # noqa: DL001 model is moved by accelerate.prepare"], False),
        (["out = model(x)  # noqa: DL00"], False),
        (["out = model(x)  # devicelint: ignore[DL001]"], False),
        (["out = model(x)  # devicelint: ignore[DL005]"], True),
        (["out = model(x)  # devicelint: ignore"], False),
        (["# devicelint: ignore", "out = model(x)"], False),
        (["# devicelint: ignore[DL001]", "out = model(x)"], False),
        (["# noqa: DL001", "out = model(x)"], False),
        (["# devicelint: ignore[DL004]", "out = model(x)"], True),
        (["y = 1  # noqa: DL001", "out = model(x)"], True),  # a trailing comment covers its own line only
        (["# devicelint: ignore", "", "out = model(x)"], True),  # not two lines above
        (["out = model(", "    x,", ")  # noqa: DL001"], False),  # on the statement's last line
    ],
)
def test_suppression(proj, lines, flagged):
    write(proj / "s.py", HEAD + "\n".join(lines) + "\n")
    r = run("s.py", "--output-format", "json")
    got = findings(r)
    assert [f["code"] for f in got] == (["DL001"] if flagged else [])
    assert r.exit_code == (1 if flagged else 0)


def test_ignore_file(proj):
    write(proj / "a.py", "# devicelint: ignore-file\n" + MIXED)
    write(proj / "b.py", MIXED + "# devicelint: ignore-file  (generated)\n")
    write(proj / "c.py", MIXED)
    r = run("--output-format", "json")
    assert set(paths(r)) == {"c.py"}


# --- discovery -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "folder", [".git", ".venv", "venv", "__pycache__", "build", "dist", "site-packages", "demo.egg-info", ".tox", "node_modules"]
)
def test_default_excluded_folders(proj, folder):
    write(proj / folder / "bad.py", TRAIN)
    write(proj / "pkg" / folder / "bad.py", TRAIN)
    write(proj / "real.py", TRAIN)
    r = run("--output-format", "json")
    assert paths(r) == ["real.py"]


def test_named_excluded_folder_is_still_walked(proj):
    write(proj / "build" / "b.py", TRAIN)
    r = run("build", "--output-format", "json")
    assert [f["path"] for f in findings(r)] == [os.path.join("build", "b.py")]


def test_folder_named_like_a_python_file_is_walked(proj):
    write(proj / "x.py" / "inner.py", TRAIN)
    r = run("--output-format", "json")
    assert paths(r) == [os.path.join("x.py", "inner.py")]
    r = run("x.py", "--output-format", "json")
    assert paths(r) == [os.path.join("x.py", "inner.py")]
    assert all(f["code"] != "DL000" for f in findings(r))


def test_only_python_files_are_linted(proj):
    write(proj / "notes.txt", TRAIN)
    write(proj / "script", TRAIN)
    write(proj / "stub.pyi", TRAIN)
    write(proj / "run.py", TRAIN)
    r = run("--output-format", "json")
    assert paths(r) == ["run.py", "stub.pyi"]


def test_symlinked_file_linted_once(proj):
    write(proj / "a.py", TRAIN)
    (proj / "b.py").symlink_to(proj / "a.py")
    r = run("--output-format", "json")
    assert len(findings(r)) == 1


# --- subprocess: the real entry points -------------------------------------------------


def _env():
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    return env


def test_python_dash_m(tmp_path):
    write(tmp_path / "train.py", TRAIN)
    p = subprocess.run(
        [sys.executable, "-m", "devicelint", "train.py", "--output-format", "json"],
        cwd=tmp_path, capture_output=True, text=True, env=_env(), timeout=120,
    )
    assert p.returncode == 1, p.stderr
    (f,) = json.loads(p.stdout)
    assert (f["path"], f["line"], f["column"], f["code"]) == ("train.py", TRAIN_LINE, 7, "DL001")
    assert p.stderr == ""


def test_python_dash_m_stdin_and_usage_error(tmp_path):
    p = subprocess.run(
        [sys.executable, "-m", "devicelint", "-", "--stdin-filename", "nb.py", "--output-format", "concise"],
        cwd=tmp_path, input=MIXED, capture_output=True, text=True, env=_env(), timeout=120,
    )
    assert p.returncode == 1
    assert p.stdout.splitlines()[0].startswith("nb.py:6:10: DL005")
    p = subprocess.run(
        [sys.executable, "-m", "devicelint", "--select", "DL777", "."],
        cwd=tmp_path, capture_output=True, text=True, env=_env(), timeout=120,
    )
    assert p.returncode == 2
    assert "DL777" in p.stderr and "Traceback" not in p.stderr


def _script():
    exe = Path(sys.executable).parent / "devicelint"
    if exe.exists():
        return str(exe)
    found = shutil.which("devicelint")
    if not found:
        pytest.skip("the devicelint console script is not installed")
    return found


def test_console_script(tmp_path):
    write(tmp_path / "ok.py", CLEAN)
    write(tmp_path / "bad.py", TRAIN)
    exe = _script()
    p = subprocess.run([exe, "ok.py"], cwd=tmp_path, capture_output=True, text=True, env=_env(), timeout=120)
    assert p.returncode == 0, p.stderr
    assert "All checks passed!" in p.stdout
    p = subprocess.run([exe], cwd=tmp_path, capture_output=True, text=True, env=_env(), timeout=120)
    assert p.returncode == 1
    assert f"bad.py:{TRAIN_LINE}:7: DL001" in p.stdout
    p = subprocess.run([exe, "--version"], capture_output=True, text=True, env=_env(), timeout=120)
    assert p.returncode == 0 and __version__ in p.stdout
    p = subprocess.run([exe, "rules", "--output-format", "json"], capture_output=True, text=True, env=_env(), timeout=120)
    assert [d["code"] for d in json.loads(p.stdout)] == CODES


def test_console_script_exit_zero_and_explain(tmp_path):
    write(tmp_path / "bad.py", TRAIN)
    exe = _script()
    p = subprocess.run([exe, "--exit-zero", "bad.py"], cwd=tmp_path, capture_output=True, text=True, env=_env(), timeout=120)
    assert p.returncode == 0 and "DL001" in p.stdout
    p = subprocess.run([exe, "explain", "DL404"], capture_output=True, text=True, env=_env(), timeout=120)
    assert p.returncode == 2 and "DL404" in p.stderr and "Traceback" not in p.stderr
