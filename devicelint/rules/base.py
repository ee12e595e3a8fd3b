"""What every rule is: a code, a kebab-case name, docs, examples, and a `check`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import libcst as cst


@dataclass
class Report:
    node: cst.CSTNode
    message: str
    fix: str | None = None  # what the fix does, in words (shown to users, in JSON)
    # An automatic fix: replace `edit_node` (default: `node`) by `edit(updated_node)`.
    # Only for edits that keep the program's meaning wherever the inference is right.
    edit: object = None
    edit_node: cst.CSTNode | None = None
    applicability: str = "safe"  # "unsafe": may change meaning; only with --unsafe-fixes


class Rule:
    code: str = ""
    name: str = ""
    default: bool = True  # off-by-default rules run only when selected
    fixable: bool = False  # offers automatic fixes (for some of its findings)
    # the safety classes its fixes come in: "safe" (`--fix`), "unsafe" (`--unsafe-fixes` too)
    fix_applicability: tuple = ("safe",)
    # Example snippets that are also tests: VALID must stay silent; in INVALID every line
    # ending with the marker `# <--` must be flagged, and nothing else.
    VALID: tuple = ()
    INVALID: tuple = ()
    # Fixable rules: (code, the same code after `--fix --unsafe-fixes`) pairs, also tests.
    FIXES: tuple = ()

    def check(self, ctx) -> Iterator[Report]:  # pragma: no cover - interface
        raise NotImplementedError

    @classmethod
    def summary(cls) -> str:
        doc = (cls.__doc__ or "").strip().splitlines()
        return doc[0] if doc else cls.name

    @classmethod
    def docs(cls) -> str:
        import inspect

        return inspect.cleandoc(cls.__doc__ or "")
