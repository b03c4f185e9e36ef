"""Where human output goes: a console on stdout, progress on stderr.

Colour only when the stream is a terminal and `NO_COLOR` is unset (rich reads `NO_COLOR`
itself). A pipe or a file gets plain text at a fixed width (`COLUMNS`, else 120), so output
is the same on every machine and rows do not wrap at 80 columns inside `grep` or `less`.
Progress is drawn on stderr only when stderr is a terminal: stdout stays clean for scripts and
for stdio MCP, and logs of CI runs are not filled with redraws.

rich is imported here, lazily by the commands that print, never by `--help` or by `serve`.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console, RenderableType

__all__ = ["console", "out", "working"]

PIPE_WIDTH = 120


def _width(stream: IO[str]) -> int | None:
    if stream.isatty():
        return None
    columns = os.environ.get("COLUMNS", "")
    return int(columns) if columns.isdigit() and int(columns) > 0 else PIPE_WIDTH


def console(stream: IO[str] | None = None) -> Console:
    """A console on `stream` (stdout by default): no markup parsing (titles may hold
    brackets), no guessed highlighting, colour only on a terminal."""
    from rich.console import Console  # noqa: PLC0415 - keeps `--help` and `serve` light

    target = stream if stream is not None else sys.stdout
    return Console(
        file=target,
        width=_width(target),
        markup=False,
        emoji=False,
        highlight=False,
    )


def out(*renderables: RenderableType, soft_wrap: bool = False) -> None:
    """Print to stdout for a person; into a pipe or file without trailing blanks (rich pads
    every line of a table to its width). `soft_wrap` keeps text's own line breaks: a line
    longer than the width is left whole for the terminal to wrap (tables still fit)."""
    terminal = console()
    if terminal.is_terminal:
        terminal.print(*renderables, soft_wrap=soft_wrap)
        return
    with terminal.capture() as captured:
        terminal.print(*renderables, soft_wrap=soft_wrap)
    lines = captured.get().splitlines()
    sys.stdout.write("".join(line.rstrip() + "\n" for line in lines))


def _live_stderr() -> bool:
    return sys.stderr.isatty()


@contextlib.contextmanager
def working(what: str) -> Iterator[None]:
    """A spinner with elapsed time on stderr while a step of unknown length runs."""
    if not _live_stderr():
        yield
        return
    from rich.progress import (  # noqa: PLC0415
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    columns = (SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn())
    with Progress(*columns, console=console(sys.stderr), transient=True) as progress:
        progress.add_task(what, total=None)
        yield
