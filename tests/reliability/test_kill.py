"""A real server process (`python -m tasks_server serve`, stdio) killed with SIGKILL at
random points while it writes a batch: every tree it leaves is all or nothing once the
next server has started (every child of a decompose or none, every task of a
complete_tasks done or none) and holds no temp file or journal record.

The kill point: once the batch's first file appears on disk (a journal record, or a temp
file in the project's folder), a seeded random delay within the time a whole batch takes
from there to its answer (measured on one batch first), so kills land before the commit
point, between it and the last rename, and after; set RELIABILITY_SEED to try other
points. Figures are printed (`pytest -s`)."""

from __future__ import annotations

import os
import random
import time
from collections import Counter
from pathlib import Path

import pytest

from storage import codec
from storage.journal import JOURNAL, is_journal_temp
from storage.model import Task
from storage.temps import is_temp_name
from tests.conftest import write
from tests.reliability.stdio import ServerProcess

SEED = int(os.environ.get("RELIABILITY_SEED", "20261122"))
KILLS = 10
CHILDREN = 8


def tasks_on_disk(root: Path) -> list[Task]:
    """Every task file below the root, parsed (a torn file fails the test)."""
    return [
        codec.from_bytes(path.read_bytes(), str(path.relative_to(root)))
        for path in root.rglob("*.md")
        if not any(part.startswith(".") for part in path.relative_to(root).parts)
    ]


def leftovers(root: Path) -> list[str]:
    """Temp files of writes and journal records, anywhere in the tree."""
    found = [
        p
        for p in root.rglob(".*")
        if p.is_file() and (is_temp_name(p.name) or is_journal_temp(p.name))
    ]
    journal = root / JOURNAL
    found += list(journal.iterdir()) if journal.is_dir() else []
    return sorted(str(p.relative_to(root)) for p in found)


class Batches:
    """What was asked of the killed servers, and the check that each happened whole."""

    def __init__(self) -> None:
        self.parents: list[str] = []  # each decomposed (or attempted) once
        self.completions: list[list[str]] = []
        self.open_groups: list[list[str]] = []

    def check(self, root: Path) -> Counter[str]:
        tasks = {task.id: task for task in tasks_on_disk(root)}
        outcome: Counter[str] = Counter()
        self.open_groups = []
        for parent in self.parents:
            children = sorted(
                (t for t in tasks.values() if t.parent == parent), key=lambda t: t.order
            )
            assert len(children) in (0, CHILDREN), (parent, len(children))
            outcome["decompose " + ("all" if children else "none")] += 1
            if children and all(t.status != "done" for t in children):
                self.open_groups.append([t.id for t in children])
        for group in self.completions:
            done = sum(tasks[i].status == "done" for i in group)
            assert done in (0, CHILDREN), (group, done)
            outcome["complete " + ("all" if done else "none")] += 1
        return outcome


def _batch(server: ServerProcess, batches: Batches, run: int) -> tuple[str, dict[str, object]]:
    """The next batch to ask for: a decompose of a new parent, or completing an open group."""
    if run % 2 and batches.open_groups:
        group = batches.open_groups.pop()
        batches.completions.append(group)
        return "complete_tasks", {"task_ids": group}
    parent = server.call("create_task", title=f"Parent {run}", project="kill")["task"]["id"]
    batches.parents.append(parent)
    children = [{"title": f"Child {n} of run {run}", "body": "x" * 200} for n in range(CHILDREN)]
    return "decompose_task", {"task_id": parent, "children": children}


def _listing(root: Path) -> set[str]:
    """The names a batch adds first: in the project's task folder and the journal."""
    names = set(os.listdir(root / "kill/tasks"))
    journal = root / JOURNAL
    return names | ({"journal:" + n for n in os.listdir(journal)} if journal.is_dir() else set())


def _await_write(root: Path, before: set[str]) -> None:
    """Return once a batch has put its first file on disk."""
    deadline = time.monotonic() + 60
    while _listing(root) == before and time.monotonic() < deadline:
        time.sleep(0.0005)  # polling the folders for the first sign of the write


def _write_time(server: ServerProcess, root: Path, batches: Batches) -> float:
    """How long one acknowledged batch takes from its first file to its answer."""
    tool, arguments = _batch(server, batches, 0)
    before = _listing(root)
    request = server.start_call(tool, arguments)
    _await_write(root, before)
    started = time.perf_counter()
    assert "error" not in server.answer(request)["result"]["structuredContent"]
    return time.perf_counter() - started


def _committed(root: Path) -> bool:
    """True when a journal record holds a committed batch (its steps written)."""
    journal = root / JOURNAL
    return journal.is_dir() and any(p.stat().st_size for p in journal.iterdir())


@pytest.mark.deep
def test_a_server_killed_during_batches_leaves_every_batch_whole(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    root = tmp_path / "tree"
    write(root, "kill/tasks/seed.md", "---\nid: seed\ntitle: Seed\n---\n")
    batches, tally = Batches(), Counter[str]()
    server = ServerProcess(root)
    window = _write_time(server, root, batches)
    for run in range(1, KILLS + 1):
        tool, arguments = _batch(server, batches, run)
        before = _listing(root)
        server.start_call(tool, arguments)
        _await_write(root, before)
        time.sleep(rng.uniform(0, window))  # the random kill point, not a wait for anything
        server.kill()
        tally["kills"] += 1
        tally["kills that left a batch unfinished"] += bool(leftovers(root))
        tally["kills after the commit point (rolled forward)"] += _committed(root)
        server = ServerProcess(root)  # the next start: recovers what the kill left
        outcome = batches.check(root)
        assert leftovers(root) == []
        assert server.call("get_index_stats")["problems"] == []
    server.close()
    print(f"\nseed {SEED}, write {window * 1000:.0f} ms: {dict(sorted((tally + outcome).items()))}")
    assert tally["kills"] == KILLS
