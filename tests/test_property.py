"""Generated programs never crash the linter (hypothesmith: grammar- and CST-based programs).

Each run tries 60 programs per strategy (120 in all); `DEVICELINT_FUZZ_EXAMPLES=5000 pytest tests/test_property.py`
runs a longer local campaign.
"""

import os

import pytest

hypothesmith = pytest.importorskip("hypothesmith")
from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402

from devicelint.engine import lint_source  # noqa: E402
from devicelint.findings import Finding  # noqa: E402

# the linter raises the recursion limit while it analyses a file (and restores it): hypothesis
# notices the change and warns that it will not reset the limit itself
pytestmark = [pytest.mark.filterwarnings("ignore::SyntaxWarning"),
              pytest.mark.filterwarnings("ignore:The recursion limit will not be reset")]
EXAMPLES = int(os.environ.get("DEVICELINT_FUZZ_EXAMPLES", "60"))
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
    # hypothesmith scores programs with target(); hill-climbing on that score cost 4/5 of
    # the test's time and finds no new kind of program: generate, replay and shrink only
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink],
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
