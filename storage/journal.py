"""The intent journal: multi-file writes that are all or nothing, even across a crash.

A batch (a decompose, several completions, an import) is written in four steps:

1. a record `<root>/.tasks-index/journal/<txid>.json` is created, empty, and locked
   (`flock`, dropped by the kernel if the process dies);
2. every new file's bytes go beside their target, as `.<name>.<txid>.tasks-journal`, fsynced;
3. the record is filled with the list of steps and fsynced: this is the commit point;
4. each of those files is swapped with its target (or linked, for a new file), checking
   that what it displaced is what the batch read (`journal_steps.py`); the folders are
   fsynced, then the record is removed, the displaced files after it.

A batch of N files in F folders costs N + 2F + 2 fsyncs (files, their folders before and
after the swaps, the record and its folder); one file alone never comes here (the
repository writes it with one guarded swap: two fsyncs).

Recovery rolls forward (`recover`, run when a repository opens and before every write): a
record that no live writer holds locked is replayed to completion when it was committed,
or dropped when it was not (the batch never happened; its files are then swept, having
no record). A crash before step 3 leaves the tree as it was; a crash after it leaves a
tree that the next start completes. A replay never overwrites a target changed since it
was staged (an editor's save): the whole batch is rolled back instead, and the conflict
reported in `<txid>.conflict` beside the records (a load problem until it is removed).

A reader that sees a record waits for its writer (or, for a dead one, finishes the batch
itself) before it reads, so it never serves a half-applied batch (`recover(wait=...)`).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import re
import secrets
import stat
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

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
from storage.journal_steps import Step, apply_steps, digest, finish_steps
from storage.temps import DEFAULT_MODE

__all__ = ["CONFLICT_SUFFIX", "JOURNAL", "Journal", "JournalWrite", "is_journal_temp"]

log = logging.getLogger(__name__)

INDEX_FOLDER = ".tasks-index"
JOURNAL = f"{INDEX_FOLDER}/journal"
_SUFFIX = ".tasks-journal"
_TEMP = re.compile(r"\..+\.([0-9a-f]{16})" + re.escape(_SUFFIX))
_RECORD = re.compile(r"([0-9a-f]{16})\.json")
_RECORD_LIMIT = 64 * 1024 * 1024
CONFLICT_SUFFIX = ".conflict"
_POLL = 0.002  # seconds between two looks at a live writer's record, while waiting


@dataclass(frozen=True, slots=True)
class JournalWrite:
    """One file of a batch: its new bytes, and (for an existing file) what was read."""

    relative: str
    data: bytes
    seen: Seen | None = None  # None: a new file, never written over an existing one


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
            conflict = self._apply(txid, steps)  # if this fails, the next recovery ends it
            self._finish(txid, steps, conflict)
        if conflict is not None:
            raise Changed(conflict)

    def _stage(self, txid: str, write: JournalWrite, staged: list[Path]) -> Step:
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
            return Step("create", write.relative, 0, new=digest(write.data))
        return Step(
            "replace", write.relative, write.seen.ino, digest(write.seen.data), digest(write.data)
        )

    def _located(self, txid: str) -> Callable[[Step], tuple[Path, Path]]:
        def located(step: Step) -> tuple[Path, Path]:
            target = inside_root(self.root, step.target)
            return target, _temp_for(target, txid)

        return located

    def _apply(self, txid: str, steps: Sequence[Step]) -> str | None:
        """Every step in, or none: the target that was not as read, if one was."""
        return apply_steps(steps, self._located(txid))

    def _finish(self, txid: str, steps: Sequence[Step], conflict: str | None) -> None:
        """End an applied (or rolled-back) batch: its target folders fsynced, then its
        record removed, then its temporary files. A record that outlives a power cut is
        harmless once the swaps are durable (a replay finds every step applied), so its
        removal is fsynced only after a roll-back, whose temporary files hold the new bytes:
        a replay must never find the record with only some of those left."""
        located = self._located(txid)
        for folder in sorted({located(step)[0].parent for step in steps}):
            fsync_dir(folder)
        with contextlib.suppress(FileNotFoundError):
            (self.folder / f"{txid}.json").unlink()
        if conflict is not None:
            fsync_dir(self.folder)
        finish_steps(steps, located)

    # --- recovery --------------------------------------------------------------------

    def recover(self, wait: float = 0.0) -> int:
        """Replay or drop every record no live writer holds; returns how many were found.
        With `wait` (seconds), a live writer's batch is waited for (up to that long), so
        the tree is whole when this returns."""
        if not _is_real_folder(self.folder.parent) or not _is_real_folder(self.folder):
            return 0  # none, or a link: never followed (the next batch refuses to write)
        found = 0
        for name in os.listdir(self.folder):
            match = _RECORD.fullmatch(name)
            if match is not None:
                found += self._recover_one(match.group(1), time.monotonic() + wait)
        return found

    def _recover_one(self, txid: str, deadline: float) -> int:
        path = self.folder / f"{txid}.json"
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            return 0
        try:
            if not _lock_until(fd, deadline):
                return 0  # a live writer's batch
            steps = _read_record(fd)
            if steps is not None and _same_inode(fd, path):
                with contextlib.suppress(OSError, StorageError):  # a hostile record: dropped
                    self._replay(txid, steps)
            with contextlib.suppress(OSError):  # gone, or a read-only tree: tried again later
                os.unlink(path)
        finally:
            os.close(fd)
        return 1

    def _replay(self, txid: str, steps: Sequence[Step]) -> None:
        conflict = self._apply(txid, steps)
        if conflict is not None:
            self._report(txid, conflict, steps)
        self._finish(txid, steps, conflict)

    def _report(self, txid: str, conflict: str, steps: Sequence[Step]) -> None:
        """Leave a note of a batch a replay rolled back (a load problem until removed)."""
        message = (
            f"a batch of {len(steps)} file(s) left by a crashed writer was rolled back, not"
            f" replayed: {conflict} changed after the batch was staged, and a replay never"
            " overwrites a change; the files are as they were before the batch. Remove this"
            " note once seen."
        )
        log.warning("journal %s: %s", txid, message)
        note = {"conflict": conflict, "files": [s.target for s in steps], "message": message}
        fd = os.open(
            self.folder / f"{txid}{CONFLICT_SUFFIX}", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644
        )
        try:
            os.write(fd, json.dumps(note).encode())
        finally:
            os.close(fd)

    def conflicts(self) -> list[tuple[str, str]]:
        """(relative path, message) of every conflict note a replay left."""
        if not _is_real_folder(self.folder):
            return []
        notes = []
        for name in sorted(os.listdir(self.folder)):
            if name.endswith(CONFLICT_SUFFIX):
                notes.append((f"{JOURNAL}/{name}", _note_message(self.folder / name)))
        return notes

    def is_pending(self, txid: str) -> bool:
        """True while the record of `txid` exists (its temp files are not strays)."""
        return os.path.lexists(self.folder / f"{txid}.json")


def _lock_until(fd: int, deadline: float) -> bool:
    """Lock a record, trying until `deadline` (monotonic); False when a live writer holds
    it past then."""
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(_POLL)
        else:
            return True


def _note_message(path: Path) -> str:
    try:
        with path.open("rb") as note:
            return str(json.loads(note.read(64 * 1024))["message"])
    except (OSError, ValueError, KeyError, TypeError):
        return "a batch left by a crashed writer was rolled back (its note is unreadable)"


def _is_real_folder(path: Path) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except FileNotFoundError:
        return False


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


def _fill_record(fd: int, steps: Sequence[Step]) -> None:
    payload = {
        "version": 2,
        "steps": [
            {"kind": s.kind, "target": s.target, "ino": s.ino, "old": s.old, "new": s.new}
            for s in steps
        ],
    }
    data = json.dumps(payload).encode()
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    os.fsync(fd)


def _read_record(fd: int) -> list[Step] | None:
    """The steps of a committed record; None for one not committed (or not ours)."""
    data = read_bounded(fd, os.fstat(fd).st_size, _RECORD_LIMIT)
    try:
        payload = json.loads(data)
        return [_step_of(item) for item in payload["steps"]]
    except (ValueError, TypeError, KeyError):
        return None


def _step_of(item: dict[str, object]) -> Step:
    kind, target, ino = item["kind"], item["target"], item["ino"]
    if kind not in ("create", "replace") or not isinstance(target, str):
        raise ValueError(item)
    old, new = item.get("old", ""), item.get("new", "")
    if not isinstance(ino, int) or not isinstance(old, str) or not isinstance(new, str):
        raise TypeError(item)
    return Step(kind, target, ino, old, new)
