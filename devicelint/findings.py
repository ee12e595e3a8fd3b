"""The one record every rule produces and every reporter consumes."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True, order=True)
class Finding:
    path: str
    line: int  # 1-based
    column: int  # 1-based
    end_line: int
    end_column: int
    code: str
    name: str
    message: str
    fix: str | None = None

    def to_json(self) -> dict:
        return asdict(self)
