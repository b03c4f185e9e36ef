"""A cold start's files read while the server still imports the MCP SDK.

`serve` spends about half a second importing the SDK on one core before it opens the tree;
a tree with no warm-start cache is then read and parsed, about 50 µs a file. `begin(root)`,
called before that import, forks a child (`storage.forking`, when a core is free) that
walks the tree and reads every task file, and writes the results as cache lines (256 rows
a line) to a file in memory. The load takes them as its warm-start cache (`take`): the
lines the child has finished by then, the child stopped. What it did not finish is read
as any stale file is.

Taken as a cache, every result is checked as a cached one is: the load's walk, made once
the tree's watch is open, stats each file and reads again any whose stamp, inode or change
time differ from the child's read. The child only reads: it recovers no journal, sweeps no
temporary file and follows no link (the load reads links itself), and its rows are
decoded and checked as the cache's (`cache.LineReader`). No child outlives the load: `take`
stops it, whatever it had done.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import BinaryIO

from storage import cache
from storage.forking import Child, fork_writing, may_fork
from storage.reading import read_task_file
from storage.scope import TaskScope
from storage.table import FileResult
from storage.walk import Skipped, walk

__all__ = ["LINE_ROWS", "begin", "start", "take", "wait", "wanted"]

LINE_ROWS = 256
"""Results a line of the child's: what is left unwritten when the load takes its lines."""

_BEGUN: dict[str, tuple[Child, int]] = {}
"""The child reading each root (resolved), with the size limit it reads under."""


def begin(root: Path, max_bytes: int, exclude: Sequence[str] = ()) -> bool:
    """Fork a child reading every task file of `root` when it has no warm-start cache
    (`wanted`) and a core is free; True when one was forked. Nothing else is changed."""
    return wanted(root) and may_fork() and start(root, max_bytes, exclude)


def wanted(root: Path) -> bool:
    """True for a folder whose load would read every file: no warm-start cache, no read
    begun for it already."""
    resolved = root.resolve()
    return str(resolved) not in _BEGUN and resolved.is_dir() and not cache.stored_bytes(resolved)


def start(root: Path, max_bytes: int, exclude: Sequence[str] = ()) -> bool:
    """Fork the child reading `root` now, whatever the machine's load; False when no child
    could be made."""
    resolved = root.resolve()
    child = fork_writing(partial(_read_all, resolved, max_bytes, tuple(exclude)))
    if child is not None:
        _BEGUN[str(resolved)] = (child, max_bytes)
    return child is not None


def take(root: Path, max_bytes: int) -> dict[str, FileResult]:
    """The results the child begun for `root` (resolved) has written so far, by path, once;
    the child stopped. Empty when none was begun, or it read under another size limit."""
    begun = _BEGUN.pop(str(root), None)
    if begun is None:
        return {}
    child, limit = begun
    with child:
        reader = cache.LineReader(root)
        reader.take_all(child.lines(wait=False))
    return reader.found if limit == max_bytes else {}


def wait(root: Path) -> bool:
    """Wait until the child begun for `root` (resolved) has read every file; whether it
    did (False: none begun, or it failed). `take` then takes every result."""
    begun = _BEGUN.get(str(root))
    return begun is not None and begun[0].wait()


def _read_all(root: Path, max_bytes: int, exclude: tuple[str, ...], out: BinaryIO) -> None:
    """The child's work: every task file's result, as cache lines, each line flushed."""
    results = _results(str(root), TaskScope(root, exclude, max_bytes), max_bytes)
    cache.write_lines(out, root, results, LINE_ROWS)


def _results(root: str, scope: TaskScope, max_bytes: int) -> Iterator[FileResult]:
    """Each plain task file's result in walk order (links and what the walk skips left to
    the load), sweeping nothing."""
    for relative, entry in walk(root, scope.ignored, _sweep_nothing):
        if isinstance(entry, Skipped) or entry.is_symlink():
            continue
        result = read_task_file(relative, f"{root}/{relative}", max_bytes)
        if result is not None:
            yield result


def _sweep_nothing(_relative: str, _name: str) -> None:
    """The child leaves temporary files to the load's walk."""
