"""Build the real-world corpus for devicelint from pinned PyPI wheels.

Pins (latest releases on PyPI when this file was written):
    transformers       5.23.0
    timm               1.0.31
    diffusers          0.42.1
    pytorch-lightning  2.6.6

Usage:
    python benchmarks/corpus.py [--cache DIR]

Downloads each wheel (no dependencies) into CACHE/wheels, extracts its .py
files into CACHE/src/<name>-<ver>/, and prints one line per package:
folder, files, lines.  Idempotent: existing wheels and folders are reused.
Never writes into the repository.  Other scripts import `corpus_dirs()`.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import zipfile
from pathlib import Path

PINS = {
    "transformers": "5.23.0",
    "timm": "1.0.31",
    "diffusers": "0.42.1",
    "pytorch-lightning": "2.6.6",
}
DEFAULT_CACHE = Path(os.environ.get("DEVICELINT_CORPUS", "~/.cache/devicelint-corpus")).expanduser()


def _wheel_prefix(name: str, ver: str) -> str:
    # wheel file names normalise "-" to "_"
    return f"{name.replace('-', '_')}-{ver}-"


def fetch(cache: Path, name: str, ver: str) -> Path:
    """Return CACHE/src/<name>-<ver>, downloading and extracting it if missing."""
    dest = cache / "src" / f"{name}-{ver}"
    done = dest / ".complete"
    if done.exists():
        return dest
    wheels = cache / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    found = [w for w in wheels.glob("*.whl") if w.name.lower().startswith(_wheel_prefix(name, ver).lower())]
    if not found:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
             f"{name}=={ver}", "-d", str(wheels)],
            check=True,
        )
        found = [w for w in wheels.glob("*.whl") if w.name.lower().startswith(_wheel_prefix(name, ver).lower())]
    if not found:
        raise SystemExit(f"no wheel for {name}=={ver} in {wheels}")
    dest.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(found[0]) as zf:
        for member in zf.namelist():
            if member.endswith(".py") and ".dist-info/" not in member:
                zf.extract(member, dest)
    done.touch()
    return dest


def py_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.py") if p.is_file())


def count_lines(path: Path) -> int:
    with open(path, "rb") as f:
        return sum(1 for _ in f)


def corpus_dirs(cache: Path = DEFAULT_CACHE, build: bool = True) -> list[Path]:
    """The extracted source folders, in PINS order (built on demand)."""
    if build:
        return [fetch(cache, n, v) for n, v in PINS.items()]
    return [cache / "src" / f"{n}-{v}" for n, v in PINS.items()]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    args = ap.parse_args()
    cache = args.cache.expanduser().resolve()
    tot_f = tot_l = 0
    for d in corpus_dirs(cache):
        files = py_files(d)
        lines = sum(count_lines(p) for p in files)
        tot_f, tot_l = tot_f + len(files), tot_l + lines
        print(f"{d}\t{len(files)} files\t{lines} lines")
    print(f"total\t{tot_f} files\t{tot_l} lines")


if __name__ == "__main__":
    main()
