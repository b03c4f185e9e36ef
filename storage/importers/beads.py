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
reported; the rest is imported.

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
from datetime import datetime
from pathlib import Path
from types import MappingProxyType
from typing import Any

from storage.errors import ImportFailed
from storage.model import (
    DEFAULT_PRIORITY,
    DEFAULT_TYPE,
    KNOWN_STATUSES,
    Task,
    is_valid_id,
    normalise_priority,
    normalise_status,
    pack_text,
)
from storage.nesting import TooDeep, json_loads
from storage.repository import TaskRepository
from storage.timestamps import parse_timestamp

from .beads_links import LinkReader, Links
from .references import settle
from .report import ImportReport, ReportBuilder
from .writer import is_plain_key, labels, write_tasks

__all__ = ["id_prefix", "import_beads", "to_tasks"]

_STATUSES = {
    "open": "active",
    "in_progress": "in_progress",
    "blocked": "blocked",
    "closed": "done",
    "deferred": "deferred",
}
_TOMBSTONE = "tombstone"
_TYPES = {"epic": "epic", "task": "task", "bug": "bug", "feature": "feature", "chore": "task"}
_SECTIONS = (
    ("design", "Design"),
    ("acceptance_criteria", "Acceptance criteria"),
    ("notes", "Notes"),
)
_KEPT = (
    "close_reason",
    "estimated_minutes",
    "external_ref",
    "source_repo",
    "source_repo_path",
    "compaction_level",
    "original_size",
)
_PERSONAL = ("owner", "created_by")
_MAPPED = frozenset(
    {"id", "title", "description", "status", "priority", "issue_type", "labels", "assignee"}
    | {"created_at", "updated_at", "closed_at", "dependencies", "comments"}
    | {key for key, _ in _SECTIONS}
    | {*_KEPT, *_PERSONAL}
)
_COMMENT_DROPPED = ("id", "issue_id")
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
            tasks[where] = _to_task(where, task_id, record, builder, links=links, project=project)
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


def _to_task(
    where: str,
    task_id: str,
    record: dict[str, Any],
    builder: ReportBuilder,
    *,
    links: Links,
    project: str | None,
) -> Task:
    task_type = _type(where, record.get("issue_type"), builder)
    return Task(
        id=task_id,
        title=str(record["title"]).strip(),
        path="",
        type=task_type,
        status=_status(where, record.get("status"), builder),
        priority=_priority(where, record.get("priority"), builder),
        parent=links.parent,
        depends_on=tuple(links.hard),
        soft_depends_on=tuple(links.soft),
        project=project,
        tags=labels(where, record.get("labels"), builder),
        assignee=_text(where, record, "assignee", builder).strip() or None,
        created=_time(where, record, "created_at", builder),
        modified=_time(where, record, "updated_at", builder),
        completed=_time(where, record, "closed_at", builder),
        packed_body=pack_text(_body(where, record, builder)),
        extra=_extra(where, record, task_type, links, builder),
    )


def _status(where: str, raw: object, builder: ReportBuilder) -> str:
    if raw is None:
        return "active"
    text = str(raw).strip()
    status = _STATUSES.get(text.lower()) or normalise_status(text)
    if status not in KNOWN_STATUSES:
        builder.problem(where, "unknown_status", f"status {text!r} kept as written")
    return status


def _type(where: str, raw: object, builder: ReportBuilder) -> str:
    if raw is None or raw == "":
        return DEFAULT_TYPE
    text = str(raw).strip()
    mapped = _TYPES.get(text.lower())
    if mapped is None:
        builder.problem(where, "unmapped_value", f"issue_type {text!r} kept as written")
        return text
    return mapped


def _priority(where: str, raw: object, builder: ReportBuilder) -> int:
    if raw is None:
        return DEFAULT_PRIORITY
    if type(raw) is int and 0 <= raw <= 4:
        return raw
    value = normalise_priority(raw)
    builder.problem(where, "unmapped_value", f"priority {raw!r} read as {value}")
    return value


def _time(where: str, record: dict[str, Any], key: str, builder: ReportBuilder) -> datetime | None:
    try:
        return parse_timestamp(record.get(key))
    except (ValueError, TypeError):
        builder.problem(where, "bad_timestamp", f"{key} {record.get(key)!r} is not a timestamp")
        return None


def _text(where: str, record: dict[str, Any], key: str, builder: ReportBuilder) -> str:
    value = record.get(key)
    if value is None or isinstance(value, str):
        return value or ""
    builder.problem(where, "unmapped_value", f"{key} is a JSON {type(value).__name__}, not text")
    return ""


# --- body and extra fields --------------------------------------------------------------


def _body(where: str, record: dict[str, Any], builder: ReportBuilder) -> str:
    """Description, then the other prose fields under headings. Starts with a blank line,
    as `codec.dumps` writes it, so the body reads back unchanged."""
    sections = [_text(where, record, "description", builder).strip("\n")]
    for key, heading in _SECTIONS:
        text = _text(where, record, key, builder).strip("\n")
        sections.append(f"## {heading}\n\n{text}" if text.strip() else "")
    comments = _comments(where, record.get("comments"), builder)
    sections.append(f"## Comments\n\n{comments}" if comments else "")
    text = "\n\n".join(section for section in sections if section.strip())
    return f"\n{text}\n" if text else ""


def _comments(where: str, raw: object, builder: ReportBuilder) -> str:
    if raw is None:
        return ""
    if not isinstance(raw, list):
        builder.problem(where, "unmapped_value", "comments is not a list; left out")
        return ""
    blocks = []
    for comment in raw:
        if not isinstance(comment, dict):
            builder.problem(where, "unmapped_value", f"comment {comment!r} is not an object")
            continue
        for key in _COMMENT_DROPPED:
            if key in comment:
                builder.drop_field(f"comments.{key}")
        author = comment.get("author") or "unknown"
        when = comment.get("created_at") or "undated"
        blocks.append(f"**{author}**, {when}:\n\n{str(comment.get('text') or '').strip()}")
    return "\n\n".join(blocks)


def _extra(
    where: str, record: dict[str, Any], task_type: str, links: Links, builder: ReportBuilder
) -> Mapping[str, Any]:
    extra: dict[str, Any] = {}
    if links.soft_types:
        extra["soft_dependency_types"] = links.soft_types
    raw_type = record.get("issue_type")
    if isinstance(raw_type, str) and raw_type != task_type:
        extra["beads_type"] = raw_type
    if links.other_parents:
        extra["beads_other_parents"] = links.other_parents
    if links.metadata:
        extra["beads_dependency_metadata"] = links.metadata
    extra.update(_kept_fields(where, record, builder))
    return MappingProxyType(extra)


def _kept_fields(where: str, record: dict[str, Any], builder: ReportBuilder) -> dict[str, Any]:
    kept = {f"beads_{key}": record[key] for key in _KEPT if record.get(key) not in (None, "")}
    for key in _PERSONAL:
        if key in record:
            builder.drop_field(key)
    for key, value in record.items():
        if key in _MAPPED:
            continue
        name = f"beads_{key}"
        plain = is_plain_key(name)
        builder.unmapped_field(where, key, name if plain else None)
        if plain:
            kept[name] = value
    return kept
