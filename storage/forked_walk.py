"""A warm start's walk on the second core, while this process decodes the cache.

A warm start at 100k files decodes its cache (about 0.8 s) and then walks the tree (about
0.5 s: a folder listing each folder and a stat each file), one after the other. The walk
needs nothing of the cache but the marks it compares each file's stat with. So, before
the cache is decoded (the process is still small and forks fast), `walk_ahead` forks a
child that walks the tree and stats every candidate file, and writes what it met to a
file in memory (`storage.forking`: never a 64 KB pipe, which would stop the child while
this process is busy decoding) as msgpack, then exits: per item its relative path and its
mark (`table.mark_of_stat`), or that it is a link, or gone since its folder was listed
(the empty mark, as in `walk.survey_of`), or skipped (its path as bytes: a name that is not
UTF-8, with its kind and why), and the temporary files met on the way, which the child
never removes: this process sweeps them (`Walked.temps`). Once the cache is decoded,
`collect` waits for the child (what is left of its walk) and `survey_of_marks`
compares the marks with the cached results: the very `Survey` the serial walk gives,
found, stale, links and problems in the same order.

Only where a fork may help (`forking.may_fork`: `os.fork`, no other thread, a core idle
now for the child) and the cache is big enough that its decoding hides the walk
(`FORK_AT_BYTES`).
A child that fails, is killed, or sends what does not decode gives nothing back, and the
caller walks the tree itself: the same survey, later. An interrupted caller (leaving
`walk_ahead`'s block) kills and reaps the child; no child outlives the block.
"""

from __future__ import annotations

import contextlib
import operator
import os
from collections.abc import Iterable, Iterator, Mapping
from itertools import compress, count, repeat

import msgspec

from storage.forking import Child, fork_writing, may_fork
from storage.table import FileResult, ProblemKind, mark_of_stat
from storage.walk import Ignored, Skipped, Survey, Sweep, skipped_result, walk

__all__ = [
    "FORK_AT_BYTES",
    "Walked",
    "collect",
    "fork_walk",
    "survey_ahead",
    "survey_of_marks",
    "walk_ahead",
    "walk_marks",
    "walked_of",
]

FORK_AT_BYTES = 2 << 20
"""Cache bytes (about 1.3 KB a file: 1,500 files) from which a forked walk pays: a warm load
of 2k files took 28 ms forked where it took 33 serial, the fork and the marks' decoding
(4-5 ms) paid by the walk's 8 (10k: 129 for 158; 100k: 1.7 s for 2.1), with a core idle.
A 1k tree (1.3 MB) walks in 4 ms: no gain left after the fork."""

LINK = b"L"
"""The mark of a symlinked file: never compared, always read."""
SKIPPED = b"S"
"""The mark of a skipped path: the next of `Walked.skipped`."""
GONE = b""
"""The mark of a file gone between its folder's listing and its stat (read, found gone)."""


class Walked(msgspec.Struct, array_like=True):
    """What a child's walk met, in walk order: each item's path and mark (`LINK`,
    `SKIPPED` with "" as its path, `GONE` or a stat's), the skipped paths (as bytes) with
    their kind and why, and the temporary files met (relative path and name, as bytes)."""

    paths: list[str]
    marks: list[bytes]
    skipped: list[tuple[bytes, ProblemKind, str]]
    temps: list[tuple[bytes, bytes]]

    def is_whole(self) -> bool:
        """True when the lists agree: a mark a path, a skipped path a `SKIPPED` mark."""
        return len(self.paths) == len(self.marks) and self.marks.count(SKIPPED) == len(self.skipped)


_DECODER = msgspec.msgpack.Decoder(Walked)
_ENCODER = msgspec.msgpack.Encoder()


def walked_of(data: bytes) -> Walked | None:
    """A child's walk from the bytes it wrote; None unless they decode, whole."""
    try:
        walked = _DECODER.decode(data)
    except msgspec.DecodeError:
        return None
    return walked if walked.is_whole() else None


def collect(child: Child) -> Walked | None:
    """What the child met, once it has exited; None when it failed, was killed or sent
    what does not decode (the caller walks the tree itself)."""
    data = child.answer()
    return walked_of(data) if data is not None else None


def survey_ahead(
    child: Child, known: Mapping[str, FileResult], first: list[FileResult], sweep: Sweep
) -> Survey | None:
    """The survey of the child's walk (`survey_of_marks`), its temporary files handed to
    `sweep` (the child sweeps none); None when the child sent nothing (walk here then)."""
    walked = collect(child)
    if walked is None:
        return None
    for relative, name in walked.temps:
        sweep(os.fsdecode(relative), os.fsdecode(name))
    return survey_of_marks(walked, known, first)


@contextlib.contextmanager
def walk_ahead(root: str, ignored: Ignored, cache_bytes: int) -> Iterator[Child | None]:
    """A child walking `root` while the block runs (a cache of `cache_bytes` decoded
    meanwhile), or None where it would not pay or cannot be made; the child is reaped
    when the block ends, killed first if it was not collected."""
    child = (
        fork_walk(root, ignored)
        if cache_bytes >= FORK_AT_BYTES and may_fork(core_of_its_own=True)
        else None
    )
    if child is None:
        yield None
        return
    with child:
        yield child


def fork_walk(root: str, ignored: Ignored) -> Child | None:
    """A child walking `root` now, whatever the load; None when none could be made."""
    return fork_writing(lambda out: out.write(_ENCODER.encode(walk_marks(root, ignored))))


def walk_marks(root: str, ignored: Ignored) -> Walked:
    """Walk `root` and stat every candidate file (`walk.walk`), sweeping nothing."""
    walked = Walked([], [], [], [])
    paths, marks = walked.paths, walked.marks

    def keep_temp(relative: str, name: str) -> None:
        walked.temps.append((os.fsencode(relative), os.fsencode(name)))

    for relative, entry in walk(root, ignored, keep_temp):
        if isinstance(entry, Skipped):
            walked.skipped.append((os.fsencode(relative), entry.kind, entry.why))
            paths.append("")
            marks.append(SKIPPED)
            continue
        paths.append(relative)
        if entry.is_symlink():
            marks.append(LINK)
            continue
        try:
            marks.append(mark_of_stat(entry.stat()))
        except FileNotFoundError:  # deleted since the folder was listed: read it
            marks.append(GONE)
    return walked


def survey_of_marks(
    walked: Walked, known: Mapping[str, FileResult], first: Iterable[FileResult]
) -> Survey:
    """`walk.survey_of` from a child's walk: the same found, stale, links and problems, in
    the same order, each file's mark compared with its known result's. The compare is made
    in C-level passes; only the items that are not current get a turn of a Python loop
    (none on a warm start with no change: 40 ms at 100k, where one loop took 95-110)."""
    paths, marks = walked.paths, walked.marks
    results = _known_of(paths, known)
    same = map(operator.eq, map(getattr, results, repeat("mark"), repeat(None)), marks)
    found: list[FileResult | str] = list(first)
    stale: list[str] = []
    links: set[str] = set()
    skipped = iter(walked.skipped)
    current = 0  # where the run of current results since the last other item begins
    for at in compress(count(), map(operator.not_, same)):
        found += results[current:at]  # type: ignore[arg-type]  # each one current
        current = at + 1
        if marks[at] == SKIPPED:
            raw, kind, why = next(skipped)
            found.append(skipped_result(os.fsdecode(raw), Skipped(kind, why)))
            continue
        if marks[at] == LINK:
            links.add(paths[at])
        found.append(paths[at])
        stale.append(paths[at])
    found += results[current:]  # type: ignore[arg-type]
    return Survey(found, stale, frozenset(links), forked=True)


def _known_of(paths: list[str], known: Mapping[str, FileResult]) -> list[FileResult | None]:
    """Each path's known result (None: none). Known results in the walk's order (a cache
    saved by the last load of an unchanged tree) are taken in one pass over the keys, not
    a lookup each (10 ms, where the lookups took 45-65, at 100k)."""
    if len(known) == len(paths) and list(known) == paths:
        return list(known.values())
    return list(map(known.get, paths))
