"""Findings and fixes in LSP terms: ranges in the client's position encoding, diagnostics,
the fix edits of a code action, the `# noqa` edit. Lines are counted as Python and LSP count
them (\\r\\n, \\r, \\n); finding columns are 1-based characters."""

from __future__ import annotations

import re

from lsprotocol import types

from devicelint import rules as registry

SOURCE = "devicelint"
_LINES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")
# "the model built on line 14", "moved at line 9": a second place the finding is about
_LINE_REF = re.compile(r"(?<![\w-])line (\d+)\b")
_SEVERITY = {"DL000": types.DiagnosticSeverity.Error, "DL100": types.DiagnosticSeverity.Hint}


def split(text: str) -> list:
    """The text's lines, each with its line end."""
    return _LINES.findall(text)


class Text:
    """A document's text and the client's position encoding (a pygls PositionCodec)."""

    def __init__(self, text: str, codec) -> None:
        self.text = text
        self.lines = split(text)
        self.codec = codec

    def body(self, line0: int) -> str:
        return self.lines[line0].rstrip("\r\n") if 0 <= line0 < len(self.lines) else ""

    def position(self, line: int, column: int) -> types.Position:
        """A 1-based line and 1-based character column -> an LSP position (clamped)."""
        if line > len(self.lines):  # past the end: the end of the text
            last = len(self.lines) - 1
            if last < 0:
                return types.Position(0, 0)
            if self.lines[last].endswith(("\n", "\r")):
                return types.Position(last + 1, 0)
            return types.Position(last, self.codec.client_num_units(self.lines[last]))
        line0 = max(line - 1, 0)
        body = self.body(line0)
        return types.Position(line0, self.codec.client_num_units(body[: max(column - 1, 0)]))

    def range(self, line: int, column: int, end_line: int, end_column: int) -> types.Range:
        return types.Range(self.position(line, column), self.position(end_line, end_column))

    def whole(self) -> types.Range:
        return types.Range(types.Position(0, 0), self.position(len(self.lines) + 1, 1))


def edit_json(text: Text, edit: dict, uri: str) -> dict:
    """A fix's edit (DESIGN.md's fix object) as an LSP TextEdit for `uri`, in JSON."""
    r = text.range(edit["line"], edit["column"], edit["end_line"], edit["end_column"])
    return {"uri": uri, "range": {"start": {"line": r.start.line, "character": r.start.character},
                                  "end": {"line": r.end.line, "character": r.end.character}},
            "newText": edit["content"]}


def fix_data(finding, text: Text, uri: str, place=None) -> dict | None:
    """The finding's fix for a code action: {title, applicability, edits: [{uri, range,
    newText}]}, or None. `place(cell)` gives (uri, Text) of another cell of a notebook."""
    fix = finding.fix
    if not fix or not fix.get("edits"):
        return None
    edits = []
    for edit in fix["edits"]:
        where_uri, where = uri, text
        if edit.get("cell") is not None:
            if place is None or place(edit["cell"]) is None:
                return None  # a cell we cannot address: no half fix
            where_uri, where = place(edit["cell"])
        edits.append(edit_json(where, edit, where_uri))
    applicability = fix.get("applicability", "safe")
    message = fix.get("message") or finding.help or f"fix {finding.code}"
    return {"title": f"{message} ({applicability} fix, {finding.code})", "applicability": applicability,
            "edits": edits}


def docs_href(code: str, docs: dict) -> types.CodeDescription | None:
    href = docs.get(code)
    return types.CodeDescription(href=href) if href else None


def diagnostic(finding, text: Text, uri: str, docs: dict, ref: str | None = None,
               offered: str | None = None) -> types.Diagnostic:
    """The finding as a Diagnostic. Its `data` holds no fix (building one can cost a
    re-render of a whole function, and most are never asked for): `name`, `id` (`ref`, what
    the code action request names it by) and `fix`, the applicability of the fix the rule
    offers (`offered`: "safe", "unsafe" or None), which the code action builds."""
    rng = text.range(finding.line, finding.column, finding.end_line, finding.end_column)
    related = []
    for m in _LINE_REF.finditer(finding.message) if finding.cell is None else ():
        line = int(m.group(1))
        if 0 < line <= len(text.lines) and line != finding.line:
            body = text.body(line - 1)
            indent = len(body) - len(body.lstrip())
            related.append(types.DiagnosticRelatedInformation(
                location=types.Location(uri, text.range(line, indent + 1, line, len(body) + 1)),
                message=f"line {line}"))
    tags = [types.DiagnosticTag.Unnecessary] if finding.code == "DL100" else None
    return types.Diagnostic(
        range=rng,
        message=finding.message,
        severity=_SEVERITY.get(finding.code, types.DiagnosticSeverity.Warning),
        code=finding.code,
        code_description=docs_href(finding.code, docs),
        source=SOURCE,
        related_information=related or None,
        tags=tags,
        data={"name": finding.name, "id": ref, "fix": offered},
    )


def explain(code: str) -> str | None:
    """The rule's documentation as Markdown (`devicelint explain CODE`), or None."""
    rule = registry.BY_CODE.get(code)
    if rule is None:
        return None
    return f"# {rule.code} {rule.name}\n\n{rule.docs()}\n"


def noqa_edit(finding, text: Text) -> types.TextEdit | None:
    """The edit that appends `# noqa: CODE` to the finding's line (as `--add-noqa` does), or
    None when no comment can go there (a line ending inside a string)."""
    from devicelint.noqa import add_noqa

    new, changed = add_noqa(text.text.encode("utf-8"), [finding])
    if not changed:
        return None
    new_lines = split(new.decode("utf-8"))
    if len(new_lines) != len(text.lines):
        return None
    for i, (old, now) in enumerate(zip(text.lines, new_lines)):
        if old != now:
            body = old.rstrip("\r\n")
            end = types.Position(i, text.codec.client_num_units(body))
            return types.TextEdit(types.Range(types.Position(i, 0), end), now.rstrip("\r\n"))
    return None
