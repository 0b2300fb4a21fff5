"""Progress on stderr for work that takes a while: a duel's half-turns, a table's rows.

A command that may work for seconds passes :class:`Shown` to the library as its ``progress(done, total)``. The
bar appears only once the work has gone on for a moment (a quick answer prints nothing more), only at a terminal
and never with ``--json``; it goes when the work ends, however it ends: Ctrl-C then leaves the one line the command
line says ("interrupted; nothing changed", exit 130), not a half-drawn bar.
"""

from __future__ import annotations

import sys
import time
from types import TracebackType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress

#: Seconds of work before the bar is shown.
DELAY = 0.5
#: The fewest seconds between two drawings of the bar.
REDRAW = 0.1
#: A terminal narrower than this (columns) is shown the work's name and count alone.
NARROW = 60


def bar(console: Console, *extra: str, **options: Any) -> Progress:
    """A bar of the work's name (its task's description), the bar, the count, each ``extra`` field of the task and
    the time left, the bar taking what the others leave of the line; at a terminal narrower than :data:`NARROW`,
    the name and the count alone, whole (a bar and the time left would cut the count short: "4352/1...")."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    narrow = console.width < NARROW
    fields = [TextColumn(f"{{task.fields[{name}]}}") for name in extra]
    columns = (TextColumn("{task.description}"), MofNCompleteColumn()) if narrow else (
        TextColumn("{task.description}"), BarColumn(bar_width=None), MofNCompleteColumn(), *fields,
        TimeRemainingColumn())
    return Progress(*columns, console=console, expand=not narrow, **options)


class Shown:
    """``progress(done, total)`` for the library, drawn as a bar with the time left; a context manager that takes
    the bar away at its end. Work in several phases (a duel: its states, its chain solved, its turns) names each as
    it begins (:meth:`phase`): the bar then counts that phase afresh under its name (``kind`` said after it)."""

    def __init__(self, label: str, quiet: bool = False, console: Console | None = None, delay: float = DELAY,
                 kind: str | None = None) -> None:
        self.kind = kind
        self.label = self._named(label)
        self.console = console
        self.quiet = quiet or (console is None and not sys.stderr.isatty())
        self.delay = delay
        self.started = time.monotonic()
        self.bar: Progress | None = None
        self.drawn = 0.0
        self.task: Any = None
        self.fresh = False

    def __call__(self, done: int, total: int | None) -> None:
        """``total`` None where the work's end is not known beforehand: the count is shown alone ("14/?")."""
        if self.quiet:
            return
        if self.bar is None:
            if time.monotonic() - self.started < self.delay:
                return
            from rich.console import Console

            console = self.console or Console(stderr=True, highlight=False, emoji=False)
            # drawn at each call, not by a thread of its own: a duel forks its stepping only where no other thread
            # runs (rangefire.analysis.duel_beside)
            self.bar = bar(console, transient=True, auto_refresh=False)
            self.task = self.bar.add_task(self.label, total=total, completed=done)
            self.bar.start()
        if self.fresh:  # a task of its own: its clock anew, and a total that may be unknown (reset keeps the old)
            self.fresh = False
            self.bar.remove_task(self.task)
            self.task = self.bar.add_task(self.label, total=total, completed=done)
            self.bar.refresh()
            return
        now = time.monotonic()
        redraw = now - self.drawn >= REDRAW
        if redraw:
            self.drawn = now
        self.bar.update(self.task, completed=done, total=total, refresh=redraw)

    def _named(self, name: str) -> str:
        return name if self.kind is None else f"{name}, {self.kind}"

    def phase(self, name: str) -> None:
        """A new phase of the work begins: counted afresh (its time left too) under its name, from its first count
        (never drawn with the last phase's total)."""
        self.label = self._named(name)
        self.fresh = self.bar is not None

    def stop(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None

    def __enter__(self) -> Shown:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()
