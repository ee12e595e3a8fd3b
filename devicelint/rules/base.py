"""What every rule is: a code, a kebab-case name, docs, examples, and a `check`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import libcst as cst


@dataclass(frozen=True)
class Insert:
    """A fix's statement insertion: `code` (whole statements, each ending with a newline,
    without indentation) goes right before the statement `before`, at its indentation and
    above its leading comments."""

    before: cst.BaseStatement
    code: str


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
    # More parts of the same fix, applied together with `edit` or not at all: (node, callback)
    # replacements like `edit`, and Inserts (binding a value once: `x = x.to(device)` before
    # the statement whose moves now read `x`)
    more_edits: tuple = ()

    def edit_parts(self) -> list:
        """Every part of the fix: `(node, callback)` pairs and Inserts."""
        if self.edit is None:
            return []
        return [(self.edit_node or self.node, self.edit), *self.more_edits]


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
