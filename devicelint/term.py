"""What the terminal gets: whether to colour, and a progress line for long runs.

Colour follows the usual conventions (https://no-color.org, https://force-color.org):
`NO_COLOR` set to anything turns colour off; otherwise `FORCE_COLOR` set to a non-empty
value turns it on even when the output is piped; otherwise colour only when the stream
is a terminal.

The progress line goes to stderr, only when stderr is a terminal and the run has taken
longer than `PROGRESS_DELAY` seconds, and is erased before the results are printed, so
logs, pipes and CI output never see it. `DEVICELINT_PROGRESS=always` shows it from the
start whatever stderr is (for tests), `DEVICELINT_PROGRESS=never` never.
"""

from __future__ import annotations

import os
import sys
import time

PROGRESS_DELAY = 1.0  # seconds: short runs stay silent
_REFRESH = 0.1  # seconds between redraws


def use_color(stream) -> bool:
    if "NO_COLOR" in os.environ:
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return _isatty(stream)


def _isatty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # a closed or replaced stream
        return False


class Progress:
    """`devicelint: 120/4536 files, 7 findings` redrawn in place on stderr."""

    def __init__(self, total: int, stream=None) -> None:
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        mode = os.environ.get("DEVICELINT_PROGRESS", "auto").lower()
        self.enabled = mode == "always" or (mode == "auto" and _isatty(self.stream))
        self.delay = 0.0 if mode == "always" else PROGRESS_DELAY
        self.start = time.monotonic()
        self.done = 0
        self.findings = 0
        self._last_draw = 0.0
        self._width = 0  # of the line on screen, to erase it

    def advance(self, findings: int) -> None:
        self.done += 1
        self.findings += findings
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.start < self.delay:
            return
        if self.done < self.total and now - self._last_draw < _REFRESH and self._width:
            return
        self._last_draw = now
        noun = "finding" if self.findings == 1 else "findings"
        self._draw(f"devicelint: {self.done}/{self.total} files, {self.findings} {noun}")

    def _draw(self, text: str) -> None:
        pad = " " * max(0, self._width - len(text))
        self.stream.write(f"\r{text}{pad}")
        self.stream.flush()
        self._width = len(text)

    def close(self) -> None:
        """Erase the line (nothing was drawn: nothing to erase)."""
        if self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()
            self._width = 0
