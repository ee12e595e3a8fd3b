"""Precision / recall floor of DL021 (host-device-round-trip) on the labelled corpus.

Scored over every file in tests/corpus/ (where DL021 must stay silent unless labelled):
`dl021_*` files copy a host tensor to the device and straight back; `clean_dl021_*` files
move tensors that are then used on the device, or that may already be there.
"""

from pathlib import Path

from labels import score

CORPUS = sorted((Path(__file__).parent / "corpus").glob("*.py"))


def test_dl021_has_labelled_files():
    names = [p.name for p in CORPUS]
    assert len([x for x in names if x.startswith("dl021_")]) >= 2
    assert len([x for x in names if x.startswith("clean_dl021_")]) >= 2


def test_dl021_precision_and_recall():
    r = score(CORPUS, ["DL021"])
    tp, fp, fn = r["tp"]["DL021"], r["fp"]["DL021"], r["fn"]["DL021"]
    assert tp and tp / (tp + fp) >= 0.95 and tp / (tp + fn) >= 0.9, "\n".join(r["misses"])
