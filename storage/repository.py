"""The task repository: a folder (the root) of task files, read and written safely.

Reading: every `*.md` below the root, except in hidden folders and paths matched by the
root's `.tasksignore` (one glob a line; `dir/` matches a folder). One bad file never stops a
load: it becomes a `Problem` beside the tasks.

Writing: new tasks go to `<root>/<project>/tasks/<id>-<slug>.md` (or `<root>/inbox/`); an
existing task is updated in place, changing only the lines of the keys that change; a
delete moves the file to `<root>/.trash/`. Every write is atomic and locked (`files.py`).
"""

from __future__ import annotations

import fnmatch
import gc
import os
import re
import secrets
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from stat import S_ISREG

from storage import codec
from storage.errors import (
    AlreadyExists,
    Conflict,
    InvalidId,
    NotATask,
    ParseError,
    PathOutsideRoot,
    StorageError,
    TaskNotFound,
)
from storage.files import atomic_create, atomic_write, inside_root, locked
from storage.model import Task, is_valid_id
from storage.table import FileResult, FileTable, Problem, ProblemKind

__all__ = ["MAX_FILE_BYTES", "Survey", "TaskRepository", "mtime_of", "slugify"]

MAX_FILE_BYTES = 1024 * 1024
IGNORE_FILE = ".tasksignore"
TRASH = ".trash"
_SLUG_DROP = re.compile(r"[^a-z0-9]+")


@dataclass(frozen=True, slots=True)
class Survey:
    """One walk of the tree against known results: every task file in walk order, as its
    known result when its stamp still matches, else as its path (to be read)."""

    found: list[FileResult | str]
    stale: list[str]  # the paths in `found`
    links: frozenset[str] = frozenset()  # symlinked files: always read, never trusted

    @property
    def current(self) -> int:
        """How many known results are still current."""
        return len(self.found) - len(self.stale)


def slugify(title: str, limit: int = 48) -> str:
    """`Fix the parser!` → `fix-the-parser`: a file-name-safe slug of a title."""
    slug = _SLUG_DROP.sub("-", title.lower()).strip("-")
    return slug[:limit].rstrip("-") or "task"


def mtime_of(stamp: tuple[int, int]) -> datetime:
    """A file's modification time (from its stamp) as an aware UTC datetime, to the µs."""
    return datetime.fromtimestamp(stamp[0] // 1000 / 1_000_000, UTC)


class TaskRepository:
    """Task files under one root."""

    def __init__(
        self, root: Path, *, exclude: Sequence[str] = (), max_bytes: int = MAX_FILE_BYTES
    ) -> None:
        self.root = root.resolve()
        self.max_bytes = max_bytes
        self.exclude = tuple(exclude) + _read_ignore_file(self.root / IGNORE_FILE)
        self._root_str = str(self.root)

    # --- reading ---------------------------------------------------------------------

    def is_task_path(self, relative: str) -> bool:
        """True for a path the scan would read: `*.md`, not hidden, not ignored."""
        parts = relative.split("/")
        return (
            relative.endswith(".md")
            and not any(part.startswith(".") for part in parts)
            and not self._ignored(relative)
        )

    def _ignored(self, relative: str) -> bool:
        for pattern in self.exclude:
            if pattern.endswith("/"):
                if relative.startswith(pattern) or fnmatch.fnmatch(relative, pattern + "*"):
                    return True
            elif fnmatch.fnmatch(relative, pattern) or fnmatch.fnmatch(
                relative.rsplit("/", 1)[-1], pattern
            ):
                return True
        return False

    def iter_paths(self) -> Iterator[str]:
        """Relative POSIX paths of every task file candidate, in no particular order."""
        for relative, _ in self._walk():
            yield relative

    def _walk(self) -> Iterator[tuple[str, os.DirEntry[str]]]:
        """(relative path, directory entry) of each candidate; folder links are not followed.
        Folders are listed through a descriptor, so an entry's `stat()` looks up one name,
        not the whole path again (7% off a warm start's walk)."""
        stack = [""]
        while stack:
            prefix = stack.pop()
            folder = os.open(self._root_str + "/" + prefix, os.O_RDONLY | os.O_DIRECTORY)
            try:
                yield from self._listed(prefix, folder, stack)
            finally:
                os.close(folder)

    def _listed(
        self, prefix: str, folder: int, stack: list[str]
    ) -> Iterator[tuple[str, os.DirEntry[str]]]:
        """The candidates in one folder; its subfolders go on `stack`."""
        with os.scandir(folder) as entries:
            for entry in entries:
                name = entry.name
                if name.startswith("."):
                    continue
                relative = prefix + name
                if entry.is_dir(follow_symlinks=False):
                    if not self._ignored(relative + "/"):
                        stack.append(relative + "/")
                elif name.endswith(".md") and not self._ignored(relative):
                    yield relative, entry

    def read(self, relative: str) -> FileResult | None:
        """Read one file; None when it no longer exists."""
        try:
            path = inside_root(self.root, relative)
        except PathOutsideRoot:
            return _problem(relative, (0, 0), "unsafe_path", "symlink leaves the root")
        except (OSError, RuntimeError) as exc:  # a symlink loop, a folder we may not enter
            return _problem(relative, (0, 0), "unreadable", f"cannot resolve the path: {exc}")
        return self._read_file(relative, str(path))

    def _read_file(self, relative: str, path: str) -> FileResult | None:
        """One open, one fstat, one read: the stamp and the bytes come from the same open
        file (half the time of `stat` then `open().read()`)."""
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a pipe must not hang the load
        except FileNotFoundError:
            return None
        except OSError as exc:
            return _problem(relative, (0, 0), "unreadable", f"cannot open: {exc.strerror}")
        try:
            stat = os.fstat(fd)
            stamp = (stat.st_mtime_ns, stat.st_size)
            if not S_ISREG(stat.st_mode):
                return _problem(relative, stamp, "unreadable", "not a regular file")
            if stat.st_size > self.max_bytes:
                message = f"file is {stat.st_size} bytes, over the {self.max_bytes}-byte limit"
                return _problem(relative, stamp, "too_large", message)
            data = _read_all(fd, stat.st_size)
        finally:
            os.close(fd)
        return _parse(relative, data, stamp)

    def survey(self, known: Mapping[str, FileResult]) -> Survey:
        """Walk the tree and stat each file against `known` results (from the cache, or the
        table): which are still current and which must be read. No file is opened."""
        found: list[FileResult | str] = []
        stale: list[str] = []
        links: set[str] = set()
        for relative, entry in self._walk():
            result = known.get(relative)
            if entry.is_symlink():
                links.add(relative)
            elif result is not None and result.stamp == _stamp_of_entry(entry):
                found.append(result)
                continue
            found.append(relative)
            stale.append(relative)
        return Survey(found, stale, frozenset(links))

    def read_stale(self, survey: Survey) -> list[FileResult]:
        """Every file of a survey, in walk order: read when stale, as known when current."""
        results: list[FileResult] = []
        for item in survey.found:
            if isinstance(item, str):
                read = (
                    self.read(item)
                    if item in survey.links
                    else self._read_file(item, self._root_str + "/" + item)
                )
                if read is not None:  # gone since the walk
                    results.append(read)
            else:
                results.append(item)
        return results

    def scan(self, cached: Mapping[str, FileResult] | None = None) -> FileTable:
        """Read the whole tree. With `cached` (from `storage.cache.load`), a file whose
        stamp (mtime, size) is unchanged is taken from the cache instead of re-read.
        The cyclic GC is paused: bulk loads make no cycles."""
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            return FileTable.of(self.read_stale(self.survey(cached or {})))
        finally:
            if was_enabled:
                gc.enable()

    # --- writing ---------------------------------------------------------------------

    @staticmethod
    def new_id(project: str | None, exists: Callable[[str], bool]) -> str:
        """A fresh `<project or "task">-<8 hex>` id for which `exists` is false."""
        prefix = project if project and is_valid_id(project) else "task"
        while True:
            candidate = f"{prefix}-{secrets.token_hex(4)}"
            if not exists(candidate):
                return candidate

    def path_for_new(self, task: Task) -> str:
        if not is_valid_id(task.id):
            raise InvalidId(task.id)
        if task.project is not None and not is_valid_id(task.project):
            raise InvalidId(task.project)
        folder = f"{task.project}/tasks" if task.project else "inbox"
        return f"{folder}/{task.id}-{slugify(task.title)}.md"

    def create(self, task: Task) -> FileResult:
        """Write a new task file (never over an existing one)."""
        relative = self.path_for_new(task)
        path = inside_root(self.root, relative)
        atomic_create(path, self._fits(relative, codec.dumps(replace(task, path=relative))))
        return self._reread(relative)

    def update(
        self,
        relative: str,
        changes: Mapping[str, object],
        *,
        expected_modified: datetime | None = None,
        body: str | None = None,
    ) -> FileResult:
        """Change frontmatter keys (and the body, when given) of one file in place, locked.

        `expected_modified` is the file's modification time as the caller last read it:
        when the file changed after that, nothing is written and Conflict is raised.
        """
        path = inside_root(self.root, relative)
        with locked(path):
            text = self._current_text(relative, path, expected_modified)
            new = codec.update_text(text, changes, relative, body=body)
            atomic_write(path, self._fits(relative, new))
        return self._reread(relative)

    def _fits(self, relative: str, text: str) -> bytes:
        """`text` encoded, refused before any byte is written when the file would be over the
        size limit (it would be written, then read back as too large and vanish)."""
        data = text.encode()
        if len(data) > self.max_bytes:
            limit = f"over the {self.max_bytes}-byte limit"
            raise StorageError(f"{relative}: the new text is {len(data)} bytes, {limit}")
        return data

    def _current_text(self, relative: str, path: Path, expected: datetime | None) -> str:
        try:
            stat = path.stat()
            data = path.read_bytes()
        except FileNotFoundError as exc:
            raise TaskNotFound(relative) from exc
        actual = mtime_of((stat.st_mtime_ns, stat.st_size))
        if expected is not None and actual > expected:
            raise Conflict(relative, expected.isoformat(), actual.isoformat())
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ParseError(relative, "not UTF-8 text") from exc

    def delete(self, relative: str) -> str:
        """Move a task file into `<root>/.trash/` (kept, never lost); returns where it went."""
        path = inside_root(self.root, relative)
        trash = f"{TRASH}/{relative}"
        target = self.root / trash
        if target.exists():
            stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%f")
            trash = f"{TRASH}/{relative[:-3]}.{stamp}.md"
            target = self.root / trash
        target.parent.mkdir(parents=True, exist_ok=True)
        with locked(path):
            if not path.exists():
                raise TaskNotFound(relative)
            os.replace(path, target)
        return trash

    def write_batch(
        self, creates: Sequence[Task], updates: Sequence[tuple[str, Mapping[str, object]]] = ()
    ) -> list[FileResult]:
        """Create and update many files, all or nothing.

        Every new text is prepared (and every target checked) before the first file is
        touched; if a write fails part way, the files already written are restored.
        """
        planned = [(self.path_for_new(task), task) for task in creates]
        texts: list[tuple[str, bytes, bytes | None]] = []
        for relative, task in planned:
            if inside_root(self.root, relative).exists():
                raise AlreadyExists(relative)
            texts.append((relative, codec.dumps(replace(task, path=relative)).encode(), None))
        for relative, changes in updates:
            path = inside_root(self.root, relative)
            old = self._current_text(relative, path, None)
            texts.append(
                (relative, codec.update_text(old, changes, relative).encode(), old.encode())
            )
        self._apply_all(texts)
        return [self._reread(relative) for relative, _, _ in texts]

    def _apply_all(self, texts: list[tuple[str, bytes, bytes | None]]) -> None:
        done: list[tuple[Path, bytes | None]] = []
        try:
            for relative, data, old in texts:
                path = self.root / relative
                (atomic_create if old is None else atomic_write)(path, data)
                done.append((path, old))
        except BaseException:
            for path, old in reversed(done):
                path.unlink(missing_ok=True) if old is None else atomic_write(path, old)
            raise

    def _reread(self, relative: str) -> FileResult:
        result = self.read(relative)
        if result is None:
            raise TaskNotFound(relative)
        return result


def _stamp_of_entry(entry: os.DirEntry[str]) -> tuple[int, int] | None:
    try:
        stat = entry.stat()
    except FileNotFoundError:
        return None  # deleted since the folder was listed: read (and find it gone)
    return stat.st_mtime_ns, stat.st_size


def _problem(relative: str, stamp: tuple[int, int], kind: ProblemKind, message: str) -> FileResult:
    return FileResult(relative, stamp, problem=Problem(relative, kind, message))


def _read_all(fd: int, size: int) -> bytes:
    """The whole file; one read when it still has the `size` its fstat gave."""
    data = os.read(fd, size + 1)
    if len(data) == size:
        return data
    chunks = [data]
    while chunks[-1]:  # it grew since, or the read came back short: read to the end
        chunks.append(os.read(fd, 1 << 16))
    return b"".join(chunks)


def _parse(relative: str, data: bytes, stamp: tuple[int, int]) -> FileResult:
    try:
        task = codec.from_bytes(data, relative)
    except NotATask:
        return FileResult(relative, stamp)
    except ParseError as exc:
        kind: ProblemKind = "not_utf8" if "UTF-8" in exc.detail else "parse_error"
        return _problem(relative, stamp, kind, exc.detail)
    return FileResult(relative, stamp, task=task)


def _read_ignore_file(path: Path) -> tuple[str, ...]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (FileNotFoundError, UnicodeDecodeError):
        return ()
    return tuple(
        line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")
    )
