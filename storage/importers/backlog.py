"""Import a Backlog.md task folder (markdown files with YAML frontmatter) as task files.

Every `*.md` below the folder is read (`tasks/`, `archive/tasks/`, `drafts/`, …), except in
hidden folders and Backlog.md's `docs/` and `decisions/`, which hold no tasks. The mapping:

- `id` as written (`TASK-1`; a file without one takes the `task-1` of `task-1 - Title.md`),
  `title`, the body as is (CRLF made LF, as in every file we write).
- `status` case-insensitively: To Do→active, In Progress→in_progress, Done→done, others
  through `normalise_status` (unknown ones kept as written and reported). Files in
  `archive/` keep their status; the report counts them as `from_archive`.
- `dependencies` → `depends_on`, `parent_task_id` (or `parent`) → `parent`, `labels` →
  `tags`, `priority` high/medium/low → 1/2/3, `assignee` list → joined, `type` → `type`,
  `created_date` / `updated_date` → `created` / `modified`.
- `project`: the caller's, by default the folder's name as a slug.
- Every other key (`milestone`, `category`, `ordinal`, `references`, …) kept as written.

A file whose frontmatter cannot be read is reported; every other file is imported.

>>> text = "---\\nid: TASK-2\\ntitle: Ship\\nstatus: In Progress\\npriority: high\\n"
>>> text += "dependencies: [TASK-1]\\nmilestone: M1\\n---\\n\\nBody\\n"
>>> tasks, report = to_tasks([("tasks/task-2 - Ship.md", text)], project="demo")
>>> task = tasks[0]
>>> task.id, task.status, task.priority, task.depends_on, dict(task.extra), task.body
('TASK-2', 'in_progress', 1, ('TASK-1',), {'milestone': 'M1'}, '\\nBody\\n')
>>> report.read, report.imported, report.counts_add_up()
(1, 1, True)
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from datetime import datetime
from pathlib import Path
from types import MappingProxyType
from typing import Any

from storage.codec import parse_front, split
from storage.errors import ImportFailed, NotATask, ParseError
from storage.model import (
    DEFAULT_PRIORITY,
    DEFAULT_TYPE,
    KNOWN_STATUSES,
    KNOWN_TYPES,
    Task,
    is_valid_id,
    normalise_status,
)
from storage.repository import TaskRepository, slugify
from storage.timestamps import parse_timestamp

from .report import ImportReport, ReportBuilder
from .writer import RESERVED_KEYS, checked_ids, is_plain_key, labels, write_tasks

__all__ = ["default_project", "import_backlog", "to_tasks"]

_STATUSES = {"to do": "active", "in progress": "in_progress", "done": "done"}
_PRIORITIES = {"high": 1, "medium": 2, "low": 3}
_PARENT_KEYS = ("parent_task_id", "parent")
_MAPPED = frozenset(
    {"id", "title", "status", "assignee", "created_date", "updated_date", "labels", "type"}
    | {"dependencies", "priority", *_PARENT_KEYS}
)
_KNOWN_EXTRA = frozenset(
    {"milestone", "category", "ordinal", "references", "documentation", "caused_by", "plan"}
    | {"reporter", "subtasks", "onStatusChange"}
)
_NOT_TASK_FOLDERS = frozenset({"docs", "decisions"})


def import_backlog(
    source_dir: Path, repository: TaskRepository, *, project: str | None = None
) -> ImportReport:
    """Import every task file of `source_dir` into `repository` in one all-or-nothing write.

    Raises ImportFailed (and writes nothing) when the folder cannot be read, an id is
    already in the tree, or a target file already exists.
    """
    name = project if project is not None else default_project(source_dir)
    tasks, report = to_tasks(_read_files(source_dir), project=name, source=str(source_dir))
    write_tasks(repository, tasks, str(source_dir))
    return report


def default_project(source_dir: Path) -> str:
    """The folder's name as an id-safe slug.

    >>> default_project(Path("datasets/backlog/ChronoVortex07__taskwright"))
    'chronovortex07-taskwright'
    """
    return slugify(source_dir.resolve().name)


def _read_files(source_dir: Path) -> list[tuple[str, bytes]]:
    if not source_dir.is_dir():
        raise ImportFailed(str(source_dir), "not a folder")
    files = []
    for relative in _markdown_paths(source_dir):
        try:
            files.append((relative, (source_dir / relative).read_bytes()))
        except OSError as exc:
            raise ImportFailed(str(source_dir), f"cannot read {relative}: {exc.strerror}") from exc
    return files


def _markdown_paths(source_dir: Path) -> list[str]:
    """Relative POSIX paths of the `*.md` files to read, sorted."""
    found: list[str] = []
    for folder, subfolders, names in os.walk(source_dir):
        relative = Path(folder).relative_to(source_dir).as_posix()
        prefix = "" if relative == "." else relative + "/"
        subfolders[:] = [
            name
            for name in subfolders
            if not name.startswith(".") and not (not prefix and name in _NOT_TASK_FOLDERS)
        ]
        found.extend(prefix + name for name in names if name.endswith(".md"))
    return sorted(found)


def to_tasks(
    files: Iterable[tuple[str, str | bytes]], *, project: str | None, source: str = ""
) -> tuple[list[Task], ImportReport]:
    """Map (relative path, content) pairs to tasks (paths not yet assigned) and a report."""
    builder = ReportBuilder(source, "files")
    first_seen: dict[str, str] = {}
    tasks = []
    for relative, content in files:
        builder.read += 1
        parsed = _parsed(relative, content, builder)
        task_id = _accepted_id(relative, parsed, builder, first_seen) if parsed else None
        if parsed and task_id:
            first_seen[task_id] = relative
            tasks.append(_to_task(relative, task_id, parsed, builder, project))
            if "archive" in relative.split("/")[:-1]:
                builder.count("from_archive")
    return tasks, builder.build(imported=len(tasks))


def _parsed(
    relative: str, content: str | bytes, builder: ReportBuilder
) -> tuple[dict[str, Any], str] | None:
    """(frontmatter, body) of a task file; None for a file skipped or reported."""
    if isinstance(content, bytes):
        try:
            content = content.decode("utf-8")
        except UnicodeDecodeError as exc:
            message = f"not UTF-8 text ({exc.reason} at byte {exc.start})"
            builder.problem(relative, "not_utf8", message, dropped=True)
            return None
    try:
        parts = split(content, relative)
        meta = parse_front(parts, relative)
    except NotATask:
        builder.skip("not_a_task")
        return None
    except ParseError as exc:
        builder.problem(relative, "parse_error", exc.detail, dropped=True)
        return None
    if not (_as_text(meta.get("title")) or "").strip():
        builder.skip("not_a_task")
        return None
    return meta, parts.body


def _accepted_id(
    relative: str,
    parsed: tuple[dict[str, Any], str],
    builder: ReportBuilder,
    first_seen: Mapping[str, str],
) -> str | None:
    task_id = (_as_text(parsed[0].get("id")) or _stem_id(relative)).strip()
    if not is_valid_id(task_id):
        builder.problem(relative, "invalid_id", f"id {task_id!r} is not a valid id", dropped=True)
    elif task_id in first_seen:
        message = f"id {task_id!r} already in {first_seen[task_id]}; the first is kept"
        builder.problem(relative, "duplicate_id", message, dropped=True)
    else:
        return task_id
    return None


def _stem_id(relative: str) -> str:
    """`task-12` from `tasks/task-12 - Some-title.md`."""
    return relative.rsplit("/", 1)[-1].removesuffix(".md").split(" - ", 1)[0]


def _to_task(
    relative: str,
    task_id: str,
    parsed: tuple[dict[str, Any], str],
    builder: ReportBuilder,
    project: str | None,
) -> Task:
    meta, body = parsed
    parent, other_parents = _parents(relative, meta, builder)
    return Task(
        id=task_id,
        title=(_as_text(meta.get("title")) or "").strip(),
        path="",
        type=_type(relative, meta.get("type"), builder),
        status=_status(relative, meta.get("status"), builder),
        priority=_priority(relative, meta.get("priority"), builder),
        parent=parent,
        depends_on=checked_ids(relative, meta.get("dependencies"), "dependencies", builder),
        project=project,
        tags=labels(relative, meta.get("labels"), builder),
        assignee=_assignee(meta.get("assignee")),
        created=_time(relative, meta, "created_date", builder),
        modified=_time(relative, meta, "updated_date", builder),
        body=_body(body),
        extra=_extra(relative, meta, other_parents, builder),
    )


def _as_text(value: object) -> str | None:
    """A scalar as text (`title: 123` is a title too); None for none, lists and mappings."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int | float):
        return str(value)
    return None


def _status(relative: str, raw: object, builder: ReportBuilder) -> str:
    text = (_as_text(raw) or "").strip()
    if not text:
        return "active"
    status = _STATUSES.get(text.lower()) or normalise_status(text)
    if status not in KNOWN_STATUSES:
        builder.problem(relative, "unknown_status", f"status {text!r} kept as written")
    return status


def _type(relative: str, raw: object, builder: ReportBuilder) -> str:
    text = (_as_text(raw) or "").strip()
    if text and text not in KNOWN_TYPES:
        builder.problem(relative, "unmapped_value", f"type {text!r} kept as written")
    return text or DEFAULT_TYPE


def _priority(relative: str, raw: object, builder: ReportBuilder) -> int:
    text = (_as_text(raw) or "").strip().lower()
    if not text:
        return DEFAULT_PRIORITY
    if text in _PRIORITIES:
        return _PRIORITIES[text]
    if text.isdigit() and int(text) <= 4:
        return int(text)
    builder.problem(relative, "unmapped_value", f"priority {raw!r} read as {DEFAULT_PRIORITY}")
    return DEFAULT_PRIORITY


def _parents(
    relative: str, meta: dict[str, Any], builder: ReportBuilder
) -> tuple[str | None, list[str]]:
    """The first parent named (`parent_task_id`, then `parent`) and any other, reported."""
    named: list[str] = []
    for key in _PARENT_KEYS:
        for parent in checked_ids(relative, meta.get(key), key, builder):
            if parent not in named:
                named.append(parent)
    for other in named[1:]:
        message = f"second parent {other!r}; {named[0]!r} kept, {other!r} in backlog_other_parents"
        builder.problem(relative, "second_parent", message)
    return (named[0] if named else None), named[1:]


def _assignee(raw: object) -> str | None:
    if isinstance(raw, list):
        names = [str(item).strip() for item in raw if item is not None and str(item).strip()]
        return ", ".join(names) or None
    return (_as_text(raw) or "").strip() or None


def _time(relative: str, meta: dict[str, Any], key: str, builder: ReportBuilder) -> datetime | None:
    try:
        return parse_timestamp(meta.get(key))
    except (ValueError, TypeError):
        builder.problem(relative, "bad_timestamp", f"{key} {meta.get(key)!r} is not a timestamp")
        return None


def _body(body: str) -> str:
    """The body with LF line ends, starting with the blank line `codec.dumps` writes."""
    body = body.replace("\r\n", "\n")
    return body if not body or body.startswith("\n") else "\n" + body


def _extra(
    relative: str, meta: dict[str, Any], other_parents: list[str], builder: ReportBuilder
) -> Mapping[str, Any]:
    """Every key the model does not name, as written; a key the model reserves (`project`,
    `tags`, …) is kept as `backlog_<key>`, a key that is not plain text is left out."""
    extra: dict[str, Any] = {"backlog_other_parents": other_parents} if other_parents else {}
    for key, value in meta.items():
        if key in _MAPPED:
            continue
        name = f"backlog_{key}" if key in RESERVED_KEYS else key
        if not is_plain_key(name):
            builder.unmapped_field(relative, str(key), None)
            continue
        extra[name] = value
        if name not in _KNOWN_EXTRA:
            builder.unmapped_field(relative, str(key), name)
    return MappingProxyType(extra)
