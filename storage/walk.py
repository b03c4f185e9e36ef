"""One walk of a tree of task files, and what it tells against results known before.

The walk lists every `*.md` below the root that is not hidden and not ignored, without
following folder links; a folder it may not enter and a name that is not UTF-8 are
reported, not skipped silently. A survey stats each listed file against known results (from
the cache, or the table) and keeps those whose stamp still matches: only the rest are read.
Temporary files met on the way are handed to a sweep (the repository's: it knows which
writers are alive). A big tree's warm walk may run in a forked child while the cache is
decoded (`forked_walk.py`): the same survey, from the child's marks.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from storage.forked_read import read_all
from storage.journal import is_journal_temp
from storage.reading import problem_result, read_task_file
from storage.table import FileResult, FileTable, ProblemKind, mark_of_stat
from storage.temps import is_temp_name

__all__ = [
    "Ignored",
    "Listed",
    "Skipped",
    "Survey",
    "Sweep",
    "TreeRead",
    "is_utf8",
    "read_stale",
    "skipped_result",
    "survey_of",
    "walk",
]


class Skipped(NamedTuple):
    """A path the walk cannot use: what kind of load problem it is, and why."""

    kind: ProblemKind
    why: str


Listed = tuple[str, os.DirEntry[str] | Skipped]
"""A walk's item: (relative path, directory entry), or (path, why it is skipped)."""
Ignored = Callable[[str], bool]
"""True for a relative path (a folder's ends in `/`) the walk leaves out."""
Sweep = Callable[[str, str], None]
"""Given a temporary file met by the walk: its relative path and its name."""


@dataclass(frozen=True, slots=True)
class Survey:
    """One walk of the tree against known results: every task file in walk order, as its
    known result when its stamp still matches, else as its path (to be read)."""

    found: list[FileResult | str]
    stale: list[str]  # the paths in `found`
    links: frozenset[str] = frozenset()  # symlinked files: always read, never trusted
    forked: bool = field(default=False, compare=False)  # walked by a child (`forked_walk`)

    @property
    def current(self) -> int:
        """How many known results are still current."""
        return len(self.found) - len(self.stale)


@dataclass(frozen=True, slots=True)
class TreeRead:
    """One read of a whole tree: the walk, the results in walk order, their table, and the
    seconds the walk and the reads took."""

    survey: Survey
    results: list[FileResult]
    table: FileTable
    walk_seconds: float
    read_seconds: float


def walk(root: str, ignored: Ignored, sweep: Sweep) -> Iterator[Listed]:
    """(relative path, directory entry) of each candidate under `root`, or (path, why it
    is skipped) for a folder that cannot be listed or a name that is not UTF-8; folder
    links are not followed. A folder whose listing fails part-way keeps what it listed and is
    reported too. Folders are listed through a descriptor, so an entry's `stat()`
    looks up one name, not the whole path again (7% off a warm start's walk)."""
    stack = [""]
    while stack:
        prefix = stack.pop()
        try:
            folder = os.open(root + "/" + prefix, os.O_RDONLY | os.O_DIRECTORY)
        except OSError as exc:  # a folder we may not enter (lost+found), gone meanwhile
            if prefix and not isinstance(exc, FileNotFoundError):
                yield prefix.rstrip("/"), Skipped("unreadable", f"folder not read: {exc.strerror}")
            continue
        try:
            yield from _listed(prefix, folder, stack, ignored, sweep)
        except OSError as exc:  # listing failed part-way (/proc/1/map_files, a failing disk)
            why = f"folder not read in full: {exc.strerror or exc}"
            yield prefix.rstrip("/") or ".", Skipped("unreadable", why)
        finally:
            os.close(folder)


def _listed(
    prefix: str, folder: int, stack: list[str], ignored: Ignored, sweep: Sweep
) -> Iterator[Listed]:
    """The candidates in one folder; its subfolders go on `stack`."""
    with os.scandir(folder) as entries:
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                if is_temp_name(name) or is_journal_temp(name):
                    sweep(prefix + name, name)
                continue
            relative = prefix + name
            is_folder = entry.is_dir(follow_symlinks=False)
            if not (name.isascii() or is_utf8(name)) and (is_folder or name.endswith(".md")):
                yield relative, _NOT_UTF8_NAME
            elif is_folder:
                if not ignored(relative + "/"):
                    stack.append(relative + "/")
            elif name.endswith(".md") and not ignored(relative):
                yield relative, entry


def survey_of(
    listed: Iterable[Listed], known: Mapping[str, FileResult], first: list[FileResult]
) -> Survey:
    """What a walk found against `known` results (after the problems in `first`): which
    are still current and which must be read. One stat a file; no file is opened."""
    found: list[FileResult | str] = list(first)
    stale: list[str] = []
    links: set[str] = set()
    for relative, entry in listed:
        if isinstance(entry, Skipped):
            found.append(skipped_result(relative, entry))
            continue
        result = known.get(relative)
        if entry.is_symlink():
            links.add(relative)
        elif result is not None:
            try:  # inline, not a call a file: a tenth of a warm walk at 100k
                mark = mark_of_stat(entry.stat())
            except FileNotFoundError:  # deleted since the folder was listed: read it
                mark = b""  # (and find it gone)
            if result.mark == mark:
                found.append(result)
                continue
        found.append(relative)
        stale.append(relative)
    return Survey(found, stale, frozenset(links))


def read_stale(
    survey: Survey, read_link: Callable[[str], FileResult | None], root: str, limit: int
) -> list[FileResult]:
    """Every file of a survey, in walk order: read when stale (a link through `read_link`,
    which checks where it leads), as known when current. None stale (a warm start with no
    change): the survey's own list, every item a known result, without a pass over it."""
    if not survey.stale:
        return survey.found.copy()  # type: ignore[return-value]  # no path: none stale
    plain = [item for item in survey.stale if item not in survey.links]
    read = read_all(plain, lambda item: read_task_file(item, root + "/" + item, limit), Path(root))
    results: list[FileResult] = []
    for item in survey.found:
        if isinstance(item, str):
            result = read[item] if item in read else read_link(item)
            if result is not None:  # gone since the walk
                results.append(result)
        else:
            results.append(item)
    return results


def is_utf8(name: str) -> bool:
    """False for a name holding bytes that are not UTF-8 (decoded as lone surrogates; an
    ASCII name, which holds none, the walk takes without this call)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


_NOT_UTF8_NAME = Skipped("not_utf8", "the name is not UTF-8: skipped (rename it to serve it)")


def skipped_result(relative: str, skipped: Skipped) -> FileResult:
    """A path the walk could not use, as a load problem under a printable name (bytes that
    are not UTF-8 shown as `\\xff`)."""
    shown = os.fsencode(relative).decode("utf-8", "backslashreplace")
    return problem_result(shown, (0, 0), skipped.kind, skipped.why)
