"""The speed benchmarks measure what they say: the project benchmark's "edit one file,
re-run" lints an edit the cache has never seen every round, and the one-file benchmark's
ratios are paired per round."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
import project_speed  # noqa: E402


def test_every_edit_round_is_new_to_the_cache(tmp_path):
    """Toggling between two contents measures a cache hit from the third round on: every
    round's edited file must be new, and so must its summary (what the scripts importing
    it are cached against), or those scripts are not linted again."""
    from devicelint.summary import summarize

    model = tmp_path / "proj" / "proj" / "models" / f"net{project_speed.EDITED_MODEL}.py"
    seen = []

    def run(args):
        if "--no-cache" not in args and args[0] == ".":  # the cache filling run, then each round's re-run
            seen.append(model.read_bytes())
        return (0.0, 0.0), []

    m = project_speed.measure(tmp_path / "proj", 60, 1, 4, run)
    rounds = seen[1:]
    assert len(rounds) == len(m["edits"]) == 4
    assert len(set(rounds)) == 4 and seen[0] not in rounds
    assert len({repr(summarize(text)) for text in rounds}) == 4
    # the edit still changes the findings every other round: the factory's move is dropped
    assert [b"return model.to(device)" in text for text in rounds] == [False, True, False, True]


def test_one_file_ratios_are_paired_medians():
    import one_file

    runs = {"floor": [(1.0, 0.5), (2.0, 1.0), (1.0, 0.4)],
            "cold": [(1.5, 0.6), (2.0, 1.5), (3.0, 1.2)],
            "hit": [(0.5, 0.1), (1.0, 0.2), (0.2, 0.1)]}
    res = one_file.summarize(runs)
    assert res["cold"]["cpu_ratio"] == 1.5  # medians of 1.2, 1.5, 3.0
    assert res["hit"]["wall_ratio"] == 0.5  # medians of 0.5, 0.5, 0.2
    assert res["floor"] == {"wall": 1.0, "cpu": 0.5}
    cmds = one_file.commands("py", "f.py", "/c")
    assert cmds["cold"][:4] == ["py", "-m", "devicelint", "--no-cache"] and cmds["hit"][3:5] == ["--cache-dir", "/c"]


def test_one_file_times_with_bytecode_cached_unless_told(monkeypatch):
    """An installed devicelint has its bytecode; timed under PYTHONDONTWRITEBYTECODE (as this
    project's sessions run), every cold run compiled devicelint's modules while LibCST's came
    compiled: the benchmark caches bytecode in its own folder unless `--no-bytecode`."""
    import one_file

    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    cached = one_file.bytecode_env("/tmp/pyc")
    assert "PYTHONDONTWRITEBYTECODE" not in cached and cached["PYTHONPYCACHEPREFIX"] == "/tmp/pyc"
    monkeypatch.setenv("PYTHONPYCACHEPREFIX", "/elsewhere")
    plain = one_file.bytecode_env(None)
    assert plain["PYTHONDONTWRITEBYTECODE"] == "1" and "PYTHONPYCACHEPREFIX" not in plain
