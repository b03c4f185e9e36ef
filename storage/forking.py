"""A forked child that writes its answer to a file in memory: whether to make one, made,
waited for, read as it writes, or stopped.

The child writes to a file with no name (`os.memfd_create`; elsewhere an unlinked
temporary file), never to a pipe: a pipe holds 64 KB, and a child writing more would
stop until this process, busy meanwhile, reads it. This process reads the file from the
start once the child has exited. The child exits at once when its work is done
(`os._exit`: none of this process's cleanup runs twice), with 1 on any error; a child
that failed or was killed answers nothing (None), and the caller does the work itself.
A `Child` is a context manager: at the block's end a child not waited for is killed and
reaped, so none outlives it (an interrupted caller included).

Whether a child pays (`may_fork`) is read from the tasks running at this moment: a child
that only takes turns with this process on a busy machine saves nothing, or costs.
"""

from __future__ import annotations

import contextlib
import os
import signal
import tempfile
import threading
from collections.abc import Callable, Iterator
from typing import BinaryIO, NoReturn

__all__ = ["Child", "fork_writing", "may_fork", "memory_file"]


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


def may_fork(*, core_of_its_own: bool = False) -> bool:
    """True where a child can work beside this process: `os.fork` exists, no other thread
    runs (the child would inherit its locks held), there are two cores or more, and no
    more tasks are running now than there are cores (the tasks running now, not the load
    average: a start's own earlier work keeps the average up for a minute after a core is
    free). With `core_of_its_own`, fewer: a core is idle now, for the child. A warm walk
    forked while another job held the second core took turns with this process on the
    first and cost more than it saved (10k: 170 ms where the serial load took 158)."""
    if not hasattr(os, "fork") or threading.active_count() != 1:
        return False
    cores = _cores()
    running = _running_now() + (1 if core_of_its_own else 0)
    return cores >= 2 and running <= cores


class Child:
    """A forked child writing its answer to the file `fd`."""

    def __init__(self, pid: int, fd: int) -> None:
        self.pid: int | None = pid  # None once reaped
        self.fd = fd  # -1 once closed
        self.succeeded: bool | None = None  # once reaped: whether it exited with 0
        self._offset = 0  # how much of the file `lines` has read
        self._pending = b""  # the start of a line not yet whole

    def __enter__(self) -> Child:
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()

    def answer(self) -> bytes | None:
        """What the child wrote, once it has exited; None when it failed or was killed.
        The file is closed after (its memory freed now, not at the block's end)."""
        try:
            if not self._reaped():
                return None
            os.lseek(self.fd, 0, os.SEEK_SET)  # the child's writes moved the offset both share
            with open(self.fd, "rb", closefd=False) as stream:
                return stream.read()
        finally:
            self.stop()

    def lines(self, *, wait: bool = True) -> Iterator[bytes]:
        """Each whole line the child has written and no earlier call gave, as it comes. With
        `wait`, once no whole line is left, the child is waited for and the rest read
        (`succeeded` then says whether it exited well; a last line cut short comes without
        its newline); without, only what is whole now. A caller that stops early leaves the
        child to `stop`."""
        while True:
            chunk = os.pread(self.fd, 1 << 20, self._offset)
            if chunk:
                self._offset += len(chunk)
                *whole, self._pending = (self._pending + chunk).split(b"\n")
                yield from (line + b"\n" for line in whole)
            elif self.pid is None:
                break
            elif not wait:
                return
            else:
                self._reaped()
        if self._pending:
            rest, self._pending = self._pending, b""
            yield rest

    def wait(self) -> bool:
        """Wait for the child to exit (once); whether it exited with 0. What it wrote stays
        to be read (`lines`)."""
        return self._reaped()

    def _reaped(self) -> bool:
        """Wait for the child to exit; whether it exited with 0."""
        assert self.pid is not None, "waited for once"
        _, status = os.waitpid(self.pid, 0)
        self.pid = None
        self.succeeded = os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
        return self.succeeded

    def stop(self) -> None:
        """Kill and reap the child if it was not waited for; close the file."""
        if self.pid is not None:
            with contextlib.suppress(OSError):
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            self.pid = None
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def memory_file() -> int:
    """A new file with no name, in memory where the system allows."""
    if hasattr(os, "memfd_create"):
        return os.memfd_create("tasks-server-child", os.MFD_CLOEXEC)
    with tempfile.TemporaryFile(buffering=0) as stream:  # unlinked at once (POSIX)
        return os.dup(stream.fileno())


def fork_writing(write: Callable[[BinaryIO], object]) -> Child | None:
    """A child that runs `write` on its answer file, then exits; None when none could be
    made (no file, no fork). The caller decides first whether a fork pays (`may_fork`)."""
    try:
        fd = memory_file()
    except OSError:
        return None
    try:
        pid = os.fork()
    except OSError:
        os.close(fd)
        return None
    if pid == 0:
        _run_child(write, fd)
    return Child(pid, fd)


def _run_child(write: Callable[[BinaryIO], object], fd: int) -> NoReturn:
    """The child's life: `write`, then exit at once, 0 when it returned, 1 on any error."""
    code = 1
    try:
        with open(fd, "wb", buffering=1 << 20) as out:
            write(out)
        code = 0
    finally:
        os._exit(code)
