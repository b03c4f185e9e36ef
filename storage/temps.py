"""Temporary files of writes: made beside their target, locked by their writer, and swept
when their writer is dead.

A writer holds an `flock` on its temporary file until the file is renamed into place, so a
sweep removes only what a dead writer left: `sweep_temps` runs when a repository opens (in
the server's own folders), and a tree walk removes those it passes in task folders.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import secrets
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "DEFAULT_MODE",
    "TEMP_SUFFIX",
    "Temp",
    "is_temp_name",
    "sweep_one",
    "sweep_temps",
    "temp_file",
]

TEMP_SUFFIX = ".tasks-tmp"
_LEGACY_TEMP = re.compile(r"\..+\.(md|json)\.[a-z0-9_]{8}\.tmp")  # our `mkstemp` names of before


def _umask() -> int:
    """This process's umask, read without changing it where Linux allows."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


DEFAULT_MODE = 0o666 & ~_umask()  # the mode `open(path, "w")` gives a new file


def _new_temp(path: Path) -> tuple[Path, int]:
    """A new locked temporary file beside `path`; retried if a sweep took it first."""
    while True:
        temp = path.with_name(f".{path.name}.{secrets.token_hex(4)}{TEMP_SUFFIX}")
        fd = os.open(temp, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        if os.fstat(fd).st_nlink:
            return temp, fd
        os.close(fd)  # a sweep unlinked it between our create and our lock


def _fill(fd: int, data: bytes | Iterable[bytes], mode: int, *, durable: bool) -> None:
    for chunk in (data,) if isinstance(data, bytes) else data:
        view = memoryview(chunk)
        while view:
            view = view[os.write(fd, view) :]
    os.fchmod(fd, mode)
    if durable:
        os.fsync(fd)


@dataclass(frozen=True, slots=True)
class Temp:
    """A temporary file being written: its path, and its open (locked) descriptor."""

    path: Path
    fd: int


@contextlib.contextmanager
def temp_file(
    path: Path, data: bytes | Iterable[bytes], mode: int | None, *, durable: bool = True
) -> Iterator[Temp]:
    """A fsynced (unless not `durable`), locked temporary file holding `data` (bytes, or
    chunks written as they come); removed after unless renamed."""
    temp, fd = _new_temp(path)
    try:
        _fill(fd, data, DEFAULT_MODE if mode is None else mode, durable=durable)
        yield Temp(temp, fd)
    finally:
        with contextlib.suppress(FileNotFoundError):
            if os.stat(temp, follow_symlinks=False).st_ino == os.fstat(fd).st_ino:
                os.unlink(temp)
        os.close(fd)


def is_temp_name(name: str) -> bool:
    """True for the name of a temporary file a writer of ours makes (now or before)."""
    return name.startswith(".") and (
        name.endswith(TEMP_SUFFIX) or _LEGACY_TEMP.fullmatch(name) is not None
    )


def sweep_temps(folder: Path) -> int:
    """Remove the temporary files of dead writers in `folder` (those no writer holds
    locked); returns how many were removed."""
    try:
        names = [n for n in os.listdir(folder) if is_temp_name(n)]
    except OSError:
        return 0
    return sum(sweep_one(folder / name) for name in names)


def sweep_one(path: Path) -> bool:
    """Remove one temporary file if no live writer holds it; True when removed."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False  # a live writer's
        if os.stat(path, follow_symlinks=False).st_ino != os.fstat(fd).st_ino:
            return False
        os.unlink(path)
        return True
    except OSError:  # gone already, or a read-only tree: left as it is
        return False
    finally:
        os.close(fd)
