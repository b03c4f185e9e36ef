"""Git blob ids of the files on disk, computed here rather than by git.

Comparing the work tree with a commit through git (`git diff`, `git status`, `diff-index`)
makes git hash the files whose stat data it doubts, through the clean filter or filter
process the tree's `.gitattributes` names and its configuration defines (any program), and
runs `core.fsmonitor`. So the work tree is compared here: a file's blob id is the hash of
`blob <size>\\0<content>` (SHA-1, or SHA-256 in a SHA-256 repository), read as the reader
reads it, with no filter and no end-of-line conversion. A file whose stored form differs
(a clean filter, `eol=crlf`) then merely looks changed and is parsed to be compared, so the
answer stays right and only costs a parse.

An id is that of the content the file table read (the table's results carry the stat each
file had then: mtime, size, inode change time, inode), kept with that stat as git's index
keeps it: asking again about a file the table has not re-read costs nothing. The first
time, git's index lends its own record (`git ls-files --stage --debug`: each entry's blob
id and the stat the file had when git hashed it, read as data; git opens no work-tree
file): a file whose stat still matches its entry, and is not racily clean (modified no
earlier than the index was written, as git itself checks), has the entry's blob id, so only
the other files are read.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import weakref
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from storage.table import MARK_BYTES, FileResult, mark_of

__all__ = ["NO_HINTS", "DiskBlobs", "IndexHints", "blob_id", "disk_blobs", "index_hints"]

_CHUNK = 1 << 20
_ENTRY = re.compile(
    rb"(\d{6}) ([0-9a-f]{40,64}) (\d)\t([^\0]*)\0"
    rb"  ctime: (\d+:\d+)\n  mtime: (\d+:\d+)\n  dev: \d+\tino: (\d+)\n"
    rb"  uid: \d+\tgid: \d+\n  size: (\d+)\tflags: ([0-9a-f]+)\n"
)
_UNTRUSTED_FLAGS = (1 << 29) | (1 << 30)  # intent-to-add, skip-worktree: no stat to trust
_LOW = 0xFFFFFFFF  # the index keeps 32 bits of each number


@dataclass(frozen=True, slots=True)
class IndexHints:
    """Git's index entries that may vouch for a file: path → (the stat recorded, as
    `_index_stat` spells one; the blob id), and when the index was written (ns): an entry
    whose file was modified no earlier is racily clean and vouches for nothing."""

    entries: dict[str, tuple[bytes, str]]
    written_ns: int

    def blob_of(self, result: FileResult) -> str | None:
        """The blob id an entry vouches for the content `result` was read from, if any."""
        entry = self.entries.get(result.path)
        if entry is None or result.stamp[0] >= self.written_ns:
            return None
        return entry[1] if entry[0] == _index_stat(result) else None


NO_HINTS = IndexHints({}, 0)


def _index_stat(result: FileResult) -> bytes:
    """The stat a result was read at, as `git ls-files --debug` shows an entry's: ctime and
    mtime as seconds:nanoseconds, the inode and the size, 32 bits each."""
    (mtime_ns, size), (ctime_ns, inode) = result.stamp, result.changed
    ctime, mtime = divmod(ctime_ns, 10**9), divmod(mtime_ns, 10**9)
    numbers = (ctime[0] & _LOW, ctime[1], mtime[0] & _LOW, mtime[1], inode & _LOW, size & _LOW)
    return b"%d:%d %d:%d %d %d" % numbers


def index_hints(listing: bytes, written_ns: int) -> IndexHints:
    """The entries of `git ls-files -z --stage --debug` (paths as listed) whose stat can
    vouch for their blob id: stage 0, regular files, not intent-to-add or skip-worktree."""
    found: dict[str, tuple[bytes, str]] = {}
    for entry in _ENTRY.finditer(listing):
        mode, blob, stage, path, ctime, mtime, inode, size, flags = entry.groups()
        if stage != b"0" or mode not in (b"100644", b"100755"):
            continue
        if int(flags, 16) & _UNTRUSTED_FLAGS:
            continue
        name = path.decode("utf-8", "surrogateescape")
        found[name] = (b"%s %s %s %s" % (ctime, mtime, inode, size), blob.decode())
    return IndexHints(found, written_ns)


def blob_id(data: bytes, algorithm: str = "sha1") -> str:
    """Git's id of a blob holding `data`.

    >>> blob_id(b"")
    'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391'
    """
    hashed = hashlib.new(algorithm, b"blob %d\0" % len(data))
    hashed.update(data)
    return hashed.hexdigest()


def _file_id(path: str, mark: bytes, algorithm: str) -> bytes | None:
    """The digest of the file at `path` if it still has the stat `mark` (else None: it is
    no longer what the table read)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        looked = os.fstat(fd)
        now = mark_of((looked.st_mtime_ns, looked.st_size), (looked.st_ctime_ns, looked.st_ino))
        if not stat.S_ISREG(looked.st_mode) or now != mark:
            return None
        hashed = hashlib.new(algorithm, b"blob %d\0" % looked.st_size)
        read = 0
        while chunk := os.read(fd, _CHUNK):
            hashed.update(chunk)
            read += len(chunk)
    except OSError:
        return None
    finally:
        os.close(fd)
    return hashed.digest() if read == looked.st_size else None


class DiskBlobs:
    """Blob ids of the files a file table read under one root, remembered by the stat the
    table read each at (one `bytes` a file, that mark then the digest: about 90 bytes)."""

    def __init__(self, root: Path, algorithm: str) -> None:
        self.root = root
        self.algorithm = algorithm
        self._known: dict[str, bytes] = {}

    def ids(
        self, results: Iterable[FileResult], hints: IndexHints = NO_HINTS
    ) -> dict[str, str | None]:
        """The blob id of the content each result was read from (None: unknown, the file
        changed or went since): remembered, vouched for by an index entry with the same
        stat, or read again while the file still has that stat. Ids of files not asked
        about this time are forgotten."""
        found: dict[str, str | None] = {}
        known: dict[str, bytes] = {}
        root = str(self.root)
        for result in results:
            kept = self._known.get(result.path)
            if kept is None or kept[:MARK_BYTES] != result.mark:
                kept = self._id(root, result, hints.blob_of(result))
            if kept is not None:
                known[result.path] = kept
            found[result.path] = None if kept is None else kept[MARK_BYTES:].hex()
        self._known = known
        return found

    def _id(self, root: str, result: FileResult, vouched: str | None) -> bytes | None:
        if vouched is not None:
            return result.mark + bytes.fromhex(vouched)
        path = os.path.join(root, *result.path.split("/"))
        digest = _file_id(path, result.mark, self.algorithm)
        return None if digest is None else result.mark + digest


_KEPT: weakref.WeakKeyDictionary[object, DiskBlobs] = weakref.WeakKeyDictionary()


def disk_blobs(owner: object, root: Path, algorithm: str) -> DiskBlobs:
    """The `DiskBlobs` kept for `owner` (a file table: it lives as long as the table)."""
    kept = _KEPT.get(owner)
    if kept is None or kept.root != root or kept.algorithm != algorithm:
        kept = _KEPT[owner] = DiskBlobs(root, algorithm)
    return kept
