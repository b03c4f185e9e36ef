"""One beads record's fields as a task's: status, type and priority mapped, the times read,
the prose fields gathered into the body, and the fields with no task field of their own kept
as `beads_<field>` (people's names and e-mail addresses left out, counted). The mapping,
field by field, is listed in `beads.py`; the record's `dependencies` are read by
`beads_links.py`. Every value that is not what beads writes is reported, never fatal.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from storage.model import (
    DEFAULT_PRIORITY,
    DEFAULT_TYPE,
    KNOWN_STATUSES,
    Task,
    normalise_priority,
    normalise_status,
    pack_text,
)

from .beads_links import Links
from .report import ReportBuilder
from .writer import is_plain_key, labels

__all__ = ["to_task"]

_STATUSES = {
    "open": "active",
    "in_progress": "in_progress",
    "blocked": "blocked",
    "closed": "done",
    "deferred": "deferred",
}
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


def to_task(
    where: str,
    task_id: str,
    record: dict[str, Any],
    builder: ReportBuilder,
    *,
    links: Links,
    project: str | None,
) -> Task:
    """The task `record` becomes (its path not yet given); what does not map is reported."""
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
        created=builder.timestamp(where, record, "created_at"),
        modified=builder.timestamp(where, record, "updated_at"),
        completed=builder.timestamp(where, record, "closed_at"),
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
