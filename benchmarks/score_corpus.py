"""Per-rule precision and recall of devicelint on the labelled corpus (tests/corpus).

    python benchmarks/score_corpus.py [--misses]
"""

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from labels import score  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--misses", action="store_true", help="list every false positive / negative")
    ap.add_argument("--codes", default="DL001,DL002,DL003,DL004,DL005")
    args = ap.parse_args()
    codes = args.codes.split(",")
    paths = sorted((ROOT / "tests" / "corpus").glob("*.py"))
    r = score(paths, codes)
    print(f"{len(paths)} files")
    print(f"{'rule':6} {'TP':>4} {'FP':>4} {'FN':>4} {'precision':>10} {'recall':>8}")
    for code in codes + ["all"]:
        if code == "all":
            tp, fp, fn = (sum(r[k].values()) for k in ("tp", "fp", "fn"))
        else:
            tp, fp, fn = r["tp"][code], r["fp"][code], r["fn"][code]
        p = tp / (tp + fp) if tp + fp else float("nan")
        rec = tp / (tp + fn) if tp + fn else float("nan")
        print(f"{code:6} {tp:4d} {fp:4d} {fn:4d} {p:10.2f} {rec:8.2f}")
    if args.misses:
        print("\n".join(r["misses"]))


if __name__ == "__main__":
    main()
