"""Test selection (`pytest -m "not runtime"` runs the lint-only tests, no torch process) and
the fixtures several test modules share."""

import faulthandler
import os
import sys

import pytest

# A language-server test waits on another process and on threads: whatever it waits for is
# bounded (tests/test_lsp.py's TIMEOUT, the benchmark client's timeout), and this is the
# ceiling over a whole test, set-up and tear-down included, for a wait that is not: past it
# the stacks of every thread go to stderr and the process ends (an xdist worker is replaced
# and its test reported as crashed), instead of a hang eating the CI budget.
# seconds: the slowest LSP tests take a minute on this 2-core machine, six at a load average of 30
LSP_TEST_CEILING = float(os.environ.get("DEVICELINT_LSP_TEST_CEILING", 900))


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.name.startswith("test_runtime"):
            item.add_marker(pytest.mark.runtime)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    if not item.path.name.startswith("test_lsp"):
        yield
        return
    faulthandler.dump_traceback_later(LSP_TEST_CEILING, exit=True, file=sys.__stderr__)
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()


@pytest.fixture
def proj(tmp_path, monkeypatch):
    """An isolated project folder as the working directory."""
    monkeypatch.chdir(tmp_path)
    return tmp_path
