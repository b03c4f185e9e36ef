"""The warm-start cache: what every file held at the last load, kept in the root.

`<root>/.tasks-index/files.json` maps each path to its stamp (mtime_ns, size) and the task
or problem read from it. A later load re-reads only the files whose stamp differs. The
cache is an optimisation only: it is versioned, written atomically, and anything wrong
with it (missing, corrupt, another version, another root) means a normal full read.
JSON, not pickle: a task tree may come from anyone's git push, and loading it must never
run code.

>>> from storage.model import Task
>>> result = FileResult("a.md", (1, 2), Task(id="a", title="A", path="a.md"))
>>> from_json(to_json(result)) == result
True
"""

from __future__ import annotations

import gc
import json
from collections.abc import Iterable
from dataclasses import fields
from datetime import datetime
from pathlib import Path
from types import MappingProxyType
from typing import Any, cast

from storage.files import atomic_write
from storage.model import Task
from storage.table import FileResult, Problem, ProblemKind

__all__ = ["CACHE_FILE", "VERSION", "from_json", "load", "save", "to_json"]

VERSION = 2
CACHE_FILE = ".tasks-index/files.json"
_TIMES = ("due", "created", "modified", "completed")
_TUPLES = ("depends_on", "soft_depends_on", "tags")
_FIELDS = tuple(field.name for field in fields(Task))


_TIME_AT = tuple(_FIELDS.index(name) for name in _TIMES)
_TUPLE_AT = tuple(_FIELDS.index(name) for name in _TUPLES)
_EXTRA_AT = _FIELDS.index("extra")


def _task_to_json(task: Task) -> list[Any]:
    """The task's fields in declaration order (positional: half the size of a mapping)."""
    row: list[Any] = [getattr(task, name) for name in _FIELDS]
    for at in _TIME_AT:
        row[at] = row[at].isoformat() if row[at] is not None else None
    for at in _TUPLE_AT:
        row[at] = list(row[at])
    row[_EXTRA_AT] = dict(task.extra)
    return row


def _task_from_json(row: list[Any]) -> Task:
    if len(row) != len(_FIELDS):
        raise ValueError("cached task has the wrong shape")
    for at in _TIME_AT:
        if row[at] is not None:
            row[at] = datetime.fromisoformat(row[at])
    for at in _TUPLE_AT:
        row[at] = tuple(row[at])
    row[_EXTRA_AT] = MappingProxyType(row[_EXTRA_AT])
    return Task(*row)


def to_json(result: FileResult) -> list[Any]:
    task = _task_to_json(result.task) if result.task is not None else None
    problem = result.problem
    return [
        result.path,
        list(result.stamp),
        task,
        [problem.kind, problem.message] if problem is not None else None,
    ]


def from_json(row: list[Any]) -> FileResult:
    path, stamp, task, problem = row
    return FileResult(
        path,
        (int(stamp[0]), int(stamp[1])),
        _task_from_json(task) if task is not None else None,
        Problem(path, cast(ProblemKind, problem[0]), problem[1]) if problem is not None else None,
    )


def save(root: Path, results: Iterable[FileResult]) -> None:
    """Write the cache for `root` atomically (a reader sees the old cache or the new)."""
    payload = {"version": VERSION, "root": str(root), "files": [to_json(r) for r in results]}
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    atomic_write(root / CACHE_FILE, text.encode("utf-8"))


def load(root: Path) -> dict[str, FileResult]:
    """The cached files of `root` by path; empty when there is no usable cache."""
    was_enabled = gc.isenabled()
    gc.disable()  # tens of thousands of new objects, no cycles: spare the collector
    try:
        payload = json.loads((root / CACHE_FILE).read_bytes())
        if payload.get("version") != VERSION or payload.get("root") != str(root):
            return {}
        results = (from_json(row) for row in payload["files"])
        return {result.path: result for result in results}
    except (OSError, ValueError, TypeError, KeyError, IndexError, AttributeError):
        return {}
    finally:
        if was_enabled:
            gc.enable()
