"""Git blob ids of the files on disk, computed here rather than by git.

Comparing the work tree with a commit through git (`git diff`, `git status`, `diff-index`)
makes git hash the files whose stat data it doubts, through the clean filter or filter
process the tree's `.gitattributes` names and its configuration defines (any program), and
runs `core.fsmonitor`. So the work tree is compared here: a file's blob id is the hash of
`blob <size>\\0<content>` (SHA-1, or SHA-256 in a SHA-256 repository), read as the reader
reads it, with no filter and no end-of-line conversion. A file whose stored form differs
(a clean filter, `eol=crlf`) then merely looks changed and is parsed to be compared, so the
answer stays right and only costs a parse.

Each id is kept with the file's stat (mtime, size, inode change time, inode), as git's index
keeps it: asking again about an untouched file costs one `stat`. The first time, git's index
lends its own record (`git ls-files --stage --debug`: each entry's blob id and the stat the
file had when git hashed it, read as data; no file content read by git): a file whose stat
still matches its entry, and is not racily clean (modified no earlier than the index was
written, as git itself checks), has the entry's blob id, so only the other files are read.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import weakref
from collections.abc import Iterable
from pathlib import Path

from storage.table import MARK_BYTES, mark_of

__all__ = ["DiskBlobs", "IndexHints", "blob_id", "disk_blobs", "index_hints"]

_CHUNK = 1 << 20
_ENTRY = re.compile(
    rb"(\d{6}) ([0-9a-f]{40,64}) (\d)\t([^\0]*)\0"
    rb"  ctime: (\d+):(\d+)\n  mtime: (\d+):(\d+)\n  dev: \d+\tino: (\d+)\n"
    rb"  uid: \d+\tgid: \d+\n  size: (\d+)\tflags: ([0-9a-f]+)\n"
)
_UNTRUSTED_FLAGS = (1 << 29) | (1 << 30)  # intent-to-add, skip-worktree: no stat to trust
_LOW = 0xFFFFFFFF  # the index keeps 32 bits of each number
_Stat = tuple[int, int, int, int, int, int]
IndexHints = dict[str, tuple[_Stat, str]]
"""Path → (the stat the index recorded, as `_index_stat` reads one; the entry's blob id)."""


def _index_stat(found: os.stat_result) -> _Stat:
    """A stat as git's index keeps it: seconds and nanoseconds of ctime and mtime, the inode
    and the size, 32 bits each."""
    ctime, mtime = divmod(found.st_ctime_ns, 10**9), divmod(found.st_mtime_ns, 10**9)
    return (
        ctime[0] & _LOW, ctime[1], mtime[0] & _LOW, mtime[1], found.st_ino & _LOW,
        found.st_size & _LOW,
    )  # fmt: skip


def index_hints(listing: bytes, written_ns: int) -> IndexHints:
    """The entries of `git ls-files -z --stage --debug` (paths as listed) whose stat can
    vouch for their blob id: stage 0, regular files, not intent-to-add or skip-worktree, and
    modified before the index was written at `written_ns` (else racily clean)."""
    written = divmod(written_ns, 10**9)
    found: IndexHints = {}
    for entry in _ENTRY.finditer(listing):
        mode, blob, stage, path, *numbers, flags = entry.groups()
        recorded = tuple(int(n) for n in numbers)
        if stage != b"0" or mode not in (b"100644", b"100755"):
            continue
        if int(flags, 16) & _UNTRUSTED_FLAGS or (recorded[2], recorded[3]) >= written:
            continue
        name = path.decode("utf-8", "surrogateescape")
        found[name] = (recorded, blob.decode())  # type: ignore[assignment]
    return found


def blob_id(data: bytes, algorithm: str = "sha1") -> str:
    """Git's id of a blob holding `data`.

    >>> blob_id(b"")
    'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391'
    """
    hashed = hashlib.new(algorithm, b"blob %d\0" % len(data))
    hashed.update(data)
    return hashed.hexdigest()


def _stat_mark(found: os.stat_result) -> bytes:
    return mark_of((found.st_mtime_ns, found.st_size), (found.st_ctime_ns, found.st_ino))


def _file_id(path: Path, size: int, algorithm: str) -> bytes | None:
    hashed = hashlib.new(algorithm, b"blob %d\0" % size)
    try:
        with path.open("rb") as file:
            read = 0
            while chunk := file.read(_CHUNK):
                hashed.update(chunk)
                read += len(chunk)
    except OSError:
        return None
    return hashed.digest() if read == size else None


class DiskBlobs:
    """Blob ids of the files under one root, remembered by stat (one per object holding it):
    each as one `bytes`, the stat mark then the digest (about 90 bytes a file)."""

    def __init__(self, root: Path, algorithm: str) -> None:
        self.root = root
        self.algorithm = algorithm
        self._known: dict[str, bytes] = {}

    def ids(self, paths: Iterable[str], hints: IndexHints | None = None) -> dict[str, str | None]:
        """Each path's blob id (None: no regular file there, or unreadable), taken from
        `hints` where a file's stat matches its entry; ids of paths not asked about this
        time are forgotten."""
        found: dict[str, str | None] = {}
        known: dict[str, bytes] = {}
        for path in paths:
            kept = self._id(path, (hints or {}).get(path))
            if kept is not None:
                known[path] = kept
            found[path] = None if kept is None else kept[MARK_BYTES:].hex()
        self._known = known
        return found

    def _id(self, path: str, hint: tuple[_Stat, str] | None) -> bytes | None:
        """The stat mark and digest of the file at `path`, hashed again only when its stat
        changed (and no index entry vouches for it)."""
        try:
            looked = os.stat(self.root / path, follow_symlinks=False)
        except OSError:
            return None
        mark = _stat_mark(looked)
        kept = self._known.get(path)
        if kept is not None and kept[:MARK_BYTES] == mark:
            return kept
        if not stat.S_ISREG(looked.st_mode):
            return None
        if hint is not None and hint[0] == _index_stat(looked):
            return mark + bytes.fromhex(hint[1])
        digest = _file_id(self.root / path, looked.st_size, self.algorithm)
        return None if digest is None else mark + digest


_KEPT: weakref.WeakKeyDictionary[object, DiskBlobs] = weakref.WeakKeyDictionary()


def disk_blobs(owner: object, root: Path, algorithm: str) -> DiskBlobs:
    """The `DiskBlobs` kept for `owner` (a file table: it lives as long as the table)."""
    kept = _KEPT.get(owner)
    if kept is None or kept.root != root or kept.algorithm != algorithm:
        kept = _KEPT[owner] = DiskBlobs(root, algorithm)
    return kept
