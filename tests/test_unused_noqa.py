"""DL100 unused-noqa: a suppression of a devicelint code that silences nothing."""

import textwrap

from click.testing import CliRunner

from devicelint.cli import cli
from devicelint.engine import lint_source

HEAD = """\
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 2).to(device)
"""


def dl100(body: str, extra=("DL100",)):
    code = HEAD + textwrap.dedent(body)
    select = [r for r in ("DL001", "DL002", "DL003", "DL004", "DL005", "DL006", "DL007", "DL008", "DL009",
                          "DL010", "DL011", "DL012", "DL015")] + list(extra)
    return [(f.line, f.column, f.message) for f in lint_source(code, "train.py", select=select) if f.code == "DL100"]


def test_off_by_default_and_selectable(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "train.py").write_text(HEAD + "probs = model(torch.randn(2, 4, device=device)).detach().cpu().numpy()  # noqa: DL003\n")
    r = CliRunner().invoke(cli, ["train.py", "--no-cache", "--output-format", "concise"])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(cli, ["train.py", "--no-cache", "--output-format", "concise", "--extend-select", "DL100"])
    assert r.exit_code == 1
    assert "train.py:5:73: DL100 [unused-noqa] unused suppression of DL003" in r.output


def test_used_directives_are_not_reported():
    assert dl100("""
    x = torch.randn(8, 4).to(device)
    arr = x.numpy()  # noqa: DL003
    # devicelint: ignore[DL003]
    arr2 = x.numpy()
    arr3 = x.numpy()  # noqa: dl003 kept for the demo notebook
    """) == []


def test_unused_codes_named_among_used_ones():
    found = dl100("""
    x = torch.randn(8, 4).to(device)
    arr = x.numpy()  # noqa: DL003, DL006
    clean = x.cpu().numpy()  # devicelint: ignore[DL003]
    # noqa: DL008
    ones = torch.ones(3, device=device)
    """)
    assert [(line, msg.split(":")[0]) for line, _col, msg in found] == [
        (7, "unused suppression of DL006"),
        (8, "unused suppression of DL003"),
        (9, "unused suppression of DL008"),
    ]


def test_bare_noqa_other_tools_prefixes_and_rules_that_did_not_run():
    body = """
    x = torch.randn(8, 4).to(device)
    y = x * 2  # noqa
    z = x + 1  # noqa: E501, F841
    w = x - 1  # noqa: DL0
    for step in range(3):
        v = x.sum().item()  # noqa: DL013
    """
    assert dl100(body) == []
    # once DL013 runs, its directive is judged (here it silences nothing: no loader loop)
    assert [line for line, _c, _m in dl100(body, extra=("DL100", "DL013"))] == [11]


def test_dl100_can_be_told_to_keep_a_directive_and_ignore_file_silences_it():
    assert dl100("""
    z = torch.zeros(3, device=device)  # noqa: DL008, DL100
    """) == []
    assert dl100("""
    # devicelint: ignore-file
    z = torch.zeros(3, device=device)  # noqa: DL008
    """) == []


def test_file_without_any_finding_still_checked():
    found = dl100("""
    z = torch.zeros(3, device=device)  # noqa: DL008
    """)
    assert [(line, col) for line, col, _m in found] == [(6, 36)]
