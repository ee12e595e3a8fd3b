"""The one record every rule produces and every reporter consumes."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from functools import total_ordering


@total_ordering
@dataclass(frozen=True)
class Finding:
    path: str
    line: int  # 1-based (in a notebook: within the cell)
    column: int  # 1-based
    end_line: int
    end_column: int
    code: str
    name: str
    message: str
    # `fix`: the edit `--fix` makes (edits.fix_object: applicability, message, edits), or
    # None when it makes none. `help`: advice in words, shown for fixable and unfixable
    # findings alike. Neither takes part in ordering or equality.
    fix: dict | None = field(default=None, compare=False)
    help: str | None = field(default=None, compare=False)
    cell: int | None = None  # notebooks: the 1-based cell index, counting every cell

    @property
    def fixable(self) -> bool:
        """Whether plain `--fix` edits this finding (only safe fixes; DESIGN.md section 2)."""
        return self.fix is not None and self.fix.get("applicability") == "safe"

    def _order(self) -> tuple:
        # a notebook's findings sort by cell first: line numbers restart in every cell
        return (self.path, self.cell or 0, self.line, self.column, self.end_line, self.end_column, self.code, self.name, self.message)

    def __lt__(self, other: Finding) -> bool:
        return self._order() < other._order()

    def to_json(self) -> dict:
        return asdict(self)


def meta(path: str, name: str, message: str, line: int = 1, column: int = 1) -> Finding:
    """A DL000 finding about the file itself (it cannot be read, parsed or analysed)."""
    return Finding(path, line, column, line, column, "DL000", name, message)
