"""Jupyter notebooks: cells joined with a map back to `cell N:line`, magics masked, bad
notebooks reported as DL000, every output format, noqa, the cache, `--fix` / `--diff`
written back into the JSON, folder discovery and the notebook fixtures."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from devicelint.cli import cli
from devicelint.engine import lint_source
from devicelint.notebook import Notebook, NotebookError, mask
from devicelint.runtime.fixture import parse_header

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
BAD_NOTEBOOKS = sorted(FIXTURES.glob("DL*/bad*.ipynb"))
DL001_NB = FIXTURES / "DL001-model-not-moved" / "bad_4.ipynb"
DL003_NB = FIXTURES / "DL003-numpy-on-cuda" / "bad_4.ipynb"


def md(text):
    return {"cell_type": "markdown", "metadata": {}, "source": text.splitlines(keepends=True)}


def code(text, outputs=(), as_string=False, count=None):
    return {
        "cell_type": "code",
        "execution_count": count,
        "metadata": {"tags": []},
        "outputs": list(outputs),
        "source": text if as_string else text.splitlines(keepends=True),
    }


def notebook(*cells, indent=1, final_newline=True, language="python") -> str:
    nb = {
        "cells": list(cells),
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": language, "name": "python3"},
            "language_info": {"name": language, "version": "3.11.7"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return json.dumps(nb, indent=indent, ensure_ascii=False) + ("\n" if final_newline else "")


SETUP = """\
%matplotlib inline
!pip install -q torch torchvision
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
"""

MODEL = """\
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)


model = Net()
"""

# cell 5 (counting the markdown cells), line 2: `model(x)` at columns 7..15
STEP = """\
x = torch.randn(8, 4, device=device)
out = model(x)
print(out.sum())
"""

TRAIN_NB = notebook(
    md("# Train a tiny model\n\nA tutorial."),
    code(SETUP, [{"name": "stdout", "output_type": "stream", "text": ["Successfully installed torch\n"]}], count=1),
    md("## Model"),
    code(MODEL, count=2),
    code(STEP, [{"name": "stdout", "output_type": "stream", "text": ["tensor(0.1234)\n"]}], count=3),
)


def run(*args, input=None):
    return CliRunner().invoke(cli, [*args, "--no-cache"], input=input, catch_exceptions=False)


# --- the reported bug: a notebook is linted as a notebook -------------------------------


def test_notebook_with_unmoved_model_is_flagged_not_passed(proj):
    (proj / "train.ipynb").write_text(TRAIN_NB)
    r = run("train.ipynb", "--output-format", "concise")
    assert r.exit_code == 1, r.output
    assert "All checks passed!" not in r.output
    assert r.output.splitlines()[0] == (
        "train.ipynb:cell 5:2:7: DL001 [model-not-moved] `model` is called with tensors on the device but is never "
        "moved there; use `model.to(device)`"
    )


# --- masking ----------------------------------------------------------------------------


def _masked(text: str) -> list:
    return mask(text.splitlines(keepends=True))[0]


def test_line_magics_shell_escapes_and_help_are_masked_line_for_line():
    src = "%matplotlib inline\n!pip install -q torch\nfiles = !ls -la\nmodel?\n?torch.randn\ntorch.cuda??\nimport torch\n"
    out = _masked(src)
    assert len(out) == len(src.splitlines())
    assert out[:6] == ["pass\n", "pass\n", "files = ...\n", "pass\n", "pass\n", "pass\n"]
    assert out[6] == "import torch\n"
    compile("".join(out), "<nb>", "exec")


def test_magic_inside_a_block_keeps_the_block_valid():
    out = _masked("for i in range(3):\n    !echo {i}\n    %time x = i\n")
    assert out == ["for i in range(3):\n", "    pass\n", "    pass ;x = i\n"]
    compile("".join(out), "<nb>", "exec")


def test_percent_and_question_inside_strings_and_brackets_are_python():
    src = 'doc = """\n%d items\n!important?\n"""\ntotal = (a\n% b)\nok = x if y else z  # why?\n'
    assert _masked(src) == src.splitlines(keepends=True)


def test_backslash_continued_magic_is_masked_to_its_end():
    out = _masked("!pip install \\\n    torch\nimport torch\n")
    assert out == ["pass\n", "\n", "import torch\n"]


def test_cell_magics():
    # %%bash runs no Python: the whole cell is masked
    assert _masked("%%bash\nnvidia-smi\nif true; then echo x; fi\n") == ["\n", "\n", "\n"]
    # %%time runs its body in the kernel: only the magic line goes
    assert _masked("%%time\nmodel = model.to(device)\n") == ["\n", "model = model.to(device)\n"]


def test_moves_inside_timing_magics_are_seen(proj):
    """`%time` / `%%time` run their statement in the kernel: a model moved there is moved."""
    for move in ("%time model = model.to(device)\n", "%%time\nmodel = model.to(device)\n"):
        nb = notebook(code(SETUP), code(MODEL), code(move), code(STEP))
        assert lint_source(nb, "t.ipynb") == [], move


def test_a_cell_magic_that_hides_the_move_is_not_read_as_python(proj):
    nb = notebook(code(SETUP), code(MODEL), code("%%writefile helper.py\nmodel = model.to(device)\n"), code(STEP))
    assert [(f.code, f.cell) for f in lint_source(nb, "t.ipynb")] == [("DL001", 4)]


# --- positions in every output format ----------------------------------------------------


def test_json_carries_cell_and_cell_relative_positions(proj):
    (proj / "train.ipynb").write_text(TRAIN_NB)
    (proj / "plain.py").write_text(SETUP.split("%")[0] + "import torch\nscaler = torch.cuda.amp.GradScaler()\n")
    data = json.loads(run(".", "--output-format", "json").output)
    by_path = {f["path"]: f for f in data}
    f = by_path["train.ipynb"]
    assert (f["cell"], f["line"], f["column"], f["end_line"], f["end_column"]) == (5, 2, 7, 2, 15)
    assert STEP.splitlines()[f["line"] - 1][f["column"] - 1 : f["end_column"] - 1] == "model(x)"
    assert by_path["plain.py"]["cell"] is None


def test_full_format_shows_the_cell_line(proj):
    (proj / "train.ipynb").write_text(TRAIN_NB)
    out = run("train.ipynb").output
    assert out.startswith("train.ipynb:cell 5:2:7: DL001 [model-not-moved]")
    assert "2 | out = model(x)\n  |       ^^^^^^^^\n" in out


def test_github_and_sarif_carry_the_cell(proj):
    (proj / "train.ipynb").write_text(TRAIN_NB)
    gh = run("train.ipynb", "--output-format", "github").output.strip()
    # a cell-relative line is no line of the .ipynb file: a file annotation that names the cell
    assert gh.startswith("::error title=devicelint (DL001),file=train.ipynb::cell 5:2:7: DL001 [model-not-moved]")
    assert "line=" not in gh
    result = json.loads(run("train.ipynb", "--output-format", "sarif").output)["runs"][0]["results"][0]
    assert result["properties"] == {"cell": 5, "cellLine": 2, "cellColumn": 7}
    assert result["message"]["text"].startswith("cell 5: ")
    # the region is in the .ipynb file's own lines: where its JSON holds that source line
    region = result["locations"][0]["physicalLocation"]["region"]
    json_line = TRAIN_NB.splitlines()[region["startLine"] - 1]
    assert json_line.strip() == '"out = model(x)\\n",'
    assert json_line[region["startColumn"] - 1 : region["endColumn"] - 1] == "model(x)"


def test_findings_sort_by_cell_then_line(proj):
    nb = notebook(code(SETUP), code(MODEL), code("y = model(torch.ones(2, 4, device=device))\n" * 3), code(STEP))
    found = lint_source(nb, "t.ipynb")
    assert [(f.cell, f.line) for f in sorted(found)] == [(3, 1), (3, 2), (3, 3), (4, 2)]


def test_messages_name_other_lines_by_cell(proj):
    nb = notebook(
        code(SETUP),
        code("from torch.utils.data import DataLoader\nloader = DataLoader(list(range(8)), batch_size=4)\n"),
        code("for batch in loader:\n    batch = batch.to(device)\n"),
    )
    (f,) = lint_source(nb, "t.ipynb", select=["DL014"])
    assert (f.cell, f.line) == (3, 2)
    assert "DataLoader in cell 2, line 2" in f.message


# --- bad notebooks ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, name, needle",
    [
        ('{"cells": [\n  {"cell_type": "code",\n', "syntax-error", "invalid JSON"),
        ("", "syntax-error", "invalid JSON"),
        ("[1, 2]", "syntax-error", "not a valid notebook"),
        ('{"metadata": {}, "nbformat": 4}', "syntax-error", "no `cells` list"),
        ('{"cells": {"a": 1}}', "syntax-error", "no `cells` list"),
        ('{"worksheets": [], "nbformat": 3}', "syntax-error", "nbformat 3"),
        ('{"cells": [{"source": "x"}]}', "syntax-error", "cell 1 has no `cell_type`"),
        ('{"cells": [{"cell_type": "code", "source": 3}]}', "syntax-error", "`source` must be a string or a list"),
    ],
)
def test_not_a_notebook_is_dl000_never_all_passed(proj, text, name, needle):
    (proj / "bad.ipynb").write_text(text)
    (proj / "ok.ipynb").write_text(TRAIN_NB)
    r = run(".", "--output-format", "concise")
    assert r.exit_code == 1
    assert "All checks passed!" not in r.output and "Traceback" not in r.output
    (line,) = [ln for ln in r.output.splitlines() if ln.startswith("bad.ipynb:")]
    assert f"DL000 [{name}]" in line and needle in line
    assert any(ln.startswith("ok.ipynb:cell 5:2:7: DL001") for ln in r.output.splitlines())  # the rest goes on


def test_invalid_json_points_at_the_json_line(proj):
    (proj / "bad.ipynb").write_text('{\n "cells": [\n  {"cell_type": "code" "source": []}\n ]\n}\n')
    (f,) = json.loads(run("bad.ipynb", "--output-format", "json").output)
    assert (f["code"], f["line"], f["cell"]) == ("DL000", 3, None)


def test_not_utf8_is_unreadable(proj):
    (proj / "bad.ipynb").write_bytes(b'{"cells": [], "x": "caf\xe9"}')
    (f,) = json.loads(run("bad.ipynb", "--output-format", "json").output)
    assert (f["code"], f["name"]) == ("DL000", "unreadable-file")


def test_syntax_error_is_reported_at_its_cell_and_line(proj):
    nb = notebook(md("# t"), code(SETUP), code("def train(model:\n    pass\n"), code(STEP))
    (proj / "t.ipynb").write_text(nb)
    (f,) = json.loads(run("t.ipynb", "--output-format", "json").output)
    assert (f["code"], f["name"], f["cell"], f["line"]) == ("DL000", "syntax-error", 3, 1)


def test_other_language_and_empty_notebooks_are_clean(proj):
    (proj / "r.ipynb").write_text(notebook(code("library(torch)\nx <- torch_randn(2, 2)$cuda()\n"), language="R"))
    (proj / "empty.ipynb").write_text(notebook())
    (proj / "prose.ipynb").write_text(notebook(md("# only words about torch.cuda")))
    r = run(".", "--output-format", "concise")
    assert (r.exit_code, r.output) == (0, "All checks passed!\n")


def test_notebook_class_rejects_non_notebooks():
    with pytest.raises(NotebookError, match="no `cells` list"):
        Notebook(b'{"nbformat": 4}')


# --- suppressions -------------------------------------------------------------------------


def test_noqa_on_a_cell_line(proj):
    step = STEP.replace("out = model(x)", "out = model(x)  # noqa: DL001")
    assert lint_source(notebook(code(SETUP), code(MODEL), code(step)), "t.ipynb") == []
    other = STEP.replace("out = model(x)", "out = model(x)  # noqa: DL003")
    assert [f.code for f in lint_source(notebook(code(SETUP), code(MODEL), code(other)), "t.ipynb")] == ["DL001"]


# --- discovery ----------------------------------------------------------------------------


def test_folders_include_notebooks_and_skip_checkpoints(proj):
    (proj / "nbs").mkdir()
    (proj / "nbs" / "train.ipynb").write_text(TRAIN_NB)
    (proj / "nbs" / ".ipynb_checkpoints").mkdir()
    (proj / "nbs" / ".ipynb_checkpoints" / "train-checkpoint.ipynb").write_text(TRAIN_NB)
    (proj / "notes.json").write_text(TRAIN_NB)
    data = json.loads(run("--output-format", "json").output)
    assert [(f["path"], f["cell"]) for f in data] == [("nbs/train.ipynb", 5)]


def test_extend_exclude_and_extend_include(proj):
    (proj / "train.ipynb").write_text(TRAIN_NB)
    (proj / "legacy.pyw").write_text("import torch\nscaler = torch.cuda.amp.GradScaler()\n")
    (proj / "pyproject.toml").write_text('[tool.devicelint]\nextend-exclude = ["*.ipynb"]\nextend-include = ["*.pyw"]\n')
    data = json.loads(run("--output-format", "json").output)
    assert [(f["path"], f["code"]) for f in data] == [("legacy.pyw", "DL005")]
    (proj / "pyproject.toml").write_text('[tool.devicelint]\nextend-include = "*.pyw"\n')
    r = run()
    assert r.exit_code == 2 and "`extend-include` must be a list of strings" in r.output


# --- stdin --------------------------------------------------------------------------------


def test_stdin_with_a_notebook_filename(proj):
    r = run("-", "--stdin-filename", "x.ipynb", input=TRAIN_NB)
    assert r.exit_code == 1
    assert r.output.startswith("x.ipynb:cell 5:2:7: DL001")
    assert "2 | out = model(x)" in r.output
    r = run("-", "--stdin-filename", "x.ipynb", "--output-format", "concise", input="print('not json')\n")
    assert r.exit_code == 1 and "x.ipynb:1:1: DL000 [syntax-error] not a valid notebook: invalid JSON" in r.output


# --- cache --------------------------------------------------------------------------------


def test_cache_hit_on_a_notebook(proj):
    (proj / "train.ipynb").write_text(TRAIN_NB)

    def lint():
        r = CliRunner().invoke(cli, ["train.ipynb", "--output-format", "json"], catch_exceptions=False)
        return json.loads(r.output)

    cold = lint()
    (entry,) = sorted((proj / ".devicelint_cache").rglob("*.json"))
    rows = json.loads(entry.read_text())
    assert [(r["cell"], r["line"]) for r in rows] == [(5, 2)]
    rows[0]["message"] = "from the cache"  # a warm run that really reads the entry shows this
    entry.write_text(json.dumps(rows))
    warm = lint()
    assert [(f["path"], f["cell"], f["line"], f["message"]) for f in warm] == [("train.ipynb", 5, 2, "from the cache")]
    assert cold[0]["message"] != "from the cache"
    # the key is the file's content: an edit in an output (not code) is a new entry too
    (proj / "train.ipynb").write_text(TRAIN_NB.replace("tensor(0.1234)", "tensor(0.5)"))
    assert lint()[0]["message"] == cold[0]["message"]


# --- --fix and --diff ---------------------------------------------------------------------

AMP = """\
scaler = torch.cuda.amp.GradScaler()
with torch.cuda.amp.autocast(dtype=torch.float16):
    y = torch.ones(2, device=device)
"""


def _source_spans_removed(text: str) -> str:
    """The notebook text with every cell's `source` value cut out."""
    from devicelint.notebook import _span

    raw = json.loads(text)
    for position in reversed(range(len(raw["cells"]))):
        start, end = _span(text, ("cells", position, "source"))
        text = text[:start] + text[end:]
    return text


@pytest.mark.parametrize("indent, final_newline, as_string", [(1, True, False), (2, False, False), (4, True, True)])
def test_fix_writes_valid_json_and_changes_only_the_edited_source(proj, indent, final_newline, as_string):
    nb = notebook(
        md("# AMP\n\nMixed precision, the old way."),
        code(SETUP, [{"name": "stdout", "output_type": "stream", "text": ["ok\n"]}], count=1),
        code(AMP, [{"data": {"image/png": "iVBORw0KGgo=", "text/plain": ["<Figure>"]}, "metadata": {}, "output_type": "display_data"}], as_string=as_string, count=2),
        code("print('done')  # café", count=3),
        indent=indent,
        final_newline=final_newline,
    )
    path = proj / "amp.ipynb"
    path.write_text(nb, encoding="utf-8")
    r = run("amp.ipynb", "--fix", "--output-format", "concise")
    assert r.exit_code == 0, r.output
    new = path.read_text(encoding="utf-8")
    before, after = json.loads(nb), json.loads(new)
    # only cell 3's source changed, in the same form (list of lines or one string)
    assert [c for i, c in enumerate(after["cells"]) if i != 2] == [c for i, c in enumerate(before["cells"]) if i != 2]
    assert {k: v for k, v in after["cells"][2].items() if k != "source"} == {k: v for k, v in before["cells"][2].items() if k != "source"}
    fixed = after["cells"][2]["source"]
    assert isinstance(fixed, str) == as_string
    assert "".join(fixed) == AMP.replace("torch.cuda.amp.GradScaler()", 'torch.amp.GradScaler("cuda")').replace(
        "torch.cuda.amp.autocast(dtype", 'torch.amp.autocast("cuda", dtype'
    )
    # byte for byte the same outside the sources: indentation, key order, outputs, final newline
    assert _source_spans_removed(new) == _source_spans_removed(nb)
    assert new.endswith("\n") == final_newline
    assert "café" in new  # non-ASCII stays as written


def test_fix_on_the_dl003_fixture_notebook(proj):
    path = proj / "embed.ipynb"
    shutil.copy(DL003_NB, path)
    original = path.read_text(encoding="utf-8")
    r = run("embed.ipynb", "--fix", "--output-format", "concise")
    new = path.read_text(encoding="utf-8")
    assert r.exit_code == 0, r.output
    assert _source_spans_removed(new) == _source_spans_removed(original)
    cells = json.loads(new)["cells"]
    assert "sims_np = sims.cpu().numpy()\n" in cells[8]["source"]
    assert "norms = np.asarray(emb.norm(dim=-1).cpu())\n" in cells[11]["source"]
    # the magics came back as written, not as the `pass` that stood in for them
    assert cells[1]["source"] == json.loads(original)["cells"][1]["source"]
    assert lint_source(new, "embed.ipynb", select=["ALL"]) == []


def test_fix_never_touches_a_notebook_it_cannot_map_back(proj, monkeypatch):
    import devicelint.notebook as nbmod

    path = proj / "amp.ipynb"
    path.write_text(notebook(code(SETUP), code(AMP)))
    monkeypatch.setattr(nbmod.Notebook, "rebuild", lambda self, new: None)
    r = run("amp.ipynb", "--fix", "--output-format", "concise")
    assert r.exit_code == 1 and path.read_text() == notebook(code(SETUP), code(AMP))
    # and says so, never silently
    assert "amp.ipynb:1:1: DL000 [unfixable] not fixed: 2 fixes: the fixed code could not be mapped back into the cells" in r.stderr


def test_rebuild_refuses_edits_to_magic_lines():
    nb = Notebook(notebook(code(SETUP)).encode())
    assert nb.rebuild(nb.source.replace("pass\n", "print()\n", 1)) is None
    assert nb.rebuild(nb.source) == {}


def test_diff_shows_the_cell_source_and_changes_nothing(proj):
    path = proj / "embed.ipynb"
    shutil.copy(DL003_NB, path)
    before = path.read_bytes()
    r = run("embed.ipynb", "--diff")
    assert r.exit_code == 1
    assert path.read_bytes() == before
    assert "--- a/embed.ipynb:cell 9\n+++ b/embed.ipynb:cell 9\n" in r.output
    assert "-sims_np = sims.numpy()\n+sims_np = sims.cpu().numpy()\n" in r.output
    assert "--- a/embed.ipynb:cell 12\n" in r.output
    assert '"source"' not in r.output and "outputs" not in r.output  # the code, not the JSON


# --- the notebook fixtures (the static half of the fixture protocol) ------------------------


def test_there_are_notebook_fixtures_for_dl001_and_dl003():
    assert DL001_NB in BAD_NOTEBOOKS and DL003_NB in BAD_NOTEBOOKS
    for bad in BAD_NOTEBOOKS:
        raw = json.loads(bad.read_text(encoding="utf-8"))
        kinds = {c["cell_type"] for c in raw["cells"]}
        assert kinds == {"markdown", "code"}
        assert any(c.get("outputs") for c in raw["cells"] if c["cell_type"] == "code")
        code_text = "".join("".join(c["source"]) for c in raw["cells"] if c["cell_type"] == "code")
        assert "\n!pip install" in code_text and "%" in code_text
        assert bad.with_name(bad.name.replace("bad", "fixed")).exists()


def test_static_check_names_notebook_places(tmp_path):
    """The shared static check (tests/test_fixtures_static.py and `devicelint verify` run it
    on the notebook fixtures) states notebook places as `cell N:line`."""
    from devicelint.runtime.static import check_bad, check_fixed

    folder = tmp_path / "DL003-numpy-on-cuda"
    folder.mkdir()
    wrong = folder / "bad_4.ipynb"
    wrong.write_text(DL003_NB.read_text(encoding="utf-8").replace("cell 9:5, cell 12:1", "cell 9:4, cell 12:1"), encoding="utf-8")
    assert check_bad(wrong) == [
        "header expects DL003 at cell 9:4, cell 12:1; the linter flags cell 9:5, cell 12:1; missing cell 9:4; unexpected cell 9:5"
    ]
    assert check_fixed(DL003_NB)[0].startswith("flagged at cell 9:5: DL003 ")


def test_runtime_script_is_the_joined_source_line_for_line():
    """The runtime checker runs exactly the joined code the linter reports on, so the line
    it blames and the line the linter flags are comparable."""
    from devicelint.notebook import script
    from devicelint.runtime.runner import flagged_ranges

    text = script(DL001_NB.read_bytes())
    nb = Notebook(DL001_NB.read_bytes())
    compile(text, str(DL001_NB), "exec")
    ranges = flagged_ranges(DL001_NB, "DL001")
    assert [lo for lo, _ in ranges] == [nb.row(9, 8), nb.row(11, 2)]
    assert text.splitlines()[nb.row(9, 8) - 1].strip() == "logits = model(x)"


def test_precommit_entry_lints_a_staged_notebook(tmp_path):
    (tmp_path / "train.ipynb").write_text(TRAIN_NB)
    p = subprocess.run(
        [sys.executable, "-m", "devicelint", "--force-exclude", "--no-cache", "train.ipynb"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )
    assert p.returncode == 1 and "train.ipynb:cell 5:2:7: DL001" in p.stdout


def test_harness_runs_the_code_cells_in_order_with_magics_masked(tmp_path):
    """The runtime half: the simulated device runs the cells as one script, the `%time`
    statement runs, the shell escapes do not, and the failing line maps to its cell."""
    pytest.importorskip("torch")
    from devicelint.runtime.runner import run_script

    path = tmp_path / "probe.ipynb"
    path.write_text(notebook(
        md("# probe"),
        code("!pip install -q torch\n%matplotlib inline\nimport torch\n"),
        code('device = torch.device("cuda" if torch.cuda.is_available() else "cpu")\nx = torch.ones(2, device=device)\n'),
        code("%time y = x * 2\nprint(y.numpy())\n"),
    ))
    run = run_script(path, simulate=True, timeout=120)
    assert run.record is not None, run.problem + run.stderr_tail
    exc = run.record["exception"]
    assert exc["type"] == "TypeError" and "can't convert cuda:0 device type tensor to numpy" in exc["message"]
    assert exc["script_frames"][-1]["line"] == Notebook(path.read_bytes()).row(4, 2)


def test_header_places_in_a_notebook():
    header = parse_header("# devicelint-fixture\n# expect: DL001 at cell 9:8, cell 11:2\n# expect: DL014 at 3\n# runtime: raises RuntimeError: x\n")
    assert header.expect == {"DL001": ((9, 8), (11, 2)), "DL014": (3,)}


def test_automagic_lines_are_masked_only_when_they_are_not_python():
    src = "pip install diffusers torch\ncd data/\ntime = 3\npip -V\nls if ok else other\nrun (a,\n     b)\n"
    out = _masked(src)
    assert out[:2] == ["pass\n", "pass\n"]
    assert out[2:] == src.splitlines(keepends=True)[2:]


def test_cell_magic_after_blank_lines():
    assert _masked("\n%%bash\nnvidia-smi\n") == ["\n", "\n", "\n"]
    assert _masked("\n%%capture\nmodel = model.to(device)\n") == ["\n", "\n", "model = model.to(device)\n"]


def test_json_fix_edits_are_cell_relative_and_give_what_fix_writes(proj):
    """Applying each finding's `fix.edits` to its cell (lines and columns relative to the
    cell) gives the cell source that `--fix` writes into the notebook."""
    path = proj / "embed.ipynb"
    shutil.copy(DL003_NB, path)
    data = json.loads(run("embed.ipynb", "--output-format", "json").output)
    cells = {i + 1: "".join(c["source"]) for i, c in enumerate(json.loads(path.read_text())["cells"])}
    for f in data:
        (edit,) = f["fix"]["edits"]
        lines = cells[f["cell"]].splitlines(keepends=True)
        assert edit["line"] == edit["end_line"] == f["line"]
        line = lines[edit["line"] - 1]
        lines[edit["line"] - 1] = line[: edit["column"] - 1] + edit["content"] + line[edit["end_column"] - 1 :]
        cells[f["cell"]] = "".join(lines)
    run("embed.ipynb", "--fix")
    fixed = {i + 1: "".join(c["source"]) for i, c in enumerate(json.loads(path.read_text())["cells"])}
    assert fixed == cells and len(data) == 2


def test_an_edit_in_another_cell_than_its_finding_names_that_cell(proj):
    """DL001 flags `model(x)` in cell 5 and moves the model where cell 4 builds it: the edit
    is relative to cell 4 and says so (`"cell": 4`); applied there, it is what `--fix --unsafe-fixes` writes."""
    path = proj / "train.ipynb"
    path.write_text(TRAIN_NB)
    [finding] = json.loads(run("train.ipynb", "--output-format", "json").output)
    assert finding["cell"] == 5 and finding["code"] == "DL001"
    [edit] = finding["fix"]["edits"]
    assert edit["cell"] == 4
    cells = {i + 1: "".join(c["source"]) for i, c in enumerate(json.loads(path.read_text())["cells"])}
    lines = cells[4].splitlines(keepends=True)
    start = sum(map(len, lines[: edit["line"] - 1])) + edit["column"] - 1
    end = sum(map(len, lines[: edit["end_line"] - 1])) + edit["end_column"] - 1
    cells[4] = cells[4][:start] + edit["content"] + cells[4][end:]
    run("train.ipynb", "--fix", "--unsafe-fixes")
    fixed = {i + 1: "".join(c["source"]) for i, c in enumerate(json.loads(path.read_text())["cells"])}
    assert fixed == cells and "model = Net().to(device)" in fixed[4]


# --- a course notebook: fixes at cell boundaries, magic lines, broken cells, CRLF -----------

LAB_IMPORTS = """\
%matplotlib inline
!pip install -q torchvision
import torch
import torch.nn as nn
import numpy as np

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
"""

LAB_MODEL = """\
class MLP(nn.Module):
    def __init__(self, hidden=128):
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(784, hidden), nn.ReLU(), nn.Linear(hidden, 10))

    def forward(self, x):
        return self.net(x)


model = MLP().to(device)
"""

# its last line and the eval cell's first line are both fixed: two fixes meet at a boundary
LAB_TRAIN = """\
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
images = torch.randn(64, 1, 28, 28, device=device)
labels = torch.randint(0, 10, (64,), device=device)
for epoch in range(3):
    loss = nn.functional.cross_entropy(model(images), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"epoch {epoch}: loss {loss.item():.3f}")
logits = model(images)
preds = logits.argmax(dim=1).numpy()
"""

LAB_EVAL = """\
accuracy = (logits.argmax(dim=1) == labels).float().mean().numpy()
print(f"accuracy: {accuracy:.2%}")
"""

LAB_TIMED = "%time probs = logits.softmax(dim=1).numpy()\n"


def lab(eval_cell=LAB_EVAL, *extra, crlf=False):
    fix_ends = (lambda s: s.replace("\n", "\r\n")) if crlf else (lambda s: s)
    return notebook(
        md("# Lab 3: an MLP on MNIST\n\nTrain, then evaluate."),
        code(fix_ends(LAB_IMPORTS), [{"name": "stdout", "output_type": "stream", "text": ["Requirement already satisfied\n"]}], count=1),
        md("## The model"),
        code(fix_ends(LAB_MODEL), count=2),
        code(fix_ends(LAB_TRAIN), [{"name": "stdout", "output_type": "stream", "text": ["epoch 0: loss 2.301\n", "epoch 1: loss 2.204\n"]}], count=3),
        code(fix_ends(eval_cell), [{"name": "stdout", "output_type": "stream", "text": ["accuracy: 12.50%\n"]}], count=4),
        *extra,
    )


def _cells(path) -> dict:
    return {i + 1: "".join(c["source"]) for i, c in enumerate(json.loads(path.read_text(encoding="utf-8"))["cells"])}


def test_fixes_meeting_at_a_cell_boundary_are_all_applied(proj):
    path = proj / "lab3.ipynb"
    path.write_text(lab(), encoding="utf-8")
    r = run("lab3.ipynb", "--diff")
    assert r.exit_code == 1
    assert "+preds = logits.argmax(dim=1).cpu().numpy()\n" in r.stdout
    assert "+accuracy = (logits.argmax(dim=1) == labels).float().mean().cpu().numpy()\n" in r.stdout
    r = run("lab3.ipynb", "--fix", "--output-format", "concise")
    assert r.exit_code == 0, r.output
    assert "Fixed 2 findings in lab3.ipynb" in r.stderr and "Found 2 findings (2 fixed, 0 remaining)." in r.stdout
    cells = _cells(path)
    assert cells[5] == LAB_TRAIN.replace(".numpy()", ".cpu().numpy()")
    assert cells[6] == LAB_EVAL.replace(".numpy()", ".cpu().numpy()")
    assert _source_spans_removed(path.read_text(encoding="utf-8")) == _source_spans_removed(lab())


def test_a_fix_on_a_magic_line_is_not_offered_and_the_others_are_applied(proj):
    path = proj / "lab3.ipynb"
    path.write_text(lab(LAB_EVAL + LAB_TIMED), encoding="utf-8")
    r = run("lab3.ipynb", "--output-format", "concise")
    lines = r.stdout.splitlines()
    assert lines[-1] == "Found 3 findings (2 fixable with --fix)."
    assert lines[2].startswith("lab3.ipynb:cell 6:3:15: DL003 [numpy-on-cuda]")  # no [*]
    data = json.loads(run("lab3.ipynb", "--output-format", "json").stdout)
    timed = [f for f in data if (f["cell"], f["line"]) == (6, 3)][0]
    assert timed["fix"] is None and "magic" in timed["help"]
    assert all(f["fix"] is not None for f in data if f is not timed)

    r = run("lab3.ipynb", "--diff")
    assert r.exit_code == 1 and "+preds = logits.argmax(dim=1).cpu().numpy()\n" in r.stdout
    assert "lab3.ipynb:cell 6:3:15: DL000 [unfixable] not fixed: DL003 [numpy-on-cuda]" in r.stderr

    r = run("lab3.ipynb", "--fix", "--unsafe-fixes", "--output-format", "concise")
    assert r.exit_code == 1
    assert "lab3.ipynb:cell 6:3:15: DL000 [unfixable] not fixed: DL003 [numpy-on-cuda]: its edit would change line 3 of cell 6" in r.stderr
    assert "Fixed 2 findings in lab3.ipynb" in r.stderr
    cells = _cells(path)
    assert cells[5].endswith("preds = logits.argmax(dim=1).cpu().numpy()\n")
    assert cells[6] == LAB_EVAL.replace(".numpy()", ".cpu().numpy()") + LAB_TIMED  # the magic as written
    assert [(f.cell, f.line) for f in lint_source(path.read_text(encoding="utf-8"), "lab3.ipynb")] == [(6, 3)]


def test_fix_keeps_crlf_line_ends_of_the_rewritten_lines(proj):
    path = proj / "lab3.ipynb"
    path.write_text(lab('print("evaluating")\n' + LAB_EVAL, crlf=True), encoding="utf-8")  # no boundary here
    r = run("lab3.ipynb", "--fix")
    assert r.exit_code == 0, r.output
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    assert cells[4]["source"][-1] == "preds = logits.argmax(dim=1).cpu().numpy()\r\n"
    assert cells[5]["source"][1] == "accuracy = (logits.argmax(dim=1) == labels).float().mean().cpu().numpy()\r\n"
    assert all(line.endswith("\r\n") for c in cells if c["cell_type"] == "code" for line in c["source"])


# an exercise notebook: blanks to fill in, a bad indent, a wildcard help search
BLANK = "# TODO: build the optimizer\noptimizer = \n"
BAD_INDENT = "def evaluate(model, images):\n  with torch.no_grad():\n      out = model(images)\n    return out\n"


def test_a_cell_that_does_not_parse_is_reported_and_the_others_are_linted(proj):
    (proj / "exercise.ipynb").write_text(lab(LAB_EVAL, code(BLANK), code("torch.*Tensor?\n"), code(BAD_INDENT)), encoding="utf-8")
    r = run("exercise.ipynb", "--output-format", "concise")
    assert r.exit_code == 1
    assert r.stdout.splitlines() == [
        "exercise.ipynb:cell 5:11:9: DL003 [*] [numpy-on-cuda] converting a tensor on the device to NumPy fails; call `.cpu()` first",
        "exercise.ipynb:cell 6:1:12: DL003 [*] [numpy-on-cuda] converting a tensor on the device to NumPy fails; call `.cpu()` first",
        "exercise.ipynb:cell 7:2:13: DL000 [syntax-error] cannot parse: invalid syntax",
        "exercise.ipynb:cell 9:4:15: DL000 [syntax-error] cannot parse: unindent does not match any outer indentation level",
        "Found 4 findings (2 fixable with --fix).",
    ]
    # --fix fixes the cells that parse and leaves the broken ones as they are
    r = run("exercise.ipynb", "--fix")
    cells = _cells(proj / "exercise.ipynb")
    assert ".cpu().numpy()" in cells[5] and ".cpu().numpy()" in cells[6]
    assert (cells[7], cells[8], cells[9]) == (BLANK, "torch.*Tensor?\n", BAD_INDENT)


def test_help_lines_are_masked():
    assert _masked("torch.*Tensor?\nnn.Linear??\n?optimizer.step\nmodel.forward?\n") == ["pass\n"] * 4


def test_diff_says_it_is_no_patch_of_the_notebook(proj):
    path = proj / "lab3.ipynb"
    path.write_text(lab(), encoding="utf-8")
    r = run("lab3.ipynb", "--diff")
    assert r.stdout.startswith("# lab3.ipynb: the changes to its code cells, not a patch of the .ipynb file (git apply cannot take it")
    assert "--- a/lab3.ipynb:cell 5\n" in r.stdout
    assert "not a patch `git apply` takes" in " ".join(CliRunner().invoke(cli, ["--help"]).output.split())
    if shutil.which("git"):  # and it is true: git refuses it, and the notebook is left as it was
        subprocess.run(["git", "init", "-q"], cwd=proj, check=True)
        p = subprocess.run(["git", "apply", "--check"], cwd=proj, input=r.stdout, capture_output=True, text=True)
        assert p.returncode != 0 and path.read_text(encoding="utf-8") == lab()


def test_rebuild_cuts_a_change_across_a_boundary_at_the_cells():
    """A line rewritten at the end of one cell, and the first line of the next rewritten with
    a line inserted before it, make one changed run for difflib (three new lines for two old
    ones): each part goes back to its own cell, the cell boundary where it was."""
    train = "for epoch in range(3):\n    step(model)\nlogits = model(images)\npreds = logits.numpy()\n"
    amp = "scaler = torch.cuda.amp.GradScaler()\nfor images, labels in loader:\n    evaluate(model, images, labels)\n"
    nb = Notebook(notebook(code(LAB_IMPORTS), code(train), code(amp)).encode())
    new = nb.source.replace(
        "preds = logits.numpy()\nscaler = torch.cuda.amp.GradScaler()\n",
        'preds = logits.cpu().numpy()\nmodel = model.to(device)\nscaler = torch.amp.GradScaler("cuda")\n',
    )
    assert new != nb.source
    assert nb.rebuild(new) == {
        1: train.replace("logits.numpy()", "logits.cpu().numpy()"),
        2: 'model = model.to(device)\n' + amp.replace("torch.cuda.amp.GradScaler()", 'torch.amp.GradScaler("cuda")'),
    }


def test_a_move_a_cell_ends_with_is_displayed_not_discarded():
    """`m.to(device)` as a cell's last line shows the moved copy (a tensor tutorial does it on
    purpose): its result is used. The same move followed by more code, or hidden by `;`, is
    thrown away (DL006)."""
    src = notebook(
        code("import torch\nm = torch.arange(6.0).view(2, 3)"),
        code('# Move your tensor to the GPU if there is one\ndevice = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")\nm.to(device)\n'),
        code("# Converts the tensor to a NumPy array\nm_np = m.numpy()\nm_np"),
        code("w = torch.ones(3)\nw.to(device)\nprint(w.sum())"),
        code("b = torch.zeros(2)\nb.to(device);"),
    )
    found = [(f.code, f.cell, f.line) for f in lint_source(src.encode(), "tensor_tutorial.ipynb")]
    assert found == [("DL006", 4, 2), ("DL006", 5, 2)]
