"""Reading one task file safely, and checking the bytes of one about to be written.

A read is one open, one fstat and a read bounded by the size cap, of regular files only
(a pipe never blocks, a device is never read). A file caught mid-rewrite, that is, empty
or unparseable and modified in the last moments (an editor truncating and rewriting in
place), is read again for a short while: an empty one for up to half a second, a broken
one until it has stopped changing. A reader never answers from a half-written file.

Before a write, `checked_write` makes sure the new bytes are under the size cap and read
back as a task: a write that would make a task vanish is refused before its first byte.
"""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

from storage import codec
from storage.conflicts import has_conflict_markers
from storage.errors import (
    NotATask,
    NotUtf8,
    ParseError,
    TaskNotFound,
    TooLarge,
    WouldNotLoad,
)
from storage.files import Seen, read_bounded, read_regular
from storage.model import Task
from storage.table import FileResult, Problem, ProblemKind

__all__ = [
    "bytes_result",
    "changed_of",
    "checked_write",
    "dangling_result",
    "parse_result",
    "problem_result",
    "read_for_update",
    "read_ignore_file",
    "read_task_file",
    "written_result",
]

_SETTLE_TRIES = 100  # reads of an empty file caught mid-rewrite, at most (0.5 s in all)
_SETTLE_PAUSE = 0.005
_STILL_READS = 3  # reads of an unparseable one, once it has stopped changing
_FRESH_NS = 2_000_000_000  # "mid-rewrite" means modified in the last 2 s
CONFLICTED = "unresolved merge conflict (git's <<<<<<< ======= >>>>>>> markers): "
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def read_task_file(relative: str, path: str, limit: int) -> FileResult | None:
    """The file's result (None when it no longer exists); a file caught mid-rewrite is
    read again until it parses or stops changing."""
    result = _read_once(relative, path, limit)
    still_reads = 0
    for _ in range(_SETTLE_TRIES):
        if result is None or not _looks_torn(result):
            break
        if result.stamp[1] and still_reads >= _STILL_READS:
            break  # not empty, and no longer changing: broken, not mid-rewrite
        time.sleep(_SETTLE_PAUSE)
        again = _read_once(relative, path, limit)
        still_reads = still_reads + 1 if again is not None and again.stamp == result.stamp else 0
        result = again
    return result


def _read_once(relative: str, path: str, limit: int) -> FileResult | None:
    """One open, one fstat, one read: the stamp and the bytes come from the same open
    file (half the time of `stat` then `open().read()`). A read that raced a writer (the
    bytes are not the size the fstat gave, or a second fstat disagrees: an editor
    truncating and rewriting in place) is read again, so that a task is never dropped
    for an empty read, nor its body cut short."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a pipe must not hang the load
    except FileNotFoundError:
        return None
    except OSError as exc:
        return problem_result(relative, (0, 0), "unreadable", f"cannot open: {exc.strerror}")
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return problem_result(relative, _stamp(st), "unreadable", "not a regular file")
        st, data = _read_whole(fd, st, limit)
    finally:
        os.close(fd)
    return bytes_result(relative, data, _stamp(st), limit, size=st.st_size, changed=changed_of(st))


def bytes_result(
    relative: str,
    data: bytes,
    stamp: tuple[int, int],
    limit: int,
    *,
    size: int = 0,
    changed: tuple[int, int] = (0, 0),
) -> FileResult:
    """A file's bytes as a result, over `limit` bytes a problem (`size`: what a stat said;
    `changed`: its inode change time and inode; an editor's unsaved buffer is read through
    here too)."""
    if size > limit or len(data) > limit:
        message = f"file is {max(size, len(data))} bytes, over the {limit}-byte limit"
        return problem_result(relative, stamp, "too_large", message, changed)
    return parse_result(relative, data, stamp, changed)


def dangling_result(root: Path, relative: str) -> FileResult | None:
    """A link to nothing (`x.md -> gone.md`) as a problem; None for a file that is gone."""
    try:
        target = os.readlink(root / relative)
    except OSError:
        return None
    shown = os.fsencode(target).decode("utf-8", "backslashreplace")
    return problem_result(relative, (0, 0), "unreadable", f"a link to {shown}, which is not there")


def changed_of(st: os.stat_result) -> tuple[int, int]:
    """The part of a file's identity a restored modification time does not restore."""
    return st.st_ctime_ns, st.st_ino


def _read_whole(fd: int, st: os.stat_result, limit: int) -> tuple[os.stat_result, bytes]:
    """The bytes of `fd` read while no writer was at it (at most `_SETTLE_TRIES` tries,
    then the last read), with the fstat they match.

    A write in progress shows as a size that moves, or as bytes that are not that size.
    It can also hold still for a moment: the kernel publishes a write page by page, so a
    fresh file whose size is a whole number of pages may be the first pages of a longer
    write. That one is accepted only if it is the same after a pause."""
    data = b""
    for attempt in range(_SETTLE_TRIES):
        if attempt:
            time.sleep(_SETTLE_PAUSE)
            st = os.fstat(fd)
        if st.st_size > limit:
            return st, b""
        os.lseek(fd, 0, os.SEEK_SET)
        data = read_bounded(fd, st.st_size, limit)
        if not (_same(os.fstat(fd), st) and len(data) == st.st_size):
            continue
        if not (st.st_size % _PAGE == 0 and _is_fresh(_stamp(st))):
            return st, data
        time.sleep(_SETTLE_PAUSE)
        if _same(os.fstat(fd), st):
            return st, data
    return st, data


def _stamp(st: os.stat_result) -> tuple[int, int]:
    return st.st_mtime_ns, st.st_size


def _same(first: os.stat_result, second: os.stat_result) -> bool:
    return _stamp(first) == _stamp(second)


def read_for_update(
    relative: str, path: Path, fd: int | None, limit: int
) -> tuple[Seen, str, Task]:
    """The locked file `fd` as it is now, its text and the task it holds (one read, one
    parse); a file mid-rewrite by an editor is read again, as `read_task_file` does. An
    empty one is read again even when its modification time is old: a truncate shows the
    new size a moment before the new time (seen on ext4), and a file a write names is
    rarely empty for good."""
    if fd is None:
        raise TaskNotFound(relative)
    for attempt in range(_SETTLE_TRIES + 1):
        seen = _read_seen_whole(relative, fd, limit)
        try:
            task = codec.from_bytes(seen.data, relative)
            return seen, seen.data.decode("utf-8"), task
        except ParseError:
            patience = _STILL_READS if seen.data or not _is_fresh(seen.stamp) else _SETTLE_TRIES
            if attempt >= patience or (seen.data and not _is_fresh(seen.stamp)):
                raise
        time.sleep(_SETTLE_PAUSE)
    raise AssertionError("unreachable")  # pragma: no cover


def _read_seen_whole(relative: str, fd: int, limit: int) -> Seen:
    """What the open file holds, read while no writer was at it: bytes that match their
    fstat (an editor's truncate between the two is not taken for an empty file)."""
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        raise ParseError(relative, "not a regular file")
    st, data = _read_whole(fd, st, limit)
    if st.st_size > limit:
        raise TooLarge(relative, st.st_size, limit)
    return Seen(st.st_ino, _stamp(st), stat.S_IMODE(st.st_mode), data)


def checked_write(
    relative: str, limit: int, text: str, *, task_id: str | None = None
) -> tuple[bytes, Task]:
    """The bytes of a file about to be written and the task they read back as, once they
    are known to read back as a task (with `task_id`, when given): TooLarge over the size
    cap, WouldNotLoad if they would not read as that task. The one parse of a write."""
    data = text.encode()
    if len(data) > limit:
        raise TooLarge(relative, len(data), limit)
    result = parse_result(relative, data, (0, len(data)))
    if result.task is None:
        detail = result.problem.message if result.problem else "it would have no title"
        raise WouldNotLoad(relative, detail)
    if task_id is not None and result.task.id != task_id:
        raise WouldNotLoad(relative, f"it would read back with id {result.task.id!r}")
    return data, result.task


def written_result(relative: str, task: Task, written: os.stat_result) -> FileResult:
    """The result of a file this process just wrote: the task its checked bytes read back
    as, with the stat of the written file (no second read of the file)."""
    return FileResult.of(relative, _stamp(written), task=task, changed=changed_of(written))


def problem_result(
    relative: str,
    stamp: tuple[int, int],
    kind: ProblemKind,
    message: str,
    changed: tuple[int, int] = (0, 0),
) -> FileResult:
    problem = Problem(relative, kind, message)
    return FileResult.of(relative, stamp, problem=problem, changed=changed)


def parse_result(
    relative: str, data: bytes, stamp: tuple[int, int], changed: tuple[int, int] = (0, 0)
) -> FileResult:
    """A file's bytes as a result: a task, a problem, or neither (not a task)."""
    try:
        task = codec.from_bytes(data, relative)
    except NotATask:
        return FileResult.of(relative, stamp, changed=changed)
    except NotUtf8 as exc:
        return problem_result(relative, stamp, "not_utf8", exc.detail, changed)
    except ParseError as exc:
        conflicted = has_conflict_markers(data)
        kind: ProblemKind = "merge_conflict" if conflicted else "parse_error"
        detail = CONFLICTED + exc.detail if conflicted else exc.detail
        return problem_result(relative, stamp, kind, detail, changed)
    return FileResult.of(relative, stamp, task=task, changed=changed)


def _is_fresh(stamp: tuple[int, int]) -> bool:
    """True for a file modified in the last moments: maybe mid-rewrite by an editor."""
    return abs(time.time_ns() - stamp[0]) < _FRESH_NS


def _looks_torn(result: FileResult) -> bool:
    """Empty or unparseable, and modified in the last moments."""
    problem = result.problem
    torn = result.stamp[1] == 0 or (
        problem is not None and problem.kind in ("parse_error", "not_utf8")
    )
    return torn and _is_fresh(result.stamp)


def read_ignore_file(path: Path, limit: int) -> tuple[tuple[str, ...], FileResult | None]:
    """The patterns of an ignore file (one glob a line, `#` comments), or none and the
    problem with it (a link, a pipe, a device, over the size cap, not UTF-8): never a
    hang, never an unbounded read."""
    data = read_regular(path, limit)
    if data == "missing":
        return (), None
    try:
        if isinstance(data, str):
            raise ValueError(data)
        lines = data.decode("utf-8").splitlines()
    except ValueError as exc:  # UnicodeDecodeError too
        kind: ProblemKind = "too_large" if "limit" in str(exc) else "unreadable"
        message = f"{path.name} not used ({exc}): no paths are ignored"
        return (), problem_result(path.name, (0, 0), kind, message)
    patterns = (line.strip() for line in lines)
    return tuple(p for p in patterns if p and not p.startswith("#")), None
