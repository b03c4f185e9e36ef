"""The last step of every import: each reference an imported task makes is checked against
the imported ids, counted as resolved, or kept and listed as dangling. Nothing dangles
silently: what the index will later call dangling is exactly what the report lists.

>>> from storage.importers.report import ReportBuilder
>>> from storage.model import Task
>>> builder = ReportBuilder("demo", "files")
>>> builder.read = 2
>>> tasks = [Task(id="a", title="A", path=""),
...          Task(id="b", title="B", path="", parent="a", depends_on=("zz",))]
>>> builder.named("parent"); builder.named("depends_on")
>>> settle(tasks, {"b": "b.md"}, builder)
>>> report = builder.build(imported=2)
>>> [problem.message for problem in report.problems]
["depends_on 'zz' of 'b' names no imported task: kept, dangling"]
>>> report.counts_add_up()
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from storage.model import Task

from .report import REFERENCE_FIELDS, ReferenceField, ReportBuilder

__all__ = ["references_of", "settle"]


def references_of(task: Task, field_name: ReferenceField) -> tuple[str, ...]:
    """The ids `task` names in one field (its parent as a one-item tuple)."""
    if field_name == "parent":
        return (task.parent,) if task.parent else ()
    return task.depends_on if field_name == "depends_on" else task.soft_depends_on


def settle(tasks: Sequence[Task], where: Mapping[str, str], builder: ReportBuilder) -> None:
    """Count every reference of `tasks` as resolved or dangling (listing the dangling ones,
    at `where[task id]`: the line or file the task came from)."""
    known = {task.id for task in tasks}
    for task in tasks:
        for field_name in REFERENCE_FIELDS:
            for target in references_of(task, field_name):
                if target in known:
                    builder.resolved(field_name)
                else:
                    builder.dangling(where.get(task.id, task.id), field_name, task.id, target)
