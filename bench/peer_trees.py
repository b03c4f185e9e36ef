"""Our generated tree written again in each peer's own format, for the start benches.

- Backlog.md (1.52.0): `backlog/config.yml` and one `backlog/tasks/task-N - Title.md` per task,
  YAML frontmatter as Backlog.md writes it (`id: TASK-N`, `title`, `status` among the
  config's `To Do` / `In Progress` / `Done`, `assignee`, `created_date`, `labels`,
  `dependencies`, `parent_task_id`, `priority` high/medium/low), the body unchanged.
- Task Master (0.43.1): `.taskmaster/tasks/tasks.json`, tagged (`{"master": {"tasks": [...],
  "metadata": {...}}}`), integer ids, `dependencies` as ids, statuses of its own
  (pending, in-progress, done, ...), the body as `details`. Task Master nests only subtasks,
  so every task is a top-level one; the parent is not carried.

Tasks are numbered 1..N in the order of their ids; a dependency on a task the tree lacks is
dropped (the generator never writes one). Each writer returns how many tasks it wrote.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from storage.model import Task
from storage.repository import TaskRepository

__all__ = [
    "BACKLOG_STATUS",
    "TASKMASTER_STATUS",
    "PeerTask",
    "peer_tasks",
    "priority_word",
    "write_backlog",
    "write_taskmaster",
]

BACKLOG_STATUS = {"done": "Done", "cancelled": "Done", "in_progress": "In Progress"}
"""Our status -> Backlog.md's; every other status is `To Do`."""
TASKMASTER_STATUS = {
    "done": "done",
    "cancelled": "cancelled",
    "in_progress": "in-progress",
    "blocked": "blocked",
    "review": "review",
    "waiting": "deferred",
}
"""Our status -> Task Master's; every other status is `pending`."""

BACKLOG_CONFIG = """project_name: "bench"
default_status: "To Do"
statuses: ["To Do", "In Progress", "Done"]
labels: []
date_format: yyyy-mm-dd hh:mm
auto_commit: false
remote_operations: false
check_active_branches: false
"""
TASKMASTER_CONFIG = {
    "models": {"main": {"provider": "anthropic", "modelId": "claude-sonnet-4-20250514"}},
    "global": {"logLevel": "silent", "defaultTag": "master"},
}
"""A config of its own (without one Task Master prints a warning on stdout, the MCP pipe);
telemetry left at its default (turning it off prints a line on stdout too)."""


@dataclass(frozen=True, slots=True)
class PeerTask:
    """One task as a peer sees it: its number, and its parent and dependencies as numbers."""

    number: int
    task: Task
    parent: int | None
    depends_on: tuple[int, ...]


def peer_tasks(root: Path) -> list[PeerTask]:
    """Every task of the tree at `root`, numbered 1..N in id order."""
    read = TaskRepository(root).read_tree()
    tasks = sorted((r.task for r in read.results if r.task is not None), key=lambda t: t.id)
    numbers = {task.id: n for n, task in enumerate(tasks, start=1)}
    return [
        PeerTask(
            numbers[task.id],
            task,
            numbers.get(task.parent) if task.parent else None,
            tuple(numbers[d] for d in task.depends_on if d in numbers),
        )
        for task in tasks
    ]


def priority_word(priority: int) -> str:
    """Our 0-4 priority as the high/medium/low both peers use."""
    return "high" if priority <= 1 else "medium" if priority == 2 else "low"


def write_backlog(tasks: Sequence[PeerTask], out: Path) -> int:
    """A Backlog.md board of `tasks` at `out/backlog`."""
    folder = out / "backlog" / "tasks"
    folder.mkdir(parents=True, exist_ok=True)
    (out / "backlog" / "config.yml").write_text(BACKLOG_CONFIG)
    for peer in tasks:
        name = f"task-{peer.number} - {_file_title(peer.task.title)}.md"
        (folder / name).write_text(_backlog_text(peer))
    return len(tasks)


def _file_title(title: str) -> str:
    """The title as Backlog.md puts it in a file name: spaces made dashes, no slashes."""
    return "-".join(title.replace("/", " ").split())


def _backlog_text(peer: PeerTask) -> str:
    task = peer.task
    created = task.created.strftime("%Y-%m-%d %H:%M") if task.created else "2026-01-01 00:00"
    lines = [
        "---",
        f"id: TASK-{peer.number}",
        f"title: {json.dumps(task.title)}",
        f"status: {BACKLOG_STATUS.get(task.status, 'To Do')}",
        "assignee: []",
        f"created_date: '{created}'",
        f"labels: {json.dumps(list(task.tags))}",
        f"dependencies: {json.dumps([f'TASK-{n}' for n in peer.depends_on])}",
    ]
    if peer.parent is not None:
        lines.append(f"parent_task_id: TASK-{peer.parent}")
    lines += [f"priority: {priority_word(task.priority)}", "---", "", ""]
    return "\n".join(lines) + task.body.lstrip("\n")


def write_taskmaster(tasks: Sequence[PeerTask], out: Path) -> int:
    """A Task Master project of `tasks` at `out/.taskmaster`."""
    folder = out / ".taskmaster" / "tasks"
    folder.mkdir(parents=True, exist_ok=True)
    rows = [_taskmaster_row(peer) for peer in tasks]
    metadata = {"created": "2026-11-01T00:00:00.000Z", "description": "bench tree"}
    document = {"master": {"tasks": rows, "metadata": metadata}}
    (folder / "tasks.json").write_text(json.dumps(document, indent=2))
    (out / ".taskmaster" / "state.json").write_text(json.dumps({"currentTag": "master"}))
    (out / ".taskmaster" / "config.json").write_text(json.dumps(TASKMASTER_CONFIG, indent=2))
    return len(rows)


def _taskmaster_row(peer: PeerTask) -> dict[str, object]:
    task = peer.task
    return {
        "id": peer.number,
        "title": task.title,
        "description": task.title,
        "status": TASKMASTER_STATUS.get(task.status, "pending"),
        "dependencies": list(peer.depends_on),
        "priority": priority_word(task.priority),
        "details": task.body,
        "testStrategy": "",
        "subtasks": [],
    }
