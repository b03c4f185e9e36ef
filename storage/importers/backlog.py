"""Import a Backlog.md board (its `backlog/` folder: markdown files with YAML frontmatter).

Every `*.md` below the folder is read, except in hidden folders and Backlog.md's `docs/` and
`decisions/`; files in `milestones/` are milestones, skipped and counted. The board's folders
keep their meaning (the rules, taken from Backlog.md's own source, are in `backlog_rules`):

- `id` in its canonical form: `task-7`, `7` and `TASK-07` are all `TASK-7`, `back-355.01` is
  `BACK-355.1`; a bare number takes the board's `task_prefix` (`config.yml`, else the prefix
  most ids use). A file without an id takes the one in its name (`task-7 - Title.md`). The id
  as written is kept as `backlog_id` when it differs.
- One task per id: the copy in `tasks/` wins over `completed/`, which wins over `drafts/`,
  then `archive/`; within one folder the copy writing the id canonically, then the first
  path. Every other copy is reported (`duplicate_id`, naming the winner) and left out.
- Where a task was: `backlog_folder: completed | drafts | archive/tasks | archive/drafts`
  (absent for the live `tasks/`); the report counts `from_completed`, `from_drafts`,
  `from_archive`. Drafts are not on the board yet: status `inbox`. Archived tasks were taken
  off it (Backlog.md then drops them from every dependency list): status `cancelled`. A done
  or cancelled task keeps its status; a status replaced is kept as `backlog_status`. Neither
  is ever ready.
- `status` case-insensitively: To Do→active, In Progress→in_progress, Done→done, Draft→inbox,
  others through `normalise_status` (unknown ones kept as written and reported).
- `dependencies` → `depends_on`, `parent_task_id` (or `parent`) → `parent`, each resolved to
  a canonical id (`task-100`, `100` → `BACK-100` on a board whose prefix became `back`); a
  reference still naming no imported task is kept and listed (`dangling_reference`).
- `labels` → `tags`, `priority` high/medium/low → 1/2/3, `assignee` list → joined, `type` →
  `type`, `created_date` / `updated_date` → `created` / `modified`; the body as is (CRLF
  made LF, as in every file we write); `project`: the caller's, by default the folder's name.
- Every other key (`milestone`, `category`, `ordinal`, `references`, …) kept as written.

Frontmatter is read as Backlog.md reads it (`assignee: @name` is a name, not broken YAML); a
file whose frontmatter still cannot be read is reported, and every other file is imported.

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
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

from storage.errors import ImportFailed, NotATask, ParseError
from storage.frontmatter import parse_front, split
from storage.model import (
    DEFAULT_PRIORITY,
    DEFAULT_TYPE,
    KNOWN_STATUSES,
    KNOWN_TYPES,
    TERMINAL_STATUSES,
    Task,
    normalise_status,
    pack_text,
)
from storage.repository import TaskRepository, slugify

from .backlog_rules import (
    BacklogIds,
    Card,
    as_backlog_reads,
    board_ids,
    config_prefix,
    folder_of,
    winners,
)
from .references import settle
from .report import ImportReport, ReportBuilder
from .writer import RESERVED_KEYS, checked_ids, is_plain_key, labels, write_tasks

__all__ = ["default_project", "import_backlog", "to_tasks"]

_STATUSES = {"to do": "active", "in progress": "in_progress", "done": "done", "draft": "inbox"}
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
    files = _read_files(source_dir)
    prefix = _configured_prefix(source_dir)
    tasks, report = to_tasks(files, project=name, source=str(source_dir), task_prefix=prefix)
    write_tasks(repository, tasks, str(source_dir))
    return report


def default_project(source_dir: Path) -> str:
    """The folder's name as an id-safe slug.

    >>> default_project(Path("datasets/backlog/ChronoVortex07__taskwright"))
    'chronovortex07-taskwright'
    """
    return slugify(source_dir.resolve().name)


def _configured_prefix(source_dir: Path) -> str | None:
    """The `task_prefix` of the board's `config.yml`, if it has one."""
    try:
        return config_prefix((source_dir / "config.yml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return None


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
    files: Iterable[tuple[str, str | bytes]],
    *,
    project: str | None,
    source: str = "",
    task_prefix: str | None = None,
) -> tuple[list[Task], ImportReport]:
    """Map (relative path, content) pairs to tasks (paths not yet assigned) and a report.
    `task_prefix` is the board's (`config.yml`); without one, the one most ids use."""
    builder = ReportBuilder(source, "files")
    cards = [card for relative, content in files if (card := _card(relative, content, builder))]
    ids = board_ids(cards, task_prefix)
    kept = winners(cards, ids, builder)
    mapped = [_to_task(card, task_id, builder, project) for card, task_id in kept]
    tasks = _resolved(mapped, ids, builder)
    settle(tasks, {task_id: card.relative for card, task_id in kept}, builder)
    return tasks, builder.build(imported=len(tasks))


def _card(relative: str, content: str | bytes, builder: ReportBuilder) -> Card | None:
    builder.read += 1
    folder = folder_of(relative)
    if folder.milestones:
        builder.skip("milestone")
        return None
    parsed = _parsed(relative, content, builder)
    if parsed is None:
        return None
    written = (_as_text(parsed[0].get("id")) or _stem_id(relative)).strip()
    return Card(relative, folder, parsed[0], parsed[1], written)


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
        meta = parse_front(replace(parts, front=as_backlog_reads(parts.front)), relative)
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


def _stem_id(relative: str) -> str:
    """`task-12` from `tasks/task-12 - Some-title.md`."""
    return relative.rsplit("/", 1)[-1].removesuffix(".md").split(" - ", 1)[0]


def _to_task(card: Card, task_id: str, builder: ReportBuilder, project: str | None) -> Task:
    """The task of a card, its references still as written (see `_resolved`)."""
    relative, meta = card.relative, card.meta
    parent, other_parents = _parents(relative, meta, builder)
    status, status_as_written = _status(card, builder)
    extra = {
        **_extra(relative, meta, other_parents, builder),
        **_provenance(card, task_id, status_as_written, builder),
    }
    return Task(
        id=task_id,
        title=(_as_text(meta.get("title")) or "").strip(),
        path="",
        type=_type(relative, meta.get("type"), builder),
        status=status,
        priority=_priority(relative, meta.get("priority"), builder),
        parent=parent,
        depends_on=checked_ids(relative, meta.get("dependencies"), "dependencies", builder),
        project=project,
        tags=labels(relative, meta.get("labels"), builder),
        assignee=_assignee(meta.get("assignee")),
        created=builder.timestamp(relative, meta, "created_date"),
        modified=builder.timestamp(relative, meta, "updated_date"),
        packed_body=pack_text(_body(card.body)),
        extra=MappingProxyType(extra),
    )


def _provenance(
    card: Card, task_id: str, status_as_written: str | None, builder: ReportBuilder
) -> dict[str, str]:
    """Where the task was on the board (`backlog_folder`, when not the live `tasks/`), the
    status its folder replaced (`backlog_status`) and its id as written (`backlog_id`), each
    only when it tells something."""
    kept: dict[str, str] = {}
    if not card.folder.live:
        kept["backlog_folder"] = card.folder.name
        builder.count("from_" + card.folder.name.split("/")[0])
    if status_as_written is not None:
        kept["backlog_status"] = status_as_written
    if card.written_id != task_id:
        kept["backlog_id"] = card.written_id
    return kept


def _resolved(tasks: list[Task], ids: BacklogIds, builder: ReportBuilder) -> list[Task]:
    """Each task with its references naming canonical ids (`task-3`, `3` and `TASK-03` all
    name `TASK-3`), each named once; references rewritten are counted."""
    known = {task.id for task in tasks}

    def resolve(written: str) -> str:
        resolved = ids.resolve(written, known)
        if resolved != written:
            builder.count("rewritten_references")
        return resolved

    settled = []
    for task in tasks:
        parent = resolve(task.parent) if task.parent else None
        depends_on = tuple(dict.fromkeys(resolve(written) for written in task.depends_on))
        builder.named("parent", 1 if parent else 0)
        builder.named("depends_on", len(depends_on))
        settled.append(replace(task, parent=parent, depends_on=depends_on))
    return settled


def _as_text(value: object) -> str | None:
    """A scalar as text (`title: 123` is a title too); None for none, lists and mappings."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int | float):
        return str(value)
    return None


def _status(card: Card, builder: ReportBuilder) -> tuple[str, str | None]:
    """The status, and the status as written when the card's folder replaced it: a draft is
    not on the board yet (`inbox`), an archived task was taken off it (`cancelled`); a done
    or cancelled one stays as it is."""
    text = (_as_text(card.meta.get("status")) or "").strip()
    status = (_STATUSES.get(text.lower()) or normalise_status(text)) if text else "active"
    if status in TERMINAL_STATUSES or not (card.folder.archived or card.folder.draft):
        if status not in KNOWN_STATUSES:
            builder.problem(card.relative, "unknown_status", f"status {text!r} kept as written")
        return status, None
    folder_status = "cancelled" if card.folder.archived else "inbox"
    return folder_status, (text or None) if status != folder_status else None


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
