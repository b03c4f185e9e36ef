"""Structural signals (`get_structural_signals`): raw lists of what looks broken.

Cycles, dangling references, self-references, terminal tasks with open children and open
tasks under terminal parents come from the index. Duplicate ids and unparseable files are
storage's findings: the two fields are here, empty, so the output has one shape, and the
server fills them from the repository.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from graph._results import RESULT
from graph._store import KINDS, Kind, references
from graph.index import TaskIndex
from storage.model import TERMINAL_STATUSES

__all__ = [
    "DanglingReference",
    "DanglingReferences",
    "DuplicateIdSignal",
    "OpenUnderTerminalParent",
    "SelfReference",
    "StructuralSignals",
    "TerminalWithOpenChildren",
    "UnparseableFile",
    "structural_signals",
    "task_signals",
]

_FROZEN = RESULT


class DanglingReference(BaseModel):
    """A task naming an id no task has."""

    model_config = _FROZEN

    task_id: str = Field(description="The task holding the reference.")
    missing_id: str = Field(description="The id it names, which no task has.")


class DanglingReferences(BaseModel):
    """Dangling references per field, each list sorted by (task_id, missing_id)."""

    model_config = _FROZEN

    parent: list[DanglingReference] = Field(description="Parents that do not exist.")
    depends_on: list[DanglingReference] = Field(description="Hard dependencies that do not exist.")
    soft_depends_on: list[DanglingReference] = Field(
        description="Soft dependencies that do not exist."
    )


class SelfReference(BaseModel):
    """A task naming itself."""

    model_config = _FROZEN

    task_id: str = Field(description="The task.")
    field: Kind = Field(description="The field naming the task itself.")


class TerminalWithOpenChildren(BaseModel):
    """A done or cancelled task with children still open."""

    model_config = _FROZEN

    task_id: str = Field(description="The done or cancelled task.")
    open_children: list[str] = Field(description="Its children that are not done or cancelled.")


class OpenUnderTerminalParent(BaseModel):
    """An open task whose parent is done or cancelled."""

    model_config = _FROZEN

    task_id: str = Field(description="The open task.")
    parent: str = Field(description="Its done or cancelled parent.")


class DuplicateIdSignal(BaseModel):
    """An id held by more than one file (filled by the server from storage)."""

    model_config = _FROZEN

    task_id: str = Field(description="The repeated id.")
    paths: list[str] = Field(description="Every file holding it; the first one is used.")


class UnparseableFile(BaseModel):
    """A file that could not be read as a task (filled by the server from storage)."""

    model_config = _FROZEN

    path: str = Field(description="File path relative to the root.")
    message: str = Field(description="The parser's message.")


class StructuralSignals(BaseModel):
    """Raw structural findings; what to fix, and whether, is the reader's call."""

    model_config = _FROZEN

    parent_cycles: list[list[str]] = Field(description="Parent cycles, each as sorted members.")
    dependency_cycles: list[list[str]] = Field(
        description="depends_on cycles (strongly connected groups), each as sorted members."
    )
    dangling_references: DanglingReferences = Field(description="References to missing ids.")
    self_references: list[SelfReference] = Field(description="Tasks naming themselves.")
    terminal_with_open_children: list[TerminalWithOpenChildren] = Field(
        description="Done or cancelled tasks that still have open children."
    )
    open_under_terminal_parent: list[OpenUnderTerminalParent] = Field(
        description="Open tasks whose parent is done or cancelled."
    )
    duplicate_ids: list[DuplicateIdSignal] = Field(
        default_factory=list, description="Ids held by more than one file."
    )
    unparseable_files: list[UnparseableFile] = Field(
        default_factory=list, description="Files that could not be read as tasks."
    )


def _dangling(index: TaskIndex, kind: Kind) -> list[DanglingReference]:
    pairs = sorted(
        (source, missing)
        for missing, sources in index.missing_references(kind).items()
        for source in sources
    )
    return [DanglingReference(task_id=s, missing_id=m) for s, m in pairs]


def _open_children(index: TaskIndex, task_id: str) -> list[str]:
    return [c for c in index.children(task_id) if index.require(c).status not in TERMINAL_STATUSES]


def structural_signals(index: TaskIndex) -> StructuralSignals:
    """Every cycle, dangling reference, self-reference and open/terminal mismatch.

    >>> from storage.model import Task
    >>> index = TaskIndex.build([Task(id="a", title="A", path="a.md", depends_on=("b",)),
    ...                          Task(id="b", title="B", path="b.md", depends_on=("a",))])
    >>> structural_signals(index).dependency_cycles
    [['a', 'b']]
    """
    terminal = sorted(index.tally.terminal_open)
    open_children = {task_id: _open_children(index, task_id) for task_id in terminal}
    return StructuralSignals(
        parent_cycles=index.parent_cycles(),
        dependency_cycles=index.dependency_cycles(),
        dangling_references=DanglingReferences(
            parent=_dangling(index, "parent"),
            depends_on=_dangling(index, "depends_on"),
            soft_depends_on=_dangling(index, "soft_depends_on"),
        ),
        self_references=[SelfReference(task_id=t, field=f) for t, f in index.self_references()],
        terminal_with_open_children=[
            TerminalWithOpenChildren(task_id=t, open_children=c) for t, c in open_children.items()
        ],
        open_under_terminal_parent=sorted(
            (
                OpenUnderTerminalParent(task_id=child, parent=parent)
                for parent, children in open_children.items()
                for child in children
            ),
            key=lambda row: (row.task_id, row.parent),
        ),
    )


def _dangling_of(index: TaskIndex, task_id: str, kind: Kind) -> list[DanglingReference]:
    missing = sorted({m for m in references(index.require(task_id), kind) if m not in index})
    return [DanglingReference(task_id=task_id, missing_id=m) for m in missing]


def task_signals(index: TaskIndex, task_id: str) -> StructuralSignals:
    """The signals about one task: what `structural_signals` holds about it, found without
    a pass over the graph (an editor asks this at each keystroke).

    >>> from storage.model import Task
    >>> index = TaskIndex.build([Task(id="a", title="A", path="a.md", depends_on=("b", "x")),
    ...                          Task(id="b", title="B", path="b.md", depends_on=("a",))])
    >>> found = task_signals(index, "a")
    >>> found.dependency_cycles, [r.missing_id for r in found.dangling_references.depends_on]
    ([['a', 'b']], ['x'])
    """
    task = index.require(task_id)
    parent_cycle, dep_cycle = index.cycles_through(task_id)
    terminal = task.status in TERMINAL_STATUSES
    open_children = _open_children(index, task_id) if terminal else []
    parent = index.get(task.parent) if task.parent is not None else None
    under_terminal = not terminal and parent is not None and parent.is_terminal
    return StructuralSignals(
        parent_cycles=[parent_cycle] if parent_cycle else [],
        dependency_cycles=[dep_cycle] if dep_cycle else [],
        dangling_references=DanglingReferences(
            parent=_dangling_of(index, task_id, "parent"),
            depends_on=_dangling_of(index, task_id, "depends_on"),
            soft_depends_on=_dangling_of(index, task_id, "soft_depends_on"),
        ),
        self_references=[
            SelfReference(task_id=task_id, field=kind)
            for kind in sorted(KINDS)
            if task_id in references(task, kind)
        ],
        terminal_with_open_children=(
            [TerminalWithOpenChildren(task_id=task_id, open_children=open_children)]
            if open_children
            else []
        ),
        open_under_terminal_parent=(
            [OpenUnderTerminalParent(task_id=task_id, parent=parent.id)]
            if under_terminal and parent is not None
            else []
        ),
    )
