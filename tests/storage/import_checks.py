"""What the import tests check on every imported tree: the tree read back with the real
index, and the references the report lists, as (field, task id, target) triples."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from graph.index import TaskIndex
from storage.importers import ImportReport
from storage.importers.report import REFERENCE_FIELDS
from storage.model import Task
from storage.repository import TaskRepository

__all__ = ["check", "dangling_in_index", "listed", "read_back"]


def read_back(root: Path) -> tuple[dict[str, Task], TaskIndex]:
    """The imported tree as the server reads it: every file a task, and its index."""
    table = TaskRepository(root).scan()
    assert table.problems() == []
    tasks = {task.id: task for task in table.tasks()}
    return tasks, TaskIndex.build(tasks.values())


def dangling_in_index(index: TaskIndex) -> set[tuple[str, str, str]]:
    """(field, task id, missing id) for every reference the index cannot resolve."""
    return {
        (field, source, missing)
        for field in REFERENCE_FIELDS
        for missing, sources in index.missing_references(field).items()
        for source in sources
    }


def listed(report: ImportReport, kind: str) -> set[tuple[str, str, str]]:
    """(field, task id, target) of every `kind` problem (`dangling_reference`,
    `dropped_reference`) in the report."""
    found = set()
    for problem in report.problems:
        if problem.kind == kind:
            match = re.match(r"(\w+) '([^']+)' of '([^']+)'", problem.message)
            assert match, problem.message
            found.add((match[1], match[3], match[2]))
    return found


def check(root: Path, *options: str) -> subprocess.CompletedProcess[str]:
    """`python -m tasks_server check --root ROOT [OPTIONS]`, run as a real process."""
    command = [sys.executable, "-m", "tasks_server", "check", "--root", str(root), *options]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
