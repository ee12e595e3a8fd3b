"""Output formats: full (default), concise, json, github, sarif."""

from __future__ import annotations

import json
from collections import Counter

from devicelint import __version__
from devicelint.rules import ALL_RULES

FORMATS = ("full", "concise", "json", "github", "sarif")


def concise(findings, sources) -> str:
    return "".join(f"{f.path}:{f.line}:{f.column}: {f.code} [{f.name}] {f.message}\n" for f in findings)


def full(findings, sources) -> str:
    out = []
    for f in findings:
        out.append(f"{f.path}:{f.line}:{f.column}: {f.code} [{f.name}] {f.message}\n")
        lines = sources.get(f.path)
        if lines and 0 < f.line <= len(lines):
            text = lines[f.line - 1].rstrip("\r\n").expandtabs(1)
            width = len(str(f.line))
            end = f.end_column if f.end_line == f.line else len(text) + 1
            carets = "^" * max(1, end - f.column)
            out.append(f"{' ' * width} |\n{f.line} | {text}\n{' ' * width} | {' ' * (f.column - 1)}{carets}\n")
        if f.fix:
            out.append(f"  = help: {f.fix}\n")
        out.append("\n")
    return "".join(out)


def as_json(findings, sources) -> str:
    return json.dumps([f.to_json() for f in findings], indent=2) + "\n"


def _escape_data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_prop(s: str) -> str:
    return _escape_data(s).replace(":", "%3A").replace(",", "%2C")


def github(findings, sources) -> str:
    return "".join(
        f"::error title={_escape_prop(f'devicelint ({f.code})')},file={_escape_prop(f.path)},"
        f"line={f.line},col={f.column},endLine={f.end_line},endColumn={f.end_column}"
        f"::{_escape_data(f'{f.code} [{f.name}] {f.message}')}\n"
        for f in findings
    )


def sarif(findings, sources) -> str:
    rules = [
        {"id": r.code, "name": r.name, "shortDescription": {"text": r.summary()}, "fullDescription": {"text": r.docs()}}
        for r in ALL_RULES
    ]
    results = [
        {
            "ruleId": f.code,
            "level": "error",
            "message": {"text": f.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": f.path.replace("\\", "/")},
                        "region": {
                            "startLine": f.line,
                            "startColumn": f.column,
                            "endLine": f.end_line,
                            "endColumn": f.end_column,
                        },
                    }
                }
            ],
        }
        for f in findings
    ]
    doc = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{"tool": {"driver": {"name": "devicelint", "version": __version__, "rules": rules}}, "results": results}],
    }
    return json.dumps(doc, indent=2) + "\n"


RENDER = {"full": full, "concise": concise, "json": as_json, "github": github, "sarif": sarif}


def statistics(findings, fmt: str) -> str:
    counts = Counter((f.code, f.name) for f in findings)
    rows = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    if fmt == "json":
        return json.dumps([{"code": c, "name": n, "count": k} for (c, n), k in rows], indent=2) + "\n"
    return "".join(f"{k:5d}\t{c}\t[{n}]\n" for (c, n), k in rows)


def summary(findings) -> str:
    if not findings:
        return "All checks passed!\n"
    noun = "finding" if len(findings) == 1 else "findings"
    return f"Found {len(findings)} {noun}.\n"
