"""Reading many task files on two cores: a forked child parses half of them.

A cold start at 10k files spends most of its time parsing (about 50 µs a file), one file
after another on one core. Above `FORK_AT` files, where the machine has a second core and
the process has no other thread, `read_all` forks: the child reads and parses the later
half and sends its results back as warm-start cache lines (`storage.cache.frames`, the
compact form the cache already gives back exactly), while this process reads the first
half; then it decodes the child's lines (about a tenth of parsing them). The child writes
its lines to a file in memory (`storage.forking`), never blocking on its reader (through a
pipe, 64 KB, it stopped at the first few rows until this process had read its own half,
then both took turns), a line of `CHILD_ROWS` rows at a time; this process decodes each
whole line as soon as its own half is read, while the child finishes the last ones. Only
when a core is free now (`forking.may_fork`): on a busy machine the child would only take
turns.

The results are the same as one process reading every file: whatever the child does not
send (a result the cache cannot hold exactly, a file gone since the walk, or everything
when the child fails or the lines do not decode), this process reads itself. Without
`os.fork` (Windows), on one core, or with another thread running (a child of a threaded
process may inherit a lock some other thread held), it reads every file itself.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import BinaryIO

from storage import cache
from storage.forking import Child, fork_writing, may_fork
from storage.table import FileResult

__all__ = ["CHILD_ROWS", "FORK_AT", "read_all", "read_forked"]

FORK_AT = 4_000
"""Files to read from which a second process pays for its fork and the lines' decoding."""

CHILD_ROWS = 256
"""Results a line of the child's: a quarter of a cache line, so that little is left to
decode once the child is done."""

ReadOne = Callable[[str], FileResult | None]


def read_all(paths: Sequence[str], read_one: ReadOne, root: Path) -> dict[str, FileResult | None]:
    """Each path's result (None: gone since the walk), read on two cores when that pays."""
    if len(paths) >= FORK_AT and may_fork():
        return read_forked(paths, read_one, root)
    return {path: read_one(path) for path in paths}


def read_forked(
    paths: Sequence[str], read_one: ReadOne, root: Path
) -> dict[str, FileResult | None]:
    """`read_all` with a forked child reading the later half; every path this process
    does not get back from the child it reads itself. No child outlives the call (an
    interrupt included)."""
    half = len(paths) // 2
    theirs = paths[half:]
    child = fork_writing(partial(_send, theirs, read_one, root))
    with child if child is not None else contextlib.nullcontext():
        got: dict[str, FileResult | None] = {path: read_one(path) for path in paths[:half]}
        if child is not None:
            got.update(_collect(child, root))
    for path in theirs:
        if path not in got:
            got[path] = read_one(path)
    return got


def _send(paths: Sequence[str], read_one: ReadOne, root: Path, out: BinaryIO) -> None:
    """The child's work: read and parse `paths`, and write their results to `out` as cache
    lines, each whole as soon as its rows are read."""
    results = (result for path in paths if (result := read_one(path)) is not None)
    for line in cache.frames(root, results, rows_a_line=CHILD_ROWS):
        out.write(line)
        out.flush()


def _collect(child: Child, root: Path) -> dict[str, FileResult]:
    """The results the child sent, decoded as its lines come; none when it failed, or when
    a line did not decode (the reader stops there, and the child is ended)."""
    found = cache.read_lines(child.lines(), root)
    return found if child.succeeded else {}
