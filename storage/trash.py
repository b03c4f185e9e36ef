"""Deleting a task: its file moved into `<root>/.trash/`, under the path it had there (a
time stamp added when the trash already holds one), kept and never lost.

A delete is as durable as a one-file write: after the rename, the trash folder and the
folder the file left are fsynced, so a power cut neither brings the task back nor loses it;
a trash folder made for it is fsynced into its parent too. Given the modification time the
caller read, a file that changed since (an editor's save) is not moved: Conflict.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

from storage.errors import TaskNotFound
from storage.files import fsync_dir, locked, make_folders, server_folder
from storage.timestamps import check_expected

__all__ = ["TRASH", "move_to_trash"]

TRASH = ".trash"


def move_to_trash(root: Path, relative: str, path: Path, expected: datetime | None) -> str:
    """Move the file `relative` (at `path`, under `root`) into the trash, locked; returns
    where it went. Conflict when `expected` is given and the file's time is not that;
    UnsafeFolder when `.trash` (or a folder in it) is a link: nothing leaves the root."""
    with locked(path) as fd:
        if fd is None and not os.path.lexists(path):
            raise TaskNotFound(relative)
        if expected is not None:
            check_expected(relative, _stamp_of_fd(fd), expected)
        trash, target = _trash_target(root, relative)
        os.replace(path, target)
    fsync_dir(target.parent)
    fsync_dir(path.parent)
    return trash


def _trash_target(root: Path, relative: str) -> tuple[str, Path]:
    """Where a deleted file goes (its path under the root, and in full): its own path
    under `.trash/`, or that with a time stamp when the trash already holds one."""
    folder, _, name = relative.rpartition("/")
    made = not os.path.lexists(root / TRASH)
    trash_root = server_folder(root, TRASH)
    if made:
        fsync_dir(root)
    target = make_folders(trash_root, folder, durable=True) / name
    if not os.path.lexists(target):
        return f"{TRASH}/{relative}", target
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%f")
    trash = f"{TRASH}/{relative[:-3]}.{stamp}.md"
    return trash, root / trash


def _stamp_of_fd(fd: int | None) -> tuple[int, int] | None:
    """The stamp of an open file (None for none)."""
    if fd is None:
        return None
    st = os.fstat(fd)
    return st.st_mtime_ns, st.st_size
