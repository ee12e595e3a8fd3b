"""Jupyter notebooks (`.ipynb`): the code cells joined into one module with a map back to
`cell N:line`, IPython magics masked so that they neither break the parse nor shift a line,
and fixes written back into the cells without touching anything else in the JSON.

Cells are numbered 1-based among all cells (markdown and raw included), as Ruff and Jupyter
show them. Only the standard library reads the JSON: the lint path stays light.
"""

from __future__ import annotations

import ast
import bisect
import codecs
import dataclasses
import difflib
import json
import keyword
import re
import warnings

from devicelint.findings import meta

# Cell magics whose body is Python run in the kernel's own namespace: only their first line
# is masked. Every other cell magic (%%bash, %%writefile, %%html, ...) masks the whole cell.
_PYTHON_CELL_MAGICS = {"time", "timeit", "capture", "prun", "debug"}
# `%time stmt` runs `stmt` in the namespace: keep the statement, so a model moved there
# is not reported as never moved.
_TIMED = re.compile(r"%(?:time|timeit|prun)\s+(?=[^-\s])")
# `?obj`, `obj?`, `obj??`: IPython's help; `torch.*Tensor?`: its wildcard search
_HELP = re.compile(r"\s*(?:\?.*|[A-Za-z_*][\w.*]*\s*\?\??)\s*$")
# What may open an IPython line and never a Python one: magics, shell escapes, help, and
# the auto-call escapes (`/f 1`, `;f a b`, `,f a b`).
_ESCAPES = ("%", "!", "?", "/", ";", ",")
# IPython's automagic: `pip install torch`, `cd data`, `load_ext autoreload` run as magics
# without the `%`. Only a line that is no Python on its own is taken for one.
_AUTOMAGICS = {
    "pip", "conda", "mamba", "micromamba", "cd", "ls", "ll", "pwd", "env", "set_env", "load_ext",
    "reload_ext", "unload_ext", "autoreload", "aimport", "matplotlib", "pylab", "config", "run", "cat",
    "mkdir", "rmdir", "rm", "cp", "mv", "clear", "who", "whos", "history", "store", "reset", "bookmark",
    "time", "timeit", "prun", "capture", "tensorboard", "load", "writefile", "xmode", "precision",
}
_AUTOMAGIC = re.compile(r"\s*([A-Za-z_]\w*)[ \t]+[-\w./~\"'$]")
# `files = !ls`, `out = %sx ls`: keep the name bound, drop the command
_ASSIGN = re.compile(r"\s*[A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*\s*=\s*(?=[!%])")
# The names a cell that does not parse binds on its unindented lines: `model = ...`,
# `a, b = ...`, `x: int = ...`, `n += 1`, `def train(`, `class Net`. Jupyter never runs the
# cell, but the author meant it to rebind them; after it the linter knows nothing of them.
_BINDS = re.compile(r"([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*(?::[^=\n]*)?(?:[-+*/%@&|^]|//|\*\*|<<|>>)?=(?!=)")
_DEFINES = re.compile(r"(?:async\s+def|def|class)\s+([A-Za-z_]\w*)")
# what they are bound to: a name nothing defines, of which the inference knows nothing
_UNPARSED = "__devicelint_unparsed_cell__"
# "line 14" in a message: a line of the joined source, shown as "cell 5, line 3"
_LINE_REF = re.compile(r"(?<![\w-])(?:(?:on|at) )?line (\d+)\b")


class NotebookError(ValueError):
    """The file is not a notebook we can read: the DL000 finding's message and place."""

    def __init__(self, message: str, line: int = 1, column: int = 1, name: str = "syntax-error") -> None:
        super().__init__(message)
        self.message, self.line, self.column, self.name = message, line, column, name


@dataclasses.dataclass
class Cell:
    index: int  # 1-based among all cells
    position: int  # 0-based position in the JSON `cells` list
    text: str  # the source as one string
    lines: list  # the source's lines, each with its own ending (the last may have none)
    start: int  # 1-based line of its first line in the joined source
    masked: set  # 0-based line numbers within the cell that hold a magic
    dedent: int = 0  # characters IPython's `leading_indent` removes (see _leading_indent)
    dedented: frozenset = frozenset()  # 0-based line numbers it removes them from


def _split(text: str) -> list:
    """Lines with their `\\n` kept, as nbformat stores a list-of-lines source."""
    return [part for part in re.split(r"(?<=\n)", text) if part]


def _scan(line: str, depth: int, quote: str | None):
    """(bracket depth, open triple quote or None, continued by a backslash) after `line`:
    just enough lexing to know whether the next line starts a logical line."""
    i, n, comment = 0, len(line), False
    while i < n:
        c = line[i]
        if quote:
            if c == "\\":
                i += 2
            elif line.startswith(quote, i):
                i += len(quote)
                quote = None
            else:
                i += 1
            continue
        if c == "#":
            comment = True
            break
        if c in "\"'":
            quote = c * 3 if line.startswith(c * 3, i) else c
            i += len(quote)
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth = max(0, depth - 1)
        i += 1
    body = line.rstrip("\r\n")
    continued = not comment and body.endswith("\\")
    if quote is not None and len(quote) == 1 and not continued:
        quote = None  # an unterminated one-line string ends with its line (a syntax error anyway)
    return depth, quote, continued


def _mask_line(line: str) -> str:
    """The Python that stands in for one magic line: same line, nothing run or reported."""
    body = line.rstrip("\r\n")
    indent = body[: len(body) - len(body.lstrip())]
    stripped = body[len(indent):]
    timed = _TIMED.match(stripped)
    if timed:
        rest = stripped[timed.end():]
        try:
            tree = ast.parse(rest)
            simple = len(tree.body) == 1 and not hasattr(tree.body[0], "body")
        except (SyntaxError, ValueError):
            simple = False
        if simple and timed.end() >= 6:  # `pass ;` fits in the magic's own width
            return indent + "pass" + " " * (timed.end() - 5) + ";" + rest + "\n"
    assign = _ASSIGN.match(body)
    if assign:
        return body[: assign.end()] + "...\n"
    return indent + "pass\n"


def _automagic(text: str) -> bool:
    m = _AUTOMAGIC.match(text)
    if m is None or m.group(1) not in _AUTOMAGICS:
        return False
    try:  # `time = 3`, `pip -V`, `ls if x else y` are Python: leave them be
        ast.parse(text.strip())
    except SyntaxError:
        return True
    except (ValueError, RecursionError, MemoryError):
        return False
    return False


def _leading_indent(code: list) -> tuple[list, int, frozenset]:
    """IPython's `leading_indent` cleanup: when a cell's first non-blank line is indented,
    that indent is cut from every line starting with it before the cell runs, so ` x = 1`
    runs in Jupyter. (the lines, the indent's width, the lines cut); width 0: unchanged."""
    top = next((i for i, line in enumerate(code) if line.strip()), None)
    if top is None:
        return code, 0, frozenset()
    first = code[top]
    space = first[: len(first) - len(first.lstrip(" \t"))]
    if not space:
        return code, 0, frozenset()
    cut = frozenset(i for i, line in enumerate(code) if i >= top and line.startswith(space))
    return [line[len(space):] if i in cut else line for i, line in enumerate(code)], len(space), cut


def mask(lines: list) -> tuple[list, set]:
    """(the cell's lines as plain Python, each ending in `\\n`; the indexes of masked lines)."""
    out, masked = [], set()
    # IPython drops a cell's leading blank lines before it looks for a cell magic
    top = next((i for i, line in enumerate(lines) if line.strip()), len(lines))
    first = lines[top].lstrip() if top < len(lines) else ""
    if first.startswith("%%"):
        name = re.match(r"%%(\w*)", first).group(1)
        keep_body = name in _PYTHON_CELL_MAGICS
        out = ["\n"] * (top + 1)
        masked = set(range(top + 1))
        if keep_body:
            body_out, body_masked = mask(lines[top + 1 :])
            out += body_out
            masked |= {i + top + 1 for i in body_masked}
        else:
            out += ["\n"] * (len(lines) - top - 1)
            masked |= set(range(top + 1, len(lines)))
        return out, masked
    depth, quote, continued, in_magic = 0, None, False, False
    for i, line in enumerate(lines):
        text = line.rstrip("\r\n")
        if in_magic:  # a backslash-continued magic goes on
            out.append("\n")
            masked.add(i)
            in_magic = text.endswith("\\")
            continue
        starts = depth == 0 and quote is None and not continued
        stripped = text.lstrip()
        if starts and (stripped[:1] in _ESCAPES or _HELP.match(text) or _ASSIGN.match(text) or _automagic(text)):
            out.append(_mask_line(line))
            masked.add(i)
            in_magic = text.endswith("\\")
            continue
        out.append(text + "\n")
        depth, quote, continued = _scan(text, depth, quote)
    return out, masked


class Notebook:
    """A parsed notebook: its JSON, its code cells and their joined, masked source."""

    def __init__(self, data: bytes) -> None:
        self.bom = data.startswith(codecs.BOM_UTF8)
        try:
            self.text = data.decode("utf-8-sig")
        except UnicodeDecodeError as e:
            raise NotebookError(f"not valid UTF-8: {e.reason}", name="unreadable-file") from None
        try:
            self.raw = json.loads(self.text)
        except json.JSONDecodeError as e:
            raise NotebookError(f"not a valid notebook: invalid JSON: {e.msg}", e.lineno, e.colno) from None
        except RecursionError:
            raise NotebookError("not a valid notebook: JSON nested too deeply") from None
        if not isinstance(self.raw, dict):
            raise NotebookError("not a valid notebook: the JSON is not an object with a `cells` list")
        cells = self.raw.get("cells")
        if not isinstance(cells, list):
            if "worksheets" in self.raw:
                raise NotebookError("nbformat 3 notebooks are not supported: convert with `jupyter nbconvert --to notebook`")
            raise NotebookError("not a valid notebook: no `cells` list")
        self.python = _is_python(self.raw.get("metadata"))
        self.cells: list[Cell] = []
        joined: list[str] = []
        for position, cell in enumerate(cells):
            if not isinstance(cell, dict) or not isinstance(cell.get("cell_type"), str):
                raise NotebookError(f"not a valid notebook: cell {position + 1} has no `cell_type`")
            if cell["cell_type"] != "code":
                continue
            source = cell.get("source")
            if isinstance(source, list) and all(isinstance(s, str) for s in source):
                text = "".join(source)
            elif isinstance(source, str):
                text = source
            else:
                raise NotebookError(f"not a valid notebook: cell {position + 1}: `source` must be a string or a list of strings")
            lines = _split(text)
            code, masked = mask(lines)
            code, dedent, dedented = _leading_indent(code)
            self.cells.append(Cell(position + 1, position, text, lines, len(joined) + 1, masked, dedent, dedented))
            joined.extend(code)
        self.joined_lines = joined
        self.source = "".join(joined)
        self._starts = [c.start for c in self.cells]
        self.broken: set = set()  # the cells masked because they do not parse

    # ---- positions -----------------------------------------------------------------
    def cell_at(self, row: int) -> Cell:
        """The code cell holding `row` (1-based, joined); past the end: the last cell."""
        return self.cells[max(0, bisect.bisect_right(self._starts, row) - 1)]

    def displayed(self, finding) -> bool:
        """Is the finding's statement the expression a cell ends with, which Jupyter shows
        (`m.to(device)` as a cell's last line displays the moved copy: its value is used)?
        A trailing `;` hides it, and so does any code after it in the cell."""
        if not self.cells or finding.column != 1:
            return False
        cell = self.cell_at(finding.line)
        last = self.cell_at(finding.end_line)
        if last is not cell:
            return False
        rest = cell.lines[finding.end_line - cell.start + 1:]
        if any(line.strip() and not line.lstrip().startswith("#") for line in rest):
            return False
        end = cell.lines[finding.end_line - cell.start].split("#", 1)[0].rstrip()
        return not end.endswith(";")

    def locate(self, finding):
        """The finding with `cell` set and its line/column relative to that cell."""
        if not self.cells:
            return finding
        cell = self.cell_at(finding.line)
        line = finding.line - cell.start + 1
        end_cell = self.cell_at(finding.end_line)
        if end_cell is cell:
            end_line, end_column = finding.end_line - cell.start + 1, finding.end_column
        else:  # a range cannot leave its cell: stop at the cell's end
            end_line = max(len(cell.lines), line)
            end_column = len(cell.lines[end_line - 1].rstrip("\r\n")) + 1 if cell.lines else 1
        column = finding.column + (cell.dedent if line - 1 in cell.dedented else 0)
        if end_cell is cell and end_line - 1 in cell.dedented:
            end_column += cell.dedent
        message = _LINE_REF.sub(self._cell_ref, finding.message)
        fix = finding.fix
        if fix and fix.get("edits"):
            fix = dict(fix, edits=[self._edit_in_cell(e, cell) for e in fix["edits"]])
        return dataclasses.replace(finding, cell=cell.index, line=line, column=column, end_line=end_line,
                                   end_column=end_column, message=message, fix=fix)

    def _edit_in_cell(self, edit: dict, cell: Cell) -> dict:
        """An edit relative to its cell: the finding's, or (a model moved where an earlier
        cell builds it) another one, then named in the edit's own `cell`."""
        own = self.cell_at(edit["line"])
        out = dict(edit, line=edit["line"] - own.start + 1, end_line=edit["end_line"] - own.start + 1)
        if own is not cell:
            out["cell"] = own.index
        return out

    def _cell_ref(self, match) -> str:
        # messages name other lines ("the DataLoader on line 14"): say where that is in the notebook
        row = int(match.group(1))
        cell = self.cell_at(row)
        where = "in " if match.group(0)[:1] in "oa" else ""
        return f"{where}cell {cell.index}, line {row - cell.start + 1}"

    def row(self, cell_index: int, line: int) -> int | None:
        """The joined line of `line` in the cell numbered `cell_index`, or None."""
        for cell in self.cells:
            if cell.index == cell_index:
                return cell.start + line - 1
        return None

    def syntax_errors(self, path: str) -> list:
        """A DL000 finding (cell-relative) for every code cell that does not parse on its own."""
        out = []
        for cell in self.cells:
            code = "".join(self.joined_lines[cell.start - 1 : cell.start - 1 + len(cell.lines)])
            error = _compile_error(code, path)
            if error is not None:
                line = min(max(error.lineno or 1, 1), max(len(cell.lines), 1))
                bad = meta(path, "syntax-error", f"cannot parse: {error.msg}", line, error.offset or 1)
                out.append(dataclasses.replace(bad, cell=cell.index))
        return out

    def mask_cells(self, indexes) -> None:
        """Blank the cells numbered `indexes` in the joined source, line for line, as Jupyter
        would run the others: a cell that does not parse then hides nothing else. Its first
        line rebinds the names the cell assigns to an unknown value (`_rebinding`), so an
        earlier binding the author replaced there is not taken for theirs."""
        for cell in self.cells:
            if cell.index in indexes:
                blank = ["\n"] * len(cell.lines)
                if blank:
                    blank[0] = _rebinding(cell.lines)
                self.joined_lines[cell.start - 1 : cell.start - 1 + len(cell.lines)] = blank
                cell.masked = set(range(len(cell.lines)))  # never edited by a fix either
                self.broken.add(cell.index)
        self.source = "".join(self.joined_lines)

    def mask_broken(self, path: str) -> list:
        """The DL000 findings of the cells that do not parse, those cells masked; [] (and
        nothing masked) when the joined source parses."""
        if _compile_error(self.source, path) is None:
            return []
        errors = self.syntax_errors(path)
        self.mask_cells({f.cell for f in errors})
        return errors

    def unplaceable(self, fix) -> str | None:
        """Why the edits of a fix object (in joined lines) cannot be written into the cells,
        or None when they can: an edit may neither leave its cell nor change a magic line."""
        if not fix or not fix.get("edits"):
            return "its edit could not be checked against the cells"
        for edit in fix["edits"]:
            first, last = edit["line"], edit["end_line"]
            if last > first and edit["end_column"] == 1:
                last -= 1  # ends where a line starts: that line is not touched
            cell = self.cell_at(first)
            if self.cell_at(last) is not cell:
                return f"its edit would run from cell {cell.index} into cell {self.cell_at(last).index}"
            if cell.index in self.broken:
                return f"its edit is in cell {cell.index}, which does not parse"
            if cell.dedent:
                return (f"its edit is in cell {cell.index}, whose lines are all indented (IPython runs them with "
                        "that indent removed), which is kept as written")
            for row in range(first, last + 1):
                if row - cell.start in cell.masked:
                    return (f"its edit would change line {row - cell.start + 1} of cell {cell.index}, an IPython "
                            "magic, shell or help line, which is kept as written")
        return None

    # ---- writing fixes back ----------------------------------------------------------
    def rebuild(self, new_source: str) -> dict | None:
        """{cell position: new cell text} for the cells a rewrite of the joined source changes,
        or None when a change touches a masked line. A changed run of lines that crosses a
        cell boundary is cut at it (`_per_cell`); rewritten lines keep the cell's line end."""
        old, new = self.joined_lines, _split(new_source)
        owner = [c for c in self.cells for _ in c.lines]  # joined row (0-based) -> its cell
        if not owner:
            return None
        parts: dict[int, list] = {c.position: [] for c in self.cells}
        matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                for row in range(i1, i2):
                    cell = owner[row]
                    parts[cell.position].append(cell.lines[row - cell.start + 1])
                continue
            for cell, (a1, a2), (b1, b2) in _per_cell(owner, old, new, i1, i2, j1, j2):
                if cell.dedent or any(row - cell.start + 1 in cell.masked for row in range(a1, a2)):
                    return None
                eol = _line_end(cell)
                parts[cell.position].extend(line[:-1] + eol if line.endswith("\n") else line for line in new[b1:b2])
        changed = {}
        for cell in self.cells:
            text = "".join(parts[cell.position])
            if not cell.text.endswith("\n") and text.endswith("\n"):
                # the joined source added that line end, not the user
                text = text[: -len(_line_end(cell))] if text.endswith(_line_end(cell)) else text[:-1]
            if text != cell.text:
                changed[cell.position] = text
        return changed

    def checked_dump(self, changed: dict) -> bytes:
        """`dump`, verified: the same JSON with those cells' sources replaced and nothing
        else; ValueError when the layout cannot be edited in place."""
        try:
            data = self.dump(changed)
            want = json.loads(self.text)
            for position, text in changed.items():
                cell = want["cells"][position]
                cell["source"] = _split(text) if isinstance(cell["source"], list) else text
            if json.loads(data.decode("utf-8-sig")) != want:
                raise ValueError("the rewritten notebook is not the same JSON with the new sources")
        except (IndexError, KeyError, TypeError, RecursionError) as e:
            raise ValueError(str(e)) from None
        return data

    def dump(self, changed: dict) -> bytes:
        """The notebook's bytes with only the changed cells' `source` values replaced: outputs,
        metadata, ids, key order, indentation and the final newline stay as they were."""
        text = self.text
        for position in sorted(changed, reverse=True):  # back to front: earlier spans stay valid
            start, end = _span(text, ("cells", position, "source"))
            text = text[:start] + _source_json(text[start:end], changed[position]) + text[end:]
        return (codecs.BOM_UTF8 if self.bom else b"") + text.encode("utf-8")


def _rebinding(lines: list) -> str:
    """`a = b = <unknown>` for the names the unindented lines of a cell bind, else a blank line."""
    names: list = []
    for line in lines:
        if line[:1].isspace():
            continue
        found = _DEFINES.match(line) or _BINDS.match(line)
        for name in re.split(r"\s*,\s*", found.group(1)) if found else ():
            if not keyword.iskeyword(name) and name not in names:
                names.append(name)
    if not names:
        return "\n"
    line = " = ".join(names + [_UNPARSED]) + "\n"
    return line if _compile_error(line, "<cell>") is None else "\n"


def _compile_error(code: str, path: str) -> SyntaxError | None:
    flags = ast.PyCF_ONLY_AST | getattr(ast, "PyCF_ALLOW_TOP_LEVEL_AWAIT", 0)  # `await` runs in a cell
    try:
        with warnings.catch_warnings():  # the user's `"\\d"`: not ours to warn about
            warnings.simplefilter("ignore")
            compile(code, path, "exec", flags, dont_inherit=True)
    except SyntaxError as e:
        return e
    except (ValueError, RecursionError, MemoryError):
        return None
    return None


def _line_end(cell: Cell) -> str:
    """The line end the cell's own lines use (`\r\n` in a notebook written on Windows)."""
    for line in cell.lines:
        if line.endswith("\n"):
            return "\r\n" if line.endswith("\r\n") else "\n"
    return "\n"


def _per_cell(owner: list, old: list, new: list, i1: int, i2: int, j1: int, j2: int):
    """[(cell, (old rows), (new rows))]: one changed run of lines cut at the cell boundaries
    it crosses (two fixes on the last line of one cell and the first of the next make one
    run). The new lines go to each cell so that each side is as like its old lines as can
    be: fixes never move code across a boundary, they only rewrite lines in place."""
    if i1 == i2:  # an insertion goes into the cell of the line it stands before
        return [(owner[min(i1, len(owner) - 1)], (i1, i2), (j1, j2))]
    runs = []
    for row in range(i1, i2):
        if runs and runs[-1][0] is owner[row]:
            runs[-1][2] = row + 1
        else:
            runs.append([owner[row], row, row + 1])
    out, b = [], j1
    for n, (cell, a1, a2) in enumerate(runs):
        if n == len(runs) - 1:
            out.append((cell, (a1, a2), (b, j2)))
            break
        rest = "".join(old[a2:i2])
        mine = "".join(old[a1:a2])

        def score(cut: int) -> tuple:
            likeness = (difflib.SequenceMatcher(None, mine, "".join(new[b:cut]), autojunk=False).ratio()
                        + difflib.SequenceMatcher(None, rest, "".join(new[cut:j2]), autojunk=False).ratio())
            return likeness, -abs((cut - b) - (a2 - a1))

        cut = max(range(b, j2 + 1), key=score)
        out.append((cell, (a1, a2), (b, cut)))
        b = cut
    return out


def _is_python(metadata) -> bool:
    """False only when the notebook says its kernel is another language (R, Julia...)."""
    if not isinstance(metadata, dict):
        return True
    for table, key in (("language_info", "name"), ("kernelspec", "language")):
        value = metadata.get(table, {}).get(key) if isinstance(metadata.get(table), dict) else None
        if isinstance(value, str) and value:
            return value.lower() in ("python", "python3", "ipython", "ipython3")
    return True


# ---- locating a value in the JSON text, so that it can be replaced in place -------------
_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


def _span(text: str, path: tuple) -> tuple[int, int]:
    """(start, end) of the JSON value at `path` (keys and list indexes) in `text`."""
    i = _WS.match(text, 0).end()
    for step in path:
        if isinstance(step, str):
            if text[i] != "{":
                raise ValueError(f"no object at {i}")
            i = _WS.match(text, i + 1).end()
            while True:
                key, i = json.decoder.scanstring(text, i + 1)
                i = _WS.match(text, i).end() + 1  # the colon
                i = _WS.match(text, i).end()
                if key == step:
                    break
                i = _WS.match(text, _DECODER.raw_decode(text, i)[1]).end() + 1  # the comma
                i = _WS.match(text, i).end()
        else:
            if text[i] != "[":
                raise ValueError(f"no list at {i}")
            i = _WS.match(text, i + 1).end()
            for _ in range(step):
                i = _WS.match(text, _DECODER.raw_decode(text, i)[1]).end() + 1
                i = _WS.match(text, i).end()
    return i, _DECODER.raw_decode(text, i)[1]


def _source_json(old: str, text: str) -> str:
    """`text` as a JSON `source` value written the way `old` was: a string, or a list of
    lines with the same layout; lines that did not change keep their exact old spelling."""
    ascii_only = "\\u" in old and not any(ord(c) > 127 for c in old)
    if old.startswith('"'):
        return json.dumps(text, ensure_ascii=ascii_only)
    spelled = {}
    elements = []
    i = _WS.match(old, 1).end()
    while i < len(old) and old[i] == '"':
        value, end = json.decoder.scanstring(old, i + 1)
        spelled.setdefault(value, old[i:end])
        elements.append((i, end))
        i = _WS.match(old, end).end()
        if old[i] == ",":
            i = _WS.match(old, i + 1).end()
    lines = _split(text)
    if not lines:
        return "[]"
    if elements:
        first_ws = old[1 : elements[0][0]]
        last_ws = old[elements[-1][1] : len(old) - 1]
        sep = old[elements[0][1] : elements[1][0]] if len(elements) > 1 else "," + (first_ws or " ")
    else:  # was `[]`: nbformat's own layout
        first_ws, last_ws, sep = "\n", "\n", ",\n"
    body = sep.join(spelled.get(line) or json.dumps(line, ensure_ascii=ascii_only) for line in lines)
    return "[" + first_ws + body + last_ws + "]"


def json_region(text: str, cell: int, line: int, column: int, end_line: int, end_column: int) -> dict | None:
    """The SARIF region, in the `.ipynb` file's own lines, of a place in cell number `cell`
    (1-based among all cells): found where the cell's source is a list of strings each on
    its own JSON line (nbformat's layout); columns where the string is spelled as
    `json.dumps` would. None when the place cannot be mapped."""
    try:
        start, end = _span(text, ("cells", cell - 1, "source"))
    except (ValueError, IndexError, KeyError, TypeError, RecursionError):
        return None
    if text[start] != "[":
        return None  # one string for the whole cell: its lines are not lines of the file
    elements, i = [], _WS.match(text, start + 1).end()
    while i < end and text[i] == '"':
        _value, stop = json.decoder.scanstring(text, i + 1)
        elements.append((i, stop))
        i = _WS.match(text, stop).end()
        if text[i] == ",":
            i = _WS.match(text, i + 1).end()
    rows = [text.count("\n", 0, at) + 1 for at, _stop in elements]
    if len(set(rows)) != len(rows) or not (0 < line <= end_line <= len(elements)):
        return None

    def place(k: int, col: int) -> tuple:
        at, stop = elements[k - 1]
        raw = text[at + 1 : stop - 1]
        prefix = json.loads(text[at:stop])[: col - 1]
        for ascii_only in (False, True):
            spelled = json.dumps(prefix, ensure_ascii=ascii_only)[1:-1]
            if raw.startswith(spelled):
                return rows[k - 1], at + 1 + len(spelled) - (text.rfind("\n", 0, at) + 1) + 1
        return rows[k - 1], None

    (first, first_col), (last, last_col) = place(line, column), place(end_line, end_column)
    region = {"startLine": first, "endLine": last}
    if first_col is not None and last_col is not None:
        region.update(startColumn=first_col, endColumn=last_col)
    return region


# ---- the hooks the engine, the fixer, the reporter and the CLI call ----------------------
# Rules whose finding says a statement's result is thrown away: not so for the expression a
# cell ends with, which the notebook displays
_DISPLAYED_RESULT_RULES = frozenset({"DL006"})

def analyse(source: bytes | str, path: str, select=None, ignore=None, rule_classes=None, project=None, *,
            analyse_python):
    """engine.analyse for a notebook: the findings carry `cell` and cell-relative lines.
    `analyse_python` is the engine's analysis of Python source, handed in by the engine (this
    module sits below it)."""
    if isinstance(source, str):
        source = source.encode("utf-8")
    try:
        nb = Notebook(source)
    except NotebookError as e:
        return [(meta(path, e.name, e.message, e.line, e.column), None)], None
    if not nb.python or not nb.cells:
        return [], None
    pairs, module = analyse_python(nb.source.encode("utf-8"), path, select, ignore, rule_classes, project)
    broken = []
    if module is None and pairs and pairs[0][0].name == "syntax-error":
        # the joined parse fails where the tokens run out, maybe cells later: Jupyter runs
        # each cell on its own, so each cell that does not parse alone is named, and the
        # others are linted with it masked (as Ruff does)
        broken = nb.mask_broken(path)
        if broken:
            pairs, module = analyse_python(nb.source.encode("utf-8"), path, select, ignore, rule_classes, project)
    pairs = [(f, report) for f, report in pairs if not (f.code in _DISPLAYED_RESULT_RULES and nb.displayed(f))]
    located = [(f, None) for f in broken] + [(nb.locate(_placeable(nb, f)), report) for f, report in pairs]
    return sorted(located, key=lambda fr: fr[0]), module


def _placeable(nb: Notebook, finding):
    """The finding, without its fix when the cells cannot take that fix: never `[*]` for
    a fix that `--fix` would refuse; the advice says why."""
    if finding.fix is None:
        return finding
    reason = nb.unplaceable(finding.fix)
    if reason is None:
        return finding
    advice = f"{finding.help} (no automatic fix: {reason})" if finding.help else f"no automatic fix: {reason}"
    return dataclasses.replace(finding, fix=None, help=advice)


def fix(source: bytes, path: str, select=None, ignore=None, unsafe: bool = False, refused: list | None = None, *,
        fix_python, max_rounds: int) -> tuple[bytes, int]:
    """fix.fix_source for a notebook: fix the joined code, write the changed cells back.
    One round at a time, the notebook read afresh each round, so that every round's fixes
    are checked against the cells and magics as they now are. A chosen fix the cells cannot
    take (it would edit a magic line) is left out, the others applied, and a line saying so
    goes to `refused` (`cell N:line:col: DL000 ...`, for the caller to put the path before).
    `fix_python` (fix.py's fixer of Python source) and its `max_rounds` are handed in by
    fix.py: this module sits below it."""
    said: dict = {}
    total = 0
    for _ in range(max_rounds):
        try:
            nb = Notebook(source)
        except NotebookError:
            break
        if not nb.python or not nb.cells:
            break
        nb.mask_broken(path)

        def accept(finding, nb=nb):
            if finding.fix is None:
                return False  # no edit to check against the cells; never offered (no `[*]`) either
            reason = nb.unplaceable(finding.fix)
            if reason is not None:
                at = nb.locate(finding)
                said.setdefault((at.code, at.cell, at.line, at.column),
                                f"cell {at.cell}:{at.line}:{at.column}: DL000 [unfixable] not fixed: {at.code} [{at.name}]: {reason}")
            return reason is None

        new, count = fix_python(nb.source.encode("utf-8"), path, select, ignore, unsafe, accept, rounds=1)
        if not count:
            break
        changed = nb.rebuild(new.decode("utf-8"))
        try:
            if changed is None:
                raise ValueError("the fixed code could not be mapped back into the cells")
            data = nb.checked_dump(changed) if changed else source
        except ValueError as e:  # a layout we cannot edit in place: leave the file as it is now
            said[None] = f"1:1: DL000 [unfixable] not fixed: {count} fix{'es' if count > 1 else ''}: {e}"
            break
        if data == source:
            break
        source, total = data, total + count
    if refused is not None:
        refused.extend(said.values())
    return source, total


def diff(old: bytes, new: bytes, path: str) -> str:
    """A unified diff per changed cell, headed `a/PATH:cell N`, as Ruff shows it: for reading,
    not a patch of the JSON, which the first line says (a patch tool skips it)."""
    before, after = Notebook(old), Notebook(new)
    out = [f"# {path}: the changes to its code cells, not a patch of the .ipynb file (git apply cannot take it; --fix writes them)\n"]
    for a, b in zip(before.cells, after.cells):
        if a.text != b.text:
            old_lines = [line.rstrip("\r\n") + "\n" for line in a.lines]
            new_lines = [line.rstrip("\r\n") + "\n" for line in b.lines]
            out.extend(difflib.unified_diff(old_lines, new_lines, f"a/{path}:cell {a.index}", f"b/{path}:cell {b.index}"))
    return "".join(out)


def script(source: bytes) -> str:
    """The notebook's code cells as one plain-Python script (magics masked), line for line
    the joined source the linter reports on: what the runtime checker executes."""
    return Notebook(source).source


_CELL_LINES: dict = {}


def cell_lines(path: str, lines, cell: int) -> list:
    """The source lines of cell `cell`, given the notebook file's text lines (for the full
    report's excerpt); [] when they cannot be had."""
    cached = _CELL_LINES.get(path)
    if cached is None or cached[0] is not lines:
        try:
            nb = Notebook("\n".join(lines or ()).encode("utf-8"))
            by_index = {c.index: [line.rstrip("\r\n") for line in c.lines] for c in nb.cells}
        except NotebookError:
            by_index = {}
        cached = _CELL_LINES[path] = (lines, by_index)
    return cached[1].get(cell, [])
