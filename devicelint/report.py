"""Output formats: full (default), concise, json, github, sarif."""

from __future__ import annotations

import json
from collections import Counter

from devicelint import __version__

FORMATS = ("full", "concise", "json", "github", "sarif")


def _style(color: bool):
    """click.style when colouring, else the identity: the plain output stays byte-for-byte
    what it is without a terminal."""
    if not color:
        return lambda text, **_kw: text
    import click

    return click.style


def _head(f, color: bool) -> str:
    """`path:line:col: CODE [*] [name] message`, styled like Ruff's: bold path, cyan
    separators, bold red code, a cyan `*` on findings `--fix` edits."""
    st = _style(color)
    sep = st(":", fg="cyan")
    mark = f"[{st('*', fg='cyan')}] " if f.fixable else ""
    cell = f"cell {f.cell}{sep}" if f.cell is not None else ""  # a notebook: `path:cell N:line:col`, as Ruff writes it
    return f"{st(f.path, bold=True)}{sep}{cell}{f.line}{sep}{f.column}{sep} {st(f.code, fg='red', bold=True)} {mark}[{f.name}] {f.message}\n"


def concise(findings, sources, color: bool = False) -> str:
    return "".join(_head(f, color) for f in findings)


def full(findings, sources, color: bool = False) -> str:
    st = _style(color)
    out = []
    for f in findings:
        out.append(_head(f, color))
        lines = sources.get(f.path)
        if f.cell is not None:
            from devicelint.notebook import cell_lines

            lines = cell_lines(f.path, lines, f.cell)
        if lines and 0 < f.line <= len(lines):
            text = lines[f.line - 1].rstrip("\r\n").expandtabs(1)
            width = len(str(f.line))
            end = f.end_column if f.end_line == f.line else len(text) + 1
            carets = st("^" * max(1, end - f.column), fg="red", bold=True)
            gutter = st(f"{' ' * width} |", fg="blue", bold=True)
            number = st(f"{f.line} |", fg="blue", bold=True)
            out.append(f"{gutter}\n{number} {text}\n{gutter} {' ' * (f.column - 1)}{carets}\n")
        advice = f.fix["message"] if f.fix and f.fix.get("message") else f.help
        if advice:
            out.append(f"  = {st('help', fg='cyan', bold=True)}: {advice}\n")
        out.append("\n")
    return "".join(out)


def as_json(findings, sources) -> str:
    return json.dumps([f.to_json() for f in findings], indent=2) + "\n"


def _escape_data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_prop(s: str) -> str:
    return _escape_data(s).replace(":", "%3A").replace(",", "%2C")


def _github_place(f) -> str:
    # A notebook's cell-relative line is no line of the .ipynb file GitHub shows: annotate
    # the file, and say the cell and line in the message.
    if f.cell is not None:
        return ""
    return f",line={f.line},col={f.column},endLine={f.end_line},endColumn={f.end_column}"


def github(findings, sources) -> str:
    return "".join(
        f"::error title={_escape_prop(f'devicelint ({f.code})')},file={_escape_prop(f.path)}{_github_place(f)}"
        f"::{_escape_data(('' if f.cell is None else f'cell {f.cell}:{f.line}:{f.column}: ') + f'{f.code} [{f.name}] {f.message}')}\n"
        for f in findings
    )


def _uri(path: str) -> str:
    """A SARIF `artifactLocation.uri`: a relative reference percent-encoded (a space is
    `%20`), or a `file:` URI for an absolute path."""
    import os
    from urllib.parse import quote

    if os.path.isabs(path):
        from pathlib import Path

        return Path(path).as_uri()
    return quote(path.replace("\\", "/"))


def _notebook_text(path: str, sources, cache: dict) -> str | None:
    """The notebook file's text, for mapping a cell's line to its line in the JSON."""
    if path not in cache:
        if sources.get(path) is not None:  # stdin: the lines the CLI read
            cache[path] = "\n".join(sources[path])
        else:
            try:
                with open(path, "rb") as f:
                    cache[path] = f.read().decode("utf-8-sig")
            except (OSError, UnicodeDecodeError):
                cache[path] = None
    return cache[path]


def _sarif_location(f, sources, cache: dict) -> dict:
    """A physical location a code-scanning viewer can show: in a notebook, the line of the
    `.ipynb` JSON that holds the cell's source line (the usual one string per line layout),
    else the notebook as a whole, with no region."""
    where: dict = {"artifactLocation": {"uri": _uri(f.path)}}
    if f.cell is None:
        where["region"] = {"startLine": f.line, "startColumn": f.column, "endLine": f.end_line, "endColumn": f.end_column}
        return {"physicalLocation": where}
    from devicelint.notebook import json_region

    text = _notebook_text(f.path, sources, cache)
    region = json_region(text, f.cell, f.line, f.column, f.end_line, f.end_column) if text is not None else None
    if region is not None:
        where["region"] = region
    return {"physicalLocation": where}


def sarif(findings, sources) -> str:
    from devicelint.rules import ALL_RULES  # every rule's docs: imported only for SARIF

    rules = [
        {"id": r.code, "name": r.name, "shortDescription": {"text": r.summary()}, "fullDescription": {"text": r.docs()}}
        for r in ALL_RULES
    ]
    texts: dict = {}
    results = [
        {
            "ruleId": f.code,
            "level": "error",
            "message": {"text": f.message if f.cell is None else f"cell {f.cell}: {f.message}"},
            "locations": [_sarif_location(f, sources, texts)],
            **({"properties": {"cell": f.cell, "cellLine": f.line, "cellColumn": f.column}} if f.cell is not None else {}),
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


def _unsafe_only(f) -> bool:
    """A finding that only `--fix --unsafe-fixes` edits (plain `--fix` leaves it)."""
    return f.fix is not None and f.fix.get("applicability") == "unsafe"


def statistics(findings, fmt: str, color: bool = False) -> str:
    """A row per rule, most frequent first, then the closing line; with `json`, an array of
    {code, name, count, fixable (every one fixable), fixable_count, unsafe_fixable_count
    (fixable only with --unsafe-fixes)}."""
    counts = Counter((f.code, f.name) for f in findings)
    fixable = Counter((f.code, f.name) for f in findings if f.fixable)
    unsafe = Counter((f.code, f.name) for f in findings if _unsafe_only(f))
    rows = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    if fmt == "json":
        return json.dumps(
            [{"code": c, "name": n, "count": k, "fixable": fixable[c, n] == k, "fixable_count": fixable[c, n],
              "unsafe_fixable_count": unsafe[c, n]}
             for (c, n), k in rows],
            indent=2,
        ) + "\n"
    st = _style(color)
    width = max((len(str(k)) for k in counts.values()), default=1)
    out = []
    for (c, n), k in rows:
        # like Ruff: [*] all fixable, [-] some, blank none
        mark = "[*] " if fixable[c, n] == k else "[-] " if fixable[c, n] else "    "
        mark = mark.replace("*", st("*", fg="cyan")).replace("-", st("-", fg="cyan"))
        hidden = f" ({unsafe[c, n]} fixable with --unsafe-fixes)" if unsafe[c, n] else ""
        out.append(f"{st(str(k).rjust(width), bold=True)}\t{st(c, fg='red', bold=True)}\t{mark}{n}{hidden}\n")
    return "".join(out) + summary(findings, color=color)


def summary(findings, fixed: int | None = None, color: bool = False, unsafe: bool = False) -> str:
    """The closing line. `fixed`: how many findings `--fix` just fixed (they are no longer
    in `findings`), None when not fixing; `unsafe`: that fix ran with --unsafe-fixes. The
    findings only `--unsafe-fixes` can fix are counted too: plain `--fix` leaves them."""
    st = _style(color)
    n_unsafe = sum(map(_unsafe_only, findings))
    if fixed:
        total = len(findings) + fixed
        noun = "finding" if total == 1 else "findings"
        # left by `--fix` alone; after `--fix --unsafe-fixes` nothing unsafe is left to offer
        hidden = f", {n_unsafe} fixable with --unsafe-fixes" if n_unsafe and not unsafe else ""
        return f"Found {total} {noun} ({fixed} fixed, {len(findings)} remaining{hidden}).\n"
    if not findings:
        return st("All checks passed!", fg="green", bold=True) + "\n"
    noun = "finding" if len(findings) == 1 else "findings"
    n_fixable = sum(f.fixable for f in findings)
    # like Ruff's "(N hidden fixes can be enabled with the `--unsafe-fixes` option)"
    if n_fixable and n_unsafe:
        tail = f" ({n_fixable} fixable with --fix, {n_unsafe} more with --unsafe-fixes)"
    elif n_fixable:
        tail = f" ({n_fixable} fixable with --fix)"
    elif n_unsafe:
        tail = f" ({n_unsafe} fixable with --fix --unsafe-fixes)"
    else:
        tail = ""
    return f"Found {len(findings)} {noun}{tail}.\n"
