"""The real-code benchmark scripts: mutation operators and label scoring (no network, no repos)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import firstlook  # noqa: E402
import mutants  # noqa: E402
import realcode  # noqa: E402

SCRIPT = '''\
import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=2)
parser.add_argument("--resume", default="")
args = parser.parse_args()

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Classifier(nn.Module):
    def __init__(self, n_in=20, n_out=4):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(n_in, 64), nn.ReLU(), nn.Linear(64, n_out))

    def forward(self, x):
        bias = torch.zeros(x.size(0), 4, device=x.device)
        return self.body(x) + bias


data = TensorDataset(torch.randn(256, 20), torch.randint(0, 4, (256,)))
train_loader = DataLoader(data, batch_size=32, shuffle=True)
model = Classifier().to(device)
if args.resume:
    model.load_state_dict(torch.load(args.resume, map_location=device))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
scaler = torch.amp.GradScaler("cuda", enabled=device.type == "cuda")

for epoch in range(args.epochs):
    running = 0.0
    for features, labels in train_loader:
        features = features.to(device)
        labels = labels.to(device)
        optimizer.zero_grad()
        with torch.autocast(device_type="cuda", dtype=torch.float16, enabled=device.type == "cuda"):
            logits = model(features)
            loss = F.cross_entropy(logits, labels)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        running += loss.item()
    print(f"epoch {epoch}: {running / len(train_loader):.3f}")

model.eval()
with torch.no_grad():
    preds = model(torch.randn(8, 20, device=device)).argmax(dim=1)
print(np.bincount(preds.cpu().numpy(), minlength=4))
'''


def line_of(text: str, needle: str) -> int:
    return next(i for i, ln in enumerate(text.splitlines(), 1) if needle in ln)


def changed_lines(a: str, b: str) -> list[int]:
    return [i for i, (x, y) in enumerate(zip(a.splitlines(), b.splitlines()), 1) if x != y]


@pytest.fixture(scope="module")
def by_rule() -> dict[str, list]:
    src = mutants.Src(SCRIPT)
    return {rule: op(src) for rule, op in mutants.OPERATORS.items()}


# operators that need a distributed script: checked on DDP_SCRIPT below
DISTRIBUTED = {"DL020"}
# operators whose sites SCRIPT has none of (a Dataset class of the file, a resumed optimizer):
# tested on RESUME_SCRIPT below
OWN_SCRIPT = {"DL017", "DL018"}


def test_every_operator_applies_and_keeps_the_file_valid(by_rule):
    for rule in mutants.RULES:  # the shape operators have a script of their own (below)
        found = by_rule[rule]
        if rule in DISTRIBUTED:
            assert not found, f"{rule}: mutated a script with no process group"
            continue
        if rule in OWN_SCRIPT:
            continue
        assert found, f"{rule}: no site in the realistic script"
        for m in found:
            ast.parse(m.source)
            assert m.source.count("\n") == SCRIPT.count("\n"), rule
            assert changed_lines(SCRIPT, m.source) == [m.line], (rule, m.note)
            assert m.line in m.expect


@pytest.mark.parametrize("rule, before, after", [
    ("DL001", "model = Classifier().to(device)", "model = Classifier()"),
    ("DL003", "print(np.bincount(preds.cpu().numpy(), minlength=4))", "print(np.bincount(preds.numpy(), minlength=4))"),
    ("DL004", "labels = labels.to(device)", "labels = labels.to(device).to(device)"),
    ("DL005", 'scaler = torch.amp.GradScaler("cuda", enabled=device.type == "cuda")',
     "scaler = torch.cuda.amp.GradScaler(enabled=device.type == 'cuda')"),
    ("DL005", 'with torch.autocast(device_type="cuda", dtype=torch.float16, enabled=device.type == "cuda"):',
     "with torch.cuda.amp.autocast(dtype=torch.float16, enabled=device.type == 'cuda'):"),
    ("DL006", "features = features.to(device)", "features.to(device)"),
    ("DL007", 'device = torch.device("cuda" if torch.cuda.is_available() else "cpu")', 'device = torch.device("cuda")'),
    ("DL009", "model.load_state_dict(torch.load(args.resume, map_location=device))",
     "model.load_state_dict(torch.load(args.resume))"),
    ("DL010", "running += loss.item()", "running += loss"),
    ("DL011", "bias = torch.zeros(x.size(0), 4, device=x.device)", "bias = torch.zeros(x.size(0), 4)"),
    ("DL019", "import torch", 'import torch; torch.set_default_device("cuda")'),
])
def test_operator_makes_the_intended_edit(by_rule, rule, before, after):
    line = line_of(SCRIPT, before)
    hits = [m for m in by_rule[rule] if m.line == line]
    assert hits, f"{rule} did not mutate line {line}: {before}"
    assert hits[0].source.splitlines()[line - 1].strip() == after


EVAL_SCRIPT = """\
import matplotlib.pyplot as plt
import numpy as np
import torch
from sklearn.manifold import TSNE
from sklearn.metrics import f1_score

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(8, 3).to(device)
x = torch.randn(64, 8, device=device)
with torch.no_grad():
    logits = model(x)
preds = logits.argmax(1)
print(f1_score(y_true=preds.cpu(), y_pred=preds.cpu(), average="macro"))
emb = TSNE(n_components=2).fit_transform(logits.detach().cpu())
fig, axs = plt.subplots(1, 2)
axs[0].imshow(logits.cpu())
print(np.mean(logits.cpu().numpy()))
"""


def test_dl003_drops_the_cpu_of_an_argument_a_library_call_converts():
    src = mutants.Src(EVAL_SCRIPT)
    got = {(m.line, m.source.splitlines()[m.line - 1].strip()) for m in mutants.op_dl003(src)}
    assert (line_of(EVAL_SCRIPT, "f1_score("), 'print(f1_score(y_true=preds, y_pred=preds.cpu(), average="macro"))') in got
    assert (line_of(EVAL_SCRIPT, "TSNE("), "emb = TSNE(n_components=2).fit_transform(logits.detach())") in got
    assert (line_of(EVAL_SCRIPT, "axs[0]"), "axs[0].imshow(logits)") in got
    # the `.numpy()` form is the older operator's; NumPy's reductions call a tensor's own method
    assert (line_of(EVAL_SCRIPT, "np.mean"), "print(np.mean(logits.numpy()))") in got
    assert all(m.line in m.expect and changed_lines(EVAL_SCRIPT, m.source) == [m.line] for m in mutants.op_dl003(src))


SPLIT_SCRIPT = '''\
import argparse

import torch
import torch.nn.functional as F

from data import get_loaders
from models import build_model


def train(model, loader, optimizer, device):
    model.train()
    for images, labels in loader:
        images = images.to(device)
        labels = labels.to(device)
        loss = F.cross_entropy(model(images), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--arch", default="resnet18")
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    train_loader = get_loaders(args)
    model = build_model(args.arch).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    train(model, train_loader, optimizer, device)


if __name__ == "__main__":
    main()
'''


def test_call_site_operators_mutate_handed_in_batches_and_imported_models():
    src = mutants.Src(SPLIT_SCRIPT)
    param = mutants.op_param(src)
    assert {m.line for m in param} == {line_of(SPLIT_SCRIPT, "images = images.to(device)"),
                                       line_of(SPLIT_SCRIPT, "labels = labels.to(device)")}
    assert all(m.op == "DL002/param" and m.rule == "DL002" for m in param)
    factory = mutants.op_factory(src)
    assert [m.line for m in factory] == [line_of(SPLIT_SCRIPT, "model = build_model(args.arch).to(device)")]
    assert factory[0].imports == ((0, "data"), (0, "models"))
    assert factory[0].source.splitlines()[factory[0].line - 1].strip() == "model = build_model(args.arch)"
    # a loop over a loader the function builds itself is no "handed in" site
    assert mutants.op_param(mutants.Src(SCRIPT)) == []


def test_imported_files_are_found_beside_the_script_or_at_the_top(tmp_path):
    (tmp_path / "repo" / "tools").mkdir(parents=True)
    (tmp_path / "repo" / "models.py").write_text("")
    (tmp_path / "repo" / "tools" / "data.py").write_text("")
    found = mutants.imported_files(tmp_path, "repo/tools/train.py", ((0, "models"), (0, "data"), (0, "torchvision")))
    assert found == ["repo/models.py", "repo/tools/data.py"]


def test_batch_move_dropped_and_its_uses_expected(by_rule):
    line = line_of(SCRIPT, "features = features.to(device)")
    m = next(m for m in by_rule["DL002"] if m.line == line)
    assert m.source.splitlines()[line - 1].strip() == "features = features"
    assert line_of(SCRIPT, "logits = model(features)") in m.expect


def test_uses_of_values_computed_from_the_unmoved_batch_are_expected_too():
    import ast

    loop = ast.parse(
        "for src, tgt in loader:\n"
        "    src = src.to(device)\n"
        "    tgt_input = tgt[:-1, :]\n"
        "    mask = make_mask(tgt_input)\n"
        "    logits = model(src, tgt_input, mask)\n"
        "    unrelated = src.mean()\n"
    ).body[0]
    assert mutants.derived_names(loop, {"tgt"}, 2) == {"tgt_input", "mask", "logits"}
    # only bindings after the given line count: `tgt_input` (line 3) is not, nor what reads it
    assert mutants.derived_names(loop, {"tgt"}, 3) == set()


def test_a_tensor_made_only_to_index_another_is_no_dl011_mutant():
    src = mutants.Src(
        "import torch\n"
        "import torch.nn as nn\n"
        "\n"
        "\n"
        "class PatchDropout(nn.Module):\n"
        "    def forward(self, x):\n"
        "        b, n, device = x.shape[0], x.shape[1], x.device\n"
        "        keep = torch.randn(b, n, device=device).topk(n // 2, dim=-1).indices\n"
        "        rows = torch.arange(b, device=device)[..., None]\n"
        "        pos = torch.arange(n, device=device)\n"
        "        return x[rows, keep] + pos.float().mean()\n"
    )
    lines = {m.line for m in mutants.op_dl011(src)}
    # `keep` and `rows` only index `x` (CUDA accepts host index tensors); `pos` is added to it
    assert lines == {10}


def test_model_move_dropped_expects_the_model_calls(by_rule):
    m = next(m for m in by_rule["DL001"] if "model" in m.note)
    assert line_of(SCRIPT, "logits = model(features)") in m.expect


def test_operators_skip_what_is_no_bug():
    src = mutants.Src(
        "import torch\n"
        "criterion = torch.nn.CrossEntropyLoss().to(device)\n"   # a loss module: no parameters
        "for step in range(10):\n"
        "    with torch.no_grad():\n"
        "        val = criterion(a, b)\n"
        "        total += val.item()\n"                           # no backward, under no_grad
        "x = torch.randn(3).to(torch.float16)\n"                   # a cast, not a move
    )
    assert mutants.op_dl001(src) == []
    assert mutants.op_dl010(src) == []
    assert mutants.op_dl004(src) == []


def test_mutants_are_seeded():
    a = mutants.mutants_of(SCRIPT, "s:train.py")
    b = mutants.mutants_of(SCRIPT, "s:train.py")
    assert [(m.rule, m.line, m.source) for m in a] == [(m.rule, m.line, m.source) for m in b]
    assert {m.rule for m in a} == set(mutants.RULES) - DISTRIBUTED - OWN_SCRIPT
    assert {m.rule for m in mutants.mutants_of(RESUME_SCRIPT, "s:resume.py")} >= OWN_SCRIPT
    assert mutants.mutants_of("def broken(:\n", "s") == []


def test_device_aware_script_picks_training_loops():
    assert mutants.device_aware_script(SCRIPT)
    assert not mutants.device_aware_script("import torch\nx = torch.zeros(3)\nprint(x.sum())\n")


def finding(repo, path, line, code):
    return {"repo": repo, "path": path, "line": line, "code": code}


def test_realcode_scores_a_label_file():
    findings = [
        finding("a/b", "train.py", 10, "DL003"),
        finding("a/b", "train.py", 20, "DL003"),
        finding("a/b", "train.py", 20, "DL003"),   # a second finding on the same line: one key
        finding("a/b", "eval.py", 5, "DL004"),
        finding("c/d", "main.py", 7, "DL009"),     # not labelled
    ]
    labels = [
        {**finding("a/b", "train.py", 10, "DL003"), "label": True, "reason": "device output"},
        {**finding("a/b", "train.py", 20, "DL003"), "label": False, "reason": "PIL image"},
        {**finding("a/b", "eval.py", 5, "DL004"), "label": False, "reason": "moved back after .cpu()"},
        {**finding("a/b", "old.py", 3, "DL004"), "label": True, "reason": "gone: now a miss"},
        {**finding("a/b", "old.py", 4, "DL001"), "label": False, "reason": "gone: fixed false positive"},
    ]
    rows = realcode.score(findings, labels)
    assert dict(rows["DL003"]) == {"found": 2, "labelled": 2, "true": 1, "false": 1}
    assert rows["DL004"]["found"] == 1 and rows["DL004"]["false"] == 1 and rows["DL004"]["true"] == 0
    assert rows["DL004"]["gone_true"] == 1
    assert rows["DL001"]["gone_false"] == 1 and rows["DL001"]["found"] == 0
    assert rows["DL009"]["found"] == 1 and rows["DL009"]["labelled"] == 0


def test_realcode_audit_sample_is_seeded_and_complete_when_small():
    findings = [finding("a/b", "f.py", n, "DL008") for n in range(100)]
    s1 = realcode.audit_sample(findings, "DL008", 30, 0)
    assert len(s1) == 30 and s1 == realcode.audit_sample(findings, "DL008", 30, 0)
    assert len(realcode.audit_sample(findings, "DL008", 500, 0)) == 100


def test_pinned_repos_are_well_formed():
    assert len(realcode.REPOS) >= 15
    for repo, commit, parts in realcode.REPOS:
        assert repo.count("/") == 1 and len(commit) == 40 and int(commit, 16) >= 0
        assert isinstance(parts, tuple)


def test_batches_only_handed_to_a_data_parallel_model_are_no_dl002_mutant():
    src = mutants.Src(
        "import torch\n"
        "model = torch.nn.DataParallel(build(opt)).to(device)\n"
        "for images, labels in demo_loader:\n"
        "    batch_size = images.size(0)\n"
        "    image = images.to(device)\n"                 # DataParallel copies it to its device
        "    target = labels.to(device)\n"               # meets the output in the loss: a bug if dropped
        "    preds = model(image, text=None)\n"
        "    loss = criterion(preds, target)\n"
    )
    assert {m.line for m in mutants.op_dl002(src)} == {6}


def test_a_model_unpickled_from_a_checkpoint_is_no_dl001_mutant_unless_built_on_another_path():
    restored = (
        "import torch\n"
        "checkpoint = torch.load(path)\n"
        "decoder = checkpoint['decoder']\n"
        "decoder = decoder.to(device)\n"
        "decoder.eval()\n"
        "out = decoder(x.to(device))\n"
    )
    assert mutants.op_dl001(mutants.Src(restored)) == []
    fresh = restored.replace("checkpoint = torch.load(path)\n", "checkpoint = torch.load(path)\nif fresh:\n    decoder = Decoder()\n")
    fresh = fresh.replace("decoder = checkpoint['decoder']\n", "else:\n    decoder = checkpoint['decoder']\n")
    assert [m.note for m in mutants.op_dl001(mutants.Src(fresh))] == ["dropped the move of model `decoder`"]


def test_a_model_returned_by_a_loader_method_is_expected_where_it_is_used():
    src = mutants.Src(
        "import torch\n"
        "class Generator:\n"
        "    def __init__(self, args):\n"
        "        self.model = self.load_model()\n"
        "    def run(self, img):\n"
        "        return self.model.get_last_selfattention(img.to(DEVICE))\n"
        "    def load_model(self):\n"
        "        model = build(self.args.arch)\n"
        "        model.eval()\n"
        "        model.to(DEVICE)\n"
        "        return model\n"
    )
    m, = mutants.op_dl001(src)
    assert m.line == 10 and 6 in m.expect


def test_a_tensor_read_into_a_number_or_a_truth_value_is_no_dl011_mutant():
    src = mutants.Src(
        "import torch\n"
        "import torch.nn as nn\n"
        "\n"
        "\n"
        "class Filter(nn.Module):\n"
        "    def forward(self, x, area):\n"
        "        small = torch.as_tensor([a <= 4 for a in area], dtype=torch.bool, device=x.device)\n"
        "        if small.any().item():\n"
        "            x = x[~small]\n"
        "        scale = torch.ones(1, device=x.device)\n"
        "        factor = scale.float()\n"
        "        return x * factor\n"
    )
    # `small` is read into a truth value and used as an index; `scale` flows into `x * factor`
    assert {m.line for m in mutants.op_dl011(src)} == {10}


def test_a_finding_points_at_every_line_its_span_covers():
    call = {"line": 318, "end_line": 321, "code": "DL011"}
    assert mutants._lines(call) == {318, 319, 320, 321}
    assert mutants._lines({"line": 7, "code": "DL003"}) == {7}


def test_audited_no_bug_mutants_each_carry_a_reason_and_match_their_mutated_line(tmp_path):
    audited = mutants.audited_no_bug(mutants.AUDITED)
    assert audited, "the committed audit lists the mutants read by hand"
    for (rule, file, line, mutated), reason in audited.items():
        assert rule in mutants.RULES and file.count("+") >= 1 and line > 0 and mutated
        assert len(reason) > 30  # a reason a reviewer can check, not a tag
    assert mutants.audited_no_bug(tmp_path / "missing.json") == {}


# --- the blind recall set of bug reports (benchmarks/bugreports/score.py) ---

def _load_bugreport_score():
    import importlib.util

    path = Path(__file__).resolve().parent.parent / "benchmarks" / "bugreports" / "score.py"
    spec = importlib.util.spec_from_file_location("bugreport_score", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["bugreport_score"] = module
    spec.loader.exec_module(module)
    return module


bugreport_score = _load_bugreport_score()

REPORT_CASE = '''\
# source: https://example.invalid/issues/1
# seen: 2026-11-26
# expect: DL002 at 20, 21
# why: the batch from the loader is never moved while the model is
# also-ok: DL014 at 15
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2)).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
criterion = nn.CrossEntropyLoss()
data = TensorDataset(torch.randn(64, 8), torch.randint(0, 2, (64,)))
loader = DataLoader(data, batch_size=16, shuffle=True)

for epoch in range(3):
    for features, labels in loader:
        optimizer.zero_grad()
        logits = model(features)
        loss = criterion(logits, labels)
        loss.backward()
        optimizer.step()
'''


def test_bugreport_header_is_parsed_for_scripts_and_notebooks(tmp_path):
    case = tmp_path / "001_case.py"
    case.write_text(REPORT_CASE)
    expect, also = bugreport_score.parse_header(case)
    assert (expect.code, expect.also_ok, [loc.line for loc in expect.locations]) == ("DL002", False, [20, 21])
    assert (also.code, also.also_ok, [loc.line for loc in also.locations]) == ("DL014", True, [15])
    nb = tmp_path / "002_case.ipynb"
    nb.write_text(
        '{"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": null,'
        ' "source": ["# source: x\\n", "# expect: DL003 at 3:7, 3:8\\n", "import torch\\n"]}],'
        ' "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'
    )
    (exp,) = bugreport_score.parse_header(nb)
    assert exp.code == "DL003" and [(loc.cell, loc.line) for loc in exp.locations] == [(3, 7), (3, 8)]


def test_bugreport_findings_match_by_code_line_span_and_cell(tmp_path):
    case = tmp_path / "001_case.py"
    case.write_text(REPORT_CASE)
    findings = [
        {"code": "DL002", "line": 19, "end_line": 20, "message": "batch"},   # spans line 20: found
        {"code": "DL014", "line": 15, "end_line": 15, "message": "pin"},     # also-ok: not false
        {"code": "DL011", "line": 20, "end_line": 20, "message": "other"},   # right line, wrong code
    ]
    result = bugreport_score.score_case(case.name, bugreport_score.parse_header(case), findings)
    assert result.found == [True]
    assert [f["code"] for f in result.false_findings] == ["DL011"]
    missed = bugreport_score.score_case(case.name, bugreport_score.parse_header(case), findings[1:])
    assert missed.found == [False]
    loc = bugreport_score.Location(cell=2, line=4)
    assert not bugreport_score.covers({"cell": 1, "line": 4}, loc)
    assert bugreport_score.covers({"cell": 2, "line": 3, "end_line": 5}, loc)


def test_bugreport_score_runs_devicelint_on_a_synthetic_case(tmp_path, capsys):
    case = tmp_path / "001_loader_batch.py"
    case.write_text(REPORT_CASE)
    out_json = tmp_path / "figures.json"
    assert bugreport_score.main([str(case), "--json", str(out_json), "--misses"]) == 0
    printed = capsys.readouterr().out
    import json

    figures = json.loads(out_json.read_text())
    assert figures["cases"] == 1 and figures["per_rule"] == {"DL002": [1, 1]}
    assert figures["recall"] == [1, 1]
    assert figures["mission_five_recall"] == [1, 1]
    num, den = figures["precision"]
    assert den >= 1 and num == den - sum(figures["false_by_rule"].values())
    assert "DL002" in printed and "MISS" not in printed


def test_bugreport_audited_extras_count_for_their_verdict(tmp_path):
    case = tmp_path / "001_case.py"
    case.write_text(REPORT_CASE)
    findings = [
        {"code": "DL002", "line": 20, "end_line": 20, "message": "batch"},   # expected
        {"code": "DL011", "line": 20, "end_line": 20, "message": "other"},   # audited true
        {"code": "DL001", "line": 21, "end_line": 21, "message": "model"},   # audited false
        {"code": "DL007", "line": 9, "end_line": 9, "message": "cuda"},      # not audited
    ]
    result = bugreport_score.score_case(case.name, bugreport_score.parse_header(case), findings)
    audit_file = tmp_path / "extras_audit.json"
    audit_file.write_text('{"extras": [{"case": "001_case.py", "code": "DL011", "line": 20, "verdict": "true"},'
                          ' {"case": "001_case.py", "code": "DL001", "line": 21, "verdict": "false"}]}')
    audit = bugreport_score.load_audit(audit_file)
    assert bugreport_score.audited_precision([result], audit) == {"audited_precision": [2, 4], "unaudited_extras": 1}
    assert bugreport_score.summarize([result])["precision"] == [1, 4]
    audit_file.write_text("{not json")
    assert bugreport_score.load_audit(audit_file) == {}


def test_bugreport_the_shipped_audit_covers_every_extra_with_a_reason():
    import json

    doc = json.loads((Path(bugreport_score.__file__).parent / "extras_audit.json").read_text())
    assert doc["extras"] and all(e["verdict"] in ("true", "false") and e["reason"] for e in doc["extras"])


def test_bugreport_rules_not_built_yet_count_as_missed_and_are_reported_apart(tmp_path):
    case = tmp_path / "001_case.py"
    case.write_text(REPORT_CASE.replace("# also-ok: DL014 at 15\n", "# expect: DL099 at 15\n"))
    findings = [{"code": "DL002", "line": 20, "end_line": 20, "message": "batch"}]
    result = bugreport_score.score_case(case.name, bugreport_score.parse_header(case), findings)
    summary = bugreport_score.summarize([result], known={"DL002", "DL014"})
    assert summary["per_rule"] == {"DL002": [1, 1], "DL099": [0, 1]}
    assert summary["recall"] == [1, 2]
    assert summary["not_built"] == ["DL099"]
    assert summary["known_rule_recall"] == [1, 1]
    # without a list of known codes every code counts as built
    assert bugreport_score.summarize([result])["known_rule_recall"] == [1, 2]


def test_bugreport_known_codes_come_from_devicelint_rules():
    codes = bugreport_score.known_codes()
    assert {"DL001", "DL002", "DL003", "DL011"} <= codes
    assert all(len(c) == 5 and c.startswith("DL") for c in codes)


def first_look_round(tmp_path, labels_extra=()):
    """A tiny first-look round: a course repo of notebooks and a paper repo of scripts."""
    lab = [
        {"repo": "u/course", "path": "nb/train.ipynb", "cell": 4, "line": 2, "code": "DL001", "verdict": "true",
         "reason": "model never moved"},
        {"repo": "u/course", "path": "nb/train.ipynb", "cell": 9, "line": 5, "code": "DL003", "verdict": "false",
         "reason": "guarded by the flag", "shape": "same-flag-guard"},
        {"repo": "u/course", "path": "nb/eval.ipynb", "cell": 2, "line": 1, "code": "DL003", "verdict": "unsure",
         "reason": "depends on the checkpoint"},
        {"repo": "u/course", "path": "nb/ex.ipynb", "cell": 3, "line": 1, "code": "DL000", "verdict": "true",
         "reason": "exercise blank"},
        {"repo": "p/paper", "path": "train.py", "cell": None, "line": 40, "code": "DL003", "verdict": "true",
         "reason": "numpy of a cuda tensor"},
        {"repo": "p/paper", "path": "train.py", "cell": None, "line": 12, "code": "DL007", "verdict": "true",
         "reason": "unguarded .cuda()"},
        {"repo": "p/paper", "path": "model.py", "cell": None, "line": 7, "code": "DL011", "verdict": "false",
         "reason": "never moved", "shape": "latent-in-device-free-code"},
        *labels_extra,
    ]
    rnd = {"date": "2026-11-26", "devicelint_commit": "abc1234",
           "repos": [{"repo": "u/course", "commit": "1" * 40, "files": {"py": 1, "ipynb": 3},
                      "findings": {"DL000": 1, "DL001": 1, "DL003": 2}},
                     {"repo": "p/paper", "commit": "2" * 40, "files": {"py": 5, "ipynb": 0},
                      "findings": {"DL003": 1, "DL007": 10, "DL011": 1}}],
           "labels": lab}
    path = tmp_path / "round.json"
    path.write_text(__import__("json").dumps(rnd))
    return path


def test_firstlook_scores_a_round_per_rule_and_in_total(tmp_path):
    rounds = firstlook.load([first_look_round(tmp_path)])
    rows = firstlook.tally(rounds)
    assert dict(rows["DL003"]) == {"findings": 3, "audited": 3, "true": 1, "false": 1, "unsure": 1}
    assert firstlook.precision(rows["DL003"]) == 0.5          # unsure left out
    mission = firstlook.total(rows, firstlook.MISSION)
    assert (mission["true"], mission["false"], firstlook.precision(mission)) == (2, 1, 2 / 3)
    # DL001 1.0 x 1, DL003 0.5 x 3, DL007 1.0 x 10, DL011 0.0 x 1; DL000 left out
    assert firstlook.weighted(rows) == (1 + 1.5 + 10) / 15
    kinds = firstlook.by_kind(rounds)
    assert (kinds["notebooks"]["true"], kinds["notebooks"]["false"], kinds["notebooks"]["unsure"]) == (1, 1, 1)
    assert (kinds["scripts"]["true"], kinds["scripts"]["false"]) == (2, 1)
    assert firstlook.shapes(rounds) == {("same-flag-guard", "DL003"): 1, ("latent-in-device-free-code", "DL011"): 1}


def test_firstlook_prints_the_readme_table(tmp_path, capsys):
    assert firstlook.main([str(first_look_round(tmp_path)), "--shapes"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "date 2026-11-26, devicelint abc1234: 2 repositories, 6 .py + 3 .ipynb files"
    assert "| DL003 | 3 | 3 | 1 | 1 | 1 | 0.50 |" in out
    assert "| **mission five (DL001-DL005)** | 4 | 4 | 2 | 1 | 1 | 0.67 |" in out
    assert "| **all device rules (audited)** | 15 | 6 | 3 | 2 | 1 | 0.60 |" in out
    assert "| scripts (audited) | - | 3 | 2 | 1 | 0 | 0.67 |" in out
    assert "| same-flag-guard | DL003 | 1 |" in out


def test_firstlook_refuses_an_unknown_verdict_in_one_line(tmp_path, capsys):
    bad = {"repo": "p/paper", "path": "x.py", "cell": None, "line": 1, "code": "DL004", "verdict": "maybe",
           "reason": "?"}
    assert firstlook.main([str(first_look_round(tmp_path, [bad]))]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: unknown verdict 'maybe'")


def test_firstlook_round_on_file_is_well_formed():
    path = Path(__file__).resolve().parent.parent / "benchmarks" / "firstlook" / "2026-11-26.json"
    rnd = firstlook.load([path])[0]
    assert len(rnd["repos"]) >= 12 and all(len(r["commit"]) == 40 for r in rnd["repos"])
    rows = firstlook.tally([rnd])
    for code in ("DL001", "DL002", "DL003", "DL004", "DL005", "DL006", "DL010", "DL011", "DL015", "DL016"):
        assert rows[code]["audited"] == rows[code]["findings"], code   # audited in full
    assert all(lab["reason"] and (lab["verdict"] != "false" or lab.get("shape")) for lab in rnd["labels"])


DDP_SCRIPT = '''import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    model = DDP(nn.Linear(8, 2).cuda(), device_ids=[local_rank])
    x = torch.randn(4, 8).to("cuda")
    return model(x)
'''


def test_dl020_operator_drops_set_device_and_expects_the_unindexed_placements():
    (m,) = mutants.op_dl020(mutants.Src(DDP_SCRIPT))
    assert m.source.splitlines()[m.line - 1].strip() == "pass"
    assert changed_lines(DDP_SCRIPT, m.source) == [line_of(DDP_SCRIPT, "torch.cuda.set_device(local_rank)")]
    assert {line_of(DDP_SCRIPT, "nn.Linear(8, 2).cuda()"), line_of(DDP_SCRIPT, '.to("cuda")')} <= set(m.expect)
    # every placement indexed by the rank: dropping set_device is no bug, so no mutant
    indexed = DDP_SCRIPT.replace(".cuda()", ".cuda(local_rank)").replace('.to("cuda")', ".to(local_rank)")
    assert mutants.op_dl020(mutants.Src(indexed)) == []


def test_dl019_operator_expects_the_loop_over_the_shuffling_loader(by_rule):
    (m,) = by_rule["DL019"]
    assert line_of(SCRIPT, "for features, labels in train_loader:") in m.expect
    # DL019 reports at the loader's `DataLoader(...)` call (where `generator=` goes)
    assert line_of(SCRIPT, "train_loader = DataLoader(") in m.expect
    with_generator = SCRIPT.replace("shuffle=True)", "shuffle=True, generator=torch.Generator())")
    assert mutants.op_dl019(mutants.Src(with_generator)) == []

TRAINER = '''\
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Runner:
    def __init__(self, model, args):
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.model = model.to(self.device)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=args.lr)
        self.criterion = nn.CrossEntropyLoss()
        self.epochs = args.epochs

    def fit(self):
        for epoch in range(self.epochs):
            total = 0.0
            for step, (images, labels) in enumerate(self.train_loader):
                images = images.to(self.device)
                labels = labels.to(self.device)
                loss = self.criterion(self.model(images), labels)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                total += loss.item()
                if step % 10 == 0:
                    print(f"epoch {epoch} step {step}: loss {loss.item():.4f}")
            print(f"epoch {epoch}: mean loss {total / len(self.train_loader):.4f}")

    def build_loaders(self, batch_size):
        data = TensorDataset(torch.randn(512, 32), torch.randint(0, 10, (512,)))
        self.train_loader = DataLoader(data, batch_size=batch_size, shuffle=True)
'''


@pytest.mark.parametrize("op, edits", [
    ("DL002-self", {"images = images.to(self.device)": "images = images"}),
    ("DL003-fstring", {'print(f"epoch {epoch} step {step}: loss {loss.item():.4f}")':
                       'print(f"epoch {epoch} step {step}: loss {loss.detach().numpy():.4f}")'}),
    ("DL010-subscript", {"total = 0.0": "total = [0.0]", "total += loss.item()": "total[0] += loss"}),
])
def test_shape_operators_on_a_trainer_class(op, edits):
    """Loader on self, f-string conversion, subscript accumulator: each edits only its lines,
    keeps the file valid and its line count, and expects the finding at its mutated line."""
    found = mutants.OPERATORS[op](mutants.Src(TRAINER))
    assert found, op
    m = found[0]
    assert m.op == op and m.line in m.expect
    ast.parse(m.source)
    assert m.source.count("\n") == TRAINER.count("\n")
    lines = changed_lines(TRAINER, m.source)
    assert [TRAINER.splitlines()[i - 1].strip() for i in lines] == list(edits)
    assert [m.source.splitlines()[i - 1].strip() for i in lines] == list(edits.values())

RESUME_SCRIPT = '''\
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Windows(Dataset):
    def __init__(self, series, window=16):
        self.series, self.window = series, window

    def __len__(self):
        return len(self.series) - self.window

    def __getitem__(self, i):
        return self.series[i:i + self.window], self.series[i + self.window]


def main(resume):
    loader = DataLoader(Windows(torch.randn(1000)), batch_size=32, num_workers=4)
    model = nn.Linear(16, 1).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    if resume:
        ckpt = torch.load(resume, map_location="cpu")
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        loss = nn.functional.mse_loss(model(x).squeeze(1), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
'''


def test_the_dataset_and_resume_operators_make_their_bug_and_keep_the_file_valid():
    src = mutants.Src(RESUME_SCRIPT)
    (m17,) = mutants.op_dl017(src)
    assert changed_lines(RESUME_SCRIPT, m17.source) == [line_of(RESUME_SCRIPT, "return self.series[i:")]
    assert "return self.series[i:i + self.window].cuda(), " in m17.source
    assert m17.expect == [line_of(RESUME_SCRIPT, "loader = DataLoader(")]
    (m18,) = mutants.op_dl018(src)
    load = line_of(RESUME_SCRIPT, "optimizer.load_state_dict")
    assert changed_lines(RESUME_SCRIPT, m18.source) == [line_of(RESUME_SCRIPT, "model = nn.Linear"), load]
    assert "model = nn.Linear(16, 1)\n" in m18.source and 'optimizer.load_state_dict(ckpt["optimizer"]); model.to(device)' in m18.source
    assert m18.expect == [load]
    for m in (m17, m18):
        ast.parse(m.source)
        assert m.source.count("\n") == RESUME_SCRIPT.count("\n")
    # and the linter finds each bug where the mutant expects it
    from devicelint.engine import lint_source

    for m in (m17, m18):
        found = {f.line for f in lint_source(m.source, "resume.py", select=[m.rule]) if f.code == m.rule}
        assert found == set(m.expect), (m.rule, found)
    assert not [f for f in lint_source(RESUME_SCRIPT, "resume.py", select=["DL017", "DL018"])]


BRANCH_MOVES = '''\
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel


def main(args, gpu):
    model = nn.Linear(16, 1)
    if args.distributed:
        model.cuda(gpu)
        model = DistributedDataParallel(model, device_ids=[gpu])
    elif args.gpu is not None:
        model = model.cuda(args.gpu)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    if args.resume:
        ckpt = torch.load(args.resume, map_location="cpu")
        optimizer.load_state_dict(ckpt["optimizer"])
'''


@pytest.mark.parametrize("script", [
    # one move per branch: taking one off leaves a bug on that branch alone, where the rule is
    # silent by design (the ImageNet example, MoCo)
    BRANCH_MOVES,
    # the one move, then a DDP wrap with device_ids in its block: the wrap of a host model fails first
    BRANCH_MOVES.replace("    elif args.gpu is not None:\n        model = model.cuda(args.gpu)\n", ""),
    # DataParallel moves the model itself on a one-GPU machine
    RESUME_SCRIPT.replace("model = nn.Linear(16, 1).to(device)", "model = nn.DataParallel(nn.Linear(16, 1)).to(device)"),
    # a plain SGD keeps no state
    RESUME_SCRIPT.replace("torch.optim.Adam(model.parameters(), lr=1e-3)", "torch.optim.SGD(model.parameters(), lr=0.1)"),
])
def test_the_resume_operator_skips_moves_whose_removal_is_no_dl018_bug(script):
    assert mutants.op_dl018(mutants.Src(script)) == []


def test_the_resume_operator_keeps_a_move_whose_wrap_has_a_condition_of_its_own():
    script = BRANCH_MOVES.replace(
        "    if args.distributed:\n        model.cuda(gpu)\n        model = DistributedDataParallel(model, device_ids=[gpu])\n"
        "    elif args.gpu is not None:\n        model = model.cuda(args.gpu)\n",
        "    model = model.to(gpu)\n    if args.distributed:\n        model = DistributedDataParallel(model, device_ids=[gpu])\n")
    (m,) = mutants.op_dl018(mutants.Src(script))
    assert "optimizer.load_state_dict(ckpt[\"optimizer\"]); model.to(gpu)" in m.source


@pytest.mark.parametrize("getitem", [
    "sample = {'image': self.images[i], 'label': self.labels[i]}\n        return self.transform(sample)",
    "arr = self.images[i]\n        return np.transpose(arr, [2, 0, 1]), self.labels[i]",
])
def test_the_dataset_operator_skips_items_that_are_no_tensor(getitem):
    script = RESUME_SCRIPT.replace(
        "return self.series[i:i + self.window], self.series[i + self.window]", getitem)
    assert mutants.op_dl017(mutants.Src("import numpy as np\n" + script)) == []


def test_a_list_file_pins_repositories_outside_realcode_and_skips_comments(tmp_path, monkeypatch):
    exported = []
    monkeypatch.setattr(mutants.realcode, "export",
                        lambda root, mirror, repo, commit, parts: exported.append((repo, commit, parts)) or root)
    lst = tmp_path / "list.txt"
    lst.write_text("# a comment naming no repository\n# pin owner/name " + "a" * 40 + "\n"
                   "owner+name/train.py\n\nfacebookresearch+moco/main_moco.py\n")
    assert mutants.read_list(lst, tmp_path, tmp_path) == ["owner+name/train.py", "facebookresearch+moco/main_moco.py"]
    assert exported == [("owner/name", "a" * 40, ())]


def test_the_set_device_operator_needs_a_process_group_this_file_starts():
    # a commented-out `init_process_group` (the group started by a launcher elsewhere) is no
    # file of the rule's scope: dropping set_device there is no DL020 mutant
    commented = "\n".join("# " + line.lstrip() if "init_process_group(" in line else line
                          for line in DDP_SCRIPT.splitlines()) + "\n"
    assert "init_process_group" in commented and mutants.op_dl020(mutants.Src(DDP_SCRIPT))
    assert mutants.op_dl020(mutants.Src(commented)) == []

def test_bugreport_folder_case_names_lines_per_file(tmp_path):
    case = tmp_path / "003_two_files"
    case.mkdir()
    (case / "main.py").write_text("# expect: DL002 at 5, helpers.py:2\n# also-ok: DL014 at helpers.py:3\nimport torch\n\nx = 1\n")
    (case / "helpers.py").write_text("# expect: DL011 at 4\nimport torch\n\ny = torch.zeros(3)\n")
    exps = bugreport_score.parse_header(case)
    assert [(e.code, e.also_ok, [(loc.file, loc.line) for loc in e.locations]) for e in exps] == [
        ("DL011", False, [("helpers.py", 4)]),
        ("DL002", False, [("main.py", 5), ("helpers.py", 2)]),
        ("DL014", True, [("helpers.py", 3)]),
    ]
    findings = [
        {"code": "DL002", "line": 2, "end_line": 2, "file": "helpers.py", "message": "b"},  # other file's line
        {"code": "DL011", "line": 4, "end_line": 4, "file": "main.py", "message": "t"},     # right line, wrong file
    ]
    result = bugreport_score.score_case(case.name, exps, findings)
    assert result.found == [False, True]
    assert [f["code"] for f in result.false_findings] == ["DL011"]


def test_bugreport_score_lints_a_folder_case_as_one_project(tmp_path, capsys):
    case = tmp_path / "004_folder"
    case.mkdir()
    (case / "train.py").write_text(REPORT_CASE)
    out_json = tmp_path / "figures.json"
    assert bugreport_score.main([str(case), "--json", str(out_json)]) == 0
    import json

    figures = json.loads(out_json.read_text())
    assert figures["cases"] == 1 and figures["per_rule"] == {"DL002": [1, 1]}


def test_the_resume_operator_follows_a_list_of_the_models_parameters():
    # the torchvision references' shape: `params = [p for p in model.parameters() if p.requires_grad]`
    script = (
        "import torch\nimport torch.nn as nn\n\n\ndef main(args):\n"
        "    device = torch.device(args.device)\n"
        "    model = nn.Linear(8, 2)\n"
        "    model.to(device)\n"
        "    params = [p for p in model.parameters() if p.requires_grad]\n"
        "    optimizer = torch.optim.AdamW(params, lr=1e-3)\n"
        "    if args.resume:\n"
        "        checkpoint = torch.load(args.resume, map_location='cpu')\n"
        "        model.load_state_dict(checkpoint['model'])\n"
        "        optimizer.load_state_dict(checkpoint['optimizer'])\n")
    (m,) = mutants.op_dl018(mutants.Src(script))
    assert m.line == 14 and "optimizer.load_state_dict(checkpoint['optimizer']); model.to(device)" in m.source
    twice = script.replace("    optimizer = torch", "    params = list(model.parameters())\n    optimizer = torch")
    assert mutants.op_dl018(mutants.Src(twice)) == []  # `params` bound twice: not one list
