"""Import a beads `issues.jsonl` export (one JSON object a line) as task files.

The mapping, field by field:

- `id` as is (an id that is not a valid task id is reported); `title`; `description` is the
  body, then `design`, `acceptance_criteria`, `notes` and `comments` under `## ` headings.
- `status`: open→active, in_progress, blocked, closed→done, deferred kept; `tombstone` (a
  deleted record) is skipped (counted); anything else is kept as written and reported.
- `priority` as is (0-4); `issue_type` → `type` (chore→task, the raw value kept as
  `beads_type`); `labels` → `tags`; `assignee`.
- `created_at` / `updated_at` / `closed_at` → `created` / `modified` / `completed`, offsets kept.
- `dependencies`: `parent-child` → `parent` (a second parent is reported and kept as
  `beads_other_parents`), `blocks` → `depends_on`, any other type → `soft_depends_on`, with
  the type in `soft_dependency_types: {id: type}` (see `beads_links`). A link to a deleted
  record is dropped and listed; one to an id no line has is kept and listed as dangling.
- `project`: the file's beads prefix (the leading `-` segments every id shares), unless the
  caller names one.
- `close_reason`, `estimated_minutes`, `external_ref`, … kept as `beads_<field>`; `owner` and
  `created_by` (people's names and e-mail addresses) are left out on purpose and counted.

Lines that are not JSON, merge-conflict markers and duplicate ids (the first is kept) are
reported; the rest is imported. This module reads the lines and names the projects; one
record's fields become a task's in `beads_fields.py`, its dependencies links in
`beads_links.py`.

>>> tasks, report = to_tasks([
...     '{"id": "demo-1", "title": "Epic", "status": "open", "issue_type": "epic"}',
...     '{"id": "demo-1.1", "title": "Child", "status": "closed", "priority": 1,'
...     ' "dependencies": [{"depends_on_id": "demo-1", "type": "parent-child"}]}',
...     '<<<<<<< HEAD',
... ])
>>> [(task.id, task.status, task.parent, task.project) for task in tasks]
[('demo-1', 'active', None, 'demo'), ('demo-1.1', 'done', 'demo-1', 'demo')]
>>> report.read, report.imported, report.dropped, report.counts_add_up()
(3, 2, 1, True)
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from storage.errors import ImportFailed
from storage.model import Task, is_valid_id
from storage.nesting import TooDeep, json_loads
from storage.repository import TaskRepository

from .beads_fields import to_task
from .beads_links import LinkReader
from .references import settle
from .report import ImportReport, ReportBuilder
from .writer import write_tasks

__all__ = ["id_prefix", "import_beads", "to_tasks"]

_TOMBSTONE = "tombstone"
_CONFLICT = re.compile(r"(<{7}|={7}|>{7}|\|{7})(\s|$)")


def import_beads(
    source: Path, repository: TaskRepository, *, project: str | None = None
) -> ImportReport:
    """Import every issue of `source` into `repository` in one all-or-nothing write.

    Raises ImportFailed (and writes nothing) when the file cannot be read, an id is already
    in the tree, or a target file already exists.
    """
    tasks, report = to_tasks(_read_lines(source), source=str(source), project=project)
    write_tasks(repository, tasks, str(source))
    return report


def _read_lines(source: Path) -> list[bytes]:
    try:
        data = source.read_bytes()
    except OSError as exc:
        raise ImportFailed(str(source), f"cannot read it: {exc.strerror or exc}") from exc
    lines = data.split(b"\n")
    return lines[:-1] if lines[-1] == b"" else lines


def to_tasks(
    lines: Iterable[str | bytes], *, source: str = "", project: str | None = None
) -> tuple[list[Task], ImportReport]:
    """Map the lines of an `issues.jsonl` to tasks (paths not yet assigned) and a report."""
    builder = ReportBuilder(source, "lines")
    records = _records(lines, builder)
    project_of = _project_namer(project, [record.get("id") for _, record in records])
    where = _tasks(records, builder, project_of, _deleted_ids(records))
    tasks = list(where.values())
    settle(tasks, {task.id: line for line, task in where.items()}, builder)
    return tasks, builder.build(imported=len(tasks))


def _deleted_ids(records: list[tuple[str, dict[str, Any]]]) -> frozenset[str]:
    """Ids of deleted records (tombstones) that no other line writes again."""
    deleted = {r.get("id") for _, r in records if r.get("status") == _TOMBSTONE}
    written = {r.get("id") for _, r in records if r.get("status") != _TOMBSTONE}
    return frozenset(i for i in deleted - written if isinstance(i, str))


# --- lines → records -------------------------------------------------------------------


def _records(
    lines: Iterable[str | bytes], builder: ReportBuilder
) -> list[tuple[str, dict[str, Any]]]:
    records = []
    for number, raw in enumerate(lines, 1):
        builder.read += 1
        where = f"line {number}"
        record = _record(where, raw, builder)
        if record is not None:
            records.append((where, record))
    return records


def _record(where: str, raw: str | bytes, builder: ReportBuilder) -> dict[str, Any] | None:
    text = _decoded(where, raw, builder)
    if text is None:
        return None
    if not text.strip():
        builder.skip("blank_line")
        return None
    if _CONFLICT.match(text):
        builder.problem(where, "merge_conflict", f"merge-conflict marker {text[:7]}", dropped=True)
        return None
    try:
        value = json_loads(text)
    except json.JSONDecodeError as exc:
        builder.problem(where, "not_json", f"{exc.msg} (column {exc.colno})", dropped=True)
        return None
    except TooDeep as exc:
        builder.problem(where, "not_json", f"JSON {exc}", dropped=True)
        return None
    if not isinstance(value, dict):
        builder.problem(where, "not_an_object", f"a JSON {type(value).__name__}", dropped=True)
        return None
    return value


def _decoded(where: str, raw: str | bytes, builder: ReportBuilder) -> str | None:
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            builder.problem(where, "not_utf8", f"{exc.reason} at byte {exc.start}", dropped=True)
            return None
    return raw.removeprefix("\ufeff").removesuffix("\r")


# --- projects ---------------------------------------------------------------------------


def id_prefix(ids: Iterable[object]) -> str | None:
    """The beads prefix of a file: the leading `-` segments all its ids share (each id's
    last segment, its hash, aside). None when they share none.

    >>> id_prefix(["rust-oracledb-0mk", "rust-oracledb-road-to-1-0-ab1.2", "x"])
    'rust-oracledb'
    >>> id_prefix(["skyhook-gld", "skyhook-gld.1"]), id_prefix(["a-1", "b-2"])
    ('skyhook', None)
    """
    common: list[str] | None = None
    for task_id in ids:
        if not isinstance(task_id, str) or "-" not in task_id:
            continue
        head = task_id.split("-")[:-1]
        if common is None:
            common = head
        while common and head[: len(common)] != common:
            common.pop()
    prefix = "-".join(common) if common else None
    return prefix if prefix and is_valid_id(prefix) else None


def _project_namer(project: str | None, ids: list[object]) -> Callable[[str], str | None]:
    """The caller's project for every task, else the file's prefix, else each id's first
    segment (a file that mixes prefixes)."""
    if project is not None:
        return lambda _task_id: project
    prefix = id_prefix(ids)

    def project_of(task_id: str) -> str | None:
        if prefix and task_id.startswith(prefix + "-"):
            return prefix
        first = task_id.split("-", 1)[0]
        return first if "-" in task_id and is_valid_id(first) else None

    return project_of


# --- records → tasks --------------------------------------------------------------------


def _tasks(
    records: list[tuple[str, dict[str, Any]]],
    builder: ReportBuilder,
    project_of: Callable[[str], str | None],
    deleted: frozenset[str],
) -> dict[str, Task]:
    """The tasks by the line they come from, in file order."""
    first_seen: dict[str, str] = {}
    tasks = {}
    for where, record in records:
        task_id = _accepted_id(where, record, builder, first_seen)
        if task_id is not None:
            first_seen[task_id] = where
            links = LinkReader(where, task_id, deleted, builder).read(record.get("dependencies"))
            project = project_of(task_id)
            tasks[where] = to_task(where, task_id, record, builder, links=links, project=project)
    return tasks


def _accepted_id(
    where: str, record: dict[str, Any], builder: ReportBuilder, first_seen: Mapping[str, str]
) -> str | None:
    """The record's id when it becomes a task; otherwise it is skipped or reported."""
    task_id = record.get("id")
    title = record.get("title")
    if record.get("status") == _TOMBSTONE:
        builder.skip(_TOMBSTONE)
    elif not isinstance(task_id, str) or not is_valid_id(task_id):
        builder.problem(where, "invalid_id", f"id {task_id!r} is not a valid id", dropped=True)
    elif task_id in first_seen:
        message = f"id {task_id!r} already on {first_seen[task_id]}; the first is kept"
        builder.problem(where, "duplicate_id", message, dropped=True)
    elif not isinstance(title, str) or not title.strip():
        builder.problem(where, "missing_title", f"{task_id!r} has no title", dropped=True)
    else:
        return task_id
    return None
