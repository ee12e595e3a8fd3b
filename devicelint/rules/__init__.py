"""The rule registry: one module per rule, listed in devicelint/codes.py in code order.

A rule's module is imported when the rule is first needed (`resolve` for the rules of a run,
`ALL_RULES` / `BY_CODE` for every rule): a run imports only the rules it runs, and a cache
hit none.
"""

from __future__ import annotations

from devicelint.codes import META, TABLE, resolve_codes, unknown_codes  # noqa: F401  (the registry's API)

__all__ = ["ALL_RULES", "BY_CODE", "META", "load", "resolve", "unknown_codes"]


def load(code: str):
    """The class of the rule with this code (importing its module)."""
    from devicelint.codes import BY_CODE as entries

    entry = entries[code]
    # __import__ rather than importlib.import_module: `python -X importtime` sees it
    return getattr(__import__(f"{__name__}.{entry.module}", fromlist=[entry.cls]), entry.cls)


def resolve(select=None, ignore=None) -> list:
    """The enabled rule classes. Codes and prefixes (`DL00`, `DL`, `ALL`) are accepted."""
    return [load(code) for code in resolve_codes(select, ignore)]


def __getattr__(name: str):
    # every rule at once, for what lists or documents them all (`rules`, SARIF, tests)
    if name == "ALL_RULES":
        value = tuple(load(e.code) for e in TABLE)
    elif name == "BY_CODE":
        value = {r.code: r for r in __getattr__("ALL_RULES")}
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value
