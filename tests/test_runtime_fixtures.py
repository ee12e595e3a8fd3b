"""Runtime evidence for every fixture script (see fixtures/README.md).

Parametrized by the devicelint pytest plugin over fixtures/<CODE>-<name>/{bad,fixed}*.py.
Skipped unless `pytest --cuda` (real GPU) or `pytest --simulate-cuda` (CPU simulation).
"""


def test_fixture_runtime(devicelint_case):
    result = devicelint_case.result()
    assert result.ok, devicelint_case.explain()
