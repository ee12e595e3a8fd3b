"""The labelled realistic corpus holds the precision / recall floor of the mission rules.

Files in tests/corpus/ are modelled on real bug reports (URL in each header); the labels
are the lines a correct linter flags. `python benchmarks/score_corpus.py` prints the table.
"""

from pathlib import Path

from labels import score

CORPUS = sorted((Path(__file__).parent / "corpus").glob("*.py"))
MISSION = ["DL001", "DL002", "DL003", "DL004", "DL005"]


def test_corpus_size():
    from labels import expected

    buggy = [p for p in CORPUS if expected(p.read_text(encoding="utf-8"))]
    assert len(CORPUS) >= 60 and len(buggy) >= 35


def test_precision_and_recall_floor():
    r = score(CORPUS, MISSION)
    tp, fp, fn = sum(r["tp"].values()), sum(r["fp"].values()), sum(r["fn"].values())
    precision, recall = tp / (tp + fp), tp / (tp + fn)
    assert precision >= 0.95 and recall >= 0.90, "\n".join(r["misses"])
    for code in MISSION:  # no rule may hide behind the others
        t, f = r["tp"][code], r["fp"][code]
        assert t and t / (t + f) >= 0.9, f"{code}: precision {t}/{t + f}"
