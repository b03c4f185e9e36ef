"""Code actions: a new task file for an id no task has (in the layout `create_task` writes),
and the open checklist items of a done task, ticked.

>>> ticks("---\\ntitle: T\\n---\\n- [ ] a\\n- [x] b\\n* [ ] c\\n")
[(3, 3), (5, 3)]
"""

from __future__ import annotations

from dataclasses import dataclass

from graph.checklist import open_checklist_items
from storage import codec
from storage.errors import StorageError
from storage.model import Task
from storage.naming import new_task_path
from tasks_server.editor.text import front_end

__all__ = ["NewFile", "new_task_file", "ticks"]


@dataclass(frozen=True, slots=True)
class NewFile:
    """A task file to create: its root-relative path and its text."""

    path: str
    text: str


def new_task_file(task_id: str, project: str | None) -> NewFile | None:
    """The file `create_task` would write for a task `task_id` (titled by its id, in the
    project of the task naming it); None when the id cannot name a file."""
    try:
        task = Task(id=task_id, title=task_id, path="", project=project)
        path = new_task_path(task)
        return NewFile(path, codec.dumps(task))
    except (StorageError, ValueError):
        return None


def ticks(text: str) -> list[tuple[int, int]]:
    """(line, column) of the blank inside the `[ ]` of every open checklist item of the body
    (the same rule as `complete_task`'s: `graph.checklist`): where an `x` ticks it."""
    end = front_end(text)
    if end is None:
        return []
    lines = text.split("\n")
    found: list[tuple[int, int]] = []
    for number in range(end + 1, len(lines)):
        line = lines[number]
        if open_checklist_items(line):
            found.append((number, line.index("[ ]") + 1))
    return found
