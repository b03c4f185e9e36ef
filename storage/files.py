"""Safe file operations: atomic writes, cross-process locks that leave no files behind, and
paths that cannot leave the root.

A write goes to a temporary file in the same folder, is fsynced, then renamed over the
target (and the folder fsynced), so a reader sees the old file or the new one, never half.
A lock is `flock` on the file itself (or, for a file not yet created, on its folder): the
kernel drops it when the process dies, and nothing is created to be cleaned up.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

from storage.errors import AlreadyExists, PathOutsideRoot

__all__ = ["atomic_create", "atomic_write", "inside_root", "locked", "stamp_of"]


def inside_root(root: Path, relative: str) -> Path:
    """The absolute path of `relative` under `root`; PathOutsideRoot if it escapes (`..`,
    an absolute path, or a symlink pointing out)."""
    if Path(relative).is_absolute():
        raise PathOutsideRoot(relative)
    resolved_root = root.resolve()
    candidate = (resolved_root / relative).resolve()
    if not candidate.is_relative_to(resolved_root):
        raise PathOutsideRoot(relative)
    return resolved_root / relative


def stamp_of(path: Path) -> tuple[int, int] | None:
    """(mtime_ns, size) of a file, or None when it does not exist."""
    try:
        stat = path.stat()
    except FileNotFoundError:
        return None
    return stat.st_mtime_ns, stat.st_size


def _process_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


NEW_FILE_MODE = 0o666 & ~_process_umask()
"""The mode `open()` gives a new file (read once, at import, before any thread runs)."""


def _mode_for(path: Path) -> int:
    """The mode the file at `path` has (a rewrite keeps it), else a new file's mode."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        return NEW_FILE_MODE


def _write_temp(path: Path, data: bytes) -> Path:
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, _mode_for(path))  # mkstemp makes 0600; the task file keeps its mode
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
    return Path(name)


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write(path: Path, data: bytes) -> None:
    """Replace (or create) `path` with `data` atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = _write_temp(path, data)
    try:
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def atomic_create(path: Path, data: bytes) -> None:
    """Create `path` with `data` atomically; AlreadyExists if a file is there."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = _write_temp(path, data)
    try:
        os.link(temp, path)
    except FileExistsError as exc:
        raise AlreadyExists(path.name) from exc
    finally:
        temp.unlink(missing_ok=True)
    _fsync_dir(path.parent)


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock for `path` across processes while the block runs.

    Locks the file itself when it exists, else its folder. A writer replaces the file by
    rename, so after waiting we check we still hold the lock of the file at `path`.
    """
    while True:
        target = path if path.exists() else path.parent
        if target == path.parent:
            target.mkdir(parents=True, exist_ok=True)
        fd = os.open(target, os.O_RDONLY)
        fcntl.flock(fd, fcntl.LOCK_EX)
        if target == path.parent or _same_file(fd, path):
            break
        os.close(fd)
    try:
        yield
    finally:
        os.close(fd)


def _same_file(fd: int, path: Path) -> bool:
    try:
        return os.fstat(fd).st_ino == path.stat().st_ino
    except FileNotFoundError:
        return False
