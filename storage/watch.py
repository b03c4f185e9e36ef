"""What changed under a folder tree, from the kernel's own queue (Linux inotify), without a
thread and without blocking.

A `TreeWatch` owns one inotify descriptor with a watch on every folder it walks into (folders
that appear later are added as their events arrive). `drain()` reads whatever the kernel has
queued and returns the paths that changed. The kernel queues an event before the writer's
system call returns, so a drain that starts after a change completed (in this process or any
other) always sees it: read-your-writes with no sleep and no stat walk.

When the kernel's queue overflows, `drain()` says so, and the caller surveys the whole tree.
Where inotify does not exist (or the watch limit is reached), `TreeWatch.open` returns None.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as tmp:
...     watch = TreeWatch.open(Path(tmp), descend=lambda folder: True)
...     _ = (Path(tmp) / "a.md").write_text("x")
...     found = watch.drain().files if watch else {"a.md"}  # (no inotify here)
...     watch.close() if watch else None
>>> sorted(found)
['a.md']
"""

from __future__ import annotations

import ctypes
import errno
import logging
import os
import struct
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from storage.libc import libc

__all__ = ["Drained", "ThreadWatch", "TreeWatch"]

log = logging.getLogger(__name__)

IN_MODIFY = 0x00000002
IN_ATTRIB = 0x00000004
IN_MOVED_FROM = 0x00000040
IN_MOVED_TO = 0x00000080
IN_CREATE = 0x00000100
IN_DELETE = 0x00000200
IN_Q_OVERFLOW = 0x00004000
IN_IGNORED = 0x00008000
IN_ONLYDIR = 0x01000000
IN_DONTFOLLOW = 0x02000000
IN_EXCL_UNLINK = 0x04000000
IN_ISDIR = 0x40000000
IN_NONBLOCK = getattr(os, "O_NONBLOCK", 0o4000)  # (Windows has neither, nor inotify)
IN_CLOEXEC = getattr(os, "O_CLOEXEC", 0o2000000)

WATCHED = (
    IN_MODIFY | IN_ATTRIB | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE
    | IN_ONLYDIR | IN_DONTFOLLOW | IN_EXCL_UNLINK
)  # fmt: skip
ARRIVED = IN_CREATE | IN_MOVED_TO
LEFT = IN_DELETE | IN_MOVED_FROM
_HEADER = struct.Struct("iIII")  # wd, mask, cookie, len
_BUFFER = 1 << 16

Descend = Callable[[str], bool]


@dataclass(slots=True)
class Drained:
    """What one drain found, relative to the root: files that changed (or appeared in a
    folder that arrived), folders that left (deleted or moved away: every file that was
    below them is gone from there), and whether events were lost (then the caller must
    survey everything)."""

    files: set[str] = field(default_factory=set)
    folders_gone: set[str] = field(default_factory=set)
    overflow: bool = False


def _libc() -> ctypes.CDLL | None:
    found = libc()
    if found is None or not hasattr(found, "inotify_init1"):  # not Linux: no inotify
        return None
    found.inotify_init1.argtypes = [ctypes.c_int]
    found.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
    found.inotify_rm_watch.argtypes = [ctypes.c_int, ctypes.c_int]
    return found


class TreeWatch:
    """One inotify descriptor watching every folder of a tree that `descend` accepts."""

    def __init__(self, libc: ctypes.CDLL, fd: int, root: Path, descend: Descend) -> None:
        self._libc = libc
        self.fd = fd
        self.root = root
        self._root_str = str(root)
        self._descend = descend
        self._folders: dict[int, str] = {}  # watch descriptor -> folder ("" for the root)
        self.exhausted = False  # a folder could not be watched: the kernel's limit was reached

    @classmethod
    def open(cls, root: Path, *, descend: Descend) -> TreeWatch | None:
        """Watch `root` and every folder below it that `descend(relative)` accepts; None
        where inotify is not available or the kernel's watch limit is reached."""
        libc = _libc()
        fd = libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC) if libc is not None else -1
        if libc is None or fd < 0:
            return None
        watch = cls(libc, fd, root, descend)
        watch.watch_tree("", collect=False)
        if watch.exhausted:
            watch.close()
            return None
        return watch

    @property
    def folders(self) -> int:
        """How many folders are watched."""
        return len(self._folders)

    # --- watches -------------------------------------------------------------------------

    def watch_tree(self, top: str, *, collect: bool = True) -> set[str]:
        """Add a watch on `top` and every folder below it; return the files found there
        (when `collect`). A watch is added before its folder is listed, so nothing created
        meanwhile is missed. At the kernel's watch limit, `exhausted` is set and the rest
        of the tree is not watched: the caller must stop trusting this queue."""
        files: set[str] = set()
        stack = [top]
        while stack and not self.exhausted:
            folder = stack.pop()
            if self._add(folder):
                self._list(folder, stack, files if collect else None)
        return files

    def _add(self, folder: str) -> bool:
        path = os.fsencode(self._absolute(folder))
        wd = self._libc.inotify_add_watch(self.fd, path, WATCHED)
        if wd >= 0:
            self._folders[wd] = folder
            return True
        if ctypes.get_errno() == errno.ENOSPC:
            self.exhausted = True
        return False  # else gone, not a folder any more, a link, or not ours to read

    def _list(self, folder: str, stack: list[str], files: set[str] | None) -> None:
        prefix = folder + "/" if folder else ""
        try:
            with os.scandir(self._absolute(folder)) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        if self._descend(prefix + entry.name):
                            stack.append(prefix + entry.name)
                    elif files is not None:
                        files.add(prefix + entry.name)
        except OSError:
            return  # gone since, or unreadable: its events (if any) say the rest

    def _forget(self, top: str) -> None:
        """Stop watching a folder that left the tree, and every folder below it."""
        prefix = top + "/"
        for wd, folder in list(self._folders.items()):
            if folder == top or folder.startswith(prefix):
                del self._folders[wd]
                self._libc.inotify_rm_watch(self.fd, wd)

    def _absolute(self, folder: str) -> str:
        return self._root_str + "/" + folder if folder else self._root_str

    # --- events --------------------------------------------------------------------------

    def drain(self) -> Drained:
        """Everything the kernel has queued so far, without waiting for more."""
        found = Drained()
        while self.fd >= 0:
            try:
                data = os.read(self.fd, _BUFFER)
            except BlockingIOError:
                break
            self._apply(data, found)
        if found.overflow:  # folders made while events were lost have no watch yet
            self.watch_tree("", collect=False)
        return found

    def _apply(self, data: bytes, found: Drained) -> None:
        offset = 0
        while offset < len(data):
            wd, mask, _, size = _HEADER.unpack_from(data, offset)
            start = offset + _HEADER.size
            name = os.fsdecode(data[start : start + size].split(b"\0", 1)[0])
            offset = start + size
            self._event(wd, mask, name, found)

    def _event(self, wd: int, mask: int, name: str, found: Drained) -> None:
        if mask & IN_Q_OVERFLOW:
            found.overflow = True
            return
        if mask & IN_IGNORED:
            self._folders.pop(wd, None)
            return
        folder = self._folders.get(wd)
        if folder is None or not name:
            return  # a watch already forgotten, or an event about the folder itself
        relative = folder + "/" + name if folder else name
        if not mask & IN_ISDIR:
            found.files.add(relative)
        elif mask & LEFT:
            self._forget(relative)
            found.folders_gone.add(relative)
        elif mask & ARRIVED and self._descend(relative):
            found.files |= self.watch_tree(relative)

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


class ThreadWatch:
    """The fallback where inotify is missing: a `watchfiles` thread that collects changed
    paths. Its reports lag the changes by a few ms, so it gives freshness, not
    read-your-writes.

    `take()` returns the paths reported since the last take, or None while the reports
    cannot be trusted alone (the watcher not yet up, the first take once it is, or the
    thread gone): then the caller walks the tree instead.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self._prefix = str(root) + "/"
        self._pending: set[str] = set()
        self._changed = threading.Condition()
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._trusted = False  # set by the first take after the watcher is up
        self._thread = threading.Thread(target=self._run, name="tasks-watch", daemon=True)
        self._thread.start()  # not waited for: until it is up, `take` says "walk"

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    def _run(self) -> None:
        import watchfiles  # noqa: PLC0415 - the fallback only: most processes never need it

        try:
            for changes in watchfiles.watch(
                self.root,
                stop_event=self._stop,
                debounce=0,
                step=5,
                yield_on_timeout=True,  # the first yield says the watcher is up
                rust_timeout=200,
                recursive=True,
                ignore_permission_denied=True,
            ):
                self._ready.set()
                self._note(self._relative(p for _, p in changes))
        except Exception:  # pragma: no cover - the callers walk the tree instead
            log.exception("file watcher stopped; falling back to stat walks")

    def _relative(self, paths: Iterable[str]) -> set[str]:
        return {p[len(self._prefix) :] for p in paths if p.startswith(self._prefix)}

    def _note(self, found: set[str]) -> None:
        if found:
            with self._changed:
                self._pending |= found
                self._changed.notify_all()

    def take(self) -> set[str] | None:
        """The paths (relative to the root) reported since the last take; None: walk."""
        with self._changed:
            paths, self._pending = self._pending, set()
        if not (self._ready.is_set() and self.alive):
            return None
        if not self._trusted:  # what changed before the watcher was up is in no report
            self._trusted = True
            return None
        return paths

    def wait(self, timeout: float) -> bool:
        """Block until a change not yet taken has been reported (or time runs out)."""
        with self._changed:
            return self._changed.wait_for(lambda: bool(self._pending), timeout=timeout)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
