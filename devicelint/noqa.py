"""`--add-noqa`: silence every current finding with a `# noqa: DLnnn` on its line, as
`ruff check --add-noqa` does, so that a project can adopt devicelint today and fix later.

A directive is appended at the end of the finding's first line, merged into a `# noqa:`
comment already there (`# noqa: E501` becomes `# noqa: E501, DL003`). Lines that end
inside a string (a multi-line string or f-string) or after a backslash continuation cannot
take a comment; the finding's last line is tried then, and failing that the finding is
left alone and named. In a notebook the directive goes into the cell's source (a line that
holds IPython syntax, a magic or a shell escape, takes none). Running it twice adds
nothing: the findings are silenced by then."""

from __future__ import annotations

import io
import re
import tokenize

_NOQA = re.compile(r"#\s*noqa:\s*(?P<codes>[A-Za-z]+[0-9]+(?:[\s,]+[A-Za-z]+[0-9]+)*)", re.IGNORECASE)
_BARE_NOQA = re.compile(r"#\s*noqa(?!\s*:)", re.IGNORECASE)
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def _split(text: str) -> list:
    """Lines as Python counts them (\\n, \\r\\n, \\r only), line ends kept."""
    return _LINE.findall(text)


def _comment_lines(text: str):
    """(lines a comment may be appended to, {line: column of the comment on it}); None when
    the text does not tokenize."""
    closed: set = set()  # lines ending inside a string token: no comment possible there
    comments: dict = {}
    fstrings: list = []  # Python 3.12+: an f-string is several tokens, from START to END
    fstart, fend = getattr(tokenize, "FSTRING_START", -1), getattr(tokenize, "FSTRING_END", -1)
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                comments[tok.start[0]] = tok.start[1]
            elif tok.type == fstart:
                fstrings.append(tok.start[0])
            elif tok.type == fend and fstrings:
                closed.update(range(fstrings.pop(), tok.end[0]))
            elif tok.start[0] != tok.end[0] and tok.type not in (tokenize.NEWLINE, tokenize.NL):
                closed.update(range(tok.start[0], tok.end[0]))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None
    return closed, comments


_IN_STRING = "its lines end inside a string or after a backslash, where a comment cannot go"


def add_noqa(source: bytes, findings, unsilenced: list | None = None) -> tuple[bytes, int]:
    """(the source with directives added, how many lines got one or more codes).
    `unsilenced` gets (finding, why) for each finding no directive could be added for."""
    unsilenced = [] if unsilenced is None else unsilenced
    try:
        text = source.decode("utf-8")
    except UnicodeDecodeError:
        unsilenced.extend((f, "the file is not valid UTF-8") for f in findings if f.code != "DL000")
        return source, 0
    lines = _split(text)
    info = _comment_lines(text)
    if info is None:
        unsilenced.extend((f, "the file does not tokenize") for f in findings if f.code != "DL000")
        return source, 0
    changed = _add(lines, info, findings, {}, unsilenced)
    return "".join(lines).encode("utf-8"), changed


def _add(lines: list, info, findings, blocked: dict, unsilenced: list) -> int:
    """Add the directives to `lines` (in place, each with its line end); returns how many
    lines changed. `blocked`: {line: why no comment may go there}."""
    closed, comments = info
    wanted: dict = {}
    for f in findings:
        if f.code == "DL000":
            continue
        for line in dict.fromkeys((f.line, f.end_line)):
            if 0 < line <= len(lines) and line not in closed and line not in blocked and not _continued(lines[line - 1]):
                wanted.setdefault(line, set()).add(f.code)
                break
        else:
            unsilenced.append((f, blocked.get(f.line, _IN_STRING)))
    changed = 0
    for line, codes in wanted.items():
        new = _with_codes(lines[line - 1], codes, comments.get(line))
        if new != lines[line - 1]:
            lines[line - 1] = new
            changed += 1
    return changed


def add_noqa_notebook(source: bytes, findings, unsilenced: list | None = None) -> tuple[bytes, int]:
    """`add_noqa` for a notebook, whose findings carry their cell: the directives go into
    the cells' sources, and only those change in the file (`Notebook.checked_dump`).
    Raises ValueError (from notebook.NotebookError too) when the file cannot be edited."""
    from devicelint.notebook import Notebook

    unsilenced = [] if unsilenced is None else unsilenced
    nb = Notebook(source)
    by_cell: dict = {}
    for f in findings:
        if f.code != "DL000":
            by_cell.setdefault(f.cell, []).append(f)
    changed, count = {}, 0
    for cell in nb.cells:
        found = by_cell.pop(cell.index, [])
        if not found:
            continue
        # tokenized as the linter reads it (magics masked), line for line the cell's source
        info = _comment_lines("".join(nb.joined_lines[cell.start - 1 : cell.start - 1 + len(cell.lines)]))
        if info is None:
            unsilenced.extend((f, f"cell {cell.index} does not tokenize") for f in found)
            continue
        blocked = {i + 1: f"line {i + 1} of cell {cell.index} is IPython syntax (a magic, shell or help line), "
                          "where a comment would change the command" for i in cell.masked}
        lines = list(cell.lines)
        count += _add(lines, info, found, blocked, unsilenced)
        if "".join(lines) != cell.text:
            changed[cell.position] = "".join(lines)
    for found in by_cell.values():
        unsilenced.extend((f, "its cell is not a code cell of the notebook") for f in found)
    return (nb.checked_dump(changed) if changed else source), count


def _continued(line: str) -> bool:
    return line.rstrip("\r\n").endswith("\\")


def _with_codes(line: str, codes: set, comment_at) -> str:
    body = line.rstrip("\r\n")
    end = line[len(body):]
    if comment_at is not None:
        comment = body[comment_at:]
        if _BARE_NOQA.search(comment):
            return line  # already silences everything
        m = _NOQA.search(comment)
        if m is not None:
            have = {c.upper() for c in re.findall(r"[A-Za-z]+[0-9]+", m.group("codes"))}
            missing = sorted(c for c in codes if not any(c.startswith(h) for h in have))
            if not missing:
                return line
            at = comment_at + m.end("codes")
            return body[:at] + "".join(f", {c}" for c in missing) + body[at:] + end
    directive = "# noqa: " + ", ".join(sorted(codes))
    return body.rstrip() + "  " + directive + end if body.strip() else line


def add_noqa_to_files(findings, unsilenced: list | None = None) -> tuple[int, list]:
    """Add directives for `findings` in their files (notebooks' cells included). Returns
    (how many lines got one, [(path, the OSError or fix.Changed) for each file that could not
    be written]): a read-only folder or a full disk loses no file and stops no other.
    `unsilenced` gets (finding, why) for each finding left as it was."""
    from devicelint.fix import Changed, write_atomically

    unsilenced = [] if unsilenced is None else unsilenced
    by_path: dict = {}
    for f in findings:
        if f.code != "DL000":
            by_path.setdefault(f.path, []).append(f)
    total, refused = 0, []
    for path, found in sorted(by_path.items()):
        try:
            with open(path, "rb") as fh:
                source = fh.read()
        except OSError:
            continue  # the lint run already reported it (DL000 unreadable-file)
        if any(f.cell is not None for f in found):
            try:
                new, count = add_noqa_notebook(source, found, unsilenced)
            except ValueError as e:  # NotebookError is one: the lint already said why
                unsilenced.extend((f, f"the notebook cannot be edited in place: {e}") for f in found)
                continue
        else:
            new, count = add_noqa(source, found, unsilenced)
        if count and new != source:
            try:
                write_atomically(path, new)
            except (OSError, Changed) as e:
                refused.append((path, e))
                continue
            total += count
    return total, refused
