"""The intent journal: multi-file writes that are all or nothing, even across a crash.

A batch (a decompose, several completions, an import) is written in four steps:

1. a record `<root>/.tasks-index/journal/<txid>.json` is created, empty, and locked
   (`flock`, dropped by the kernel if the process dies);
2. every new file's bytes go beside their target, as `.<name>.<txid>.tasks-journal`, fsynced;
3. the record is filled with the list of steps and fsynced: this is the commit point;
4. each of those files is renamed over its target (or linked, for a new file), the folders
   fsynced, and the record removed.

Recovery rolls forward (`recover`, run when a repository opens and before every write): a
record that no live writer holds locked is replayed to completion when it was committed,
or dropped when it was not (the batch never happened; its files are then swept, having
no record). A crash before step 3 leaves the tree as it was; a crash after it leaves a
tree that the next start completes. A replayed step is skipped (and its new file dropped)
when its target changed after the crash: a newer write is never overwritten.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import secrets
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from storage.errors import StorageError
from storage.files import (
    Changed,
    Seen,
    fsync_dir,
    inside_root,
    make_folders,
    next_mtime,
    read_bounded,
    server_folder,
    still,
)
from storage.temps import DEFAULT_MODE

__all__ = ["JOURNAL", "Journal", "JournalWrite", "is_journal_temp"]

INDEX_FOLDER = ".tasks-index"
JOURNAL = f"{INDEX_FOLDER}/journal"
_SUFFIX = ".tasks-journal"
_TEMP = re.compile(r"\..+\.([0-9a-f]{16})" + re.escape(_SUFFIX))
_RECORD = re.compile(r"([0-9a-f]{16})\.json")
_RECORD_LIMIT = 64 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class JournalWrite:
    """One file of a batch: its new bytes, and (for an existing file) what was read."""

    relative: str
    data: bytes
    seen: Seen | None = None  # None: a new file, never written over an existing one


@dataclass(frozen=True, slots=True)
class _Step:
    kind: Literal["create", "replace"]
    target: str
    ino: int  # the inode replaced (0 for a new file)


def is_journal_temp(name: str) -> str | None:
    """The transaction id a journal temp file's name carries, or None for another name."""
    match = _TEMP.fullmatch(name)
    return match.group(1) if match else None


def _temp_for(target: Path, txid: str) -> Path:
    return target.with_name(f".{target.name}.{txid}{_SUFFIX}")


class Journal:
    """The journal of one task root."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.folder = root / JOURNAL

    # --- writing ---------------------------------------------------------------------

    def commit(self, writes: Sequence[JournalWrite]) -> None:
        """Write every file of `writes`, all or none; Changed (nothing written) when a file
        read for the batch changed before the commit point."""
        self.root.mkdir(parents=True, exist_ok=True)
        folder = make_folders(server_folder(self.root, INDEX_FOLDER), "journal")
        with _new_record(folder) as (txid, fd):
            record = folder / f"{txid}.json"
            staged: list[Path] = []
            try:
                steps = [self._stage(txid, write, staged) for write in writes]
                for write in writes:
                    if write.seen is not None and not still(self.root / write.relative, write.seen):
                        raise Changed(write.relative)
                for staged_folder in sorted({temp.parent for temp in staged}):
                    fsync_dir(staged_folder)  # their names survive a power cut, not just a kill
                _fill_record(fd, steps)
            except BaseException:  # before the commit point: as if nothing happened
                for temp in staged:
                    temp.unlink(missing_ok=True)
                record.unlink(missing_ok=True)
                raise
            fsync_dir(folder)
            self._apply(txid, steps)  # if this fails, the next recovery completes it
            record.unlink()
        fsync_dir(folder)

    def _stage(self, txid: str, write: JournalWrite, staged: list[Path]) -> _Step:
        target = inside_root(self.root, write.relative)
        target.parent.mkdir(parents=True, exist_ok=True)
        mode = write.seen.mode if write.seen is not None else DEFAULT_MODE
        temp = _temp_for(target, txid)
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
        staged.append(temp)
        try:
            view = memoryview(write.data)
            while view:
                view = view[os.write(fd, view) :]
            os.fchmod(fd, mode)
            if write.seen is not None:
                os.utime(fd, ns=(next_mtime(write.seen),) * 2)
            os.fsync(fd)
        finally:
            os.close(fd)
        if write.seen is None:
            return _Step("create", write.relative, 0)
        return _Step("replace", write.relative, write.seen.ino)

    def _apply(self, txid: str, steps: Sequence[_Step]) -> None:
        folders: set[Path] = set()
        for step in steps:
            target = inside_root(self.root, step.target)
            _apply_step(step, target, _temp_for(target, txid))
            folders.add(target.parent)
        for folder in sorted(folders):
            fsync_dir(folder)

    # --- recovery --------------------------------------------------------------------

    def recover(self) -> int:
        """Replay or drop every record no live writer holds; returns how many were found."""
        if not _is_real_folder(self.folder.parent) or not _is_real_folder(self.folder):
            return 0  # none, or a link: never followed (the next batch refuses to write)
        names = os.listdir(self.folder)
        found = 0
        for name in names:
            match = _RECORD.fullmatch(name)
            if match is not None:
                found += self._recover_one(match.group(1))
        return found

    def _recover_one(self, txid: str) -> int:
        path = self.folder / f"{txid}.json"
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            return 0
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return 0  # a live writer's batch
        try:
            steps = _read_record(fd)
            if steps is not None and _same_inode(fd, path):
                with contextlib.suppress(OSError, StorageError):  # a hostile record: dropped
                    self._apply(txid, steps)
            with contextlib.suppress(OSError):  # gone, or a read-only tree: tried again later
                os.unlink(path)
        finally:
            os.close(fd)
        return 1

    def is_pending(self, txid: str) -> bool:
        """True while the record of `txid` exists (its temp files are not strays)."""
        return os.path.lexists(self.folder / f"{txid}.json")


def _apply_step(step: _Step, target: Path, temp: Path) -> None:
    """Move one staged file into place; skipped when done already, or when the target was
    changed by someone else since the batch read it."""
    if not os.path.lexists(temp):
        return  # done before the crash
    if step.kind == "create":
        with contextlib.suppress(FileExistsError):
            os.link(temp, target)
    elif _inode(target) == step.ino:
        os.replace(temp, target)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(temp)


def _is_real_folder(path: Path) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except FileNotFoundError:
        return False


def _inode(path: Path) -> int | None:
    try:
        return os.stat(path).st_ino
    except FileNotFoundError:
        return None


def _same_inode(fd: int, path: Path) -> bool:
    try:
        return os.fstat(fd).st_ino == os.stat(path, follow_symlinks=False).st_ino
    except FileNotFoundError:
        return False


@contextlib.contextmanager
def _new_record(folder: Path) -> Iterator[tuple[str, int]]:
    """A new, empty record, locked while the batch runs."""
    while True:
        txid = secrets.token_hex(8)
        fd = os.open(
            folder / f"{txid}.json", os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600
        )
        fcntl.flock(fd, fcntl.LOCK_EX)
        if os.fstat(fd).st_nlink:
            break
        os.close(fd)  # a recovery took it for a dead writer's: start again
    try:
        yield txid, fd
    finally:
        os.close(fd)


def _fill_record(fd: int, steps: Sequence[_Step]) -> None:
    payload = {
        "version": 1,
        "steps": [{"kind": s.kind, "target": s.target, "ino": s.ino} for s in steps],
    }
    data = json.dumps(payload).encode()
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    os.fsync(fd)


def _read_record(fd: int) -> list[_Step] | None:
    """The steps of a committed record; None for one not committed (or not ours)."""
    data = read_bounded(fd, os.fstat(fd).st_size, _RECORD_LIMIT)
    try:
        payload = json.loads(data)
        return [_step_of(item) for item in payload["steps"]]
    except (ValueError, TypeError, KeyError):
        return None


def _step_of(item: dict[str, object]) -> _Step:
    kind, target, ino = item["kind"], item["target"], item["ino"]
    if kind not in ("create", "replace") or not isinstance(target, str):
        raise ValueError(item)
    if not isinstance(ino, int):
        raise TypeError(item)
    return _Step(kind, target, ino)
