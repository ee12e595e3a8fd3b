"""`--write-baseline` / `--baseline`: accept today's findings, report only new ones."""

import json

from click.testing import CliRunner

from devicelint.cli import cli

TRAIN = '''\
import numpy as np
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 2).to(device)


def predict(x):
    with torch.no_grad():
        logits = model(x.to(device))
    preds = logits.argmax(dim=1).numpy()
    probs = np.asarray(logits.softmax(-1))
    return preds, probs
'''


def run(*args):
    return CliRunner().invoke(cli, [*args, "--no-cache"], catch_exceptions=False)


def lines(path):
    return path.read_text().splitlines(keepends=True)


def setup(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "train.py").write_text(TRAIN)
    r = run("src", "--write-baseline", "baseline.json")
    assert r.exit_code == 0, r.output
    assert "Wrote 2 findings to the baseline baseline.json." in r.output
    return tmp_path / "src" / "train.py"


def test_written_file_format(tmp_path, monkeypatch):
    setup(tmp_path, monkeypatch)
    data = json.loads((tmp_path / "baseline.json").read_text())
    assert data["devicelint_baseline"] == 1
    assert [(e["path"], e["code"], e["name"], e["text"], e["count"]) for e in data["findings"]] == [
        ("src/train.py", "DL003", "numpy-on-cuda", "preds = logits.argmax(dim=1).numpy()", 1),
        ("src/train.py", "DL003", "numpy-on-cuda", "probs = np.asarray(logits.softmax(-1))", 1),
    ]
    assert all(len(e["context"]) == 12 for e in data["findings"])
    assert "line" not in data["findings"][0]  # line numbers are not part of the key


def test_baselined_findings_are_not_reported(tmp_path, monkeypatch):
    setup(tmp_path, monkeypatch)
    r = run("src", "--baseline", "baseline.json")
    assert r.exit_code == 0 and "All checks passed!" in r.output
    # from another folder, the paths still match (they are relative to the baseline file)
    monkeypatch.chdir(tmp_path / "src")
    r = run("train.py", "--baseline", "../baseline.json")
    assert r.exit_code == 0, r.output


def test_edits_above_and_beside_do_not_resurrect(tmp_path, monkeypatch):
    path = setup(tmp_path, monkeypatch)
    text = lines(path)
    text[1:1] = ["import os\n", "import sys\n", "\n", "LOG_EVERY = 10\n"]  # everything shifts down
    text = [t.replace("    preds = logits.argmax(dim=1).numpy()", "    preds   =  logits.argmax(dim=1).numpy()") for t in text]
    text = [t.replace("    return preds, probs", "    return probs, preds") for t in text]  # a neighbour changes
    path.write_text("".join(text))
    r = run("src", "--baseline", "baseline.json", "--output-format", "concise")
    assert r.exit_code == 0, r.output


def test_a_changed_flagged_line_and_a_new_copy_are_reported(tmp_path, monkeypatch):
    path = setup(tmp_path, monkeypatch)
    text = lines(path)
    i = text.index("    probs = np.asarray(logits.softmax(-1))\n")
    text[i] = "    probs = np.asarray(logits.softmax(dim=-1))\n"
    text.insert(i + 1, "    again = logits.argmax(dim=1).numpy()\n")
    text.insert(i + 1, "    preds = logits.argmax(dim=1).numpy()\n")  # the same text as a baselined one
    path.write_text("".join(text))
    r = run("src", "--baseline", "baseline.json", "--output-format", "concise")
    assert r.exit_code == 1
    flagged = sorted(line.split(":")[1] for line in r.output.splitlines() if line.startswith("src/train.py:"))
    assert flagged == ["12", "13", "14"]  # the changed line and both new lines; line 11 is baselined


def test_stale_entries_counted_with_statistics(tmp_path, monkeypatch):
    path = setup(tmp_path, monkeypatch)
    path.write_text(TRAIN.replace("argmax(dim=1).numpy()", "argmax(dim=1).cpu().numpy()"))
    r = run("src", "--baseline", "baseline.json", "--statistics")
    assert r.exit_code == 0
    assert "1 stale baseline entry: fixed or changed since the baseline was written" in r.output
    path.write_text("import torch\n")
    r = run("src", "--baseline", "baseline.json", "--statistics")
    assert "2 stale baseline entries" in r.output
    # entries of files not linted in this run are not stale
    (tmp_path / "other.py").write_text("import torch\n")
    r = run("other.py", "--baseline", "baseline.json", "--statistics")
    assert "stale" not in r.output


def test_bad_baseline_files_are_errors(tmp_path, monkeypatch):
    setup(tmp_path, monkeypatch)
    r = run("src", "--baseline", "missing.json")
    assert r.exit_code == 2 and "cannot read baseline missing.json" in r.output
    (tmp_path / "bad.json").write_text("{not json")
    r = run("src", "--baseline", "bad.json")
    assert r.exit_code == 2 and "not valid JSON" in r.output
    (tmp_path / "other.json").write_text('{"version": 3}')
    r = run("src", "--baseline", "other.json")
    assert r.exit_code == 2 and "not a devicelint baseline" in r.output


def test_syntax_errors_are_never_baselined(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "broken.py").write_text("import torch\ndef f(:\n")
    assert run("broken.py", "--write-baseline", "b.json").exit_code == 0
    assert json.loads((tmp_path / "b.json").read_text())["findings"] == []
    r = run("broken.py", "--baseline", "b.json")
    assert r.exit_code == 1 and "DL000" in r.output


def test_add_noqa_with_a_baseline_silences_only_new_findings(tmp_path, monkeypatch):
    path = setup(tmp_path, monkeypatch)
    path.write_text(TRAIN.replace("    return preds, probs", "    extra = logits.numpy()\n    return preds, probs"))
    r = run("src", "--baseline", "baseline.json", "--add-noqa")
    assert r.exit_code == 0 and "Added 1 noqa directive." in r.output
    text = path.read_text()
    assert "    extra = logits.numpy()  # noqa: DL003\n" in text
    assert text.count("# noqa") == 1


# --- notebooks: keyed on the cell's flagged line, never on the cell's number -----------------


def test_notebook_findings_are_keyed_on_their_cell_lines(tmp_path, monkeypatch):
    from test_notebook import LAB_EVAL, code, lab, md

    monkeypatch.chdir(tmp_path)
    nbs = tmp_path / "notebooks"
    nbs.mkdir()
    path = nbs / "lab3.ipynb"
    path.write_text(lab(), encoding="utf-8")
    r = run(".", "--write-baseline", "baseline.json")
    assert "Wrote 2 findings to the baseline baseline.json." in r.output
    entries = json.loads((tmp_path / "baseline.json").read_text())["findings"]
    assert sorted((e["path"], e["code"], e["text"]) for e in entries) == [
        ("notebooks/lab3.ipynb", "DL003", "accuracy = (logits.argmax(dim=1) == labels).float().mean().numpy()"),
        ("notebooks/lab3.ipynb", "DL003", "preds = logits.argmax(dim=1).numpy()"),
    ]
    assert all(len(e["context"]) == 12 for e in entries)
    assert run(".", "--baseline", "baseline.json").exit_code == 0

    # the course grows: a setup cell above renumbers every cell, and a new eval cell repeats
    # the mistake; only the new copy is reported, at its own cell
    raw = json.loads(path.read_text(encoding="utf-8"))
    raw["cells"][:0] = [md("## Colab setup"), code("!nvidia-smi\n")]
    raw["cells"].append(code("test_accuracy = (logits.argmax(dim=1) == labels).float().mean().numpy()\n"))
    path.write_text(json.dumps(raw, indent=1), encoding="utf-8")
    r = run(".", "--baseline", "baseline.json", "--output-format", "concise")
    assert r.exit_code == 1
    assert [ln for ln in r.output.splitlines() if "DL003" in ln] == [
        "notebooks/lab3.ipynb:cell 9:1:17: DL003 [*] [numpy-on-cuda] converting a tensor on the device to NumPy fails; call `.cpu()` first"
    ]

    # changing a baselined line brings it back, as in a .py file
    raw["cells"].pop()
    raw["cells"][7]["source"] = LAB_EVAL.replace("accuracy =", "val_accuracy =").splitlines(keepends=True)
    path.write_text(json.dumps(raw, indent=1), encoding="utf-8")
    r = run(".", "--baseline", "baseline.json", "--output-format", "concise")
    assert [ln.split(": DL")[0] for ln in r.output.splitlines() if "DL003" in ln] == ["notebooks/lab3.ipynb:cell 8:1:16"]


def test_a_notebook_baseline_written_before_cell_line_keys_still_matches(tmp_path, monkeypatch):
    from test_notebook import lab

    monkeypatch.chdir(tmp_path)
    (tmp_path / "lab3.ipynb").write_text(lab(), encoding="utf-8")
    message = "converting a tensor on the device to NumPy fails; call `.cpu()` first"
    old = {"devicelint_baseline": 1, "findings": [
        {"path": "lab3.ipynb", "code": "DL003", "name": "numpy-on-cuda", "text": message, "context": f"cell {cell}", "count": 1}
        for cell in (5, 6)]}
    (tmp_path / "baseline.json").write_text(json.dumps(old))
    r = run(".", "--baseline", "baseline.json")
    assert r.exit_code == 0 and "All checks passed!" in r.output
