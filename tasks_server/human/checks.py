"""`tasks-server check`: the structural signals as errors and warnings, by file and line.

Errors are what makes a tree wrong to plan from (cycles, dangling references, a task naming
itself, duplicate ids, files that do not load, values larger than a write allows); warnings
are states a person may have meant (a done task with open children, an open task under a
done parent). The exit status is 1 when there is an error, else 0.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from storage.errors import ParseError
from storage.frontmatter import parse_front, split
from storage.model import Task
from tasks_server import sizes

__all__ = [
    "TASK_KEYS",
    "WARNINGS",
    "Problem",
    "collect",
    "exit_status",
    "oversized",
    "problems_in",
    "untitled",
]

WARNINGS = frozenset(
    {"terminal_with_open_children", "open_under_terminal_parent", "task_without_title"}
)
TASK_KEYS = ("id", "status", "depends_on", "parent", "priority", "type", "project")
"""Frontmatter keys that only a task file holds: a file with one of them and no title
looks like a task the loader leaves out (a file is a task only with a title)."""
_YAML_LINE = re.compile(r"YAML parse error at line (\d+)")


@dataclass(frozen=True, slots=True)
class Problem:
    """One problem: what, where (a root-relative path and a line when known), which tasks."""

    kind: str
    path: str
    line: int | None
    message: str
    files: tuple[str, ...]

    @property
    def is_error(self) -> bool:
        return self.kind not in WARNINGS

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}" if self.line else self.path


PathOf = Callable[[str], str | None]


def collect(signals: dict[str, Any], path_of: PathOf, root: Path) -> list[Problem]:
    """Every signal as a Problem; `path_of` gives a task's file (None when unknown)."""
    found = Finder(path_of, root)
    problems: list[Problem] = []
    for cycle in signals["parent_cycles"]:
        problems.append(found.cycle("parent_cycle", cycle))
    for cycle in signals["dependency_cycles"]:
        problems.append(found.cycle("dependency_cycle", cycle))
    for field, refs in signals["dangling_references"].items():
        problems.extend(found.dangling(field, ref) for ref in refs)
    problems.extend(found.self_reference(ref) for ref in signals["self_references"])
    problems.extend(found.duplicate(dup) for dup in signals["duplicate_ids"])
    problems.extend(found.unparseable(bad) for bad in signals["unparseable_files"])
    problems.extend(found.open_children(row) for row in signals["terminal_with_open_children"])
    problems.extend(found.open_under(row) for row in signals["open_under_terminal_parent"])
    return problems


def oversized(tasks: Iterable[Task], root: Path) -> list[Problem]:
    """A problem for every value a write would refuse for its size (a file written by hand
    may hold a 100,000-character title: it loads, and is reported here)."""
    found = Finder(lambda _: None, root)
    return [found.oversize(task, over) for task in tasks for over in sizes.oversized(task)]


def untitled(not_tasks: Iterable[str], root: Path) -> list[Problem]:
    """A warning for each markdown file that is not a task (no title) but whose frontmatter
    holds task keys: it vanishes from every answer, so the missing key is named. Only the
    files that loaded as no task are read again (READMEs and notes, usually few)."""
    found = []
    for path in not_tasks:
        keys = _task_keys(root / path)
        if keys:
            message = f"missing key title: task keys ({', '.join(keys)}) but not loaded as a task"
            found.append(Problem("task_without_title", path, 2, message, (path,)))
    return found


def _task_keys(path: Path) -> list[str]:
    """The task keys in a file's frontmatter (none when it has none, or cannot be read)."""
    try:
        meta = parse_front(split(path.read_text(encoding="utf-8"), str(path)), str(path))
    except (OSError, UnicodeDecodeError, ParseError):
        return []
    return [key for key in TASK_KEYS if key in meta] if isinstance(meta, dict) else []


@dataclass
class Finder:
    """Builds problems, finding files from task ids and lines from the files' text."""

    path_of: PathOf
    root: Path

    def _file(self, task_id: str) -> str:
        return self.path_of(task_id) or f"(task {task_id})"

    def _line(self, path: str, needle: str, after: int = 0) -> int | None:
        """The first line (1-based) holding `needle` after line `after`, in the front matter."""
        try:
            text = (self.root / path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
        for number, line in enumerate(text.splitlines()[after:], after + 1):
            if needle in line:
                return number
        return None

    def oversize(self, task: Task, over: sizes.Oversize) -> Problem:
        key = over.field.removesuffix(" item")
        line = (
            self._line(task.path, "---", 1) if key == "body" else self._line(task.path, f"{key}:")
        )
        if key == "body" and line is not None:
            line += 1  # the body starts after the closing `---`
        message = f"{sizes.clip(task.id, 40)}: {over}"
        return Problem("oversized_value", task.path, line, message, (task.path,))

    def cycle(self, kind: str, members: list[str]) -> Problem:
        files = tuple(self._file(m) for m in members)
        text = " -> ".join([*members, members[0]])
        words = "parent" if kind == "parent_cycle" else "dependency"
        return Problem(kind, files[0], None, f"{words} cycle: {text}", files)

    def dangling(self, field: str, ref: dict[str, Any]) -> Problem:
        path = self._file(ref["task_id"])
        line = self._line(path, ref["missing_id"])
        message = f"{ref['task_id']}: {field} names {ref['missing_id']}, which no task has"
        return Problem(f"dangling_{field}", path, line, message, (path,))

    def self_reference(self, ref: dict[str, Any]) -> Problem:
        path = self._file(ref["task_id"])
        line = self._line(path, ref["field"])
        message = f"{ref['task_id']}: {ref['field']} names the task itself"
        return Problem("self_reference", path, line, message, (path,))

    def duplicate(self, dup: dict[str, Any]) -> Problem:
        paths = tuple(dup["paths"])
        message = f"id {dup['task_id']} is also in " + ", ".join(paths[1:])
        return Problem("duplicate_id", paths[0], self._line(paths[0], "id:"), message, paths)

    def unparseable(self, bad: dict[str, Any]) -> Problem:
        found = _YAML_LINE.search(bad["message"])
        line = int(found.group(1)) + 1 if found else None  # +1: the opening `---`
        path = bad["path"]
        return Problem("unparseable_file", path, line, bad["message"], (path,))

    def open_children(self, row: dict[str, Any]) -> Problem:
        path = self._file(row["task_id"])
        message = f"{row['task_id']} is finished but has open children: " + ", ".join(
            row["open_children"]
        )
        return Problem("terminal_with_open_children", path, None, message, (path,))

    def open_under(self, row: dict[str, Any]) -> Problem:
        path = self._file(row["task_id"])
        message = f"{row['task_id']} is open under finished parent {row['parent']}"
        return Problem("open_under_terminal_parent", path, None, message, (path,))


def problems_in(problems: Iterable[Problem], paths: set[str]) -> list[Problem]:
    """The problems touching one of `paths` (root-relative)."""
    return [p for p in problems if paths.intersection(p.files)]


def exit_status(problems: Iterable[Problem]) -> int:
    return 1 if any(p.is_error for p in problems) else 0
