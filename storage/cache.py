"""The warm-start cache: what every file held at the last load, kept in the root.

`<root>/.tasks-index/files.jsonl` holds each path's stamp (mtime_ns, size) and the task or
problem read from it. A later load re-reads only the files whose stamp differs. The cache
is an optimisation only: it is versioned, written atomically, and anything wrong with it
(missing, corrupt, another version, another root) means a normal full read. So it is never
fsynced: a power cut can leave the old cache, or the new one cut short or with zeroed
blocks (a line that is not whole rows throws the whole cache away); a file the cache lacks
or holds under another stamp is read again. The fsyncs of a write stay the task file's own.
JSON, not pickle: a task tree may come from anyone's git push, and loading it must never
run code. For the same reason the cache is read only from a regular file in a real folder
(never through a link, never a pipe or a device) and only up to `MAX_CACHE_BYTES`; it is
written only into a real `.tasks-index` folder, created with a `.gitignore` of `*` so that
it stays out of `git status`.

Each save names the cache with a new random token (in its header). Beside it,
`FACTS_FILE` keeps what the index derived from the same files (opaque here: `graph._facts`),
under that token: facts of another cache, or of none, are never handed out.

JSON Lines: a header line (version, root, token), then lines of up to `FRAME_ROWS` rows each
(fewer when their files are large: a line stays far under `MAX_FRAME_BYTES`).
It is written and read a line at a time, so neither side ever holds the whole file (1.3 GB
at a million tasks), and each line's repeated strings are shared (`share_all_strings`) before
the next line is decoded: the copies it frees are reused by the next line instead of
leaving holes all over the heap.

The rows are decoded by msgspec straight into the model's dataclasses, types checked on the
way (2.5 times faster than `json` plus building the objects in Python); a task's packed
body is base64 in the file and bytes again in memory, never unpacked on the way. Only
results that JSON gives back exactly are stored: a task whose extra keys hold a non-string
mapping key (`{1: a}`) or a non-finite float, or whose timestamp has a seconds offset, is
left out of the cache and simply read again at the next start.

>>> from storage.model import Task
>>> result = FileResult.of("a.md", (1, 2), Task(id="a", title="A", path="a.md"))
>>> loads(dumps(Path("/r"), [result]), Path("/r")) == {"a.md": result}
True
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import MappingProxyType
from typing import Any, BinaryIO

import msgspec

from storage.bulk import gc_paused
from storage.errors import UnsafeFolder
from storage.files import (
    atomic_write,
    is_server_folder_safe,
    open_regular,
    read_regular,
    server_folder,
)
from storage.model import Task, packed_size, share_all_strings
from storage.table import MARK_BYTES, FileResult

__all__ = [
    "CACHE_FILE",
    "FACTS_FILE",
    "MAX_CACHE_BYTES",
    "VERSION",
    "LineReader",
    "dumps",
    "frames",
    "is_storable",
    "load",
    "load_facts",
    "load_tagged",
    "loads",
    "new_token",
    "read_lines",
    "save",
    "save_facts",
    "stored_bytes",
]

VERSION = 6  # 6: bodies packed by zstd; 5: JSON Lines, bodies deflated; 4: a result keeps
# its inode change time and inode
INDEX_FOLDER = ".tasks-index"
CACHE_FILE = f"{INDEX_FOLDER}/files.jsonl"
FACTS_FILE = f"{INDEX_FOLDER}/facts.msgpack"
"""What the index derived from the files of one cache (`save_facts`), under that cache's
token: valid only beside the very cache it was saved with."""
MAX_FACTS_BYTES = 1 << 30
_OLD_CACHE_FILE = f"{INDEX_FOLDER}/files.json"  # version 4 and before: removed at a save
MAX_CACHE_BYTES = 1 << 34  # 1.3 GB at a million tasks; read a line at a time
FRAME_ROWS = 1024
FRAME_FILE_BYTES = 1 << 25  # a line holds rows of at most this many file bytes, plus one
MAX_FRAME_BYTES = 1 << 28  # the longest line read; a line is about 1 MB at 1,024 rows
_MINUTE = timedelta(minutes=1)
_EMPTY: Mapping[str, Any] = MappingProxyType({})


class _Header(msgspec.Struct):
    version: int
    root: str
    token: str = ""  # new at each save: what `FACTS_FILE` names to say which cache it fits


def new_token() -> str:
    """A cache's name for itself, different at every save (a reader older than tokens
    ignores it)."""
    return os.urandom(12).hex()


def _to_plain(value: object) -> object:
    """msgspec's hook for types it does not know: the read-only `extra` mapping."""
    if isinstance(value, MappingProxyType):
        return dict(value)
    raise NotImplementedError(f"cannot cache {type(value).__name__}")


_SET_EXTRA = Task.__dict__["extra"].__set__  # the slots' own setters (`model.share_strings`)
_SET_PATH = FileResult.__dict__["path"].__set__
_ENCODER = msgspec.json.Encoder(enc_hook=_to_plain)
_HEADER = msgspec.json.Decoder(_Header)
_ROWS = msgspec.json.Decoder(list[FileResult])


def _is_exact(value: object) -> bool:
    """True for a value JSON gives back equal and of the same type."""
    if value is None or type(value) in (str, bool, int):
        return True
    if type(value) is float:
        return math.isfinite(value)
    if type(value) is list:
        return all(_is_exact(item) for item in value)
    if type(value) is dict:
        return all(type(key) is str and _is_exact(item) for key, item in value.items())
    return False


def _is_exact_offset(value: datetime) -> bool:
    """RFC 3339 offsets are whole minutes; Python allows seconds, which would be lost."""
    offset = value.utcoffset()
    return offset is not None and not offset % _MINUTE


def is_storable(result: FileResult) -> bool:
    """True when the cache gives `result` back exactly (almost always)."""
    task = result.task
    if task is None:
        return True
    for time in (task.due, task.created, task.modified, task.completed):
        if time is not None and time.tzinfo is not UTC and not _is_exact_offset(time):
            return False
    return not task.extra or _is_exact(dict(task.extra))


def frames(
    root: Path, results: Iterable[FileResult], token: str = "", rows_a_line: int = FRAME_ROWS
) -> Iterator[bytes]:
    """The cache file's lines for `root`, one at a time: the header, then every storable
    result, `rows_a_line` to a line."""
    yield _ENCODER.encode(_Header(VERSION, str(root), token)) + b"\n"
    rows: list[FileResult] = []
    size = 0  # of the rows' files: a line of rows encodes to at most about twice that
    for result in results:
        if is_storable(result):
            rows.append(result)
            size += result.stamp[1]
        if len(rows) == rows_a_line or size >= FRAME_FILE_BYTES:
            yield _ENCODER.encode(rows) + b"\n"
            rows.clear()
            size = 0
    if rows:
        yield _ENCODER.encode(rows) + b"\n"


def write_lines(out: BinaryIO, root: Path, results: Iterable[FileResult], rows_a_line: int) -> None:
    """`frames` written to `out` as they come, each line flushed once whole: a forked
    child's results, which its parent's `LineReader` takes while the child goes on."""
    for line in frames(root, results, rows_a_line=rows_a_line):
        out.write(line)
        out.flush()


def dumps(root: Path, results: Iterable[FileResult]) -> bytes:
    """The cache file's bytes for `root`: every storable result."""
    return b"".join(frames(root, results))


def _as_parsed(rows: list[FileResult]) -> list[FileResult] | None:
    """Decoded rows made like parsed ones, in place, when each is consistent (else None):
    its mark whole, its task and problem naming the row's own path, its task's body a
    packed one no bigger than a row's file can be (read from the frame's header: a forged
    size would otherwise be allocated when the body is read). Made like parsed: each task's
    `extra` read-only, one path object for the row and its task (the decoder makes two),
    and the repeated strings shared (`share_all_strings`, one call for the line). One loop
    for all of it: a call a row was a tenth of a warm load's decoding."""
    tasks = []
    for result in rows:
        task, problem = result.task, result.problem
        if len(result.mark) != MARK_BYTES or (problem is not None and problem.path != result.path):
            return None
        if task is not None:
            size = packed_size(task.packed_body)  # 0 for none, None for no frame
            if task.path != result.path or size is None or size > FRAME_FILE_BYTES:
                return None
            _SET_EXTRA(task, MappingProxyType(task.extra) if task.extra else _EMPTY)
            _SET_PATH(result, task.path)
            tasks.append(task)
    share_all_strings(tasks)
    return rows


def _rows(line: bytes) -> list[FileResult] | None:
    """One line's rows made like parsed ones; None when the line is not a line of rows."""
    try:
        rows = _ROWS.decode(line)
    except (msgspec.DecodeError, RecursionError):  # not JSON, not the shape, nested too deep
        return None
    return _as_parsed(rows)


class LineReader:
    """A cache's lines taken one at a time, as they come (a child's, `storage.forked_read`):
    the files by path so far, or nothing at all once a line is not whole rows, or the
    header does not name this version and root."""

    def __init__(self, root: Path) -> None:
        self.found: dict[str, FileResult] = {}
        self.token = ""
        self.broken = False
        self._root = str(root)
        self.has_header = False  # the first line taken

    def take(self, line: bytes) -> None:
        """Read one more line (nothing once broken)."""
        if self.broken:
            return
        if not self.has_header:
            self.has_header = True
            self._take_header(line)
            return
        rows = _rows(line) if line.endswith(b"\n") else None  # cut short, or over the cap
        if rows is None:
            self._break()
        else:
            self.found.update((result.path, result) for result in rows)

    def take_all(self, lines: Iterable[bytes]) -> None:
        """Read each of `lines` in turn, up to the first that breaks it."""
        for line in lines:
            self.take(line)
            if self.broken:
                return

    def _take_header(self, line: bytes) -> None:
        try:
            header = _HEADER.decode(line)
        except msgspec.DecodeError:
            self._break()
            return
        if header.version != VERSION or header.root != self._root:
            self._break()
        self.token = header.token

    def _break(self) -> None:
        self.broken = True
        self.found = {}
        self.token = ""


def _read(lines: Iterator[bytes], root: Path) -> tuple[dict[str, FileResult], str]:
    """The cached files by path from the cache's lines, and the cache's token; nothing
    unless every line is whole and the header names this version and `root`."""
    reader = LineReader(root)
    reader.take_all(lines)
    if not reader.has_header:  # no line at all
        return {}, ""
    return reader.found, reader.token


def read_lines(lines: Iterator[bytes], root: Path) -> dict[str, FileResult]:
    """The files by path from a cache's lines (`frames`) as they come; empty unless every
    line is whole."""
    return _read(lines, root)[0]


def loads(data: bytes, root: Path) -> dict[str, FileResult]:
    """The cached files by path; empty unless `data` is a cache of this version for `root`."""
    return _read(iter(data.splitlines(keepends=True)), root)[0]


def _index_folder(root: Path) -> None:
    """The root's `.tasks-index` folder, made if missing; OSError when it cannot be (a
    read-only root) or must not be written through (a link)."""
    try:
        server_folder(root, INDEX_FOLDER)
    except UnsafeFolder as exc:
        raise OSError(str(exc)) from exc


def save(root: Path, results: Iterable[FileResult], token: str = "") -> None:
    """Write the cache for `root` atomically (a reader sees the old cache or the new), a
    line at a time, named `token` (`new_token`). OSError when it cannot be written: a
    read-only root, or `.tasks-index` a link (never written through)."""
    _index_folder(root)
    atomic_write(root / CACHE_FILE, frames(root, results, token), durable=False)  # see `load`
    with contextlib.suppress(OSError):
        os.unlink(root / _OLD_CACHE_FILE)  # an older version's, never read again


def _lines(fd: int) -> Iterator[bytes]:
    """The lines of an open file, each at most `MAX_FRAME_BYTES` with its newline (a longer
    one comes back cut, without its newline)."""
    with open(fd, "rb", buffering=1 << 20, closefd=False) as stream:
        while line := stream.readline(MAX_FRAME_BYTES):
            yield line


def load(root: Path) -> dict[str, FileResult]:
    """The cached files of `root` by path; empty when there is no usable cache (none, a
    corrupt one, or one that is a link, a pipe, a device or over the size cap)."""
    return load_tagged(root)[0]


def load_tagged(root: Path) -> tuple[dict[str, FileResult], str]:
    """`load`, and the token the cache was saved under ("" for none)."""
    if not is_server_folder_safe(root, INDEX_FOLDER):
        return {}, ""
    opened = open_regular(root / CACHE_FILE, MAX_CACHE_BYTES)
    if isinstance(opened, str):
        return {}, ""
    fd, _ = opened
    try:
        with gc_paused():  # tens of thousands of new objects, no cycles: spare the collector
            return _read(_lines(fd), root)
    finally:
        os.close(fd)


def stored_bytes(root: Path) -> int:
    """The size of `root`'s cache file (0 for none): how long its decoding will take, told
    before it is decoded (`storage.forked_walk`); one stat, nothing checked."""
    try:
        return os.stat(root / CACHE_FILE).st_size
    except OSError:
        return 0


def save_facts(root: Path, token: str, facts: bytes) -> None:
    """Keep `facts` (the index's, opaque here) beside the cache named `token`, atomically.
    OSError as `save`."""
    _index_folder(root)
    atomic_write(root / FACTS_FILE, token.encode() + b"\n" + facts, durable=False)  # as the cache


def load_facts(root: Path, token: str) -> bytes | None:
    """The facts saved beside the cache named `token`; None when there are none for it (no
    file, another cache's, a token of "", or a file that is a link, a pipe or too big)."""
    if not token or not is_server_folder_safe(root, INDEX_FOLDER):
        return None
    data = read_regular(root / FACTS_FILE, MAX_FACTS_BYTES)
    if isinstance(data, str):
        return None
    saved, _, facts = data.partition(b"\n")
    return facts if saved == token.encode() else None
