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

Neither waits for the other while there is work left: this process decodes the child's
whole lines between its own files, and once its half is read it takes the child's paths
from the end while the child takes them from the start, until they meet (`_Split`, two
numbers in memory both processes share: where the child must stop, how far it got). At
the meeting point both may read the same file; this process's result is kept.

The results are the same as one process reading every file: whatever the child does not
send (a result the cache cannot hold exactly, a file gone since the walk, or everything
when the child fails or the lines do not decode), this process reads itself. Without
`os.fork` (Windows), on one core, or with another thread running (a child of a threaded
process may inherit a lock some other thread held), it reads every file itself.
"""

from __future__ import annotations

import contextlib
import mmap
from collections.abc import Callable, Iterator, Sequence
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
"""Results a line of the child's, and how many files this process reads between two looks
at the child's lines."""

ReadOne = Callable[[str], FileResult | None]


class _Cell:
    """One int64 of a `_Split`'s shared page, read and written as an attribute."""

    def __init__(self, index: int) -> None:
        self.index = index

    def __get__(self, split: _Split, owner: type | None = None) -> int:
        return int(split.cells[self.index])

    def __set__(self, split: _Split, value: int) -> None:
        split.cells[self.index] = value


class _Split:
    """Two numbers in memory a forked child shares with this process: the child reads its
    paths in order while their index is under `stop`, and says before each how far it got
    (`started`); this process lowers `stop` to take paths from the end. Each number is
    written by one side only; a path both sides claim at the same moment is read twice,
    never left out (the child writes `started` before reading its path, and stops only
    at an index this process claimed)."""

    stop = _Cell(0)
    started = _Cell(1)

    def __init__(self, count: int) -> None:
        self._memory = mmap.mmap(-1, 16)  # shared with a child forked later
        self.cells = memoryview(self._memory).cast("q")
        self.stop, self.started = count, 0


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
    split = _Split(len(theirs))
    child = fork_writing(partial(_send, theirs, read_one, root, split))
    with child if child is not None else contextlib.nullcontext():
        if child is None:
            return {path: read_one(path) for path in paths}
        reader = cache.LineReader(root)
        got = _read_beside(paths[:half], read_one, child, reader)
        got.update(_take_back(theirs, read_one, split))
        reader.take_all(child.lines())
        sent = reader.found if child.succeeded else {}
    for path in theirs:
        if path not in got:
            got[path] = sent[path] if path in sent else read_one(path)
    return got


def _read_beside(
    paths: Sequence[str], read_one: ReadOne, child: Child, reader: cache.LineReader
) -> dict[str, FileResult | None]:
    """Read `paths`, decoding the child's whole lines every `CHILD_ROWS` files."""
    got: dict[str, FileResult | None] = {}
    for n, path in enumerate(paths, 1):
        got[path] = read_one(path)
        if n % CHILD_ROWS == 0:
            reader.take_all(child.lines(wait=False))
    return got


def _take_back(
    paths: Sequence[str], read_one: ReadOne, split: _Split
) -> dict[str, FileResult | None]:
    """The child's paths read here from the end, each claimed first, until the child
    has started the one claimed."""
    got: dict[str, FileResult | None] = {}
    for index in range(len(paths) - 1, -1, -1):
        split.stop = index
        if split.started > index:
            break
        got[paths[index]] = read_one(paths[index])
    return got


def _send(
    paths: Sequence[str], read_one: ReadOne, root: Path, split: _Split, out: BinaryIO
) -> None:
    """The child's work: read and parse its paths in order until the one this process
    claimed, and write their results to `out` as cache lines, each whole as soon as its
    rows are read."""
    cache.write_lines(out, root, _claimed(paths, read_one, split), CHILD_ROWS)


def _claimed(paths: Sequence[str], read_one: ReadOne, split: _Split) -> Iterator[FileResult]:
    """Each result of `paths`, in order, while this process has not claimed the path."""
    for index, path in enumerate(paths):
        if index >= split.stop:
            return
        split.started = index + 1
        result = read_one(path)
        if result is not None:
            yield result
