"""What changed between two states of a tree: the delta as named id sections, raw facts only.

The index holds one state (the tree on disk). Another state is given as the tasks that
differ from it (`Side.tasks`: id → its task there, or None where it is absent), so the cost
of a delta grows with the change, never with the tree: the index takes the other state's
tasks for the length of a `with applied(...)` block (at the price of an edit each way), its
own readiness rules answer for both states, and it is put back exactly as it was. Problems
and standings are read only where the change can reach (`tree_delta`).

A task is matched by id, never by path: a moved file is a change with `path` in its row.
Readiness sections hold only tasks present in both states; `completed` are tasks whose
status went from open to `done`, `reopened` those that were done or cancelled and are open
again.

>>> from storage.model import Task
>>> index = TaskIndex.build([
...     Task(id="a", title="A", path="a.md", status="done"),
...     Task(id="b", title="B", path="b.md", status="active", depends_on=("a",)),
... ])
>>> before = Side(tasks={"a": Task(id="a", title="A", path="a.md", status="active")})
>>> found = tree_delta(index, {"a"}, since=before, until=Side())
>>> found.completed, found.became_ready, found.changed[0].fields["status"].to
(['a'], ['b'], 'done')
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from datetime import date, datetime

from pydantic import BaseModel, ConfigDict, Field

from graph._results import RESULT
from graph._store import KINDS, references
from graph.changes import region_between, standings
from graph.cycles import parent_cycle_through
from graph.index import TaskIndex
from graph.mismatches import family_of, terminal_mismatches
from graph.sections import Sections
from storage.model import DONE_STATUS, TERMINAL_STATUSES, Task

__all__ = [
    "SECTIONS",
    "ChangedTask",
    "FieldChange",
    "FieldValue",
    "PathMove",
    "ProblemRow",
    "Side",
    "TreeDelta",
    "applied",
    "cycles_through",
    "field_changes",
    "tree_delta",
]

FieldValue = str | int | float | bool | list[str] | None
"""A frontmatter value in a change row: times as ISO 8601 text, other nested values as
compact JSON text."""

_NOT_FIELDS = frozenset({"id", "path", "packed_body", "extra"})
_FIELD_NAMES = tuple(f.name for f in fields(Task) if f.name not in _NOT_FIELDS)
_BOTH = ConfigDict(**RESULT, serialize_by_alias=True, validate_by_name=True)

SECTIONS = (
    "added",
    "removed",
    "changed",
    "became_ready",
    "became_blocked",
    "completed",
    "reopened",
    "problems_appeared",
    "problems_went_away",
)
"""The delta's sections, in the order one cursor walks them."""


class FieldChange(BaseModel):
    """One frontmatter field's value in the earlier and the later state (null: not set)."""

    model_config = _BOTH

    from_: FieldValue = Field(alias="from", description="Value in the earlier state.")
    to: FieldValue = Field(description="Value in the later state.")


class PathMove(BaseModel):
    """Where the task's file was and is (relative to the root)."""

    model_config = _BOTH

    from_: str = Field(alias="from", description="Path in the earlier state.")
    to: str = Field(description="Path in the later state.")


class ChangedTask(BaseModel):
    """A task present in both states whose file content changed."""

    model_config = RESULT

    task_id: str = Field(description="Task id.")
    fields: dict[str, FieldChange] = Field(
        description="Frontmatter fields that differ, by name (normalised as the reader reads "
        "them: statuses canonical, priorities 0-4); other keys under their own names."
    )
    body_changed: bool = Field(description="True when the markdown body differs.")
    path: PathMove | None = Field(description="The file's move, when it moved; else null.")


class ProblemRow(BaseModel):
    """A structural problem of one state: what it is and what it involves."""

    model_config = RESULT

    kind: str = Field(
        description="dependency_cycle, parent_cycle, dangling_parent, dangling_depends_on, "
        "dangling_soft_depends_on, self_reference, terminal_with_open_children, "
        "open_under_terminal_parent, duplicate_id or unparseable_file."
    )
    task_ids: list[str] = Field(description="The tasks involved (cycle members, sorted).")
    detail: str = Field(
        description="The missing id, the field, the terminal parent, the paths or the message."
    )
    path: str | None = Field(description="The file, for unparseable files; else null.")


class TreeDelta(BaseModel):
    """Every section of a delta, each sorted by task id (problems by kind, then ids)."""

    model_config = RESULT

    added: list[str] = Field(description="Tasks only in the later state.")
    removed: list[str] = Field(description="Tasks only in the earlier state.")
    changed: list[ChangedTask] = Field(description="Tasks in both whose file changed.")
    became_ready: list[str] = Field(description="In both; ready only in the later state.")
    became_blocked: list[str] = Field(description="In both; blocked only in the later state.")
    completed: list[str] = Field(description="In both; status became done.")
    reopened: list[str] = Field(description="In both; was done or cancelled, now open.")
    problems_appeared: list[ProblemRow] = Field(description="Problems only in the later state.")
    problems_went_away: list[ProblemRow] = Field(description="Problems only in the earlier state.")

    def sections(self) -> Sections:
        """The sections by name, in `SECTIONS` order (ids, and the rows of `changed` and of
        the problems), for the toolset to page as one sequence."""
        return Sections({name: getattr(self, name) for name in SECTIONS})

    def summary(self) -> dict[str, int]:
        """Each section's length."""
        return {name: len(items) for name, items in self.sections().lists.items()}


@dataclass(frozen=True, slots=True)
class Side:
    """A state of the tree relative to the index: the tasks that differ (None: absent
    there), and its file-level problems (duplicate ids with their paths, unparseable files
    with their messages): those of the ids and files that differ between the two states
    are enough, as no other can appear or go away; more are harmless."""

    tasks: Mapping[str, Task | None] = field(default_factory=dict)
    duplicates: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    unparseable: Mapping[str, str] = field(default_factory=dict)


@contextmanager
def applied(index: TaskIndex, tasks: Mapping[str, Task | None]) -> Iterator[None]:
    """Hold `tasks` (id → task, None: absent) in `index` for the block, then put back what
    it held. Call under the index's lock; readers see the other state meanwhile."""
    kept = {task_id: index.get(task_id) for task_id in tasks}
    _put(index, {i: t for i, t in tasks.items() if kept[i] is not t})
    try:
        yield
    finally:
        _put(index, kept)


def _put(index: TaskIndex, tasks: Mapping[str, Task | None]) -> None:
    upserted = [t for t in tasks.values() if t is not None]
    removed = [i for i, t in tasks.items() if t is None and i in index]
    if upserted or removed:
        index.apply(upserted, removed)


def _plain(value: object) -> FieldValue:
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, tuple | list) and all(isinstance(v, str) for v in value):
        return list(value)
    return json.dumps(value, sort_keys=True, default=str, separators=(",", ":"))


def _change(before: object, after: object) -> FieldChange:
    return FieldChange.model_validate({"from": _plain(before), "to": _plain(after)})


def field_changes(old: Task, new: Task) -> dict[str, FieldChange]:
    """The frontmatter fields whose value differs, by name (model fields, then other keys).

    >>> a = Task(id="t", title="T", path="t.md", priority=2)
    >>> field_changes(a, Task(id="t", title="T", path="t.md", priority=3, extra={"x": 1}))
    {'priority': FieldChange(from_=2, to=3), 'x': FieldChange(from_=None, to=1)}
    """
    found: dict[str, FieldChange] = {}
    for name in _FIELD_NAMES:
        before, after = getattr(old, name), getattr(new, name)
        if before != after:
            found[name] = _change(before, after)
    for key in sorted(old.extra.keys() | new.extra.keys()):
        before, after = old.extra.get(key), new.extra.get(key)
        if before != after and key not in found:
            found[key] = _change(before, after)
    return found


def _changed_row(old: Task, new: Task) -> ChangedTask | None:
    if old == new:
        return None
    moved = None
    if old.path != new.path:
        moved = PathMove.model_validate({"from": old.path, "to": new.path})
    changes = field_changes(old, new)
    body_changed = not old.same_body(new)
    if not (changes or body_changed or moved):
        return None
    return ChangedTask(task_id=new.id, fields=changes, body_changed=body_changed, path=moved)


def _row(kind: str, task_ids: Iterable[str], detail: str = "") -> ProblemRow:
    return ProblemRow(kind=kind, task_ids=list(task_ids), detail=detail, path=None)


def cycles_through(index: TaskIndex, ids: Iterable[str]) -> list[ProblemRow]:
    """The dependency and parent cycles of the state the index holds that run through one
    of `ids` (each once)."""
    present = [i for i in ids if i in index]
    dependency = {index.record(i).local.cycle for i in present}
    parent = {parent_cycle_through(i, _existing_parent(index)) for i in present}
    return [_row("dependency_cycle", c) for c in sorted(dependency) if c] + [
        _row("parent_cycle", c) for c in sorted(parent) if c
    ]


def _existing_parent(index: TaskIndex) -> Callable[[str], str | None]:
    def parent_of(task_id: str) -> str | None:
        parent = index.require(task_id).parent
        return parent if parent is not None and parent in index else None

    return parent_of


def _references_of(index: TaskIndex, ids: Iterable[str]) -> list[ProblemRow]:
    """Dangling references and self-references that `ids` make, or that name one of them."""
    rows = []
    for kind in KINDS:
        missing = index.missing_references(kind)
        for task_id in ids:
            task = index.get(task_id)
            named = references(task, kind)
            rows += [_row(f"dangling_{kind}", [task_id], t) for t in named if t in missing]
            rows += [_row(f"dangling_{kind}", [s], task_id) for s in missing.get(task_id, ())]
            if task_id in named:
                rows.append(_row("self_reference", [task_id], kind))
    return rows


def _problems(
    index: TaskIndex, side: Side, near: Collection[str], family: Collection[str]
) -> dict[tuple[str, ...], ProblemRow]:
    """The structural problems of the state the index holds that involve `near` (a cycle
    through one, a reference one makes or that names one), the terminal mismatches of
    `family` and the side's file problems, keyed for comparison. Any other problem involves
    only tasks and files that are the same in both states, so it is in both or in neither:
    it cannot appear or go away."""
    rows = cycles_through(index, near) + _references_of(index, near)
    rows += [
        _row(kind, [task_id], detail)
        for kind, task_id, detail in terminal_mismatches(index, family)
    ]
    rows += [
        ProblemRow(kind="duplicate_id", task_ids=[i], detail=", ".join(p), path=None)
        for i, p in side.duplicates.items()
    ]
    rows += [
        ProblemRow(kind="unparseable_file", task_ids=[], detail=m, path=p)
        for p, m in side.unparseable.items()
    ]
    return {_problem_key(row): row for row in rows}  # fmt: skip


def _cycle_members(index: TaskIndex, ids: Iterable[str]) -> set[str]:
    return {m for row in cycles_through(index, ids) for m in row.task_ids}


def _problem_key(row: ProblemRow) -> tuple[str, ...]:
    if row.kind == "unparseable_file":
        return (row.kind, row.path or "")  # the message may say another line; same problem
    return (row.kind, *row.task_ids, row.detail)


def _only_in(
    these: Mapping[tuple[str, ...], ProblemRow], those: Mapping[tuple[str, ...], ProblemRow]
) -> list[ProblemRow]:
    return [these[key] for key in sorted(these.keys() - those.keys())]


@dataclass(frozen=True, slots=True)
class _State:
    tasks: dict[str, Task | None]
    standing: dict[str, str]
    problems: dict[tuple[str, ...], ProblemRow]


@dataclass(frozen=True, slots=True)
class _Reach:
    """Where a delta reads: standings of `region`, cycles and references of `near`,
    terminal mismatches of `family`."""

    region: Collection[str]
    near: Collection[str]
    family: Collection[str]


def _read_state(index: TaskIndex, ids: Collection[str], reach: _Reach, side: Side) -> _State:
    return _State(
        tasks={i: index.get(i) for i in ids},
        standing=dict(standings(index, reach.region)),
        problems=_problems(index, side, reach.near, reach.family),
    )


def tree_delta(
    index: TaskIndex, touched: Collection[str], *, since: Side, until: Side
) -> TreeDelta:
    """The delta from `since` to `until`, two states given relative to `index`; `since`
    relative to `until` (its tasks are applied on top of `until`'s). `touched`: every id
    whose task may differ between the two (ids of the files that differ, either side).
    The sides' file problems need only cover the files and ids that differ.

    Problems are read only around `touched`: a cycle that appears or goes away runs
    through a touched task, or lies inside one (of the other state) that does; so the
    members of the touched tasks' cycles in either state are read in both. A terminal
    mismatch that appears or goes away has a touched task as its parent or child: the
    touched tasks' parents and children in either state are read in both. The index is the
    same after as before."""
    with applied(index, until.tasks):
        region = region_between(index, touched, since.tasks)
        near = set(touched) | _cycle_members(index, touched)
        family = family_of(index, touched)
        with applied(index, since.tasks):
            near |= _cycle_members(index, near)
            reach = _Reach(region, near, family | family_of(index, touched))
            earlier = _read_state(index, touched, reach, since)
        later = _read_state(index, touched, reach, until)
    return _delta(earlier, later)


def _delta(earlier: _State, later: _State) -> TreeDelta:
    pairs = _pairs(earlier, later)
    return TreeDelta(
        added=_arrived(earlier, later),
        removed=_arrived(later, earlier),
        changed=_changed(pairs),
        became_ready=_entered(earlier, later, "ready"),
        became_blocked=_entered(earlier, later, "blocked"),
        completed=[i for i, (old, new) in pairs.items() if _completed(old, new)],
        reopened=[i for i, (old, new) in pairs.items() if _reopened(old, new)],
        problems_appeared=_only_in(later.problems, earlier.problems),
        problems_went_away=_only_in(earlier.problems, later.problems),
    )


def _pairs(earlier: _State, later: _State) -> dict[str, tuple[Task, Task]]:
    """Each id with a task in both states, in id order: its task before and after."""
    pairs: dict[str, tuple[Task, Task]] = {}
    for i in sorted(earlier.tasks):
        old, new = earlier.tasks[i], later.tasks[i]
        if old is not None and new is not None:
            pairs[i] = (old, new)
    return pairs


def _arrived(before: _State, after: _State) -> list[str]:
    """Ids with no task in `before` and one in `after`, sorted."""
    return sorted(i for i, task in after.tasks.items() if task and before.tasks[i] is None)


def _changed(pairs: dict[str, tuple[Task, Task]]) -> list[ChangedTask]:
    rows = (_changed_row(old, new) for old, new in pairs.values())
    return [row for row in rows if row is not None]


def _entered(earlier: _State, later: _State, standing: str) -> list[str]:
    """Ids in both states whose standing is `standing` only in the later one."""
    absent = "absent"
    return sorted(
        i
        for i, now in later.standing.items()
        if now == standing and earlier.standing.get(i, absent) not in (standing, absent)
    )


def _completed(old: Task, new: Task) -> bool:
    """Its status became done (SPEC §5: from open, and from cancelled too)."""
    return old.status != DONE_STATUS and new.status == DONE_STATUS


def _reopened(old: Task, new: Task) -> bool:
    """Done or cancelled before, open after."""
    return old.status in TERMINAL_STATUSES and new.status not in TERMINAL_STATUSES
