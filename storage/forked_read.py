"""Reading many task files on two cores: a forked child parses half of them.

A cold start at 10k files spends most of its time parsing (about 70 µs a file), one file
after another on one core. Above `FORK_AT` files, where the machine has a second core and
the process has no other thread, `read_all` forks: the child reads and parses the later
half and sends its results back as warm-start cache lines (`storage.cache.frames`, the
compact form the cache already gives back exactly), while this process reads the first
half; then it decodes the child's lines (about a tenth of parsing them). The child writes
its lines to a file in memory (`os.memfd_create`; elsewhere an unlinked temporary file),
never blocking on its reader (through a pipe, 64 KB, it stopped at the first few rows until
this process had read its own half, then both took turns), a line of `CHILD_ROWS` rows at
a time; this process decodes each whole line as soon as its own half is read, while the
child finishes the last ones. Only when a
core is free now (`may_fork`): on a busy machine the child would only take turns.

The results are the same as one process reading every file: whatever the child does not
send (a result the cache cannot hold exactly, a file gone since the walk, or everything
when the child fails or the lines do not decode), this process reads itself. Without
`os.fork` (Windows), on one core, or with another thread running (a child of a threaded
process may inherit a lock some other thread held), it reads every file itself.
"""

from __future__ import annotations

import contextlib
import os
import signal
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from storage import cache
from storage.table import FileResult

__all__ = ["FORK_AT", "read_all", "read_forked"]

FORK_AT = 4_000
"""Files to read from which a second process pays for its fork and the lines' decoding."""

CHILD_ROWS = 256
"""Results a line of the child's: a quarter of a cache line, so that little is left to
decode once the child is done."""

ReadOne = Callable[[str], FileResult | None]


def _cores() -> int:
    with contextlib.suppress(AttributeError, OSError):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _running_now() -> float:
    """Tasks running or ready to run at this moment, this one included (Linux's
    `/proc/loadavg`); elsewhere the last minute's load average and this process."""
    try:
        with open("/proc/loadavg", "rb") as stats:
            return float(stats.read().split()[3].partition(b"/")[0])
    except (OSError, IndexError, ValueError):
        pass
    try:
        return os.getloadavg()[0] + 1
    except (AttributeError, OSError):
        return 1.0


def may_fork() -> bool:
    """True where a child can parse beside this process: `os.fork` exists, no other thread
    runs (the child would inherit its locks held), and no more tasks are running now than
    there are cores: on a machine whose cores are all taken, the child only takes turns
    with this process (at 10k under a load of 2-3.6 on 2 cores, forked and serial reads took
    the same time). The tasks running now, not the load average: a start's own earlier
    work and a bench's starts keep the average up for a minute after a core is free."""
    if not hasattr(os, "fork") or threading.active_count() != 1:
        return False
    cores = _cores()
    return cores >= 2 and _running_now() <= cores


def read_all(paths: Sequence[str], read_one: ReadOne, root: Path) -> dict[str, FileResult | None]:
    """Each path's result (None: gone since the walk), read on two cores when that pays."""
    if len(paths) >= FORK_AT and may_fork():
        return read_forked(paths, read_one, root)
    return {path: read_one(path) for path in paths}


def read_forked(
    paths: Sequence[str], read_one: ReadOne, root: Path
) -> dict[str, FileResult | None]:
    """`read_all` with a forked child reading the later half; every path this process
    does not get back from the child it reads itself."""
    half = len(paths) // 2
    theirs = paths[half:]
    child = _fork(theirs, read_one, root)
    try:
        got: dict[str, FileResult | None] = {path: read_one(path) for path in paths[:half]}
    except BaseException:  # interrupted: leave no child behind
        if child is not None:
            _stop(*child)
        raise
    if child is not None:
        got.update(_collect(*child, root))
    for path in theirs:
        if path not in got:
            got[path] = read_one(path)
    return got


def _fork(paths: Sequence[str], read_one: ReadOne, root: Path) -> tuple[int, int] | None:
    """(pid, the file it writes its lines to) of a child reading `paths`; None when none
    could be made."""
    try:
        out = _memory_file()
    except OSError:
        return None
    try:
        pid = os.fork()
    except OSError:
        os.close(out)
        return None
    if pid == 0:  # the child: never returns
        _child(paths, read_one, root, out)
    return pid, out


def _memory_file() -> int:
    """A new file with no name, in memory where the system allows (a descriptor the child
    writes to and this process reads from the start once the child has exited)."""
    if hasattr(os, "memfd_create"):
        return os.memfd_create("tasks-server-read", os.MFD_CLOEXEC)
    with tempfile.TemporaryFile(buffering=0) as stream:  # unlinked at once (POSIX)
        return os.dup(stream.fileno())


def _child(paths: Sequence[str], read_one: ReadOne, root: Path, fd: int) -> None:
    """Read and parse `paths`, write their results to `fd` as cache lines, each whole as
    soon as its rows are read, and exit at once (no cleanup of the parent's state:
    `os._exit`)."""
    code = 1
    try:
        results = (result for path in paths if (result := read_one(path)) is not None)
        for line in cache.frames(root, results, rows_a_line=CHILD_ROWS):
            view = memoryview(line)
            while view:
                view = view[os.write(fd, view) :]
        code = 0
    finally:
        os._exit(code)


def _collect(pid: int, fd: int, root: Path) -> dict[str, FileResult]:
    """The results a child sent (none when it failed), decoded as its lines come; the
    child reaped, or ended when its lines are no longer wanted (one did not decode)."""
    exit_status: list[int] = []
    try:
        found = cache.read_lines(_lines_as_written(pid, fd, exit_status), root)
    except BaseException:  # interrupted while decoding: leave no child behind
        if not exit_status:
            _end(pid)
        raise
    finally:
        os.close(fd)
    if not exit_status:  # the reader stopped at a line that did not decode
        _end(pid)
        return {}
    status = exit_status[0]
    return found if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 else {}


def _lines_as_written(pid: int, fd: int, exit_status: list[int]) -> Iterator[bytes]:
    """Each whole line the child has written so far, then (once no whole line is left) its
    exit status into `exit_status` and the lines it wrote before exiting; a last line cut
    short comes without its newline (which makes the reader take none of them)."""
    offset, pending = 0, b""
    while True:
        chunk = os.pread(fd, 1 << 20, offset)
        if chunk:
            offset += len(chunk)
            *whole, pending = (pending + chunk).split(b"\n")
            yield from (line + b"\n" for line in whole)
        elif exit_status:
            break
        else:  # nothing new: wait for the child to finish, then read what it left
            exit_status.append(os.waitpid(pid, 0)[1])
    if pending:
        yield pending


def _stop(pid: int, fd: int) -> None:
    """End a child whose results are no longer wanted, and reap it."""
    os.close(fd)
    _end(pid)


def _end(pid: int) -> None:
    """Kill and reap a child not yet reaped."""
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
