"""The fixture header protocol (fixtures/README.md) and pair discovery."""

import pytest

from devicelint.runtime.fixture import FixtureError, Outcome, discover_pairs, parse_header

GOOD = """# devicelint-fixture
# expect: DL002 at 41, 57
# expect: DL004 at 9
# runtime: raises RuntimeError: Expected all tensors to be on the same device | Input type (torch.cuda.FloatTensor)
#   | and weight type
\"\"\"Docstring.\"\"\"
import torch
"""


def test_header_lines_and_alternatives():
    header = parse_header(GOOD)
    assert header.expect == {"DL002": (41, 57), "DL004": (9,)}
    assert header.outcome == Outcome(
        "raises",
        "RuntimeError",
        ("Expected all tensors to be on the same device", "Input type (torch.cuda.FloatTensor)", "and weight type"),
    )


@pytest.mark.parametrize(
    "spec, outcome",
    [
        ("warns FutureWarning: `torch.cuda.amp.autocast(args...)` is deprecated",
         Outcome("warns", "FutureWarning", ("`torch.cuda.amp.autocast(args...)` is deprecated",))),
        ("wastes h2d >= 8", Outcome("wastes", "h2d", (), 8)),
        ("wastes sync >= 3", Outcome("wastes", "sync", (), 3)),
        ("grows memory", Outcome("grows", "memory")),
        ("raises TypeError: can't convert cuda:0 device type tensor to numpy",
         Outcome("raises", "TypeError", ("can't convert cuda:0 device type tensor to numpy",))),
    ],
)
def test_outcome_kinds(spec, outcome):
    assert parse_header(f"# devicelint-fixture\n# expect: DL001 at 3\n# runtime: {spec}\nx = 1\n").outcome == outcome


@pytest.mark.parametrize(
    "text, message",
    [
        ("# expect: DL001 at 3\n# runtime: grows memory\n", "no '# devicelint-fixture'"),
        ("# devicelint-fixture\n# expect: DL001 at 3\n", "no 'runtime:'"),
        ("# devicelint-fixture\n# runtime: explodes loudly\n", "unknown outcome 'explodes'"),
        ("# devicelint-fixture\n# expect: DL001 at three\n# runtime: grows memory\n", "bad expect line"),
        ("# devicelint-fixture\n# runtime: wastes h2d > 2\n", "wastes wants"),
        ("import torch\n# devicelint-fixture\n# runtime: grows memory\n", "no '# devicelint-fixture'"),
    ],
)
def test_bad_headers_are_errors(text, message):
    with pytest.raises(FixtureError, match=message):
        parse_header(text, "x.py")


def test_pairs_are_discovered_and_broken_ones_reported(tmp_path):
    folder = tmp_path / "DL003-numpy-on-cuda"
    folder.mkdir()
    header = "# devicelint-fixture\n# expect: DL003 at 4\n# runtime: raises TypeError: can't convert\nx = 1\n"
    (folder / "bad.py").write_text(header)
    (folder / "fixed.py").write_text("x = 1\n")
    (folder / "bad_2.py").write_text(header)  # no fixed_2.py
    (folder / "helper.py").write_text("x = 1\n")
    (tmp_path / "not-a-fixture").mkdir()
    pairs = discover_pairs(tmp_path)
    assert [(p.code, p.bad.name, p.fixed and p.fixed.name, p.error) for p in pairs] == [
        ("DL003", "bad.py", "fixed.py", None),
        ("DL003", "bad_2.py", None, "fixed_2.py is missing"),
    ]
    assert [p.name for p in discover_pairs(folder)] == ["DL003-numpy-on-cuda/bad.py", "DL003-numpy-on-cuda/bad_2.py"]
