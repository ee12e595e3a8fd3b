"""Precision / recall floor of DL017 (cuda-in-dataset) and DL018 (optimizer-state-before-move)
on the labelled corpus.

Scored over every file in tests/corpus/ (where these rules must stay silent on all the other
rules' files): `dl017_*` / `dl018_*` files are modelled on real reports (URL in each header),
`clean_dl017_*` / `clean_dl018_*` files are correct code written to tempt the rule (a Dataset
that moves its items with `num_workers=0`, a Dataset with a placing helper only the loop
calls, an optimizer built before the move, a momentum-free SGD restored on the host).
"""

from pathlib import Path

from labels import score

CORPUS = sorted((Path(__file__).parent / "corpus").glob("*.py"))
RULES = ["DL017", "DL018"]


def test_each_rule_has_labelled_files():
    names = [p.name for p in CORPUS]
    for code in RULES:
        n = code[2:].lower()
        buggy = [x for x in names if x.startswith(f"dl{n}_")]
        clean = [x for x in names if x.startswith(f"clean_dl{n}_")]
        assert len(buggy) >= 2 and len(clean) >= 2, (code, buggy, clean)


def test_precision_and_recall():
    r = score(CORPUS, RULES)
    for code in RULES:
        t, f, n = r["tp"][code], r["fp"][code], r["fn"][code]
        assert t and f == 0 and n == 0, f"{code}: tp {t} fp {f} fn {n}\n" + "\n".join(r["misses"])
