"""Precision / recall of DL019 (default-device-generator) and DL020 (ddp-without-set-device) on
the labelled corpus.

Scored over every file in tests/corpus/ (the other rules' files too, where these two must stay
silent): `dl019_*` / `dl020_*` files are modelled on real reports (URL in each header),
`clean_dl019_*` / `clean_dl020_*` files are correct code written to tempt the rule.
"""

from pathlib import Path

from labels import score

CORPUS = sorted((Path(__file__).parent / "corpus").glob("*.py"))
RULES = ["DL019", "DL020"]


def test_each_rule_has_labelled_files():
    names = [p.name for p in CORPUS]
    for code in RULES:
        n = code[2:].lower()
        buggy = [x for x in names if x.startswith(f"dl{n}_")]
        clean = [x for x in names if x.startswith(f"clean_dl{n}_")]
        assert len(buggy) >= 3 and len(clean) >= 3, (code, buggy, clean)


def test_every_finding_is_labelled_and_every_label_found():
    r = score(CORPUS, RULES)
    for code in RULES:
        assert r["tp"][code] >= 4, (code, r["tp"][code])
        assert r["fp"][code] == 0 and r["fn"][code] == 0, "\n".join(r["misses"])
