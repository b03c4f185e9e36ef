"""The file table: what every file of a tree currently holds, and which task wins an id.

A tree is read once into a `FileTable`; after that, each changed file is re-read alone and
`put` (or `drop`) into the table, which answers with the `Delta` of tasks that changed.
Duplicate ids are resolved here, deterministically: the lexicographically first path wins.

>>> from storage.model import Task
>>> table = FileTable()
>>> table.put(FileResult.of("b.md", (1, 1), Task(id="t", title="B", path="b.md"))).upserted[0].title
'B'
>>> table.put(FileResult.of("a.md", (1, 1), Task(id="t", title="A", path="a.md"))).upserted[0].title
'A'
>>> table.duplicates()
{'t': ('a.md', 'b.md')}
"""

from __future__ import annotations

import bisect
import os
import struct
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from storage.model import Task

__all__ = [
    "MARK_BYTES",
    "Delta",
    "FileResult",
    "FileTable",
    "Problem",
    "ProblemKind",
    "mark_of",
    "mark_of_stat",
]

_JOURNAL_MAX = 1 << 16
"""Paths the journal keeps at most; past it the older half is forgotten (asking what changed
since a version that old answers None: compare the whole tree again)."""

ProblemKind = Literal[
    "parse_error",
    "merge_conflict",
    "not_utf8",
    "too_large",
    "duplicate_id",
    "unsafe_path",
    "unreadable",
    "write_conflict",
]


@dataclass(frozen=True, slots=True)
class Problem:
    """A file the load could not use as a task, with the reason; never dropped silently."""

    path: str
    kind: ProblemKind
    message: str


_MARK = struct.Struct("<qQqQ")  # mtime_ns, size, ctime_ns, inode


MARK_BYTES = _MARK.size


def mark_of(stamp: tuple[int, int], changed: tuple[int, int]) -> bytes:
    """A file's stamp and change as a `FileResult` holds them (compare a look with this)."""
    return _MARK.pack(*stamp, *changed)


def mark_of_stat(st: os.stat_result) -> bytes:
    """`mark_of` a file's stat, its stamp (mtime_ns, size) and change (ctime_ns, inode,
    `reading.changed_of`) packed straight from it: a warm walk's one check a file."""
    return _MARK.pack(st.st_mtime_ns, st.st_size, st.st_ctime_ns, st.st_ino)


@dataclass(frozen=True, slots=True)
class FileResult:
    """One file as last read: a task, a problem, or neither (markdown that is not a task).
    Made with `of`; `stamp` and `changed` are held packed in `mark` (32 bytes in one object,
    where two tuples of two ints took 250: 25 MB at 100k files)."""

    path: str
    mark: bytes
    task: Task | None = None
    problem: Problem | None = None

    @classmethod
    def of(
        cls,
        path: str,
        stamp: tuple[int, int],
        task: Task | None = None,
        problem: Problem | None = None,
        changed: tuple[int, int] = (0, 0),
    ) -> FileResult:
        return cls(path, mark_of(stamp, changed), task, problem)

    @property
    def stamp(self) -> tuple[int, int]:
        """(mtime_ns, size) at the read."""
        mtime, size, _, _ = _MARK.unpack(self.mark)
        return mtime, size

    @property
    def changed(self) -> tuple[int, int]:
        """(inode change time, inode) at the read; (0, 0) when unknown. With `stamp`, what a
        later look must find to take this result as current: a modification time put back
        by hand (`touch -d`, a restore) does not put back the change time."""
        _, _, ctime, inode = _MARK.unpack(self.mark)
        return ctime, inode

    def with_changed(self, changed: tuple[int, int]) -> FileResult:
        return FileResult.of(self.path, self.stamp, self.task, self.problem, changed)


@dataclass(slots=True)
class Delta:
    """Tasks that now hold their id (new or changed) and ids that no longer exist."""

    upserted: list[Task] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    _ids: tuple[set[str], set[str]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._ids = ({t.id for t in self.upserted}, set(self.removed))

    def __bool__(self) -> bool:
        return bool(self.upserted or self.removed)

    def extend(self, other: Delta) -> None:
        """Add a later change; the last word on an id wins (a duplicate id's file dropped
        after its twin was: the twin's promotion is upserted, then the id removed)."""
        upserted_ids, removed_ids = self._ids
        later_up = {t.id for t in other.upserted}
        later_gone = set(other.removed) - later_up
        if later_gone & upserted_ids:
            self.upserted = [t for t in self.upserted if t.id not in later_gone]
            upserted_ids -= later_gone
        if later_up & removed_ids:
            self.removed = [i for i in self.removed if i not in later_up]
            removed_ids -= later_up
        self.upserted.extend(other.upserted)
        self.removed.extend(other.removed)
        upserted_ids |= later_up
        removed_ids |= later_gone


class FileTable:
    """Files by path, and for each id the sorted paths that claim it; and a journal of the
    paths `put` or `drop`ped, so a reader that compared the table with something else at one
    `version` can later redo only the paths that changed since (`changed_since`)."""

    def __init__(self) -> None:
        self.files: dict[str, FileResult] = {}
        self._paths_by_id: dict[str, str | list[str]] = {}
        """An id's one path, or its sorted paths when several files claim it (a list for
        every id took 7 MB at 100k tasks)."""
        self._journal: list[str] = []
        self._forgotten = 0  # journal entries dropped from its start

    @classmethod
    def of(cls, results: Iterable[FileResult]) -> FileTable:
        """A table of a whole load at once: the same as `put` of each, without the deltas."""
        table = cls()
        files, by_id = table.files, table._paths_by_id
        for result in results:  # each field read once: 100k rows at a warm start
            path, task = result.path, result.task
            if path in files:
                table.drop(path)
            files[path] = result
            if task is not None:
                task_id = task.id
                paths = by_id.get(task_id)
                if paths is None:
                    by_id[task_id] = path
                else:
                    table._add_path(task_id, paths, path)
        return table

    def _add_path(self, task_id: str, paths: str | list[str], path: str) -> list[str]:
        """Another file claims `task_id`: its sorted paths, now with `path`."""
        if isinstance(paths, str):
            paths = self._paths_by_id[task_id] = [paths]
        bisect.insort(paths, path)
        return paths

    def __len__(self) -> int:
        return len(self.files)

    @property
    def version(self) -> int:
        """How many times a path was put or dropped since the table was made."""
        return self._forgotten + len(self._journal)

    def changed_since(self, version: int) -> set[str] | None:
        """The paths put or dropped since `version` (None: too long ago to know).

        >>> table = FileTable()
        >>> start = table.version
        >>> _ = table.put(FileResult.of("a.md", (1, 1))); _ = table.drop("b.md")
        >>> sorted(table.changed_since(start) or ()), table.changed_since(table.version)
        (['a.md', 'b.md'], set())
        """
        start = version - self._forgotten
        if start < 0 or version > self.version:
            return None
        return set(self._journal[start:])

    def _note(self, path: str) -> None:
        self._journal.append(path)
        if len(self._journal) > _JOURNAL_MAX:
            half = len(self._journal) // 2
            del self._journal[:half]
            self._forgotten += half

    def result(self, path: str) -> FileResult | None:
        """What the file at `path` holds (None: no such file)."""
        return self.files.get(path)

    def paths_of(self, task_id: str) -> tuple[str, ...]:
        """The sorted paths that claim `task_id` (the first one wins)."""
        paths = self._paths_by_id.get(task_id, ())
        return (paths,) if isinstance(paths, str) else tuple(paths)

    def winner(self, task_id: str) -> Task | None:
        path = self.path_of(task_id)
        return None if path is None else self._task_at(path)

    def path_of(self, task_id: str) -> str | None:
        paths = self._paths_by_id.get(task_id)
        return paths if paths is None or isinstance(paths, str) else paths[0]

    def put(self, result: FileResult) -> Delta:
        """Record a (re-)read file; the delta says which winning tasks changed."""
        delta = self.drop(result.path)
        self.files[result.path] = result
        if result.task is None:
            return delta
        task_id = result.task.id
        paths = self._paths_by_id.get(task_id)
        if paths is None:
            self._paths_by_id[task_id] = result.path
        elif self._add_path(task_id, paths, result.path)[0] != result.path:
            return delta
        delta.removed = [i for i in delta.removed if i != task_id]
        delta.upserted.append(result.task)
        return delta

    def drop(self, path: str) -> Delta:
        """Forget a file (deleted, or about to be re-read)."""
        self._note(path)
        old = self.files.pop(path, None)
        if old is None or old.task is None:
            return Delta()
        task_id = old.task.id
        paths = self._paths_by_id[task_id]
        if isinstance(paths, str):
            del self._paths_by_id[task_id]
            return Delta(removed=[task_id])
        was_winner = paths[0] == path
        paths.remove(path)
        if len(paths) == 1:
            self._paths_by_id[task_id] = paths[0]
        if was_winner:
            return Delta(upserted=[self._task_at(paths[0])])
        return Delta()

    def _task_at(self, path: str) -> Task:
        task = self.files[path].task
        assert task is not None, path
        return task

    def tasks(self) -> list[Task]:
        """The winning task of every id."""
        return [
            self._task_at(paths if isinstance(paths, str) else paths[0])
            for paths in self._paths_by_id.values()
        ]

    def duplicates(self) -> dict[str, tuple[str, ...]]:
        """Ids claimed by more than one file, with every path (the first one wins)."""
        return {i: tuple(p) for i, p in sorted(self._paths_by_id.items()) if isinstance(p, list)}

    def problems(self) -> list[Problem]:
        """Every file problem and every duplicate id, sorted by path."""
        found = [result.problem for result in self.files.values() if result.problem]
        for task_id, paths in self.duplicates().items():
            message = f"id {task_id!r} also in {', '.join(paths[1:])}; using {paths[0]}"
            found.append(Problem(paths[0], "duplicate_id", message))
        return sorted(found, key=lambda problem: (problem.path, problem.kind))

    def not_tasks(self) -> list[str]:
        """Markdown files that are not tasks (no frontmatter, or no title)."""
        return sorted(p for p, r in self.files.items() if r.task is None and r.problem is None)
