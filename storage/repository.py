"""The task repository: a folder (the root) of task files, read and written safely.

Reading: every `*.md` below the root, except in hidden folders and paths matched by the
root's `.tasksignore` (one glob a line; `dir/` matches a folder; `scope.py`), walked once
and read only where a known result is stale (`walk.py`; a big warm start's walk runs in a
forked child while the cache is decoded: `walking_ahead`, `forked_walk.py`). One bad file
never stops a load: it becomes a `Problem` beside the tasks.

Writing: new tasks go to `<root>/<project>/tasks/<id>-<slug>.md` (or `<root>/inbox/`,
`naming.py`); an existing task is updated in place, changing only the lines of the keys
that change; a delete moves the file to `<root>/.trash/` (`trash.py`). Every write is
atomic, durable and locked (`files.py`), checked before its first byte
(`reading.checked_write`), and a batch of files is all or
nothing even across a crash (`journal.py`). Opening a repository finishes the batches of
writers that died and sweeps their temporary files (`temps.py`); the server's own folders
(`.trash`, `.tasks-index`) are never followed through a link out of the root.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from pathlib import Path

from storage import codec
from storage.bulk import gc_paused
from storage.errors import (
    AlreadyExists,
    Conflict,
    PathOutsideRoot,
    TaskNotFound,
)
from storage.files import (
    Changed,
    Seen,
    atomic_create,
    flocked,
    inside_root,
    is_server_folder_safe,
    locked,
    replace_checked,
    stamp_of,
)
from storage.forked_walk import survey_ahead, walk_ahead
from storage.forking import Child
from storage.journal import INDEX_FOLDER, Journal, JournalWrite, is_journal_temp
from storage.model import Task
from storage.naming import FILE_STEM_CHARS, new_id, new_task_path, slugify
from storage.reading import (
    checked_write,
    dangling_result,
    problem_result,
    read_for_update,
    read_task_file,
    written_result,
)
from storage.scope import TaskScope
from storage.table import FileResult, FileTable
from storage.temps import sweep_one, sweep_temps
from storage.timestamps import check_expected, mtime_of
from storage.trash import TRASH, move_to_trash
from storage.walk import Listed, Skipped, Survey, TreeRead, read_stale, survey_of, walk

__all__ = [
    "FILE_STEM_CHARS",
    "MAX_FILE_BYTES",
    "Decide",
    "Survey",
    "TaskRepository",
    "TreeRead",
    "mtime_of",
    "slugify",
]

MAX_FILE_BYTES = 1024 * 1024
WRITE_LOCK = "write.lock"
WORKFLOW = ".workflow"
SETTLE_SECONDS = 10.0
"""How long a reader waits for a live writer's batch before serving the tree as it is."""

Decide = Callable[[Task], tuple[Mapping[str, object], str | None]]
"""What `update_with` asks of the task it read: frontmatter changes, and the new body (None:
the body stays)."""


class TaskRepository:
    """Task files under one root."""

    def __init__(
        self, root: Path, *, exclude: Sequence[str] = (), max_bytes: int = MAX_FILE_BYTES
    ) -> None:
        self.root = root.resolve()
        self.max_bytes = max_bytes
        self.scope = TaskScope(self.root, exclude, max_bytes)
        self._root_str = str(self.root)
        self.journal = Journal(self.root)
        self.guard: Callable[[str, bytes | None], None] | None = None
        """Asked before a file is created (None), changed or moved away (the bytes read),
        with its path; may refuse (a syncing server refuses uncommitted changes)."""
        if self.root.is_dir():
            self.recover()
            self.sweep()

    # --- reading ---------------------------------------------------------------------

    def is_task_path(self, relative: str) -> bool:
        """True for a path the scan would read: `*.md`, not hidden, not ignored (`scope.py`)."""
        return self.scope.is_task_path(relative)

    def walks_into(self, folder: str) -> bool:
        """True for a folder (relative path) whose files the scan reads (`scope.py`)."""
        return self.scope.walks_into(folder)

    def reload_ignore(self) -> bool:
        """Read `.tasksignore` again if it changed since it was read (one stat); True when
        it did: which paths are tasks may have changed (`LiveTree` walks the tree then)."""
        return self.scope.reload()

    def iter_paths(self) -> Iterator[str]:
        """Relative POSIX paths of every task file candidate, in no particular order."""
        for relative, entry in self._walk():
            if not isinstance(entry, Skipped):
                yield relative

    def _walk(self) -> Iterator[Listed]:
        return walk(self._root_str, self.scope.ignored, self._sweep_stray)

    def read(self, relative: str) -> FileResult | None:
        """Read one file; None when it no longer exists."""
        try:
            path = inside_root(self.root, relative)
        except PathOutsideRoot:
            return problem_result(relative, (0, 0), "unsafe_path", "symlink leaves the root")
        except (OSError, RuntimeError) as exc:  # a symlink loop, a folder we may not enter
            return problem_result(relative, (0, 0), "unreadable", f"cannot resolve the path: {exc}")
        result = read_task_file(relative, str(path), self.max_bytes)
        return result if result is not None else dangling_result(self.root, relative)

    def walking_ahead(self, cache_bytes: int) -> contextlib.AbstractContextManager[Child | None]:
        """A child walking the tree while the block decodes a cache of `cache_bytes`, for
        `read_tree`; None where that would not pay (`forked_walk.walk_ahead`)."""
        return walk_ahead(self._root_str, self.scope.ignored, cache_bytes)

    def survey(self, known: Mapping[str, FileResult], ahead: Child | None = None) -> Survey:
        """Walk the tree and stat each file against `known` results (from the cache, or the
        table): which are still current and which must be read (`walk.survey_of`); from
        the walk of the child `ahead` when it has one (`forked_walk`), the same survey."""
        first = [self.scope.ignore_problem] if self.scope.ignore_problem else []
        first += self.conflict_notes()
        forked = survey_ahead(ahead, known, first, self._sweep_stray) if ahead else None
        return forked if forked is not None else survey_of(self._walk(), known, first)

    def read_stale(self, survey: Survey) -> list[FileResult]:
        """Every file of a survey, in walk order: read when stale, as known when current."""
        return read_stale(survey, self.read, self._root_str, self.max_bytes)

    def read_tree(
        self, cached: Mapping[str, FileResult] | None = None, ahead: Child | None = None
    ) -> TreeRead:
        """Read the whole tree: one walk (the child's `ahead`, when there is one: then
        `walk_seconds` is what was left of it, waited for, and the compare), then every
        file the walk could not take from `cached` (from `storage.cache.load`: a file whose
        stamp is unchanged is not re-read). The one way storage reads a tree; the cyclic
        GC is paused for it."""
        with gc_paused():
            started = time.perf_counter()
            survey = self.survey(cached or {}, ahead)
            walked = time.perf_counter()
            results = self.read_stale(survey)
            table = FileTable.of(results)
            return TreeRead(survey, results, table, walked - started, time.perf_counter() - walked)

    def scan(self, cached: Mapping[str, FileResult] | None = None) -> FileTable:
        """The whole tree's file table (`read_tree`'s)."""
        return self.read_tree(cached).table

    # --- writing ---------------------------------------------------------------------

    new_id = staticmethod(new_id)

    def path_for_new(self, task: Task) -> str:
        """Where a new task's file goes, under the root (`naming.new_task_path`)."""
        return new_task_path(task)

    def create(self, task: Task) -> FileResult:
        """Write a new task file (never over an existing one)."""
        self.recover()
        relative, data, written = self._new_file(task)
        if self.guard is not None:
            self.guard(relative, None)
        return self._create_one(JournalWrite(relative, data), written)

    def _new_file(self, task: Task) -> tuple[str, bytes, Task]:
        """Where a new task goes, its checked bytes and the task they read back as."""
        relative = self.path_for_new(task)
        text = codec.text_of(replace(task, path=relative))  # serialised once, parsed once:
        return relative, *checked_write(relative, self.max_bytes, text, task_id=task.id)

    def _create_one(self, write: JournalWrite, task: Task) -> FileResult:
        """One new file, in one atomic link: its bytes and its folder fsynced, no more."""
        stat = atomic_create(inside_root(self.root, write.relative), write.data)
        return written_result(write.relative, task, stat)

    def _replace_one(self, write: JournalWrite, task: Task) -> FileResult:
        """One changed file (locked and read as `write.seen` by the caller), swapped in
        with the guarded exchange; Conflict when it changed since it was read."""
        assert write.seen is not None  # an update's
        path = inside_root(self.root, write.relative)
        try:
            stat = replace_checked(path, write.data, write.seen)
        except Changed as exc:
            raise _conflict(write.relative, write.seen, path) from exc
        return written_result(write.relative, task, stat)

    def update(
        self,
        relative: str,
        changes: Mapping[str, object],
        *,
        expected_modified: datetime | None = None,
        body: str | None = None,
    ) -> FileResult:
        """Change frontmatter keys (and the body, when given) of one file in place, locked.

        `expected_modified` is the file's modification time as the caller last read it, or
        the task's frontmatter `modified` as it read it: when neither is that any more,
        nothing is written and Conflict is raised
        (our writes stamp times to the microsecond, always forward, so two writes in one
        clock tick still differ). Conflict too when the file changes between our read and
        our rename (an editor's save, which takes no lock): the save is kept, never lost.
        """
        self.recover()
        path = self._existing(relative)
        with locked(path) as fd:
            seen, text, task = read_for_update(relative, path, fd, self.max_bytes)
            if expected_modified is not None:
                check_expected(relative, seen.stamp, expected_modified, task.modified)
            return self._rewrite(relative, seen, text, changes, body)

    def update_with(self, relative: str, decide: Decide) -> FileResult:
        """Change one file by what it holds: read once under its lock, `decide` is given
        the task read and says what to change (frontmatter changes, and the new body or
        None), and that is written as `update` writes. A change between the read and the
        swap (an editor's save, which takes no lock) is Conflict, and the save is kept."""
        self.recover()
        path = self._existing(relative)
        with locked(path) as fd:
            seen, text, task = read_for_update(relative, path, fd, self.max_bytes)
            changes, body = decide(task)
            return self._rewrite(relative, seen, text, changes, body)

    def _rewrite(
        self, relative: str, seen: Seen, text: str, changes: Mapping[str, object], body: str | None
    ) -> FileResult:
        """Write `changes` (and `body`) into a locked file read as `seen` holding `text`."""
        self._guarded(relative, text)
        data, written = checked_write(
            relative, self.max_bytes, codec.update_text(text, changes, relative, body=body)
        )
        return self._replace_one(JournalWrite(relative, data, seen), written)

    def _guarded(self, relative: str, text: str) -> None:
        if self.guard is not None:
            self.guard(relative, text.encode("utf-8", "surrogateescape"))

    def _existing(self, relative: str) -> Path:
        path = inside_root(self.root, relative)
        if not os.path.lexists(path):
            raise TaskNotFound(relative)
        return path

    def delete(self, relative: str, *, expected_modified: datetime | None = None) -> str:
        """Move a task file into `<root>/.trash/` (kept, never lost); returns where it went.
        Durable as a one-file write is; with `expected_modified`, guarded as `update` is
        (`trash.py`)."""
        self.recover()
        if self.guard is not None:
            self.guard(relative, self._existing(relative).read_bytes())
        return move_to_trash(self.root, relative, self._existing(relative), expected_modified)

    def write_batch(
        self, creates: Sequence[Task], updates: Sequence[tuple[str, Mapping[str, object]]] = ()
    ) -> list[FileResult]:
        """Create and update many files, all or nothing, even across a crash (`journal.py`).

        Every new text is prepared and checked (ids, size cap, that it reads back) and every
        file to update is locked and read before the first file is touched; a file that
        changes under us before the commit point is a Conflict, and nothing is written.
        An update that leaves a file's bytes as they are is not written. When one file is
        left to write, it is written alone, as `create` or `update` write one (no journal:
        one atomic rename is already all or nothing).
        """
        self.recover()
        planned = [self._new_write(task) for task in creates]
        targets = sorted({relative for relative, _ in updates})
        with contextlib.ExitStack() as stack:
            seen: dict[str, tuple[Seen, str]] = {}
            for relative in targets:
                path = self._existing(relative)
                fd = stack.enter_context(locked(path))
                seen[relative] = read_for_update(relative, path, fd, self.max_bytes)[:2]
                self._guarded(relative, seen[relative][1])
            planned += self._updated(updates, seen)
            if len(planned) <= 1:
                return [self._write_one(*write) for write in planned]
            writes = [write for write, _ in planned]
            try:
                self.journal.commit(writes)
            except Changed as exc:
                relative = str(exc)
                if relative not in seen:  # a new file's path, taken meanwhile
                    raise AlreadyExists(relative) from exc
                raise _conflict(relative, seen[relative][0], self.root / relative) from exc
        return [self._reread(write.relative) for write in writes]

    def _write_one(self, write: JournalWrite, task: Task) -> FileResult:
        if write.seen is None:
            try:
                return self._create_one(write, task)
            except AlreadyExists as exc:  # the path, taken since it was checked
                raise AlreadyExists(write.relative) from exc
        return self._replace_one(write, task)

    def _new_write(self, task: Task) -> tuple[JournalWrite, Task]:
        relative, data, written = self._new_file(task)
        if os.path.lexists(inside_root(self.root, relative)):
            raise AlreadyExists(relative)
        if self.guard is not None:
            self.guard(relative, None)
        return JournalWrite(relative, data), written

    def _updated(
        self,
        updates: Sequence[tuple[str, Mapping[str, object]]],
        seen: Mapping[str, tuple[Seen, str]],
    ) -> list[tuple[JournalWrite, Task]]:
        """The new text of every updated file (a file named twice gets both changes), and
        the task it reads back as; a file whose text does not change is left out."""
        texts = {relative: text for relative, (_, text) in seen.items()}
        for relative, changes in updates:
            texts[relative] = codec.update_text(texts[relative], changes, relative)
        planned = []
        for relative, text in texts.items():
            if text == seen[relative][1]:
                continue
            data, written = checked_write(relative, self.max_bytes, text)
            planned.append((JournalWrite(relative, data, seen[relative][0]), written))
        return planned

    @contextlib.contextmanager
    def write_lock(self) -> Iterator[None]:
        """Hold the tree-wide write lock while the block runs: one writer at a time across
        every process serving this root, so a check made under it (an id is free, no
        cycle, the parent exists) still holds when the write lands. Readers never take it.
        `flock` on `.tasks-index/write.lock`: the kernel drops it when a holder dies. A
        tree where the lock cannot be made (read-only) is written without it (and the
        write itself fails there)."""
        with flocked(self.root, INDEX_FOLDER, WRITE_LOCK):
            yield

    # --- recovery --------------------------------------------------------------------

    def recover(self) -> int:
        """Finish (or drop) the batches of writers that died (`journal.py`); returns how
        many were found. Cheap when there are none: one folder listing."""
        return self.journal.recover()

    def settle(self, wait: float = SETTLE_SECONDS) -> int:
        """Wait for (or finish) every batch being applied now, so a read that follows sees
        each batch whole or not at all; returns how many batches there were."""
        return self.journal.recover(wait=wait)

    def conflict_notes(self) -> list[FileResult]:
        """The batches a replay rolled back, as load problems (`journal.py`)."""
        return [
            problem_result(relative, (0, 0), "write_conflict", message)
            for relative, message in self.journal.conflicts()
        ]

    def sweep(self) -> int:
        """Remove the temporary files dead writers left in the server's own folders (those
        in task folders go when a walk passes them); returns how many."""
        removed = 0
        for name in (INDEX_FOLDER, f"{INDEX_FOLDER}/journal", TRASH):
            if is_server_folder_safe(self.root, name.split("/")[0]):
                removed += sweep_temps(self.root / name)
        if is_server_folder_safe(self.root, WORKFLOW) and (self.root / WORKFLOW).is_dir():
            for folder in (self.root / WORKFLOW).iterdir():
                if folder.is_dir() and not folder.is_symlink():
                    removed += sweep_temps(folder)
        return removed

    def _sweep_stray(self, relative: str, name: str) -> None:
        """A temp file met by a walk: removed if its writer is dead (a journal's temp file
        only once its batch is over, replayed or dropped)."""
        txid = is_journal_temp(name)
        if txid is None:
            sweep_one(self.root / relative)
        elif not self.journal.is_pending(txid):
            with contextlib.suppress(OSError):  # gone, or a read-only tree
                os.unlink(self.root / relative)

    def _reread(self, relative: str) -> FileResult:
        result = self.read(relative)
        if result is None:
            raise TaskNotFound(relative)
        return result


def _conflict(relative: str, seen: Seen, path: Path) -> Conflict:
    now = stamp_of(path)
    actual = mtime_of(now).isoformat() if now is not None else "deleted"
    return Conflict(relative, mtime_of(seen.stamp).isoformat(), actual)
