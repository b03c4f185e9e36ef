"""The delta reads problems and standings only around the change; on generated trees full of
cycles, dangling and self references, that equals comparing every problem and every standing
of two whole indexes built apart."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from graph.changes import standings
from graph.delta import ProblemRow, Side, tree_delta
from graph.index import TaskIndex
from graph.signals import structural_signals
from storage.model import Task

STATUSES = ("active", "active", "in_progress", "blocked", "done", "cancelled", "inbox")
GHOSTS = ("ghost1", "ghost2")  # ids no task ever has: references to them dangle
Tasks = dict[str, Task]


def random_task(rng: random.Random, task_id: str, pool: list[str]) -> Task:
    names = pool + list(GHOSTS)
    parent = rng.choice(names) if rng.random() < 0.6 else None
    return Task(
        id=task_id,
        title=f"{task_id} {rng.randrange(3)}",
        path=f"{task_id}.md",
        status=rng.choice(STATUSES),
        priority=rng.randrange(5),
        parent=parent,
        depends_on=tuple(rng.sample(names, rng.randrange(3))),
        soft_depends_on=tuple(rng.sample(names, rng.randrange(2))),
    )


def random_tree(rng: random.Random, size: int) -> Tasks:
    pool = [f"t{n}" for n in range(size)]
    return {i: random_task(rng, i, pool) for i in pool if rng.random() < 0.9}


def edited(rng: random.Random, tasks: Tasks, edits: int) -> Tasks:
    """Some tasks rewritten (links, status or only the title), removed or added."""
    found = dict(tasks)
    pool = [f"t{n}" for n in range(len(tasks) + 5)]
    for task_id in rng.sample(pool, edits):
        roll = rng.random()
        if roll < 0.2:
            found.pop(task_id, None)
        elif roll < 0.4 and task_id in found:
            found[task_id] = Task(**{**vars_of(found[task_id]), "title": "renamed"})
        else:
            found[task_id] = random_task(rng, task_id, pool)
    return found


def vars_of(task: Task) -> dict[str, Any]:
    names = ("id", "title", "path", "status", "priority", "parent", "depends_on")
    return {name: getattr(task, name) for name in names} | {"soft_depends_on": task.soft_depends_on}


def whole_problems(tasks: Tasks) -> set[tuple[str, ...]]:
    """Every structural problem of a state, from an index of that state alone."""
    index = TaskIndex.build(tasks.values())
    found = {("dependency_cycle", *c, "") for c in index.dependency_cycles()}
    found |= {("parent_cycle", *c, "") for c in index.parent_cycles()}
    for kind in ("parent", "depends_on", "soft_depends_on"):
        for missing, sources in index.missing_references(kind).items():
            found |= {(f"dangling_{kind}", s, missing) for s in sources}
    found |= {("self_reference", t, k) for t, k in index.self_references()}
    signals = structural_signals(index)  # the terminal mismatches, as the tool lists them
    found |= {
        ("terminal_with_open_children", r.task_id, "") for r in signals.terminal_with_open_children
    }
    found |= {
        ("open_under_terminal_parent", r.task_id, r.parent)
        for r in signals.open_under_terminal_parent
    }
    return found


def whole_standings(tasks: Tasks) -> Mapping[str, str]:
    index = TaskIndex.build(tasks.values())
    return standings(index, index.ids())


def entered(before: Mapping[str, str], after: Mapping[str, str], standing: str) -> list[str]:
    both = before.keys() & after.keys()
    return sorted(i for i in both if after[i] == standing != before[i])


def differing(ours: Tasks, theirs: Tasks) -> dict[str, Task | None]:
    """`theirs` relative to `ours`: each id whose task differs, with theirs (None: absent)."""
    ids = ours.keys() | theirs.keys()
    return {i: theirs.get(i) for i in ids if ours.get(i) != theirs.get(i)}


def keyed(rows: Sequence[ProblemRow]) -> set[tuple[str, ...]]:
    return {(r.kind, *r.task_ids, r.detail) for r in rows}


@pytest.mark.parametrize("seed", range(200))
def test_problems_and_standings_read_around_the_change_equal_whole_indexes(seed: int) -> None:
    rng = random.Random(seed)
    on_disk = random_tree(rng, 25)
    later = edited(rng, on_disk, 6)
    earlier = edited(rng, later, rng.randrange(1, 8))
    index = TaskIndex.build(on_disk.values())
    until = Side(tasks=differing(on_disk, later))
    since = Side(tasks=differing(later, earlier))

    found = tree_delta(index, set(since.tasks), since=since, until=until)

    problems_before, problems_after = whole_problems(earlier), whole_problems(later)
    assert keyed(found.problems_appeared) == problems_after - problems_before
    assert keyed(found.problems_went_away) == problems_before - problems_after
    before, after = whole_standings(earlier), whole_standings(later)
    assert found.became_ready == entered(before, after, "ready")
    assert found.became_blocked == entered(before, after, "blocked")
    both = sorted(earlier.keys() & later.keys())
    assert found.added == sorted(later.keys() - earlier.keys())
    assert found.removed == sorted(earlier.keys() - later.keys())
    moves = {i: (coarse(earlier[i]), coarse(later[i])) for i in both}
    done = {("open", "done"), ("closed", "done")}  # status became done (SPEC §5)
    assert found.completed == [i for i in both if moves[i] in done]
    assert found.reopened == [i for i in both if moves[i] in {("done", "open"), ("closed", "open")}]
    assert TaskIndex.build(on_disk.values()).ids() == index.ids()  # put back as it was


def coarse(task: Task) -> str:
    """done, closed (cancelled) or open: what completed and reopened tell apart."""
    return "done" if task.status == "done" else "closed" if task.status == "cancelled" else "open"


def test_generated_trees_hold_every_kind_of_problem_that_can_come_and_go() -> None:
    """The generator is worth its name: across the seeds, each kind appears and goes away."""
    kinds: set[tuple[str, str]] = set()
    for seed in range(60):
        rng = random.Random(seed)
        later = edited(rng, random_tree(rng, 25), 6)
        earlier = edited(rng, later, rng.randrange(1, 8))
        appeared = whole_problems(later) - whole_problems(earlier)
        went = whole_problems(earlier) - whole_problems(later)
        kinds |= {("appeared", p[0]) for p in appeared} | {("went", p[0]) for p in went}
    for kind in ("dependency_cycle", "parent_cycle", "dangling_depends_on", "self_reference"):
        assert {("appeared", kind), ("went", kind)} <= kinds
