"""`[tool.devicelint]` in the nearest pyproject.toml (or a file given with --config)."""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field

from devicelint.codes import unknown_codes

KEYS = {"select", "extend-select", "ignore", "exclude", "extend-exclude", "extend-include", "per-file-ignores"}


class ConfigError(Exception):
    pass


def _toml():
    """tomllib, imported only for a file that may hold our settings: most projects'
    pyproject.toml never mentions devicelint, and importing tomllib costs a one-file lint a
    few percent of its time (issue 21, "One file, fast")."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    return tomllib


@dataclass
class Config:
    select: list | None = None
    extend_select: list = field(default_factory=list)
    ignore: list = field(default_factory=list)
    exclude: list | None = None
    extend_exclude: list = field(default_factory=list)
    extend_include: list = field(default_factory=list)
    per_file_ignores: dict = field(default_factory=dict)
    path: str | None = None
    root: str = "."


def selection(cfg: Config, select=(), extend_select=(), ignore=()) -> tuple:
    """(the codes to select, or None for the default rules; the codes to ignore) from the
    config and the command line's --select / --extend-select / --ignore. The editor's
    server asks the same question for every file it lints."""
    from devicelint import codes  # the rule table as data: a cache hit imports no rule

    chosen = list(select) or cfg.select
    extend = list(cfg.extend_select) + list(extend_select)
    if extend:
        base = chosen if chosen else list(codes.DEFAULT)
        chosen = list(base) + extend
    return chosen, list(cfg.ignore) + list(ignore)


# Every way TOML can spell a `tool.devicelint` table has "tool" before "devicelint" on one
# line (`[tool.devicelint]`, `[ tool . "devicelint" ]`, `tool.devicelint.select = ...`,
# `tool = {devicelint = ...}`: headers, dotted keys and inline tables do not span lines), or
# has a `[tool]` table whose key it is (`devicelint = {...}`, `devicelint.select = ...`), or
# spells a key with escapes (`"\u0074ool"`).
_TOOL_THEN_US = re.compile(rb"tool[^\r\n]*devicelint")
_TOOL_HEADER = re.compile(rb"^[ \t]*\[[ \t]*(?:tool|\"tool\"|'tool')[ \t]*\]", re.MULTILINE)


def _may_hold_our_table(raw: bytes) -> bool:
    """Whether a pyproject.toml may hold [tool.devicelint], by its text: only then is it
    parsed. Most never spell "devicelint"; many that do only list it (a dependency, a
    script), and tomllib's import and parse are about a twentieth of a cold one-file lint
    (issue 21, "One file, fast")."""
    if b"devicelint" not in raw:
        return False
    return (_TOOL_THEN_US.search(raw) is not None or _TOOL_HEADER.search(raw) is not None
            or b"\\u" in raw or b"\\U" in raw)


def find_pyproject(start: str) -> str | None:
    """The closest pyproject.toml, upwards from `start`, that has a [tool.devicelint] table."""
    here = os.path.abspath(start)
    if not os.path.isdir(here):
        here = os.path.dirname(here)
    while True:
        candidate = os.path.join(here, "pyproject.toml")
        if os.path.isfile(candidate):
            try:
                with open(candidate, "rb") as f:
                    raw = f.read()
                if _may_hold_our_table(raw) and "devicelint" in _toml().loads(raw.decode("utf-8")).get("tool", {}):
                    return candidate
            except OSError:
                pass
            except (_toml().TOMLDecodeError, UnicodeDecodeError):
                # a broken file meant for us is reported by load(), not silently skipped
                if b"tool.devicelint" in raw:
                    return candidate
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def _codes(table: dict, key: str, where: str) -> list:
    value = table[key]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: `{key}` must be a list of rule codes")
    bad = unknown_codes(value)
    if bad:
        raise ConfigError(f"{where}: unknown rule code {', '.join(bad)} in `{key}`")
    return value


def _strings(table: dict, key: str, where: str) -> list:
    value = table[key]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: `{key}` must be a list of strings")
    return value


def _describe_unknown(keys) -> str:
    """Every unknown key at once, each with the known key it is probably a typo of."""
    import difflib  # for a mistyped key only

    parts = []
    for key in keys:
        close = difflib.get_close_matches(key.replace("_", "-"), sorted(KEYS), n=1, cutoff=0.6)
        parts.append(f"`{key}`" + (f" (did you mean `{close[0]}`?)" if close else ""))
    return f"unknown key{'s' if len(keys) > 1 else ''} " + ", ".join(parts)


def load(path: str) -> Config:
    tomllib = _toml()
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except OSError as e:
        raise ConfigError(f"{path}: cannot read: {e.strerror or e}") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: invalid TOML: {e}") from None
    except UnicodeDecodeError as e:  # TOML is UTF-8 by definition
        raise ConfigError(f"{path}: not UTF-8 (byte 0x{e.object[e.start]:02x} at offset {e.start}); "
                          "TOML files must be UTF-8") from None
    if os.path.basename(path) == "pyproject.toml" or "tool" in data:
        table = data.get("tool", {}).get("devicelint", {})
        where = f"{path} [tool.devicelint]"
    else:
        table = data
        where = path
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: must be a table")
    unknown = sorted(set(table) - KEYS)
    if unknown:
        raise ConfigError(f"{where}: {_describe_unknown(unknown)} (known: {', '.join(sorted(KEYS))})")
    cfg = Config(path=path, root=os.path.dirname(os.path.abspath(path)))
    if "select" in table:
        cfg.select = _codes(table, "select", where)
    if "extend-select" in table:
        cfg.extend_select = _codes(table, "extend-select", where)
    if "ignore" in table:
        cfg.ignore = _codes(table, "ignore", where)
    if "exclude" in table:
        cfg.exclude = _strings(table, "exclude", where)
    if "extend-exclude" in table:
        cfg.extend_exclude = _strings(table, "extend-exclude", where)
    if "extend-include" in table:
        cfg.extend_include = _strings(table, "extend-include", where)
    if "per-file-ignores" in table:
        pfi = table["per-file-ignores"]
        if not isinstance(pfi, dict):
            raise ConfigError(f"{where}: `per-file-ignores` must be a table of pattern = [codes]")
        for pattern in pfi:
            cfg.per_file_ignores[pattern] = _codes(pfi, pattern, f"{where} per-file-ignores")
    return cfg
