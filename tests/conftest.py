"""Test selection (`pytest -m "not runtime"` runs the lint-only tests, no torch process) and
the fixtures several test modules share."""

import pytest


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.name.startswith("test_runtime"):
            item.add_marker(pytest.mark.runtime)


@pytest.fixture
def proj(tmp_path, monkeypatch):
    """An isolated project folder as the working directory."""
    monkeypatch.chdir(tmp_path)
    return tmp_path
