"""The CLI as people type it (issue 21, items 9-12), and what one run imports: a mistyped
command, `explain` by rule name, the closing line counting the fixes only `--unsafe-fixes`
makes, the README's config example, and a cache hit that imports neither LibCST nor a rule."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from devicelint import config as cfgmod
from devicelint.cli import cli

ROOT = Path(__file__).resolve().parent.parent

# A fine-tuning script as people write it: DL005 (safe fix) on line 29, DL001 (unsafe fix)
# on lines 34 and 40.
FINETUNE = '''\
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class TextClassifier(nn.Module):
    def __init__(self, vocab, dim, classes):
        super().__init__()
        self.embed = nn.EmbeddingBag(vocab, dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, tokens):
        return self.head(self.embed(tokens))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--lr", type=float, default=1e-3)
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    data = TensorDataset(torch.randint(0, 1000, (512, 16)), torch.randint(0, 4, (512,)))
    loader = DataLoader(data, batch_size=32, shuffle=True)
    model = TextClassifier(1000, 64, 4)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    scaler = torch.cuda.amp.GradScaler()
    for epoch in range(args.epochs):
        for tokens, labels in loader:
            tokens, labels = tokens.to(device), labels.to(device)
            with torch.autocast("cuda"):
                loss = nn.functional.cross_entropy(model(tokens), labels)
            optimizer.zero_grad()
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        print(f"epoch {epoch}: loss {loss.item():.4f}")
    preds = model(tokens).argmax(dim=1).numpy()
    print(preds[:8])


if __name__ == "__main__":
    main()
'''


def run(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False, env={"NO_COLOR": "1"})


# --- item 9: a mistyped subcommand -----------------------------------------------------


@pytest.mark.parametrize("args, wanted", [
    (["explian", "DL001"], "explain"),
    (["verfy"], "verify"),
    (["verfy", "--simulate", "fixtures"], "verify"),
    (["rulse"], "rules"),
    (["claen"], "clean"),
    (["chekc", "train.py"], "check"),
])
def test_mistyped_subcommand_is_a_usage_error(proj, args, wanted):
    (proj / "train.py").write_text(FINETUNE)
    r = run(*args)
    assert r.exit_code == 2
    assert r.stderr == f"error: unrecognized subcommand '{args[0]}' \N{EM DASH} did you mean '{wanted}'?\n"
    assert r.stdout == ""  # nothing linted


def test_bare_word_that_is_no_path_is_a_usage_error(proj):
    r = run("trian")  # neither a command nor a file here
    assert r.exit_code == 2
    assert r.stderr == "error: unrecognized subcommand 'trian' (and no file or folder of that name)\n"


@pytest.mark.parametrize("word", ["DL001", "dl001", "model-not-moved"])
def test_a_rule_code_or_name_alone_points_at_explain(proj, word):
    r = run(word)  # as people type it after seeing `DL001` in the output
    assert r.exit_code == 2
    assert r.stderr == ("error: unrecognized subcommand "
                        f"'{word}' \N{EM DASH} to read about DL001 (model-not-moved): devicelint explain DL001\n")
    assert r.stdout == ""


def test_existing_path_named_like_a_command_still_lints(proj):
    (proj / "verfy").mkdir()
    (proj / "verfy" / "train.py").write_text(FINETUNE)
    (proj / "train").write_text(FINETUNE)  # a script without an extension
    r = run("verfy", "--output-format", "json")
    assert r.exit_code == 1
    assert {f["code"] for f in json.loads(r.stdout)} == {"DL001", "DL005"}
    r = run("train", "--output-format", "json")
    assert r.exit_code == 1 and json.loads(r.stdout)


@pytest.mark.parametrize("missing", ["nope.py", "src/", os.path.join("scripts", "train")])
def test_missing_path_is_still_a_missing_file(proj, missing):
    r = run(missing, "--output-format", "json")
    assert r.exit_code == 1
    assert [(f["code"], f["name"]) for f in json.loads(r.stdout)] == [("DL000", "unreadable-file")]


def test_known_commands_are_the_groups_own(proj, monkeypatch):
    """A command added to the group (the LSP `server`) is a command, not a typo, and typos of
    it are suggested: the list of commands lives in one place."""

    @click.command("server")
    def server():
        click.echo("serving")

    monkeypatch.setitem(cli.commands, "server", server)
    r = run("server")
    assert (r.exit_code, r.stdout) == (0, "serving\n")
    r = run("sever")
    assert r.exit_code == 2
    assert r.stderr == "error: unrecognized subcommand 'sever' \N{EM DASH} did you mean 'server'?\n"


# --- item 10: explain by name ------------------------------------------------------------


@pytest.mark.parametrize("args", [
    ["explain", "model-not-moved"],
    ["explain", "Model_Not_Moved"],
    ["explain", "DL001"],
    ["--explain", "model-not-moved"],
])
def test_explain_by_name_or_code(proj, args):
    r = run(*args)
    assert r.exit_code == 0
    assert r.stdout.startswith("# DL001 model-not-moved\n")


def test_explain_by_name_json(proj):
    r = run("explain", "loss-accumulates-graph", "--output-format", "json")
    assert r.exit_code == 0
    assert json.loads(r.stdout)["code"] == "DL010"


def test_explain_unknown_name_lists_close_matches(proj):
    r = run("explain", "model-not-move")
    assert r.exit_code == 2
    assert "unknown rule code or name 'model-not-move'; did you mean DL001 (model-not-moved)" in r.stderr
    r = run("explain", "nothing-like-it")
    assert r.exit_code == 2
    assert "unknown rule code or name 'nothing-like-it' (see `devicelint rules`)" in r.stderr


# --- item 11: fixes only --unsafe-fixes makes ------------------------------------------------


def test_closing_line_counts_unsafe_fixes(proj):
    (proj / "finetune.py").write_text(FINETUNE)
    r = run("finetune.py", "--no-cache")
    assert r.stdout.splitlines()[-1] == "Found 3 findings (1 fixable with --fix, 2 more with --unsafe-fixes)."
    r = run("finetune.py", "--no-cache", "--select", "DL001")
    assert r.stdout.splitlines()[-1] == "Found 2 findings (2 fixable with --fix --unsafe-fixes)."


def test_statistics_count_unsafe_fixes(proj):
    (proj / "finetune.py").write_text(FINETUNE)
    r = run("finetune.py", "--no-cache", "--statistics")
    assert r.stdout.splitlines() == [
        "2\tDL001\t    model-not-moved (2 fixable with --unsafe-fixes)",
        "1\tDL005\t[*] deprecated-cuda-amp",
        "Found 3 findings (1 fixable with --fix, 2 more with --unsafe-fixes).",
    ]
    rows = json.loads(run("finetune.py", "--no-cache", "--statistics", "--output-format", "json").stdout)
    assert [(r["code"], r["fixable"], r["fixable_count"], r["unsafe_fixable_count"]) for r in rows] == [
        ("DL001", False, 0, 2), ("DL005", True, 1, 0)]


def test_after_fix_the_unsafe_ones_left_are_said(proj):
    (proj / "finetune.py").write_text(FINETUNE)
    r = run("finetune.py", "--no-cache", "--fix")
    assert r.stdout.splitlines()[-1] == "Found 3 findings (1 fixed, 2 remaining, 2 fixable with --unsafe-fixes)."
    (proj / "finetune.py").write_text(FINETUNE)
    r = run("finetune.py", "--no-cache", "--fix", "--unsafe-fixes")
    assert r.stdout.splitlines()[-1].endswith(" fixed, 0 remaining).")  # nothing left to offer


# --- item 12: the README's config example ------------------------------------------------


def _readme_config() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("### Configuration"):]
    return re.search(r"```toml\n(\[tool\.devicelint\]\n.*?)```", section, re.S).group(1)


def test_readme_config_example_selects_what_it_says(tmp_path):
    from devicelint import rules

    def selected(select=None, ignore=None):
        return {r.code for r in rules.resolve(select, ignore)}

    default = {r.code for r in rules.ALL_RULES if r.default}
    example = _readme_config()
    (tmp_path / "pyproject.toml").write_text(example)
    cfg = cfgmod.load(str(tmp_path / "pyproject.toml"))
    # a `select` the example uses and calls the default must select the default rules
    for line in example.splitlines():
        if line.startswith("select") and "default" in line:
            value = tomllib.loads(line.split("#")[0])["select"]
            assert selected(value) == default, line
    # what the CLI runs with that config (cli.check: select, else the default, plus extend-select)
    chosen = selected(list(cfg.select or default) + list(cfg.extend_select), cfg.ignore)
    # no rule that is off by default runs unless the example names it
    off = {r.code for r in rules.ALL_RULES if not r.default}
    named = set(re.findall(r"DL\d{3}", "\n".join(line.split("#")[0] for line in example.splitlines())))
    assert off & chosen <= named
    assert chosen == (default | set(cfg.extend_select)) - set(cfg.ignore)


# --- the rule table and what a run imports -------------------------------------------------


def test_rule_table_matches_the_rule_classes():
    from devicelint import codes, rules

    # a rule is a module, or a package holding its private machinery (rules/dl004_redundant_to/)
    folder = ROOT / "devicelint" / "rules"
    modules = sorted([p.stem for p in folder.glob("dl[0-9]*.py")] + [p.parent.name for p in folder.glob("dl[0-9]*/__init__.py")])
    assert sorted(e.module for e in codes.TABLE) == modules
    assert [(r.code, r.name, r.default) for r in rules.ALL_RULES] == [(e.code, e.name, e.default) for e in codes.TABLE]
    assert [e.code for e in codes.TABLE] == sorted(e.code for e in codes.TABLE)


# Runs the CLI's entry point in a fresh interpreter, then prints the modules it imported.
_IMPORTS = """
import json, sys
from devicelint.cli import main
sys.argv = ["devicelint", *sys.argv[1:]]
try:
    main()
except SystemExit as e:
    code = e.code
sys.stderr.write("MODULES " + json.dumps([code, sorted(sys.modules)]) + "\\n")
"""


def _imported(cwd, *args):
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "DEVICELINT_PROGRESS")}
    r = subprocess.run([sys.executable, "-c", _IMPORTS, *args], cwd=cwd, capture_output=True, text=True,
                       env=env, timeout=300)
    line = [x for x in r.stderr.splitlines() if x.startswith("MODULES ")]
    assert line, r.stderr
    code, modules = json.loads(line[-1][len("MODULES "):])
    return code, r.stdout, set(modules)


def _heavy(modules) -> list:
    return sorted(m for m in modules if m == "libcst" or m.startswith(("libcst.", "devicelint.rules", "devicelint.flow"))
                  or m in ("devicelint.engine", "devicelint.summary"))  # (rules/ holds cpu_run, bindonce)


def test_cache_hit_imports_neither_libcst_nor_rules(tmp_path):
    script = ROOT / "benchmarks" / "data" / "train_classifier.py"
    (tmp_path / "train.py").write_bytes(script.read_bytes())
    cold_code, cold_out, cold = _imported(tmp_path, "train.py")
    assert cold_code == 1 and "DL009" in cold_out
    # a cold run imports the rules it runs, not those off by default
    assert "libcst" in cold and "devicelint.rules.dl001_model_not_moved" in cold
    assert not {"devicelint.rules.dl013_sync_in_loop", "devicelint.rules.dl014_dataloader_not_pinned",
                "devicelint.rules.dl100_unused_noqa"} & cold
    hit_code, hit_out, hit = _imported(tmp_path, "train.py")
    assert (hit_code, hit_out) == (cold_code, cold_out)  # the same report, from the cache
    assert _heavy(hit) == [] and "click" not in hit


def test_plain_lint_of_one_file_imports_only_what_it_runs(tmp_path):
    """A cold lint of one `.py` file (the editor's and pre-commit's case, issue 21 "One file,
    fast") imports neither the notebook reader, the language server, the runtime checker,
    the fixer, click (a plain command line needs no parser: cli.fast_options), nor what only
    a broken file, a mistyped config key or an internal error needs."""
    script = ROOT / "benchmarks" / "data" / "train_classifier.py"
    (tmp_path / "train.py").write_bytes(script.read_bytes())
    code, out, modules = _imported(tmp_path, "--no-cache", "train.py")
    assert code == 1 and "DL005" in out and "DL009" in out
    # (the summary of the file itself, with its hash, is read: call-site contexts take a
    # function's parameters from the calls in its own file too, contexts.py)
    unneeded = {"devicelint.notebook", "devicelint.fix",
                "devicelint.rules.dl004_redundant_to.bindonce", "devicelint.rules.dl007_hardcoded_cuda.cpu_run",
                "devicelint.rules.dl002_batch_not_moved.dictbatch", "devicelint.baseline", "devicelint.noqa",
                "difflib", "traceback", "click"}
    assert sorted(unneeded & modules) == []
    assert [m for m in modules if m.split(".")[0] in ("torch", "pygls", "lsprotocol", "watchfiles")
            or m.startswith(("devicelint.lsp", "devicelint.runtime"))] == []
