"""Fixture header parsing and bad/fixed pair discovery (see fixtures/README.md).

The header is the leading run of comment lines of a ``bad*.py`` (of a ``bad*.ipynb``'s
code cells joined, so: at the top of its first code cell)::

    # devicelint-fixture
    # expect: DL002 at 41, 57
    # runtime: raises RuntimeError: Expected all tensors | Input type (torch.cuda.FloatTensor)

A comment line whose text starts with ``|`` continues the previous key, so long
alternative lists can wrap. Other comment lines in the block are free prose.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

MARKER = "devicelint-fixture"
_DIR_RE = re.compile(r"^(DL\d{3})-([a-z0-9][a-z0-9-]*)$")
_BAD_RE = re.compile(r"^bad(_\d+)?\.(py|ipynb)$")
# `41` in a script; `cell 9:8` (cell 9, its line 8) in a notebook
_PLACE = r"(?:\d+|cell\s+\d+:\d+)"
_EXPECT_RE = re.compile(rf"^(DL\d{{3}})\s+at\s+({_PLACE}(?:\s*,\s*{_PLACE})*)$")


class FixtureError(ValueError):
    """A fixture header or folder that does not follow the protocol."""


@dataclass(frozen=True)
class Outcome:
    """What running the bad script must show. ``kind`` picks the judge in runner.py.

    kinds: ``raises`` (name=exception type, texts=alternatives), ``warns``
    (name=category, texts=(text,)), ``wastes`` (name='h2d', 'pageable' or 'sync', minimum=N),
    ``grows`` (name='memory'), ``raises-without-cuda`` (name=exception type or a
    comma-separated list of types, texts=alternatives; both scripts run for real with CUDA
    hidden), ``none`` (texts=(reason,): no runtime proof, both scripts must run clean).
    """

    kind: str
    name: str = ""
    texts: tuple[str, ...] = ()
    minimum: int = 0

    def describe(self) -> str:
        if self.kind == "raises":
            return f"raises {self.name}: " + " | ".join(self.texts) if self.texts else f"raises {self.name}"
        if self.kind == "warns":
            return f"warns {self.name}: {self.texts[0]}" if self.texts else f"warns {self.name}"
        if self.kind == "wastes":
            return f"wastes {self.name} >= {self.minimum}"
        if self.kind == "grows":
            return f"grows {self.name}"
        if self.kind == "raises-without-cuda":
            return f"raises-without-cuda {self.name}: " + " | ".join(self.texts) if self.texts else f"raises-without-cuda {self.name}"
        if self.kind == "none":
            return f"none ({self.texts[0]})" if self.texts else "none"
        return self.kind

    @property
    def types(self) -> tuple[str, ...]:
        """The accepted exception types (``raises-without-cuda`` may list several)."""
        return tuple(t.strip() for t in self.name.split(",") if t.strip())


def _parse_raises_or_warns(kind: str, rest: str) -> Outcome:
    name, sep, text = rest.partition(":")
    name = name.strip()
    if not re.fullmatch(r"[A-Za-z_][\w.]*", name):
        raise FixtureError(f"runtime: {kind} needs a type name, got {rest!r}")
    texts = tuple(t.strip() for t in text.split("|") if t.strip()) if sep else ()
    if kind == "warns":
        # a warning text may itself contain '|'; only raises takes alternatives
        texts = (text.strip(),) if sep and text.strip() else ()
    return Outcome(kind, name, texts)


def _parse_wastes(rest: str) -> Outcome:
    m = re.fullmatch(r"(h2d|pageable|sync)\s*>=\s*(\d+)", rest.strip())
    if not m:
        raise FixtureError(f"runtime: wastes wants 'h2d >= N', 'pageable >= N' or 'sync >= N', got {rest!r}")
    return Outcome("wastes", m.group(1), (), int(m.group(2)))


def _parse_grows(rest: str) -> Outcome:
    if rest.strip() != "memory":
        raise FixtureError(f"runtime: grows wants 'memory', got {rest!r}")
    return Outcome("grows", "memory")


def _parse_raises_without_cuda(rest: str) -> Outcome:
    """``raises-without-cuda AssertionError, RuntimeError: text | text``: the script dies on a
    machine without CUDA. PyTorch raises AssertionError ("Torch not compiled with CUDA
    enabled") on CPU builds and RuntimeError ("No CUDA GPUs are available") on CUDA builds
    with no usable GPU, so several types may be listed."""
    name, sep, text = rest.partition(":")
    types = [t.strip() for t in name.split(",")]
    if not types or not all(re.fullmatch(r"[A-Za-z_][\w.]*", t) for t in types):
        raise FixtureError(f"runtime: raises-without-cuda needs exception type(s), got {rest!r}")
    texts = tuple(t.strip() for t in text.split("|") if t.strip()) if sep else ()
    return Outcome("raises-without-cuda", ", ".join(types), texts)


def _parse_none(rest: str) -> Outcome:
    """``none (reason)``: the pitfall has no runtime symptom to prove (DL012); both scripts
    must simply run clean, and the verdict says "no-runtime-proof", never "confirmed"."""
    m = re.fullmatch(r"\((.+)\)", rest.strip())
    if not m or not m.group(1).strip():
        raise FixtureError(f"runtime: none wants a reason in parentheses, got {rest!r}")
    return Outcome("none", "", (m.group(1).strip(),))


# New outcome kinds register a parser here and a judge in runner.JUDGES.
PARSERS = {
    "raises": lambda rest: _parse_raises_or_warns("raises", rest),
    "warns": lambda rest: _parse_raises_or_warns("warns", rest),
    "wastes": _parse_wastes,
    "grows": _parse_grows,
    "raises-without-cuda": _parse_raises_without_cuda,
    "none": _parse_none,
}


def parse_outcome(spec: str) -> Outcome:
    kind, _, rest = spec.strip().partition(" ")
    if kind not in PARSERS:
        raise FixtureError(f"runtime: unknown outcome {kind!r} (known: {', '.join(PARSERS)})")
    return PARSERS[kind](rest)


@dataclass(frozen=True)
class Header:
    expect: dict[str, tuple]  # code -> lines the linter must flag ((cell, line) in a notebook)
    outcome: Outcome
    runtime_text: str
    ranks: int = 1  # `ranks: N`: run as N ranks of one process group (runtime/ranks.py)


def _comment_block(source: str) -> list[str]:
    block = []
    for line in source.splitlines():
        stripped = line.strip()
        if not stripped.startswith("#"):
            break
        block.append(stripped[1:].strip())
    return block


def _place(item: str):
    """41 -> 41; `cell 9:8` -> (9, 8), which is how a notebook finding's (cell, line) reads."""
    item = item.strip()
    if item.startswith("cell"):
        cell, _, line = item[4:].strip().partition(":")
        return (int(cell), int(line))
    return int(item)


def header_source(path: Path) -> str:
    """The text whose leading comment block is the header: the script itself, or for a
    notebook its code cells joined (the header opens its first code cell)."""
    if path.suffix == ".ipynb":
        from devicelint.notebook import script

        return script(path.read_bytes())
    return path.read_text(encoding="utf-8")


def parse_header(source: str, where: str = "<fixture>") -> Header:
    block = _comment_block(source)
    if MARKER not in block:
        raise FixtureError(f"{where}: no '# {MARKER}' line in the leading comment block")
    keyed: list[tuple[str, str]] = []
    for text in block:
        key, sep, value = text.partition(":")
        if sep and key.strip() in ("expect", "runtime", "ranks"):
            keyed.append((key.strip(), value.strip()))
        elif text.startswith("|") and keyed:
            k, v = keyed[-1]
            keyed[-1] = (k, f"{v} {text}")
    expect: dict[str, tuple] = {}
    runtime = None
    ranks = 1
    for key, value in keyed:
        if key == "ranks":
            if not value.isdigit() or not 2 <= int(value) <= 8:
                raise FixtureError(f"{where}: bad ranks line {value!r} (want a number of processes, 2 to 8)")
            ranks = int(value)
        elif key == "expect":
            m = _EXPECT_RE.fullmatch(value)
            if not m:
                raise FixtureError(f"{where}: bad expect line {value!r} (want 'DL002 at 41, 57')")
            if m.group(1) in expect:
                raise FixtureError(f"{where}: two expect lines for {m.group(1)}")
            expect[m.group(1)] = tuple(_place(item) for item in m.group(2).split(","))
        else:
            if runtime is not None:
                raise FixtureError(f"{where}: more than one runtime line")
            runtime = value
    if runtime is None:
        raise FixtureError(f"{where}: no 'runtime:' line in the header")
    try:
        outcome = parse_outcome(runtime)
    except FixtureError as exc:
        raise FixtureError(f"{where}: {exc}") from None
    return Header(expect, outcome, runtime, ranks)


@dataclass(frozen=True)
class Pair:
    """One bad script and its fixed partner inside ``<CODE>-<name>/``."""

    code: str
    folder: Path
    bad: Path
    fixed: Path | None
    header: Header | None = None
    error: str | None = None  # why this pair cannot be run (bad header, missing partner)

    @property
    def name(self) -> str:
        return f"{self.folder.name}/{self.bad.name}"

    @property
    def fixed_name(self) -> str:
        return f"{self.folder.name}/{self.fixed.name}" if self.fixed else f"{self.folder.name}/?"


def _pairs_in(folder: Path, code: str) -> list[Pair]:
    pairs = []
    for bad in sorted(p for p in folder.iterdir() if _BAD_RE.match(p.name)):
        fixed = bad.with_name("fixed" + bad.name[3:])
        error = None if fixed.is_file() else f"{fixed.name} is missing"
        header = None
        try:
            header = parse_header(header_source(bad), str(bad))
        except (FixtureError, OSError, UnicodeDecodeError, ValueError) as exc:
            error = str(exc)
        pairs.append(Pair(code, folder, bad, fixed if fixed.is_file() else None, header, error))
    return pairs


def discover_pairs(root: str | Path) -> list[Pair]:
    """All pairs under ``root``: a folder of ``<CODE>-<name>/`` folders, or one such folder."""
    root = Path(root)
    m = _DIR_RE.match(root.name)
    if m and root.is_dir():
        return _pairs_in(root, m.group(1))
    pairs: list[Pair] = []
    if not root.is_dir():
        return pairs
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        m = _DIR_RE.match(folder.name)
        if m:
            pairs.extend(_pairs_in(folder, m.group(1)))
    return pairs
