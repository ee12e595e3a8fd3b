"""Re-lint a first-look round with today's devicelint and match its audited labels.

    python benchmarks/relint_firstlook.py benchmarks/firstlook/2026-11-26e.json /tmp/fl5/src

SRC holds the round's repositories as the record's `commands.export` wrote them, one folder
per repository named `owner+name`. Each is linted with `--select ALL --no-cache`; a finding
is matched to a label by (repository, path, cell, line, code). Prints how many labelled-true
and labelled-false findings are still reported and every finding of a fully audited rule that
no label covers (to audit). A tuning figure once the round's causes were fixed after being
seen, never a first look."""

from __future__ import annotations

import collections
import json
import os
import subprocess
import sys

FULLY_AUDITED = {"DL001", "DL002", "DL003", "DL004", "DL005", "DL006", "DL010", "DL011", "DL015", "DL016",
                 "DL017", "DL018", "DL019", "DL020", "DL021"}
MISSION_FIVE = {"DL001", "DL002", "DL003", "DL004", "DL005"}


def lint(root: str) -> set:
    out = subprocess.run([sys.executable, "-m", "devicelint", "--output-format", "json", "--select", "ALL",
                          "--exit-zero", "--no-cache", root], capture_output=True, text=True, check=False).stdout
    return {(os.path.relpath(f["path"], root), f.get("cell"), f["line"], f["code"]) for f in json.loads(out or "[]")}


def main(record_path: str, src: str) -> int:
    record = json.loads(open(record_path, encoding="utf-8").read())
    labels = {(l["repo"].replace("/", "+"), l["path"], l["cell"], l["line"], l["code"]): l["verdict"]
              for l in record["labels"]}
    now = set()
    for repo in record["repos"]:
        folder = repo["repo"].replace("/", "+")
        now |= {(folder, *f) for f in lint(os.path.join(src, folder))}
    kept = collections.Counter((verdict, key in now) for key, verdict in labels.items())
    print("labelled verdict, still reported:", dict(sorted(kept.items())))
    for name, codes in (("mission five", MISSION_FIVE), ("fully audited rules", FULLY_AUDITED)):
        reported = [k for k in labels if k[4] in codes and k in now]
        print(f"{name} on labelled findings: {sum(labels[k] == 'true' for k in reported)}/{len(reported)}")
    new = sorted(k for k in now if k not in labels and k[4] in FULLY_AUDITED)
    print(f"unlabelled findings of fully audited rules: {len(new)}")
    for key in new:
        print("  ", *key)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
