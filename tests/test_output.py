"""What users see, Ruff-style: `[*]` on findings `--fix` edits and the closing line, the JSON
fix object (and its agreement with what `--fix` really writes), colour, `--statistics`,
`--fix -` for editors, the no-files warning, config errors, `--help`, syntax-error
positions and the progress line."""

from __future__ import annotations

import io
import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from test_cli import write

from devicelint.cli import cli
from devicelint.engine import lint_source
from devicelint.fix import fix_source
from devicelint.term import Progress, use_color

ROOT = Path(__file__).resolve().parent.parent

# An evaluation script with two fixable findings (DL003 `.numpy()` on line 10, DL005 spelled
# through `torch` on line 11), one DL003 that has no automatic fix (a list of tensors, line
# 12) and one DL006 that has no automatic fix (a subscript receiver, line 13).
EVAL = '''\
import numpy as np
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(4, 2).to(device)
x = torch.randn(8, 4, device=device)
with torch.no_grad():
    logits = model(x)
preds = logits.argmax(dim=1).numpy()
scaler = torch.cuda.amp.GradScaler()
stacked = np.array([logits, logits])
x[0].cpu()
'''
EVAL_FIXED = EVAL.replace("argmax(dim=1).numpy()", "argmax(dim=1).cpu().numpy()").replace(
    "torch.cuda.amp.GradScaler()", 'torch.amp.GradScaler("cuda")'
)

CLEAN = '''\
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 2).to(device)
print(model(torch.randn(8, 4, device=device)).detach().cpu().numpy())
'''

ANSI = re.compile(r"\x1b\[[0-9;]*m")
PLAIN_ENV = {"NO_COLOR": None, "FORCE_COLOR": None, "DEVICELINT_PROGRESS": None}


def run(*args, input=None, env=None):
    return CliRunner().invoke(cli, list(args), input=input, env={**PLAIN_ENV, **(env or {})}, catch_exceptions=False)


# --- 1. fixable marks, the closing line, the JSON fix object -----------------------------


@pytest.mark.parametrize("fmt", ["full", "concise"])
def test_fixable_findings_marked_and_counted(proj, fmt):
    write(proj / "eval.py", EVAL)
    r = run("eval.py", "--output-format", fmt)
    assert r.exit_code == 1
    heads = [line for line in r.stdout.splitlines() if line.startswith("eval.py:")]
    marked = {line.split(":")[1]: "[*]" in line for line in heads}
    assert marked == {"10": True, "11": True, "12": False, "13": False}
    assert "eval.py:10:9: DL003 [*] [numpy-on-cuda] " in r.stdout
    assert r.stdout.splitlines()[-1] == "Found 4 findings (2 fixable with --fix)."


def test_closing_line_singular_and_without_fixable(proj):
    write(proj / "one.py", EVAL.replace("x[0].cpu()\n", "").replace("stacked = np.array([logits, logits])\n", "")
          .replace("scaler = torch.cuda.amp.GradScaler()\n", ""))
    assert run("one.py").stdout.splitlines()[-1] == "Found 1 finding (1 fixable with --fix)."
    write(proj / "unfixable.py", EVAL.replace("argmax(dim=1).numpy()", "argmax(dim=1).cpu().numpy()")
          .replace("torch.cuda.amp.GradScaler()", 'torch.amp.GradScaler("cuda")'))
    r = run("unfixable.py", "--output-format", "concise")
    assert r.stdout.splitlines()[-1] == "Found 2 findings."
    assert "[*]" not in r.stdout
    write(proj / "ok.py", CLEAN)
    assert run("ok.py").stdout == "All checks passed!\n"


def test_json_fix_object_only_where_fix_edits(proj):
    write(proj / "eval.py", EVAL)
    data = json.loads(run("eval.py", "--output-format", "json").stdout)
    fixes = {(f["code"], f["line"]): f["fix"] for f in data}
    assert fixes[("DL003", 12)] is None  # a list of tensors: `--fix` leaves it alone
    assert fixes[("DL006", 13)] is None
    assert fixes[("DL003", 10)] == {
        "applicability": "safe",
        "message": "insert `.cpu()` before the conversion",
        "edits": [{"line": 10, "column": 9, "end_line": 10, "end_column": 37,
                   "content": "logits.argmax(dim=1).cpu().numpy()"}],
    }
    dl005 = fixes[("DL005", 11)]
    assert dl005["applicability"] == "safe" and dl005["edits"][0]["content"] == 'torch.amp.GradScaler("cuda")'
    # unfixable findings keep their advice, outside `fix`
    assert next(f for f in data if f["code"] == "DL006")["help"].startswith("assign the result")


def apply_edits(source: str, findings) -> str:
    """Apply the JSON edits the way an editor would: by line and 1-based column."""
    lines = source.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    edits = sorted((e for f in findings if f.fix for e in f.fix["edits"]),
                   key=lambda e: (e["line"], e["column"]), reverse=True)
    for e in edits:
        lo = starts[e["line"] - 1] + e["column"] - 1
        hi = starts[e["end_line"] - 1] + e["end_column"] - 1
        source = source[:lo] + e["content"] + source[hi:]
    return source


def test_json_edits_are_what_fix_writes():
    assert apply_edits(EVAL, lint_source(EVAL, "eval.py")) == EVAL_FIXED
    assert fix_source(EVAL.encode(), "eval.py")[0].decode() == EVAL_FIXED


def test_edit_from_the_node_equals_the_edit_from_a_rewrite():
    """The cheap path (the node's own text) and the exact one (a whole-module rewrite, which
    gives the smallest changed span) make the same change, also for a call spread over
    lines and a file starting with a byte-order mark."""
    import libcst as cst

    from devicelint.edits import FixBuilder
    from devicelint.engine import analyse

    for source in (EVAL, "\ufeffimport torch\nscaler = torch.cuda.amp.GradScaler(\n    init_scale=2.0 ** 16,\n)\n"):
        pairs, module = analyse(source.encode("utf-8"), "m.py")
        builder = FixBuilder(module, source)
        checked = 0
        for finding, report in pairs:
            if finding.fix:
                node = report.edit_node or report.node
                slow = builder._by_rewrite(node, report.edit, report.fix, "safe")
                text = source.lstrip("\ufeff")
                assert apply_edits(text, [finding]) == apply_edits(text, [replace(finding, fix=slow)]) != text
                checked += 1
        assert checked
    assert isinstance(module, cst.Module)


SAMPLES = sorted(ROOT.glob("fixtures/DL00[35]*/*.py")) + sorted(ROOT.glob("tests/corpus/dl00[35]*.py"))


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fix_field_agrees_with_fix(path):
    """On every DL003/DL005 fixture and corpus file: `--fix` removes exactly the findings
    whose `fix` is not null and leaves those whose `fix` is null, and its result is what
    applying their edits gives (when the edits do not overlap)."""
    source = path.read_bytes()
    codes = ("DL003", "DL005")
    before = [f for f in lint_source(source, str(path), select=["ALL"]) if f.code in codes]
    fixed, _count = fix_source(source, str(path), ["ALL"])
    after = [f for f in lint_source(fixed, str(path), select=["ALL"]) if f.code in codes]
    assert sorted((f.code, f.line, f.message) for f in after) == sorted(
        (f.code, f.line, f.message) for f in before if f.fix is None
    )
    assert all(f.fix is None for f in after)
    fixable = [f for f in before if f.fix]
    if not fixable:
        assert fixed == source
        return
    spans = sorted((e["line"], e["column"], e["end_line"], e["end_column"]) for f in fixable for e in f.fix["edits"])
    if not any((a[2], a[3]) > (b[0], b[1]) for a, b in zip(spans, spans[1:])):
        assert apply_edits(source.decode("utf-8"), fixable).encode("utf-8") == fixed


# --- 2. colour ---------------------------------------------------------------------------


def test_no_colour_when_piped(proj):
    write(proj / "eval.py", EVAL)
    assert not ANSI.search(run("eval.py").stdout)  # CliRunner's stdout is not a terminal


def test_force_color_colours_even_when_piped(proj):
    write(proj / "eval.py", EVAL)
    out = run("eval.py", env={"FORCE_COLOR": "1"}).stdout
    # Ruff's styles: bold path, cyan separators, bold red code, cyan `*`
    assert "\x1b[1meval.py\x1b[0m\x1b[36m:\x1b[0m10\x1b[36m:\x1b[0m9" in out
    assert "\x1b[31m\x1b[1mDL003\x1b[0m [\x1b[36m*\x1b[0m] [numpy-on-cuda]" in out
    assert ANSI.sub("", out) == run("eval.py").stdout  # the same text underneath
    assert ANSI.search(run("eval.py", "--output-format", "concise", env={"FORCE_COLOR": "1"}).stdout)
    assert not ANSI.search(run("eval.py", "--output-format", "json", env={"FORCE_COLOR": "1"}).stdout)


@pytest.mark.parametrize("value", ["1", "", "false"])
def test_no_color_wins_whatever_its_value(proj, value):
    write(proj / "eval.py", EVAL)
    assert not ANSI.search(run("eval.py", env={"NO_COLOR": value, "FORCE_COLOR": "1"}).stdout)


class FakeTTY(io.StringIO):
    def isatty(self):
        return True


def test_colour_decision(monkeypatch):
    for name in ("NO_COLOR", "FORCE_COLOR"):
        monkeypatch.delenv(name, raising=False)
    assert use_color(FakeTTY()) is True
    assert use_color(io.StringIO()) is False
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert use_color(io.StringIO()) is True
    monkeypatch.setenv("NO_COLOR", "1")
    assert use_color(FakeTTY()) is False


# --- 3. statistics -----------------------------------------------------------------------


def test_statistics_total_line_and_json(proj):
    write(proj / "eval.py", EVAL)
    r = run("eval.py", "--statistics")
    assert r.stdout.splitlines() == [
        "2\tDL003\t[-] numpy-on-cuda",  # one of the two is fixable
        "1\tDL005\t[*] deprecated-cuda-amp",
        "1\tDL006\t    discarded-to",
        "Found 4 findings (2 fixable with --fix).",
    ]
    data = json.loads(run("eval.py", "--statistics", "--output-format", "json").stdout)
    assert data == [
        {"code": "DL003", "name": "numpy-on-cuda", "count": 2, "fixable": False, "fixable_count": 1, "unsafe_fixable_count": 0},
        {"code": "DL005", "name": "deprecated-cuda-amp", "count": 1, "fixable": True, "fixable_count": 1, "unsafe_fixable_count": 0},
        {"code": "DL006", "name": "discarded-to", "count": 1, "fixable": False, "fixable_count": 0, "unsafe_fixable_count": 0},
    ]


# --- 4. `--fix -` for editors ------------------------------------------------------------


def test_fix_stdin_prints_the_fixed_source(proj):
    r = run("--fix", "-", "--stdin-filename", "eval.py", input=EVAL)
    assert r.stdout == EVAL_FIXED  # nothing else on stdout: an editor replaces its buffer with it
    assert r.exit_code == 1  # findings remain
    # what is left goes to stderr, like `ruff check --fix -`
    assert "eval.py:12:11: DL003 [numpy-on-cuda]" in r.stderr and "eval.py:13:1: DL006" in r.stderr
    assert "eval.py:10:" not in r.stderr
    assert "Found 4 findings (2 fixed, 2 remaining)." in r.stderr


def test_fix_files_closing_line(proj):
    write(proj / "eval.py", EVAL)
    r = run("eval.py", "--fix", "--output-format", "concise")
    assert (proj / "eval.py").read_text() == EVAL_FIXED
    assert r.exit_code == 1
    assert r.stdout.splitlines()[-1] == "Found 4 findings (2 fixed, 2 remaining)."
    assert "[*]" not in r.stdout  # what is left has no automatic fix


def test_fix_stdin_clean_and_nothing_to_fix(proj):
    r = run("--fix", "-", input=EVAL_FIXED.replace("stacked = np.array([logits, logits])\n", "").replace("x[0].cpu()\n", ""))
    assert r.exit_code == 0
    assert r.stdout == EVAL_FIXED.replace("stacked = np.array([logits, logits])\n", "").replace("x[0].cpu()\n", "")
    r = run("--fix", "-", "--output-format", "json", input=CLEAN)
    assert r.stdout == CLEAN and json.loads(r.stderr) == []


def test_diff_stdin_still_a_diff(proj):
    r = run("--diff", "-", "--stdin-filename", "eval.py", input=EVAL)
    assert r.exit_code == 1
    assert r.stdout.startswith("--- a/eval.py\n+++ b/eval.py\n")
    assert "\n-preds = logits.argmax(dim=1).numpy()\n" in r.stdout
    assert "\n+preds = logits.argmax(dim=1).cpu().numpy()\n" in r.stdout


# --- 5. no files ------------------------------------------------------------------------


def test_warning_when_no_python_file(proj):
    (proj / "docs").mkdir()
    write(proj / "docs" / "notes.txt", "torch\n")
    r = run("docs")
    assert r.exit_code == 0
    assert r.stderr == "warning: No Python files found under the given path(s)\n"
    assert r.stdout == "All checks passed!\n"
    write(proj / "docs" / "a.py", CLEAN)
    assert "warning" not in run("docs").stderr


# --- 6. configuration -------------------------------------------------------------------


def test_every_unknown_key_named_with_a_suggestion(proj):
    write(proj / "pyproject.toml", '[tool.devicelint]\nselct = ["DL001"]\nextend_exclude = ["x"]\nbanana = 1\n')
    write(proj / "a.py", CLEAN)
    r = run("a.py")
    assert r.exit_code == 2
    err = r.stderr
    assert "`selct` (did you mean `select`?)" in err
    assert "`extend_exclude` (did you mean `extend-exclude`?)" in err
    assert "`banana`" in err and "`banana` (did you mean" not in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in r.output


def test_exclude_keeps_vcs_and_virtualenvs_skipped(proj):
    write(proj / "pyproject.toml", '[tool.devicelint]\nexclude = ["generated"]\n')
    bad = "import torch\nx = torch.randn(3).cuda()\nprint(x.numpy())\n"
    for folder in (".git/hooks", ".venv/lib", "site-packages/pkg", "env311/lib", "generated", "build", "src"):
        write(proj / folder / "m.py", bad)
    write(proj / "env311" / "pyvenv.cfg", "home = /usr/bin\n")  # a virtualenv with any name
    r = run("--output-format", "json")
    got = sorted({Path(f["path"]).parts[0] for f in json.loads(r.stdout)})
    assert got == ["build", "src"]  # `exclude` replaced the default `build` skip, not these


# --- 7. --help --------------------------------------------------------------------------


def test_help_lists_the_commands():
    for flag in ("--help", "-h"):
        r = run(flag)
        assert r.exit_code == 0
        assert "Usage: devicelint check" not in r.stdout
        assert r.stdout.startswith("Usage: devicelint [OPTIONS] [PATHS]...")
        commands = r.stdout.split("Commands:")[1].split("\n\n")[0]
        assert [line.split()[0] for line in commands.strip().splitlines()] == ["check", "clean", "explain", "rules", "server", "verify"]
        assert "--select" in r.stdout and "--output-format" in r.stdout
    r = run("check", "--help")
    assert r.exit_code == 0 and r.stdout.startswith("Usage: devicelint check [OPTIONS] [PATHS]...")


# --- 8. syntax errors -------------------------------------------------------------------


@pytest.mark.parametrize(
    "source",
    [
        "import torch\nx = (1,\ny = 2 +\n",
        "import torch\ndef f(:\n    pass\n",
        "import torch\nx = 1\n    y = 2\n",
        "import torch\nfor i in range(3)\n    print(i)\n",
        "import torch\nprint('unterminated)\n",
    ],
)
def test_syntax_error_has_one_position(proj, source):
    write(proj / "broken.py", source)
    (f,) = json.loads(run("broken.py", "--output-format", "json").stdout)
    assert f["code"] == "DL000" and f["name"] == "syntax-error"
    try:
        compile(source, "broken.py", "exec")
    except SyntaxError as e:
        assert (f["line"], f["column"]) == (e.lineno, e.offset)  # CPython's, 1-based
    assert not re.search(r"\d+:\d+", f["message"])  # no second position to disagree with
    head = run("broken.py", "--output-format", "concise").stdout.splitlines()[0]
    assert head.startswith(f"broken.py:{f['line']}:{f['column']}: DL000 ")


# --- 9. progress ------------------------------------------------------------------------


def test_no_progress_when_stderr_is_not_a_terminal(proj):
    for i in range(3):
        write(proj / f"m{i}.py", EVAL)
    r = run(".", "--jobs", "1")
    assert "devicelint: " not in r.stderr and "\r" not in r.stderr


def test_progress_forced_for_tests(proj):
    for i in range(3):
        write(proj / f"m{i}.py", EVAL)
    r = run(".", "--jobs", "1", "--output-format", "json", env={"DEVICELINT_PROGRESS": "always"})
    assert "\rdevicelint: 3/3 files, 12 findings" in r.stderr
    assert r.stderr.endswith("\r")  # erased at the end: the results are not interleaved with it
    assert len(json.loads(r.stdout)) == 12


def test_progress_waits_a_second_on_a_terminal(monkeypatch):
    monkeypatch.delenv("DEVICELINT_PROGRESS", raising=False)
    clock = [100.0]
    monkeypatch.setattr("devicelint.term.time.monotonic", lambda: clock[0])
    tty = FakeTTY()
    p = Progress(4, tty)
    p.advance(1)
    assert tty.getvalue() == ""  # a short run stays silent
    clock[0] += 1.5
    p.advance(0)
    assert tty.getvalue() == "\rdevicelint: 2/4 files, 1 finding"
    p.close()
    assert tty.getvalue().endswith("\r" + " " * len("devicelint: 2/4 files, 1 finding") + "\r")
    piped = io.StringIO()
    q = Progress(4, piped)
    clock[0] += 5
    q.advance(3)
    q.close()
    assert piped.getvalue() == ""


# --- SARIF: URIs a viewer can open, notebook regions in the .ipynb's own lines -----------------


def _sarif_results(*args):
    r = CliRunner().invoke(cli, [*args, "--no-cache", "--output-format", "sarif"])
    return json.loads(r.stdout)["runs"][0]["results"]


def _where(result):
    location = result["locations"][0]["physicalLocation"]
    return location["artifactLocation"]["uri"], location.get("region")


def test_sarif_uris_are_percent_encoded_and_notebook_regions_are_json_lines(proj):
    from test_notebook import LAB_EVAL, LAB_TIMED, lab

    folder = proj / "week 3"
    folder.mkdir()
    text = lab(LAB_EVAL + LAB_TIMED)
    (folder / "lab 3.ipynb").write_text(text, encoding="utf-8")
    (folder / "eval script.py").write_text(EVAL)
    results = _sarif_results("week 3")
    by_uri = {}
    for res in results:
        by_uri.setdefault(_where(res)[0], []).append(res)
    assert set(by_uri) == {"week%203/eval%20script.py", "week%203/lab%203.ipynb"}
    json_lines = text.splitlines()
    for res in by_uri["week%203/lab%203.ipynb"]:
        _uri, region = _where(res)
        props = res["properties"]
        cell_line = "".join(json.loads(text)["cells"][props["cell"] - 1]["source"]).splitlines()[props["cellLine"] - 1]
        # the region is the JSON line holding that cell line, the columns those of the flagged code
        shown = json_lines[region["startLine"] - 1][region["startColumn"] - 1 : region["endColumn"] - 1]
        assert shown.endswith(".numpy()") and shown in cell_line
        assert shown == cell_line[props["cellColumn"] - 1 : props["cellColumn"] - 1 + len(shown)]
    assert sorted((r["properties"]["cell"], r["properties"]["cellLine"]) for r in by_uri["week%203/lab%203.ipynb"]) == [
        (5, 11), (6, 1), (6, 3)]
    # an absolute path is a file: URI
    (absolute,) = {_where(r)[0] for r in _sarif_results(str(folder / "lab 3.ipynb"))}
    assert absolute == (folder / "lab 3.ipynb").as_uri() and absolute.startswith("file:///") and " " not in absolute


def test_sarif_notebook_without_a_line_layout_is_the_whole_file(proj):
    from test_notebook import LAB_EVAL, code, md, notebook

    # each cell's source one JSON string: a cell's line is no line of the file
    (proj / "eval.ipynb").write_text(notebook(md("# eval"), code(
        'import torch\ndevice = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n'
        "logits = torch.randn(4, 3, device=device)\nlabels = torch.zeros(4, device=device)\n" + LAB_EVAL, as_string=True)))
    (res,) = _sarif_results("eval.ipynb")
    assert _where(res) == ("eval.ipynb", None)
    assert res["properties"] == {"cell": 2, "cellLine": 5, "cellColumn": 12}


# --- doc truth: `explain`'s Fix safety and the README's fix table say the same true thing ------

DICT_BATCH = '''\
import torch
from torch.utils.data import DataLoader


def collate(items):
    return {"pixels": torch.stack([i[0] for i in items]), "label": torch.tensor([i[1] for i in items])}


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(64, 10)).to(device)
criterion = torch.nn.CrossEntropyLoss()
loader = DataLoader([(torch.randn(8, 8), i % 10) for i in range(32)], batch_size=8, collate_fn=collate)
for batch in loader:
    pixels = batch["pixels"].to(device)
    loss = criterion(model(pixels), batch["label"])
    loss.backward()
'''


def _fix_table() -> dict:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return {code: (what, applicability.strip()) for code, what, applicability in
            re.findall(r"^\| (DL\d{3}) \| (.*) \| ((?:safe|unsafe)[^|]*) \|$", readme, re.M)}


def test_explain_dl002_fix_safety_agrees_with_the_readme_fix_table():
    table = _fix_table()
    text = CliRunner().invoke(cli, ["explain", "DL002"]).output
    safety = text.split("## Fix safety", 1)[1]
    what, applicability = table["DL002"]
    # the README says dict batches are fixed; so does explain, and it is true
    assert 'batch["label"] = batch["label"].to(device)' in what
    assert 'batch["label"] = batch["label"].to(device)' in " ".join(safety.split())
    assert "dict batches" not in safety
    fixed, count = fix_source(DICT_BATCH.encode(), "train.py", ["DL002"], unsafe=True)
    assert count == 1 and '    batch["label"] = batch["label"].to(device)\n' in fixed.decode()
    assert applicability == "unsafe" and "Unsafe (`--unsafe-fixes`)" in safety
    assert fix_source(DICT_BATCH.encode(), "train.py", ["DL002"]) == (DICT_BATCH.encode(), 0)


def test_every_fix_table_row_names_the_applicability_the_rule_has():
    from devicelint.rules import BY_CODE

    table = _fix_table()
    assert len(table) >= 10
    for code, (_what, applicability) in table.items():
        said = {"safe", "unsafe"} & set(re.findall(r"\b(?:un)?safe\b", applicability))
        assert said == set(BY_CODE[code].fix_applicability), code
