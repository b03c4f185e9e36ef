"""The apply phase of a journal batch: one guarded swap per file, all or none.

Every step of a committed batch has its new bytes staged at a temporary name beside its
target. A step is applied when its target is still what the batch read (same inode, same
bytes by SHA-256) by swapping the staged file with it in one atomic exchange (Linux
`renameat2`), then checking that what it displaced is that same file: if not, an editor
saved between the check and the swap, and the exchange is undone at once, so the editor's
file stays. Checking first means a save made earlier never sees our file shown and then
taken back. The displaced old files are
kept at the temporary names until every step is in, so a batch that meets such a save
rolls every step it made back, and the batch is a Conflict with nothing of it written.

The same walk finishes a batch after a crash: each step's state is read from the files
themselves (the temporary name holds the new bytes: not applied yet; the old ones:
applied), so a replay applies what is missing, and a target changed since it was staged
is never overwritten: the batch is rolled back instead and the conflict reported.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from storage.files import exchange

__all__ = ["Step", "apply_steps", "digest", "finish_steps", "roll_back"]


@dataclass(frozen=True, slots=True)
class Step:
    """One file of a batch. `old` is the SHA-256 of the bytes the batch read ("" for a new
    file); `new` that of the staged bytes ("" in a record of an older server)."""

    kind: Literal["create", "replace"]
    target: str
    ino: int  # the inode replaced (0 for a new file)
    old: str = ""
    new: str = ""


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _looked_at(path: Path) -> tuple[int, str] | None:
    """(inode, SHA-256 of the bytes) of a file; None when there is none."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except (FileNotFoundError, OSError):
        return None
    try:
        hasher = hashlib.sha256()
        while chunk := os.read(fd, 1 << 20):
            hasher.update(chunk)
        return os.fstat(fd).st_ino, hasher.hexdigest()
    finally:
        os.close(fd)


def _is_old(step: Step, found: tuple[int, str] | None) -> bool:
    """True when `found` is the file the batch read."""
    return found is not None and found[0] == step.ino and (not step.old or found[1] == step.old)


def _is_applied(step: Step, target: Path, temp: Path) -> bool:
    """True when the step is in (or nothing of it is left to do)."""
    staged = _looked_at(temp)
    if staged is None:
        return True  # done, and its temporary file gone
    if step.kind == "create":
        now = _looked_at(target)
        return now is not None and now[0] == staged[0]
    if step.new:
        return staged[1] != step.new  # the temporary name holds the displaced old file
    return _is_old(step, staged)


def _swap_in(step: Step, target: Path, temp: Path) -> bool:
    """Put one staged file in place; False (nothing changed) when the target is not what
    the batch read."""
    if step.kind == "create":
        try:
            os.link(temp, target)
        except FileExistsError:
            return False
        return True
    if not _is_old(step, _looked_at(target)):
        return False  # saved over since the batch read it: ours is never shown
    if not exchange(temp, target):  # no atomic exchange here: the check above must do
        _swap_by_renames(temp, target)
        return True
    if _is_old(step, _looked_at(temp)):
        return True
    exchange(temp, target)  # a save landed between the check and the swap: it goes back
    return False


def _swap_by_renames(first: Path, second: Path) -> None:
    """Swap two names in three renames (where `renameat2` is missing: not atomic)."""
    aside = first.with_name(first.name + ".aside")
    os.rename(second, aside)
    os.rename(first, second)
    os.rename(aside, first)


def _swap_out(step: Step, target: Path, temp: Path) -> None:
    """Undo one applied step, unless the target changed since (a save on top of ours)."""
    now = _looked_at(target)
    if now is None:
        return
    if step.kind == "create":
        staged = _looked_at(temp)
        if staged is not None and staged[0] == now[0]:
            os.unlink(target)
        return
    if step.new and now[1] != step.new:
        return  # edited after our swap: the editor's file stays
    if not exchange(temp, target):
        _swap_by_renames(temp, target)
    elif _looked_at(temp) != now:
        exchange(temp, target)  # saved over in between: the save stays


Located = Callable[[Step], tuple[Path, Path]]


def apply_steps(steps: Sequence[Step], located: Located) -> str | None:
    """Apply every step not yet applied; on the first target that is not what the batch
    read, roll back the steps applied and return that target (None: all applied)."""
    done: list[Step] = []
    for step in steps:
        target, temp = located(step)
        if not _is_applied(step, target, temp) and not _swap_in(step, target, temp):
            roll_back(done, located)
            return step.target
        done.append(step)
    return None


def roll_back(steps: Sequence[Step], located: Located) -> None:
    for step in reversed(steps):
        target, temp = located(step)
        if os.path.lexists(temp):
            _swap_out(step, target, temp)


def finish_steps(steps: Sequence[Step], located: Located) -> None:
    """Remove the temporary files (displaced old files, or staged ones of a rolled-back
    batch)."""
    for step in steps:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(located(step)[1])
