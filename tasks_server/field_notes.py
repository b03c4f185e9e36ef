"""Values a task file holds that the tree reads, but not as the writer likely meant: the
warnings `tasks-server check` and the editor give about one task's own fields.

Each is a warning, never an error: the file loads and the tree works (SPEC: an unknown
status is kept as written; an unreadable `defer_until` counts as absent, an unreadable
`claim_expires` as an expired lease), but a person reading the file would want to know.

>>> from storage.model import Task
>>> notes = field_notes(Task(id="t", title="T", path="t.md", status="queued",
...                          extra={"defer_until": "soon", "claimed_by": "w1"}))
>>> [(n.kind, n.key, n.value) for n in notes]
[('unknown_status', 'status', 'queued'), ('unreadable_time', 'defer_until', 'soon'), \
('incomplete_claim', 'claimed_by', 'w1')]
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from graph.checklist import open_checklist_items
from graph.claims import CLAIM_EXPIRES, CLAIMED_BY, DEFER_UNTIL, read_time
from storage.model import KNOWN_STATUSES, KNOWN_TYPES, Task

__all__ = ["FIELD_WARNINGS", "FieldNote", "field_notes"]

FIELD_WARNINGS = frozenset(
    {
        "unknown_status",
        "unknown_type",
        "unreadable_time",
        "incomplete_claim",
        "done_with_open_checklist",
    }
)


@dataclass(frozen=True, slots=True)
class FieldNote:
    """One questionable value: its kind, the key it is under, the value, what to say."""

    kind: str
    key: str
    value: str
    message: str


def field_notes(task: Task) -> list[FieldNote]:
    """Every questionable value of `task`'s own fields, in key order."""
    return list(_notes(task))


def _notes(task: Task) -> Iterator[FieldNote]:
    if task.status not in KNOWN_STATUSES:
        yield FieldNote(
            "unknown_status",
            "status",
            task.status,
            f"{task.id}: status {task.status!r} is not a known status; the task is neither"
            " ready nor finished",
        )
    if task.type not in KNOWN_TYPES:
        yield FieldNote(
            "unknown_type", "type", task.type, f"{task.id}: type {task.type!r} is not a known type"
        )
    for key, meaning in ((DEFER_UNTIL, "no deferral"), (CLAIM_EXPIRES, "an expired claim")):
        value = task.extra.get(key)
        if value is not None and read_time(value) is None:
            yield FieldNote(
                "unreadable_time",
                key,
                str(value),
                f"{task.id}: {key} {str(value)!r} is not a date or date-time; it counts as"
                f" {meaning}",
            )
    yield from _claim(task)
    if task.status == "done" and (items := open_checklist_items(task.body)):
        yield FieldNote(
            "done_with_open_checklist",
            "status",
            task.status,
            f"{task.id} is done but has {len(items)} open checklist item(s): "
            + "; ".join(items)[:200],
        )


def _claim(task: Task) -> Iterator[FieldNote]:
    agent, expires = task.extra.get(CLAIMED_BY), task.extra.get(CLAIM_EXPIRES)
    if agent is not None and not (isinstance(agent, str) and agent.strip()):
        yield FieldNote(
            "incomplete_claim",
            CLAIMED_BY,
            str(agent),
            f"{task.id}: {CLAIMED_BY} must name an agent (a non-empty string)",
        )
    elif (agent is None) != (expires is None):
        present, missing = (
            (CLAIMED_BY, CLAIM_EXPIRES)
            if expires is None
            else (
                CLAIM_EXPIRES,
                CLAIMED_BY,
            )
        )
        yield FieldNote(
            "incomplete_claim",
            present,
            str(agent if expires is None else expires),
            f"{task.id}: {present} without {missing}; a claim needs both",
        )
