"""The findings of `tasks-server check` and of the editor's diagnostics, from one source.

The structural signals as errors and warnings, by file and line: `tasks-server check` prints
them for the whole tree, the language server (`tasks_server/editor/`) shows those touching
an open file, computed with the open buffers standing for their files (`text_of`).

Errors are what makes a tree wrong to plan from (cycles, dangling references, a task naming
itself, duplicate ids, files that do not load, values larger than a write allows); warnings
are states a person may have meant (a done task with open children, an open task under a
done parent). The exit status is 1 when there is an error, else 0.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graph.index import TaskIndex
from graph.signals import (
    DanglingReferences,
    DuplicateIdSignal,
    StructuralSignals,
    UnparseableFile,
    structural_signals,
    task_signals,
)
from storage.errors import ParseError
from storage.frontmatter import parse_front, split
from storage.model import Task
from storage.table import FileTable
from tasks_server import sizes
from tasks_server.field_notes import FIELD_WARNINGS, FieldNote, field_notes

__all__ = [
    "CYCLE_NAMED",
    "TASK_KEYS",
    "WARNINGS",
    "Problem",
    "collect",
    "cycle_text",
    "exit_status",
    "file_problems",
    "problems_in",
    "tree_problems",
    "untitled",
    "value_problems",
    "with_load_problems",
]

WARNINGS = (
    frozenset({"terminal_with_open_children", "open_under_terminal_parent", "task_without_title"})
    | FIELD_WARNINGS
)
TASK_KEYS = ("id", "status", "depends_on", "parent", "priority", "type", "project")
"""Frontmatter keys that only a task file holds: a file with one of them and no title
looks like a task the loader leaves out (a file is a task only with a title)."""
_YAML_LINE = re.compile(r"YAML parse error at line (\d+)(?:, column (\d+))?")


@dataclass(frozen=True, slots=True)
class Problem:
    """One problem: what, where (a root-relative path and a line when known), which tasks."""

    kind: str
    path: str
    line: int | None
    message: str
    files: tuple[str, ...]
    needle: str | None = None  # the text on `line` the problem is about (an id, a key)
    column: int | None = None  # 1-based, when the parser said

    @property
    def is_error(self) -> bool:
        return self.kind not in WARNINGS

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}" if self.line else self.path


PathOf = Callable[[str], str | None]
TextOf = Callable[[str], str | None]
"""A file's text by its root-relative path (None when it cannot be read)."""


def with_load_problems(found: StructuralSignals, table: FileTable) -> StructuralSignals:
    """The index's signals plus storage's: duplicate ids and files that did not load."""
    duplicates = [
        DuplicateIdSignal(task_id=i, paths=list(p)) for i, p in table.duplicates().items()
    ]
    unparseable = [
        UnparseableFile(path=p.path, message=f"{p.kind}: {p.message}")
        for p in table.problems()
        if p.kind != "duplicate_id"
    ]
    return found.model_copy(update={"duplicate_ids": duplicates, "unparseable_files": unparseable})


def tree_problems(
    index: TaskIndex, table: FileTable, root: Path, text_of: TextOf | None = None
) -> list[Problem]:
    """Every problem of the tree, errors and warnings: what `check` reports. `text_of` gives
    the text lines are found in (default: the file on disk)."""
    signals = with_load_problems(structural_signals(index), table).model_dump()
    reader = text_of or _disk_reader(root)
    return collect(signals, _path_in(index), reader) + value_problems(index.tasks(), reader)


def file_problems(index: TaskIndex, table: FileTable, path: str, text_of: TextOf) -> list[Problem]:
    """The problems `tree_problems` reports touching the file at `path`, found from that
    file's task alone (no pass over the tree: the editor asks at each keystroke)."""
    result = table.result(path)
    if result is None:
        return []
    found, tasks = _NO_SIGNALS, []
    task = result.task
    if task is not None and (winner := index.get(task.id)) is not None and winner.path == path:
        found, tasks = task_signals(index, task.id), [winner]
    paths = table.paths_of(task.id) if task is not None else ()
    problem = result.problem
    load = found.model_copy(
        update={
            "duplicate_ids": [DuplicateIdSignal(task_id=task.id, paths=list(paths))]
            if task is not None and len(paths) > 1
            else [],
            "unparseable_files": [
                UnparseableFile(path=path, message=f"{problem.kind}: {problem.message}")
            ]
            if problem is not None and problem.kind != "duplicate_id"
            else [],
        }
    )
    problems = collect(load.model_dump(), _path_in(index), text_of) + value_problems(tasks, text_of)
    return problems_in(problems, {path})


_NO_SIGNALS = StructuralSignals(
    parent_cycles=[],
    dependency_cycles=[],
    dangling_references=DanglingReferences(parent=[], depends_on=[], soft_depends_on=[]),
    self_references=[],
    terminal_with_open_children=[],
    open_under_terminal_parent=[],
)


def _path_in(index: TaskIndex) -> PathOf:
    def path_of(task_id: str) -> str | None:
        task = index.get(task_id)
        return task.path if task is not None else None

    return path_of


def _disk_reader(root: Path) -> TextOf:
    def read(path: str) -> str | None:
        try:
            return (root / path).read_text(encoding="utf-8", errors="replace")
        except (OSError, ValueError):
            return None

    return read


def collect(signals: dict[str, Any], path_of: PathOf, text_of: TextOf) -> list[Problem]:
    """Every signal as a Problem; `path_of` gives a task's file (None when unknown)."""
    found = Finder(path_of, text_of)
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


CYCLE_NAMED = 20
"""How many members a cycle's message names: a 40,000-task cycle named whole is a message of
a megabyte, which a terminal table takes most of a minute to draw."""


def cycle_text(members: list[str]) -> str:
    """A cycle as `a -> b -> a`, or, past `CYCLE_NAMED` members, its first ones and a count.

    >>> cycle_text(["a", "b"]), cycle_text([f"t{n}" for n in range(22)])[-41:]
    ('a -> b -> a', 't18 -> t19 -> ... (22 tasks in the cycle)')
    """
    if len(members) <= CYCLE_NAMED:
        return " -> ".join([*members, members[0]])
    shown = " -> ".join(members[:CYCLE_NAMED])
    return f"{shown} -> ... ({len(members)} tasks in the cycle)"


def value_problems(tasks: Sequence[Task], text_of: TextOf) -> list[Problem]:
    """A problem for every value a write would refuse for its size (a file written by hand
    may hold a 100,000-character title: it loads, and is reported here), and a warning for
    every value the tree reads otherwise than its writer likely meant (`field_notes`)."""
    found = Finder(lambda _: None, text_of)
    return [
        *(found.oversize(task, over) for task in tasks for over in sizes.oversized(task)),
        *(found.field(task, note) for task in tasks for note in field_notes(task)),
    ]


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
    text_of: TextOf

    def _file(self, task_id: str) -> str:
        return self.path_of(task_id) or f"(task {task_id})"

    def _line(self, path: str, needle: str, after: int = 0) -> int | None:
        """The first line (1-based) holding `needle` after line `after`, in the front matter."""
        text = self.text_of(path)
        if text is None:
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

    def field(self, task: Task, note: FieldNote) -> Problem:
        line = self._line(task.path, f"{note.key}:")
        return Problem(note.kind, task.path, line, note.message, (task.path,), note.value)

    def cycle(self, kind: str, members: list[str]) -> Problem:
        files = tuple(self._file(m) for m in members)
        words = "parent" if kind == "parent_cycle" else "dependency"
        return Problem(kind, files[0], None, f"{words} cycle: {cycle_text(members)}", files)

    def dangling(self, field: str, ref: dict[str, Any]) -> Problem:
        path = self._file(ref["task_id"])
        line = self._line(path, ref["missing_id"])
        message = f"{ref['task_id']}: {field} names {ref['missing_id']}, which no task has"
        return Problem(f"dangling_{field}", path, line, message, (path,), ref["missing_id"])

    def self_reference(self, ref: dict[str, Any]) -> Problem:
        path = self._file(ref["task_id"])
        line = self._line(path, ref["field"])
        message = f"{ref['task_id']}: {ref['field']} names the task itself"
        return Problem("self_reference", path, line, message, (path,), ref["field"])

    def duplicate(self, dup: dict[str, Any]) -> Problem:
        paths = tuple(dup["paths"])
        message = f"id {dup['task_id']} is also in " + ", ".join(paths[1:])
        line = self._line(paths[0], "id:")
        return Problem("duplicate_id", paths[0], line, message, paths, "id:")

    def unparseable(self, bad: dict[str, Any]) -> Problem:
        found = _YAML_LINE.search(bad["message"])
        line = int(found.group(1)) + 1 if found else None  # +1: the opening `---`
        column = int(found.group(2)) if found and found.group(2) else None
        path = bad["path"]
        return Problem("unparseable_file", path, line, bad["message"], (path,), None, column)

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
