"""The workflow's project as a task of type `project` in the same tree as every other task."""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import AbstractContextManager
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from storage.errors import AlreadyExists
from storage.model import Task, is_valid_id, pack_text
from storage.repository import TaskRepository
from storage.table import FileResult, FileTable
from tasks_server.bots.errors import ProjectError

__all__ = ["TaskTree", "default_project", "ensure_project", "project_exists"]


class TaskTree(Protocol):
    """What a bot needs of the live tree (`tasks_server.live.LiveTree` is one)."""

    @property
    def root(self) -> Path: ...
    @property
    def repository(self) -> TaskRepository: ...
    @property
    def table(self) -> FileTable: ...
    @property
    def lock(self) -> AbstractContextManager[Any]: ...
    def record(self, results: Iterable[FileResult]) -> object: ...
    def refresh(self) -> object: ...


def default_project(bot: str) -> str:
    """The project task id used when none is given.

    >>> default_project("story_bot")
    'story_bot-project'
    """
    return f"{bot}-project"


def ensure_project(
    tree: TaskTree, project_id: str, *, title: str, body: str, now: datetime
) -> bool:
    """Make sure task `project_id` exists with type `project`; True when it was created."""
    if not is_valid_id(project_id):
        raise ProjectError(f"{project_id!r} is not a valid task id")
    with tree.lock:
        existing = _current(tree, project_id)
        if existing is not None:
            if existing.type != "project":
                raise ProjectError(
                    f"task {project_id!r} exists with type {existing.type!r}, not 'project'; "
                    "pass another project id"
                )
            return False
        task = Task(
            id=project_id, title=title, path="", type="project", status="active",
            project=project_id, created=now, modified=now, packed_body=pack_text(body),
        )  # fmt: skip
        try:
            tree.record([tree.repository.create(task)])
        except AlreadyExists:  # another process wrote the same file a moment ago
            tree.refresh()
            return False
    return True


def _current(tree: TaskTree, project_id: str) -> Task | None:
    """Task `project_id` as it is on disk now: when the table has none (perhaps written a
    moment ago by someone else) or its file is gone, the tree is refreshed and asked again.
    The caller holds the tree's lock."""
    task = tree.table.winner(project_id)
    if task is None or not (tree.root / task.path).is_file():
        tree.refresh()
        task = tree.table.winner(project_id)
    return task


def project_exists(tree: TaskTree, project_id: str) -> bool:
    """True when task `project_id` of type `project` is in the tree, its file on disk."""
    with tree.lock:
        task = _current(tree, project_id)
    return task is not None and task.type == "project"
