"""Many agents on one tree, each with its own real server process (stdio): claims race to
exactly one winner, leases expire by the server's clock, a SIGKILL mid-claim tears
nothing, and notes written at once are all kept.

Clocks are fixed per process (`TASKS_NOW`): a lease "expires" because a later process's
clock is past it, never because the test waited."""

from __future__ import annotations

import json
import os
import random
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bench.claim_bench import make_tree
from storage import codec
from storage.model import Task
from tests.reliability.stdio import ServerProcess
from tests.reliability.test_kill import leftovers
from tests.storage.test_interop_frontmatter import assert_readers_agree

SEED = int(os.environ.get("RELIABILITY_SEED", "20261122"))
T0 = "2026-11-22T12:00:00Z"
T1 = "2026-11-22T12:00:01Z"  # one second later: a 1-second lease taken at T0 has ended
AGENTS = 6


def file_of(root: Path, task_id: str) -> Path:
    """The file `make_tree` wrote for `task_id`."""
    return root / "work" / "tasks" / f"{task_id}.md"


def read(root: Path, task_id: str) -> Task:
    """The task as its file holds it (a torn file fails the test)."""
    return codec.from_bytes(file_of(root, task_id).read_bytes(), f"{task_id}.md")


def in_parallel(work: Callable[[int], Any], count: int = AGENTS) -> list[Any]:
    """`work(n)` for n in range(count), each on its own thread; their results in order.
    A failed thread fails the test."""
    results: list[Any] = [None] * count
    errors: list[BaseException] = []

    def run(n: int) -> None:
        try:
            results[n] = work(n)
        except BaseException as exc:  # re-raised below, in the test's thread
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return results


def drain(server: ServerProcess, agent: str, rng: random.Random) -> tuple[list[str], int]:
    """Loop get_ready_tasks(unclaimed) + claim_task until nothing is left: (won, conflicts).
    Each agent picks among the first few rows, so agents often pick the same task."""
    won: list[str] = []
    conflicts = 0
    while True:
        page = server.call("get_ready_tasks", unclaimed=True, limit=4)
        if not page["tasks"]:
            return won, conflicts
        task_id = rng.choice(page["tasks"])["id"]
        answer = server.call("claim_task", task_id=task_id, agent=agent, lease_seconds=600)
        if "error" in answer:
            assert answer["error"] == "CONFLICT", answer
            conflicts += 1
        else:
            assert answer["task"]["claimed_by"] == agent
            won.append(task_id)


@pytest.mark.deep
def test_six_agents_drain_120_ready_tasks_and_each_is_claimed_exactly_once(
    tmp_path: Path,
) -> None:
    ids = make_tree(tmp_path, 120)
    servers = [ServerProcess(tmp_path, now=T0) for _ in range(AGENTS)]

    def agent(n: int) -> tuple[list[str], int]:
        return drain(servers[n], f"agent-{n}", random.Random(SEED + n))

    results = in_parallel(agent)
    for server in servers:
        server.close()
    wins = Counter(task_id for won, _ in results for task_id in won)
    assert sorted(wins) == ids
    assert set(wins.values()) == {1}
    owner = {task_id: f"agent-{n}" for n, (won, _) in enumerate(results) for task_id in won}
    for task_id in ids:
        assert read(tmp_path, task_id).extra["claimed_by"] == owner[task_id]
    conflicts = sum(c for _, c in results)
    print(f"\n120 tasks, {AGENTS} agents: {conflicts} CONFLICT answers")


def test_a_lease_ends_another_agent_takes_the_task_and_the_first_renewal_conflicts(
    tmp_path: Path,
) -> None:
    (task_id,) = make_tree(tmp_path, 1)
    with ServerProcess(tmp_path, now=T0) as first, ServerProcess(tmp_path, now=T1) as second:
        assert "error" not in first.call("claim_task", task_id=task_id, agent="a1", lease_seconds=1)
        seen = second.call("get_task", task_id=task_id)["task"]
        assert (seen["claimed_by"], seen["claim_live"]) == ("a1", False)
        ready = second.call("get_ready_tasks", unclaimed=True)["tasks"]
        assert [t["id"] for t in ready] == [task_id]
        taken = second.call("claim_task", task_id=task_id, agent="a2", lease_seconds=60)
        assert taken["renewed"] is False
        renewal = first.call("claim_task", task_id=task_id, agent="a1", lease_seconds=1)
        assert renewal["error"] == "CONFLICT"
        details = json.loads(renewal["message"])["error"]["details"]
        assert details["claimed_by"] == "a2"
    assert read(tmp_path, task_id).extra["claimed_by"] == "a2"


KILLS = 12


@pytest.mark.deep
def test_a_server_killed_mid_claim_leaves_the_task_claimed_or_not_and_a_later_claim_works(
    tmp_path: Path,
) -> None:
    ids = make_tree(tmp_path, KILLS)
    rng = random.Random(SEED)
    with ServerProcess(tmp_path, now=T0) as probe:  # how long one claim takes, start to answer
        started = time.perf_counter()
        probe.call("claim_task", task_id=ids[0], agent="probe", lease_seconds=5)
        span = time.perf_counter() - started
        probe.call("release_task", task_id=ids[0], agent="probe")
    outcomes: Counter[str] = Counter()
    for task_id in ids:
        original = file_of(tmp_path, task_id).read_bytes()
        with ServerProcess(tmp_path, now=T0) as doomed:
            doomed.start_call(
                "claim_task", {"task_id": task_id, "agent": "dead", "lease_seconds": 60}
            )
            time.sleep(rng.uniform(0, span * 1.5))  # the kill point, not a wait for anything
            doomed.kill()
        data = file_of(tmp_path, task_id).read_bytes()
        task = codec.from_bytes(data, "t.md")
        assert_readers_agree(data.decode())
        if data == original:
            outcomes["not claimed"] += 1
        else:
            assert task.extra["claimed_by"] == "dead"
            assert (
                data.replace(b'claimed_by: dead\nclaim_expires: "2026-11-22T12:01:00Z"\n', b"")
                == original
            )
            outcomes["claimed"] += 1
        with ServerProcess(tmp_path, now=T1) as later:
            answer = later.call("claim_task", task_id=task_id, agent="alive", lease_seconds=60)
            if task.extra.get("claimed_by") == "dead":
                assert answer["error"] == "CONFLICT"
                later.call("release_task", task_id=task_id, agent="dead")
                answer = later.call("claim_task", task_id=task_id, agent="alive", lease_seconds=60)
            assert answer["task"]["claimed_by"] == "alive"
        assert leftovers(tmp_path) == []
    print(f"\n{KILLS} SIGKILLs mid-claim: {dict(outcomes)}")


NOTES = 15


@pytest.mark.deep
def test_notes_from_six_processes_at_once_are_all_kept_and_nothing_else_changes(
    tmp_path: Path,
) -> None:
    (task_id,) = make_tree(tmp_path, 1)
    path = file_of(tmp_path, task_id)
    before = path.read_text()
    servers = [ServerProcess(tmp_path, now=T0) for _ in range(AGENTS)]

    def writer(n: int) -> None:
        for k in range(NOTES):
            answer = servers[n].call("add_note", task_id=task_id, text=f"note {k}", author=f"a{n}")
            assert "error" not in answer, answer

    in_parallel(writer)
    for server in servers:
        server.close()
    after = path.read_text()
    head, notes = after.split("\n## Notes\n\n")
    assert head.replace("modified: 2026-11-22T12:00:00+00:00\n", "") + "\n" == before + "\n"
    lines = notes.splitlines()
    expected = {f"- {T0} — a{n}: note {k}" for n in range(AGENTS) for k in range(NOTES)}
    assert len(lines) == AGENTS * NOTES
    assert set(lines) == expected
    for n in range(AGENTS):  # one writer's notes keep their order
        mine = [line for line in lines if f"— a{n}:" in line]
        assert mine == [f"- {T0} — a{n}: note {k}" for k in range(NOTES)]
    assert_readers_agree(after)
    assert read(tmp_path, task_id).body == "Do the job.\n\n## Notes\n\n" + notes
