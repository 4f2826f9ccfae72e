"""Progress bars for the command line: shown on a terminal once a task has run about a second,
never in logs or pipes.

Library functions report progress through plain callbacks (``on_progress(label)``); only the
CLI turns them into a bar, so scripts and tests calling the library see nothing. A bar for work
that ends within ``delay`` seconds would only flicker, so it starts after that much time.
"""

from __future__ import annotations

import sys
import time
from typing import IO, Any


class Progress:
    """``with Progress("exporting", total) as step: ... step(label)`` — a transient rich bar on
    ``stream`` (stderr) when it is a terminal and the work outlasts ``delay`` seconds."""

    def __init__(self, what: str, total: int, stream: IO[str] | None = None, delay: float = 1.0) -> None:
        self.what = what
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        self.delay = delay
        self.done = 0
        self._bar: Any = None
        self._task: Any = None
        self._started = 0.0

    def __enter__(self) -> "Progress":
        self._started = time.monotonic()
        return self

    def __call__(self, label: str = "") -> None:
        """One unit of work done; ``label`` says which (shown beside the bar)."""
        self.done += 1
        if self._bar is None and self._wanted():
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress as Bar, TextColumn, TimeElapsedColumn

            console = Console(file=self.stream, force_terminal=True)
            self._bar = Bar(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                            console=console, transient=True)
            self._bar.start()
            self._task = self._bar.add_task(self.what, total=self.total, completed=self.done - 1)
        if self._bar is not None:
            self._bar.update(self._task, advance=1, description=f"{self.what} {label}".rstrip())

    def _wanted(self) -> bool:
        isatty = getattr(self.stream, "isatty", None)
        return bool(isatty and isatty()) and time.monotonic() - self._started >= self.delay

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.stop()
