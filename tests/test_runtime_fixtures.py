"""Runtime evidence for every fixture script (see fixtures/README.md).

Parametrized by the devicelint pytest plugin over fixtures/<CODE>-<name>/{bad,fixed}*.py.
Skipped unless `pytest --cuda` (real GPU) or `pytest --simulate-cuda` (CPU simulation).
"""


def test_fixture_runtime(devicelint_case):
    result = devicelint_case.result()
    assert result.ok, devicelint_case.explain()
    # `devicelint --fix --unsafe-fixes` on a copy of a bad script: where it edits, the copy
    # must run clean (runner.autofix_run)
    assert result.autofix != "fails", f"{result.fixture}: autofix fails: {result.autofix_detail}"
