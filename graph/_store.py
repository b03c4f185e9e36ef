"""The raw structure of the index: tasks, typed edges, dangling references, cycles.

An edge points from the task that names another to the task it names (child → parent, task →
dependency). The depends_on edges form a compact `Digraph` over every task (a networkx
`DiGraph`'s dicts without networkx: the graph the cycle and ordering algorithms run on); the
parent and soft_depends_on edges, only ever read as neighbours, are kept as `Referrers` (the
tasks naming each task, where there are any). A reference to an id that no task has is not
an edge: it is kept in `missing`, keyed by the missing id, and becomes an edge the moment a
task with that id arrives.

Cycles are kept as they change, never recomputed whole: `dep_cycle` maps every member of a
dependency cycle (a strongly connected component with more than one member, or a self-loop)
to its sorted members, one `Cycle` object per cycle (shared, hashed once: a record holding
it costs the same whatever the cycle's size); `parent_cycle` does the same for parent cycles.

`load` fills an empty store in bulk (`digraph`, one pass over each kind's edges) and
looks for dependency cycles only among what a topological (Kahn) pass cannot order; the
engine's walk down from the roots then tells whether `find_parent_cycles` has anything to find.

Every mutating method returns the ids whose local facts may have changed (`_derive` recomputes
those and whatever inherits from them).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping
from typing import Literal, TypeVar

from graph._digraph import (
    Digraph,
    add_edge,
    add_node,
    digraph,
    predecessors,
    remove_edge,
    remove_node,
    successors,
)
from graph._referrers import Referrers
from graph.claims import DEFER_UNTIL
from graph.cycles import (
    Cycle,
    closing_cycle,
    cycle_candidates,
    cycles_among,
    parent_cycle_through,
    parent_cycles,
)
from storage.model import TERMINAL_STATUSES, Task

__all__ = ["KINDS", "IdSet", "Kind", "NamedBy", "Store", "references"]

Kind = Literal["parent", "depends_on", "soft_depends_on"]
KINDS: tuple[Kind, ...] = ("parent", "depends_on", "soft_depends_on")
NamedBy = Mapping[str, Collection[str]]
IdSet = dict[str, None]
"""A set of ids kept as a dict's keys: 20-40 bytes per member where a `set` of a few
thousand takes about 100 (a set grows fourfold at a time and stays mostly empty), for groups
that are iterated, counted and sorted but not asked about one id (a dict answers a miss about
1.5x slower than a set)."""
K = TypeVar("K")


def references(task: Task | None, kind: Kind) -> tuple[str, ...]:
    """The ids `task` names in the field `kind`, as written (empty for no task)."""
    if task is None:
        return ()
    if kind == "parent":
        return () if task.parent is None else (task.parent,)
    return task.depends_on if kind == "depends_on" else task.soft_depends_on


def _note(found: dict[K, set[str]], key: K, task_id: str) -> None:
    """Add `task_id` to the set under `key` (a missing id's referrers, a project's members:
    sets, since readers test membership, which a set answers fastest when most ids miss)."""
    members = found.get(key)
    if members is None:
        found[key] = {task_id}
    else:
        members.add(task_id)


def _unblock_relevant(old: Task, new: Task) -> bool:
    """True when a change to a task can change the facts of its dependents and its parent."""
    return (old.status in TERMINAL_STATUSES) != (new.status in TERMINAL_STATUSES) or (
        old.completed != new.completed
    )


class Store:
    """Tasks by id and the typed edges between them, maintained edit by edit."""

    def __init__(self) -> None:
        self.tasks: dict[str, Task] = {}
        self.dependencies: Digraph = digraph((), (), compact=True)
        self.referrers: dict[Kind, Referrers] = {
            "parent": Referrers(),
            "soft_depends_on": Referrers(),
        }
        self.missing: dict[Kind, dict[str, set[str]]] = {kind: {} for kind in KINDS}
        self.by_project: dict[str | None, set[str]] = {}
        self.deferring: set[str] = set()
        """Ids of the tasks whose file names a `defer_until` (ahead or past): the only ones
        a deferral can take out of the ready or blocked lists."""
        self.dep_cycle: dict[str, Cycle] = {}
        self.parent_cycle: dict[str, tuple[str, ...]] = {}
        self.self_references: set[tuple[str, Kind]] = set()

    # --- reading -------------------------------------------------------------------------

    def parent_of(self, task_id: str) -> str | None:
        """The parent id if that parent exists in the index, else None."""
        parent = self.tasks[task_id].parent
        return parent if parent is not None and parent in self.tasks else None

    def named_by(self, kind: Kind) -> NamedBy:
        """Task id → the ids of the tasks that name it in `kind` (read-only; any task reads
        as named by none when nobody names it, but `.get` may give None then)."""
        if kind == "depends_on":
            return predecessors(self.dependencies)
        return self.referrers[kind]

    def sources(self, kind: Kind, task_id: str) -> Iterator[str]:
        """Ids of the tasks that name `task_id` in `kind` (children, dependents, ...)."""
        if kind == "depends_on":
            return iter(predecessors(self.dependencies)[task_id])
        return iter(self.referrers[kind].get(task_id, ()))

    def naming_counts(self, task_id: str) -> tuple[Collection[str], int, int]:
        """The children of an existing task, and how many tasks name it in depends_on and
        in soft_depends_on."""
        return (
            self.referrers["parent"].get(task_id, ()),
            len(predecessors(self.dependencies)[task_id]),
            len(self.referrers["soft_depends_on"].get(task_id, ())),
        )

    def targets(self, kind: Kind, task_id: str) -> Iterator[str]:
        """Existing ids that `task_id` names in `kind`, each once."""
        if kind == "depends_on":
            return iter(successors(self.dependencies)[task_id])
        return iter(self._existing(references(self.tasks[task_id], kind)))

    def _existing(self, ids: Iterable[str]) -> dict[str, None]:
        """`ids` that a task has, each once, in order."""
        tasks = self.tasks
        return {target: None for target in ids if target in tasks}

    def walk_up(self, task_id: str) -> Iterator[str]:
        """Ancestors of `task_id`, nearest first, each once, never `task_id` itself."""
        seen = {task_id}
        current = self.parent_of(task_id)
        while current is not None and current not in seen:
            seen.add(current)
            yield current
            current = self.parent_of(current)

    def walk_down(self, task_id: str) -> Iterator[str]:
        """Descendants of `task_id` in breadth-first order, each once, never `task_id` itself."""
        seen = {task_id}
        frontier = [task_id]
        children = self.named_by("parent")
        while frontier:
            following: list[str] = []
            for node in frontier:
                for child in children.get(node, ()):
                    if child not in seen:
                        seen.add(child)
                        following.append(child)
                        yield child
            frontier = following

    # --- bulk load -----------------------------------------------------------------------

    def load(self, tasks: Iterable[Task], *, find_cycles: bool = True) -> list[str]:
        """Fill an empty store with `tasks` (the last of a repeated id wins), all but its
        parent cycles (`find_parent_cycles`), and its dependency cycles when `find_cycles`
        (else `find_dep_cycles` later). Return the roots (no parent, or a missing one)."""
        by_id = self.tasks = {task.id: task for task in tasks}
        for task_id, task in by_id.items():
            _note(self.by_project, task.project, task_id)
        # A set grown one add at a time keeps a table four times its members; a copy is
        # sized for them: half the bytes (at 100k tasks in 20 projects, 10.5 -> 5.2 MB).
        self.by_project = {project: set(ids) for project, ids in self.by_project.items()}
        self.deferring = {t for t, task in by_id.items() if DEFER_UNTIL in task.extra}
        self.dependencies = digraph(by_id, self._edges("depends_on"), compact=True)
        for kind in self.referrers:
            self.referrers[kind] = Referrers.gathered(self._edges(kind))
        if find_cycles:
            self.find_dep_cycles()
        return [t for t, task in by_id.items() if task.parent is None or task.parent not in by_id]

    def _edges(self, kind: Kind) -> Iterator[tuple[str, str]]:
        """The edges of `kind` between existing tasks; dangling ones go to `missing`."""
        tasks, missing = self.tasks, self.missing[kind]
        for task_id, named in self._naming(kind):
            for target in named:
                if target == task_id:
                    self.self_references.add((task_id, kind))
                if target in tasks:
                    yield task_id, target
                else:
                    _note(missing, target, task_id)

    def _naming(self, kind: Kind) -> Iterator[tuple[str, tuple[str, ...]]]:
        """Each task that names an id in `kind`, with those ids (`references`, read straight
        from the field: most tasks name none, and a bulk load asks every task)."""
        items = self.tasks.items()
        if kind == "parent":
            return ((i, (t.parent,)) for i, t in items if t.parent is not None)
        if kind == "depends_on":
            return ((i, t.depends_on) for i, t in items if t.depends_on)
        return ((i, t.soft_depends_on) for i, t in items if t.soft_depends_on)

    def find_dep_cycles(self) -> None:
        """Components only among what a topological pass cannot order: usually nothing."""
        graph = self.dependencies
        counts = {node: len(targets) for node, targets in successors(graph).items() if targets}
        for members in cycles_among(graph, cycle_candidates(counts, predecessors(graph))):
            for member in members:
                self.dep_cycle[member] = members

    def find_parent_cycles(self, reached: Collection[str]) -> None:
        """Note every parent cycle, all of them among the tasks not in `reached` (a walk down
        from the roots reaches every task that is on no parent cycle and below none)."""
        unreached = [task_id for task_id in self.tasks if task_id not in reached]
        for members in parent_cycles(unreached, self.parent_of):
            for member in members:
                self.parent_cycle[member] = members

    def _note_parent_cycle(self, task_id: str) -> set[str]:
        members = parent_cycle_through(task_id, self.parent_of)
        for member in members:
            self.parent_cycle[member] = members
        return set(members)

    # --- edits -----------------------------------------------------------------------------

    def upsert(self, task: Task) -> set[str]:
        """Put `task` in (new or changed); return the ids whose local facts may have changed."""
        old = self.tasks.get(task.id)
        self.tasks[task.id] = task
        dirty = {task.id}
        if old is None:
            dirty |= self._add_node(task.id)
        elif _unblock_relevant(old, task):
            dirty.update(self.sources("depends_on", task.id))
            dirty.update(self._existing(references(old, "parent")))
        if old is None or old.project != task.project:
            self._move_project(task.id, None if old is None else old.project, task.project)
        if DEFER_UNTIL in task.extra:
            self.deferring.add(task.id)
        else:
            self.deferring.discard(task.id)
        for kind in KINDS:
            dirty |= self._relink(kind, task.id, references(old, kind), references(task, kind))
        return dirty

    def remove(self, task_id: str) -> set[str]:
        """Take `task_id` out; its referrers keep their references, now dangling."""
        old = self.tasks[task_id]
        dirty = self._break_parent_cycle(task_id)
        for kind in KINDS:
            for target in set(references(old, kind)):
                self._unreference(kind, task_id, target)
            targets = list(self.targets(kind, task_id))
            dirty.update(targets)
            sources = set(self.sources(kind, task_id)) - {task_id}
            dirty |= sources
            if sources:
                self.missing[kind].setdefault(task_id, set()).update(sources)
            self._drop_node(kind, task_id, targets)
        dirty |= self._resplit(self.dep_cycle.get(task_id, ()))
        self._move_project(task_id, old.project, None, add=False)
        self.deferring.discard(task_id)
        del self.tasks[task_id]
        dirty.discard(task_id)
        return dirty

    def _drop_node(self, kind: Kind, task_id: str, targets: Iterable[str]) -> None:
        """Take a leaving task's edges of `kind` out (`targets`: the ids it names)."""
        if kind == "depends_on":
            remove_node(self.dependencies, task_id)
            return
        referrers = self.referrers[kind]
        for target in targets:
            referrers.unlink(task_id, target)
        referrers.forget(task_id)

    def _add_node(self, task_id: str) -> set[str]:
        """A new id: its dangling referrers become edges (and may close cycles)."""
        dirty: set[str] = set()
        add_node(self.dependencies, task_id)
        for kind in KINDS:
            for source in sorted(self.missing[kind].pop(task_id, ())):
                dirty.add(source)
                dirty |= self._link(kind, source, task_id)
        return dirty

    def _move_project(
        self, task_id: str, old: str | None, new: str | None, *, add: bool = True
    ) -> None:
        members = self.by_project.get(old)
        if members is not None:
            members.discard(task_id)
            if not members:
                del self.by_project[old]
        if add:
            _note(self.by_project, new, task_id)

    def _relink(
        self, kind: Kind, task_id: str, old: tuple[str, ...], new: tuple[str, ...]
    ) -> set[str]:
        dirty: set[str] = set()
        before, after = set(old), set(new)
        for target in sorted(before - after):
            dirty |= self._detach(kind, task_id, target)
        for target in sorted(after - before):
            if target in self.tasks:
                dirty.add(target)
                dirty |= self._link(kind, task_id, target)
            else:
                self.missing[kind].setdefault(target, set()).add(task_id)
        return dirty

    def _link(self, kind: Kind, source: str, target: str) -> set[str]:
        """Add the edge source → target between existing tasks; return new cycle members."""
        if source == target:
            self.self_references.add((source, kind))
        if kind == "depends_on":
            add_edge(self.dependencies, source, target)
            return self._close_dep_cycle(source, target)
        self.referrers[kind].link(source, target)
        if kind == "parent" and (source == target or source in self.referrers[kind]):
            return self._note_parent_cycle(source)  # a task no child names closes no cycle
        return set()

    def _unreference(self, kind: Kind, source: str, target: str) -> bool:
        """Forget a dangling reference or a self-reference; True when it was dangling."""
        if source == target:
            self.self_references.discard((source, kind))
        waiting = self.missing[kind].get(target)
        if waiting is None or source not in waiting:
            return False
        waiting.discard(source)
        if not waiting:
            del self.missing[kind][target]
        return True

    def _detach(self, kind: Kind, source: str, target: str) -> set[str]:
        """Drop the reference source → target, an edge or a dangling one."""
        if self._unreference(kind, source, target):
            return set()
        dirty = {target}
        cycle = self.dep_cycle.get(source, ()) if kind == "depends_on" else ()
        if kind == "parent":
            dirty |= self._break_parent_cycle(source)
        if kind == "depends_on":
            remove_edge(self.dependencies, source, target)
        else:
            self.referrers[kind].unlink(source, target)
        if target in cycle:
            dirty |= self._resplit(cycle)
        return dirty

    # --- cycles ----------------------------------------------------------------------------

    def _close_dep_cycle(self, source: str, target: str) -> set[str]:
        known = self.dep_cycle.get(source)
        if known is not None and target in known:
            return set()
        graph = self.dependencies
        members = closing_cycle(source, target, successors(graph), predecessors(graph))
        cycle = Cycle(sorted(members))
        for member in cycle:
            self.dep_cycle[member] = cycle
        return set(cycle)

    def _resplit(self, cycle: Cycle | tuple[()]) -> set[str]:
        """Recompute the components of a former cycle's members after an edge or node went."""
        if not cycle:
            return set()
        for member in cycle:
            del self.dep_cycle[member]
        graph = self.dependencies
        for found in cycles_among(graph, [n for n in cycle if n in graph]):
            members = cycle if len(found) == len(cycle) else found  # whole: the same object
            for member in members:
                self.dep_cycle[member] = members
        return set(cycle)

    def _break_parent_cycle(self, task_id: str) -> set[str]:
        cycle = self.parent_cycle.get(task_id, ())
        for member in cycle:
            del self.parent_cycle[member]
        return set(cycle)
