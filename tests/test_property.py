"""Generated programs never crash the linter (hypothesmith: grammar- and CST-based programs).

CI runs a few hundred examples; `DEVICELINT_FUZZ_EXAMPLES=5000 pytest tests/test_property.py`
runs a longer local campaign.
"""

import os

import pytest

hypothesmith = pytest.importorskip("hypothesmith")
from hypothesis import HealthCheck, given, settings  # noqa: E402

from devicelint.engine import lint_source  # noqa: E402
from devicelint.findings import Finding  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::SyntaxWarning")
EXAMPLES = int(os.environ.get("DEVICELINT_FUZZ_EXAMPLES", "150"))
# The prefilter skips files that never mention torch: make every program worth analysing,
# and give the interpreter devices, models and loaders to reason about.
PRELUDE = (
    "import torch\nimport numpy as np\nfrom torch import nn\n"
    "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
    "model = nn.Linear(2, 2)\nloader = torch.utils.data.DataLoader([])\n"
)
SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)


def _check(source: str) -> None:
    findings = lint_source(PRELUDE + source, "generated.py", select=["ALL"])
    assert isinstance(findings, list)
    for f in findings:
        assert isinstance(f, Finding) and f.line >= 1 and f.column >= 1


@SETTINGS
@given(hypothesmith.from_grammar())
def test_grammar_programs_never_crash(source):
    _check(source)


@SETTINGS
@given(hypothesmith.from_node())
def test_cst_programs_never_crash(source):
    _check(source)
