"""Precision / recall floor of DL006, DL007, DL008, DL009 and DL012 on the labelled corpus.

Scored over every file in tests/corpus/ (also the DL001-DL005 ones, where these rules must
stay silent): `dl006_*` ... `dl012_*` files are modelled on real reports (URL in each
header), `clean_dl0NN_*` files are correct code written to tempt the rule.
"""

from pathlib import Path

from labels import score

CORPUS = sorted((Path(__file__).parent / "corpus").glob("*.py"))
RULES = ["DL006", "DL007", "DL008", "DL009", "DL012"]


def test_each_rule_has_labelled_files():
    names = [p.name for p in CORPUS]
    for code in RULES:
        n = code[2:].lower()
        buggy = [x for x in names if x.startswith(f"dl{n}_")]
        clean = [x for x in names if x.startswith(f"clean_dl{n}_")]
        assert len(buggy) >= 2 and len(clean) >= 2, (code, buggy, clean)


def test_precision_and_recall():
    r = score(CORPUS, RULES)
    tp, fp, fn = sum(r["tp"].values()), sum(r["fp"].values()), sum(r["fn"].values())
    assert tp / (tp + fp) >= 0.95 and tp / (tp + fn) >= 0.9, "\n".join(r["misses"])
    for code in RULES:
        t, f = r["tp"][code], r["fp"][code]
        assert t and t / (t + f) >= 0.95, f"{code}: precision {t}/{t + f}\n" + "\n".join(r["misses"])
