"""What every importer shares: checking ids and extra keys, and the one all-or-nothing write.

>>> is_plain_key("beads_close_reason"), is_plain_key("on status: change")
(True, False)
>>> sorted(RESERVED_KEYS)[:4]
['assignee', 'blocks', 'children', 'completed']
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import fields

from storage.errors import ImportFailed, StorageError
from storage.model import Task, is_valid_id
from storage.repository import TaskRepository

from .report import ReportBuilder

__all__ = ["RESERVED_KEYS", "checked_ids", "is_plain_key", "labels", "write_tasks"]

RESERVED_KEYS = frozenset(
    {f.name for f in fields(Task)} - {"path", "packed_body", "extra"}
    | {"task_id", "permalink", "depth", "leaf", "children", "blocks"}
)
"""Frontmatter keys the codec reads as model fields: never usable for `extra`."""

_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_YAML_WORDS = frozenset(["y", "n", "yes", "no", "on", "off", "true", "false", "null", "nan", "inf"])


def is_plain_key(key: object) -> bool:
    """True for a key the codec can write as `key: value` and read back unchanged."""
    return (
        isinstance(key, str) and bool(_PLAIN_KEY.fullmatch(key)) and key.lower() not in _YAML_WORDS
    )


def checked_ids(
    where: str, raw: object, field_name: str, builder: ReportBuilder
) -> tuple[str, ...]:
    """A list of ids (or one string, comma separated); invalid ones reported and left out."""
    if raw is None or raw == "":
        return ()
    items = raw.split(",") if isinstance(raw, str) else raw if isinstance(raw, list) else [raw]
    ids: list[str] = []
    for item in items:
        text = str(item).strip()
        if is_valid_id(text):
            if text not in ids:
                ids.append(text)
        elif text:
            builder.problem(where, "unmapped_value", f"{field_name}: {text!r} is not a valid id")
    return tuple(ids)


def labels(where: str, raw: object, builder: ReportBuilder) -> tuple[str, ...]:
    """Labels as tags: a list of strings (or one comma-separated string), blanks dropped."""
    if raw is None or raw == "":
        return ()
    if isinstance(raw, str):
        raw = raw.split(",")
    if not isinstance(raw, list):
        builder.problem(where, "unmapped_value", f"labels {raw!r} is not a list; left out")
        return ()
    tags = [str(item).strip() for item in raw if item is not None]
    return tuple(dict.fromkeys(tag for tag in tags if tag))


def write_tasks(repository: TaskRepository, tasks: Sequence[Task], source: str) -> None:
    """Write every task in one `write_batch`, or none, even across a crash (the batch is
    journaled): ImportFailed when an id is already in the tree, a target file already
    exists, or a file would not be written (too large, unreadable back, a linked folder);
    nothing is written then."""
    _check_ids_free(repository, tasks, source)
    try:
        repository.write_batch(tasks)
    except StorageError as exc:
        raise ImportFailed(source, str(exc)) from exc
    except OSError as exc:
        raise ImportFailed(source, f"write failed, nothing kept: {exc}") from exc


def _check_ids_free(repository: TaskRepository, tasks: Sequence[Task], source: str) -> None:
    if not tasks or not repository.root.is_dir():
        return
    table = repository.scan()
    taken = sorted(task.id for task in tasks if table.winner(task.id) is not None)
    if taken:
        shown = ", ".join(taken[:5]) + (f" and {len(taken) - 5} more" if len(taken) > 5 else "")
        raise ImportFailed(source, f"{len(taken)} id(s) already in the tree: {shown}")
