"""What the editor asks of a task file, answered from the live tree: the problems of the file
(the same findings as `tasks-server check`, from `tasks_server.findings`), completion, hover,
the places an id leads to. Plain data in, plain data out; `server.py` speaks the protocol.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from graph.about import TaskAbout
from storage.model import KNOWN_STATUSES, KNOWN_TYPES, READY_STATUSES, Task
from tasks_server.editor.text import REFERENCE_KEYS, Place, Token, id_tokens, place_at, token_at
from tasks_server.editor.tree import EditorTree
from tasks_server.findings import Problem, file_problems
from tasks_server.task_guidance import blocked_sentence

__all__ = [
    "COMPLETION_LIMIT",
    "FRONT_KEYS",
    "Choice",
    "choices_at",
    "hover_text",
    "problems_of",
    "referrers",
    "symbols",
]

COMPLETION_LIMIT = 100
FRONT_KEYS = (
    "id", "title", "type", "status", "priority", "order", "parent", "depends_on",
    "soft_depends_on", "project", "tags", "assignee", "complexity", "effort", "context",
    "due", "created", "modified", "completed", "defer_until", "claimed_by", "claim_expires",
)  # fmt: skip
PRIORITIES = ("0", "1", "2", "3", "4", "critical", "high", "medium", "low", "lowest")
_VALUES = {"status": KNOWN_STATUSES, "type": KNOWN_TYPES, "priority": PRIORITIES}


@dataclass(frozen=True, slots=True)
class Choice:
    """One completion: the text to insert, a detail (an id's title) and its kind."""

    label: str
    detail: str | None
    kind: str  # "id", "value", "key"


def problems_of(tree: EditorTree, relative: str) -> list[Problem]:
    """The problems `tasks-server check` reports touching this file, as the tree is now
    (the open buffers standing for their files)."""
    with tree.lock:
        return file_problems(tree.index, tree.table, relative, tree.text_of)


def choices_at(tree: EditorTree, text: str, line: int, column: int) -> list[Choice]:
    """What may be typed at the cursor, filtered by the typed prefix, at most
    COMPLETION_LIMIT."""
    place = place_at(text, line, column)
    if place is None:
        return []
    if not place.in_value:
        return _starting(place.prefix, FRONT_KEYS, "key")
    if place.key in REFERENCE_KEYS:
        return _ids(tree, place)
    if place.key in _VALUES:
        return _starting(place.prefix, _VALUES[place.key], "value")
    if place.key == "project":
        return _starting(place.prefix, tree.index.projects(), "value")
    if place.key == "tags":
        return _starting(place.prefix, sorted(tree.tags), "value")
    return []


def _starting(prefix: str, words: tuple[str, ...] | list[str], kind: str) -> list[Choice]:
    found = [Choice(w, None, kind) for w in words if w.startswith(prefix)]
    return found[:COMPLETION_LIMIT]


def _ids(tree: EditorTree, place: Place) -> list[Choice]:
    with tree.lock:
        get = tree.index.get
        rows = [(i, get(i)) for i in tree.ids_from(place.prefix, COMPLETION_LIMIT)]
        return [Choice(i, t.title if t else None, "id") for i, t in rows]


def hover_text(tree: EditorTree, text: str, line: int, column: int, now: datetime) -> str | None:
    """Markdown about the id under the cursor: title, status, project, ready or not and why
    (the graph's one answer about a task, as a full view reads it), how many tasks it blocks."""
    token = token_at(text, line, column)
    if token is None:
        return None
    with tree.lock:
        task = tree.index.get(token.value)
        if task is None:
            return f"`{token.value}`: no task has this id"
        about = tree.index.about(task.id, now, shown=0)
        lines = [
            f"**{task.id}**: {task.title}",
            f"status `{task.status}`" + (f", project `{task.project}`" if task.project else ""),
            "**ready**" if about.is_ready else "not ready: " + "; ".join(_why_not(task, about)),
        ]
        if about.claim_live:
            lines.append(f"claimed by {about.claimed_by}")
        lines.append(f"blocks {about.blocking_count} task(s); {about.child_count} child(ren)")
        return "\n\n".join(lines)


def _why_not(task: Task, facts: TaskAbout) -> list[str]:
    """Why a task is not ready, by the one readiness of SPEC §4 (`TaskIndex.about`)."""
    why = [blocked_sentence(task.id, facts.reasons) or ""] if facts.reasons.any() else []
    if task.status not in READY_STATUSES and not facts.reasons.status_blocked:
        why.append(f"status `{task.status}` is not a ready status")
    if facts.deferred_until is not None:
        why.append(f"deferred until {facts.deferred_until.isoformat()}")
    if facts.open_child_count:
        why.append(f"{facts.open_child_count} open child(ren)")
    return why


def referrers(tree: EditorTree, task_id: str) -> list[tuple[str, Token | None]]:
    """The files naming `task_id` as parent or dependency (children and dependents), each
    with the place it is named when the text shows it."""
    with tree.lock:
        index = tree.index
        if task_id not in index:
            return []
        ids = [*index.children(task_id), *index.dependents(task_id)]
        paths = [index.require(i).path for i in dict.fromkeys(ids)]
    found: list[tuple[str, Token | None]] = []
    for path in paths:
        text = tree.text_of(path) or ""
        named = [t for t in id_tokens(text) if t.value == task_id and t.key in REFERENCE_KEYS]
        found.append((path, named[0] if named else None))
    return found


def symbols(tree: EditorTree, query: str) -> list[tuple[str, str, str]]:
    """(id, title, path) of the tasks whose id or title holds `query` (any case), at most
    COMPLETION_LIMIT; ids starting with it first."""
    with tree.lock:
        index = tree.index
        first = tree.ids_from(query, COMPLETION_LIMIT)
        seen = set(first)
        wanted = query.casefold()
        for task in index.unordered_tasks():
            if len(seen) >= COMPLETION_LIMIT:
                break
            if task.id not in seen and (
                wanted in task.id.casefold() or wanted in task.title.casefold()
            ):
                first.append(task.id)
                seen.add(task.id)
        rows = [index.require(i) for i in first]
        return [(t.id, t.title, t.path) for t in rows]
