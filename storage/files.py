"""Safe file operations: atomic writes, cross-process locks that leave no files behind,
paths that cannot leave the root, and folders of the server's own that no link can redirect.

A write goes to a temporary file in the same folder, is fsynced, then renamed over the
target (and the folder fsynced), so a reader sees the old file or the new one, never half.
The new file keeps the old one's mode; a new file gets the mode `open()` would give it.
The temporary files, and the sweep of those dead writers left, are in `temps.py`.

A lock is `flock` on the file itself (or, for a file not yet created, on its folder): the
kernel drops it when the process dies, and nothing is created to be cleaned up.

`replace_checked` guards an update against an editor that saves without taking our lock:
it swaps the new file in with one atomic exchange, then checks that what it displaced is
exactly what the caller read; if not (the editor saved in between), it swaps back and
raises `Changed`, and nothing of the editor's is lost.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import os
import stat
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from storage.errors import AlreadyExists, PathOutsideRoot, UnsafeFolder
from storage.libc import libc
from storage.temps import temp_file

__all__ = [
    "Changed",
    "Seen",
    "atomic_create",
    "atomic_write",
    "exchange",
    "flocked",
    "fsync_dir",
    "inside_root",
    "is_server_folder_safe",
    "locked",
    "make_folders",
    "make_parents",
    "next_mtime",
    "open_regular",
    "read_bounded",
    "read_regular",
    "read_seen",
    "replace_checked",
    "server_folder",
    "stamp_of",
    "still",
]

GITIGNORE = "# written by tasks-server: its own files, never to be committed\n*\n"


class Changed(Exception):
    """The file changed between the caller's read and the rename (nothing was written)."""


@dataclass(frozen=True, slots=True)
class Seen:
    """A file as a writer read it: inode, stamp, mode and bytes."""

    ino: int
    stamp: tuple[int, int]
    mode: int
    data: bytes


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
        st = path.stat()
    except FileNotFoundError:
        return None
    return st.st_mtime_ns, st.st_size


# --- folders ---------------------------------------------------------------------------


def make_folders(base: Path, relative: str, *, durable: bool = False) -> Path:
    """Create `base/relative` one folder at a time, never through a link: UnsafeFolder when
    a part of it is a symlink or not a folder. `base` itself is trusted. `durable`: the
    folder holding each one created is fsynced, so the new folder outlives a power cut."""
    folder = base
    for part in Path(relative).parts:
        parent, folder = folder, folder / part
        with contextlib.suppress(FileExistsError):
            os.mkdir(folder)
            if durable:
                fsync_dir(parent)
        if not stat.S_ISDIR(os.lstat(folder).st_mode):
            raise UnsafeFolder(str(folder), "is a symlink or not a folder")
    return folder


def server_folder(root: Path, name: str) -> Path:
    """`<root>/<name>`, a folder the server writes for itself (`.tasks-index`, `.trash`,
    `.workflow`): created with a `.gitignore` of `*` (kept out of `git status`, as pytest
    and ruff do with theirs); UnsafeFolder when it is a symlink or not a folder, so nothing
    is ever written outside the root through it."""
    folder = root / name
    try:
        os.mkdir(folder)
    except FileExistsError:
        pass
    else:
        _write_gitignore(folder)
    if not stat.S_ISDIR(os.lstat(folder).st_mode):
        raise UnsafeFolder(str(folder), "is a symlink or not a folder")
    return folder


def is_server_folder_safe(root: Path, name: str) -> bool:
    """True when `<root>/<name>` is missing or a real folder (not a link)."""
    try:
        return stat.S_ISDIR(os.lstat(root / name).st_mode)
    except FileNotFoundError:
        return True


def _write_gitignore(folder: Path) -> None:
    with contextlib.suppress(FileExistsError):
        fd = os.open(folder / ".gitignore", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            os.write(fd, GITIGNORE.encode())
        finally:
            os.close(fd)


# --- reading ---------------------------------------------------------------------------


def open_regular(path: Path, limit: int) -> tuple[int, int] | str:
    """An open descriptor of a regular file of at most `limit` bytes and its size, or why
    not (a message). Never follows a final symlink, never blocks on a pipe: a link to
    `/dev/zero` or a FIFO is refused, not opened. The caller closes the descriptor."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return "missing"
    except OSError as exc:
        return "a symlink" if exc.errno == errno.ELOOP else f"cannot open: {exc.strerror}"
    st = os.fstat(fd)
    why = "" if stat.S_ISREG(st.st_mode) else "not a regular file"
    if not why and st.st_size > limit:
        why = f"{st.st_size} bytes, over the {limit}-byte limit"
    if why:
        os.close(fd)
        return why
    return fd, st.st_size


def read_regular(path: Path, limit: int) -> bytes | str:
    """The bytes of a regular file of at most `limit` bytes, or why not (a message), as
    `open_regular` opens it; never reads past `limit`."""
    opened = open_regular(path, limit)
    if isinstance(opened, str):
        return opened
    fd, size = opened
    try:
        data = read_bounded(fd, size, limit)
    finally:
        os.close(fd)
    return data if len(data) <= limit else f"grew past the {limit}-byte limit"


def read_bounded(fd: int, size: int, limit: int) -> bytes:
    """From the current offset to the end, or `limit` + 1 bytes: whichever comes first.
    One read when the file still has the `size` its fstat gave."""
    chunks = [os.read(fd, min(size, limit) + 1)]
    total = len(chunks[0])
    while chunks[-1] and total <= limit and total != size:
        chunks.append(os.read(fd, min(1 << 20, limit + 1 - total)))
        total += len(chunks[-1])
    return b"".join(chunks)


def fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# --- writing -----------------------------------------------------------------------------


def _mode_of(path: Path) -> int | None:
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        return None


def atomic_write(path: Path, data: bytes | Iterable[bytes], *, durable: bool = True) -> None:
    """Replace (or create) `path` with `data` (bytes, or chunks written as they come)
    atomically, keeping its mode: the file and its folder fsynced, unless not `durable`
    (a file whose loss or truncation by a power cut costs nothing but time, such as the
    warm-start cache, which any damage turns into a normal full read: no fsync at all)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with temp_file(path, data, _mode_of(path), durable=durable) as temp:
        os.replace(temp.path, path)
    if durable:
        fsync_dir(path.parent)


def make_parents(folder: Path) -> None:
    """Create `folder` and the folders above it that are missing, each new one fsynced into
    the folder holding it: a file fsynced into a new folder outlives a power cut only if the
    folder's own name does. One fsync per folder made; none when `folder` exists."""
    missing: list[Path] = []
    while not os.path.isdir(folder):
        missing.append(folder)
        folder = folder.parent
    for new in reversed(missing):
        try:
            os.mkdir(new)
        except FileExistsError:
            if not os.path.isdir(new):
                raise
        else:
            fsync_dir(new.parent)


def atomic_create(path: Path, data: bytes) -> os.stat_result:
    """Create `path` with `data` atomically; AlreadyExists if a file is there. Returns the
    new file's stat, taken on the descriptor that wrote it (no second look at the path).
    Two fsyncs, the file and its folder (and one per folder it had to make first)."""
    make_parents(path.parent)
    with temp_file(path, data, None) as temp:
        try:
            os.link(temp.path, path)
        except FileExistsError as exc:
            raise AlreadyExists(path.name) from exc
        os.unlink(temp.path)  # before the fstat: the unlink changes the inode's ctime
        written = os.fstat(temp.fd)
    fsync_dir(path.parent)
    return written


def read_seen(fd: int, path: Path, limit: int) -> Seen:
    """What an open file holds now (at most `limit` + 1 bytes)."""
    st = os.fstat(fd)
    os.lseek(fd, 0, os.SEEK_SET)
    data = read_bounded(fd, st.st_size, limit) if stat.S_ISREG(st.st_mode) else b""
    return Seen(st.st_ino, (st.st_mtime_ns, st.st_size), stat.S_IMODE(st.st_mode), data)


def still(path: Path, seen: Seen) -> bool:
    """True when `path` is the same file, with the same bytes, as `seen`."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        return False
    try:
        now = read_seen(fd, path, len(seen.data))
    finally:
        os.close(fd)
    return now.ino == seen.ino and now.data == seen.data


def next_mtime(seen: Seen) -> int:
    """A modification time for the file that replaces `seen`: now, to the nanosecond, and
    always after the old one (the kernel's own stamps tick in milliseconds, so two quick
    writes could share one, and a caller's `expected_modified` could not tell them apart)."""
    return max(time.time_ns(), seen.stamp[0] + 1000)


def replace_checked(path: Path, data: bytes, seen: Seen) -> os.stat_result:
    """Replace `path` (which the caller read as `seen`) with `data`, unless it changed:
    Changed then, and the file is left as the other writer made it. Returns the new
    file's stat, taken on the descriptor that wrote it once it is in place."""
    with temp_file(path, data, seen.mode) as temp:
        os.utime(temp.fd, ns=(next_mtime(seen),) * 2)
        if not still(path, seen):
            raise Changed(str(path))
        if not exchange(temp.path, path):
            os.replace(temp.path, path)  # no atomic exchange here: the check above must do
        elif not still(temp.path, seen):  # an editor saved between the check and the swap
            exchange(temp.path, path)
            raise Changed(str(path))
        else:
            os.unlink(temp.path)  # the old file, swapped out
        written = os.fstat(temp.fd)
    fsync_dir(path.parent)
    return written


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _load_renameat2() -> object | None:
    found = libc()
    if found is None or not hasattr(found, "renameat2"):  # not Linux: no exchange
        return None
    function = found.renameat2
    function.argtypes = [
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_uint,
    ]
    return function


_renameat2 = _load_renameat2()


def exchange(first: Path, second: Path) -> bool:
    """Swap two names atomically (Linux `renameat2`); False where that is not available."""
    if _renameat2 is None:
        return False
    result = _renameat2(  # type: ignore[operator]
        _AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE
    )
    if result == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        return False
    raise OSError(code, os.strerror(code), str(second))


@contextlib.contextmanager
def locked(path: Path) -> Iterator[int | None]:
    """Hold an exclusive lock for `path` across processes while the block runs; yields the
    locked file's descriptor (None when the file does not exist and its folder is locked).

    Locks the file itself when it exists, else its folder. A writer replaces the file by
    rename, so after waiting we check we still hold the lock of the file at `path`.
    """
    while True:
        target = path if path.exists() else path.parent
        if target == path.parent:
            target.mkdir(parents=True, exist_ok=True)
        fd = os.open(target, os.O_RDONLY | os.O_NONBLOCK)
        fcntl.flock(fd, fcntl.LOCK_EX)
        if target == path.parent or _same_file(fd, path):
            break
        os.close(fd)
    try:
        yield None if target == path.parent else fd
    finally:
        os.close(fd)


def _same_file(fd: int, path: Path) -> bool:
    try:
        return os.fstat(fd).st_ino == path.stat().st_ino
    except FileNotFoundError:
        return False


@contextlib.contextmanager
def flocked(root: Path, folder: str, name: str) -> Iterator[None]:
    """Hold an exclusive `flock` on `<root>/<folder>/<name>` (a server folder, the file
    made if missing, never through a link) while the block runs; the kernel drops it when
    its holder dies. Where it cannot be made (a read-only tree) the block runs without it."""
    try:
        fd = os.open(
            server_folder(root, folder) / name, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600
        )
    except OSError:
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
