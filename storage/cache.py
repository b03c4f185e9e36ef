"""The warm-start cache: what every file held at the last load, kept in the root.

`<root>/.tasks-index/files.json` maps each path to its stamp (mtime_ns, size) and the task
or problem read from it. A later load re-reads only the files whose stamp differs. The
cache is an optimisation only: it is versioned, written atomically, and anything wrong
with it (missing, corrupt, another version, another root) means a normal full read.
JSON, not pickle: a task tree may come from anyone's git push, and loading it must never
run code. For the same reason the cache is read only from a regular file in a real folder
(never through a link, never a pipe or a device) and only up to `MAX_CACHE_BYTES`; it is
written only into a real `.tasks-index` folder, created with a `.gitignore` of `*` so that
it stays out of `git status`.

The rows are decoded by msgspec straight into the model's dataclasses, types checked on the
way (2.5 times faster than `json` plus building the objects in Python). Only results that
JSON gives back exactly are stored: a task whose extra keys hold a non-string mapping key
(`{1: a}`) or a non-finite float, or whose timestamp has a seconds offset, is left out of
the cache and simply read again at the next start.

>>> from storage.model import Task
>>> result = FileResult("a.md", (1, 2), Task(id="a", title="A", path="a.md"))
>>> loads(dumps(Path("/r"), [result]), Path("/r")) == {"a.md": result}
True
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import MappingProxyType
from typing import Any

import msgspec

from storage.bulk import gc_paused
from storage.errors import UnsafeFolder
from storage.files import atomic_write, is_server_folder_safe, read_regular, server_folder
from storage.model import share_strings
from storage.table import FileResult

__all__ = [
    "CACHE_FILE",
    "MAX_CACHE_BYTES",
    "VERSION",
    "dumps",
    "is_storable",
    "load",
    "loads",
    "save",
]

VERSION = 4  # 4: a result keeps its inode change time and inode
INDEX_FOLDER = ".tasks-index"
CACHE_FILE = f"{INDEX_FOLDER}/files.json"
MAX_CACHE_BYTES = 1 << 30  # 16 MB at 10k tasks: room for 100k and more
_MINUTE = timedelta(minutes=1)
_EMPTY: Mapping[str, Any] = MappingProxyType({})


class _Payload(msgspec.Struct):
    version: int
    root: str
    files: list[FileResult]


def _to_plain(value: object) -> object:
    """msgspec's hook for types it does not know: the read-only `extra` mapping."""
    if isinstance(value, MappingProxyType):
        return dict(value)
    raise NotImplementedError(f"cannot cache {type(value).__name__}")


_ENCODER = msgspec.json.Encoder(enc_hook=_to_plain)
_DECODER = msgspec.json.Decoder(_Payload)


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


def dumps(root: Path, results: Iterable[FileResult]) -> bytes:
    """The cache file's bytes for `root`: every storable result."""
    files = [result for result in results if is_storable(result)]
    return _ENCODER.encode(_Payload(VERSION, str(root), files))


def _is_consistent(result: FileResult) -> bool:
    """A row's task and problem name the row's own path."""
    task, problem = result.task, result.problem
    return (task is None or task.path == result.path) and (
        problem is None or problem.path == result.path
    )


def _as_parsed(result: FileResult) -> FileResult:
    """A decoded row made like a parsed one: the task's `extra` read-only, its repeated
    strings shared (`share_strings`), and one path object for the row and its task (the
    decoder makes two)."""
    task = result.task
    if task is not None:
        extra = MappingProxyType(task.extra) if task.extra else _EMPTY
        object.__setattr__(task, "extra", extra)  # just decoded, not yet shared
        object.__setattr__(result, "path", task.path)  # equal: `_is_consistent`
        share_strings(task)
    return result


def loads(data: bytes, root: Path) -> dict[str, FileResult]:
    """The cached files by path; empty unless `data` is a cache of this version for `root`."""
    try:
        payload = _DECODER.decode(data)
    except (msgspec.DecodeError, RecursionError):  # not JSON, not the shape, nested too deep
        return {}
    if payload.version != VERSION or payload.root != str(root):
        return {}
    if not all(_is_consistent(result) for result in payload.files):
        return {}
    return {result.path: _as_parsed(result) for result in payload.files}


def save(root: Path, results: Iterable[FileResult]) -> None:
    """Write the cache for `root` atomically (a reader sees the old cache or the new).
    OSError when it cannot be written: a read-only root, or `.tasks-index` a link (never
    written through)."""
    try:
        server_folder(root, INDEX_FOLDER)
    except UnsafeFolder as exc:
        raise OSError(str(exc)) from exc
    atomic_write(root / CACHE_FILE, dumps(root, results))


def load(root: Path) -> dict[str, FileResult]:
    """The cached files of `root` by path; empty when there is no usable cache (none, a
    corrupt one, or one that is a link, a pipe, a device or over the size cap)."""
    if not is_server_folder_safe(root, INDEX_FOLDER):
        return {}
    data = read_regular(root / CACHE_FILE, MAX_CACHE_BYTES)
    if isinstance(data, str):
        return {}
    with gc_paused():  # tens of thousands of new objects, no cycles: spare the collector
        return loads(data, root)
