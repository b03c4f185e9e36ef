"""The names of new task files and ids: `<root>/<project>/tasks/<id>-<slug>.md` (or
`<root>/inbox/` for a task of no project), and `<project>-<8 hex>` ids.

>>> new_task_path(Task(id="a-1", title="Fix the parser!", path="", project="p"))
'p/tasks/a-1-fix-the-parser.md'
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable

from storage.errors import InvalidId
from storage.model import Task, is_valid_id

__all__ = ["FILE_STEM_CHARS", "file_name", "new_id", "new_task_path", "slugify"]

_SLUG_DROP = re.compile(r"[^a-z0-9]+")


def new_id(project: str | None, exists: Callable[[str], bool]) -> str:
    """A fresh `<project or "task">-<8 hex>` id for which `exists` is false."""
    prefix = project if project and is_valid_id(project) else "task"
    while True:
        candidate = f"{prefix}-{secrets.token_hex(4)}"
        if not exists(candidate):
            return candidate


def new_task_path(task: Task) -> str:
    """Where a new task's file goes, under the root; InvalidId for an id or a project that
    could name a path."""
    if not is_valid_id(task.id):
        raise InvalidId(task.id)
    if task.project is not None and not is_valid_id(task.project):
        raise InvalidId(task.project)
    folder = f"{task.project}/tasks" if task.project else "inbox"
    return f"{folder}/{file_name(task.id, task.title)}"


def slugify(title: str, limit: int = 48) -> str:
    """`Fix the parser!` → `fix-the-parser`: a file-name-safe slug of a title."""
    slug = _SLUG_DROP.sub("-", title.lower()).strip("-")
    return slug[:limit].rstrip("-") or "task"


FILE_STEM_CHARS = 200
"""The longest `<id>-<slug>` a new file's name takes: with `.md` and the affixes of a
temporary or journal file it stays under the 255 bytes a file name may have."""


def file_name(task_id: str, title: str) -> str:
    """`<id>-<slug>.md`, the slug shortened (or left out) so that the name fits; an id too
    long for any file name is InvalidId.

    >>> file_name("a-1", "Fix the parser!"), len(file_name("x" * 195, "Title"))
    ('a-1-fix-the-parser.md', 198)
    """
    if len(task_id) > FILE_STEM_CHARS:
        raise InvalidId(task_id, f"longer than the {FILE_STEM_CHARS} characters a file name allows")
    room = FILE_STEM_CHARS - len(task_id) - 1
    slug = slugify(title, limit=min(48, room)) if room >= 8 else ""
    return f"{task_id}-{slug}.md" if slug else f"{task_id}.md"
