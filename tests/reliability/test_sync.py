"""`serve --sync`: agents in separate clones share one tree through a bare remote. Real
server processes over stdio, one per clone; every claim and completion is pushed before
the call answers, and a person's commit reaches every server by its fetch loop."""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from bench.sync_bench import clone, make_remote
from storage import codec
from storage.model import Task
from tests.gitrepo import git
from tests.reliability.stdio import ServerProcess
from tests.reliability.test_agents import T0, in_parallel

SYNC = ("--sync", "--sync-interval", "0.2")


def drain_and_complete(server: ServerProcess, agent: str) -> list[str]:
    """claim_next then complete_task until nothing is left: the ids this agent did."""
    done: list[str] = []
    while True:
        answer = server.call("claim_next", agent=agent, lease_seconds=600)
        assert "error" not in answer, answer
        if answer["claimed"] is None:
            return done
        task_id = answer["claimed"]["id"]
        completed = server.call("complete_task", task_id=task_id, agent=agent)
        assert "error" not in completed, completed
        done.append(task_id)


def remote_tasks(tmp_path: Path, remote: Path) -> dict[str, Task]:
    """Every task of the remote's tip, read from a fresh clone."""
    fresh = clone(tmp_path, remote, "fresh")
    return {
        f.stem: codec.from_bytes(f.read_bytes(), f.name)
        for f in (fresh / "work/tasks").glob("*.md")
    }


def claimers(remote: Path, task_id: str) -> set[str]:
    """Every agent whose claim of `task_id` is in the remote's history."""
    log = git(remote, "log", "-p", "--format=", "main", "--", f"work/tasks/{task_id}.md")
    return {
        line.split(":", 1)[1].strip()
        for line in log.splitlines()
        if line.startswith("+claimed_by:")
    }


@pytest.mark.deep
def test_two_syncing_clones_complete_every_task_once_through_the_remote(tmp_path: Path) -> None:
    remote, ids = make_remote(tmp_path, 10)
    roots = [clone(tmp_path, remote, name) for name in ("a", "b")]
    servers = [ServerProcess(root, now=T0, extra=SYNC) for root in roots]
    try:
        done = in_parallel(lambda n: drain_and_complete(servers[n], f"agent-{n}"), 2)
        stats = servers[0].call("get_index_stats")["sync"]
    finally:
        for server in servers:
            server.close()
    assert Counter(t for won in done for t in won) == Counter(ids)
    tasks = remote_tasks(tmp_path, remote)
    assert {t.status for t in tasks.values()} == {"done"}
    assert all(len(claimers(remote, task_id)) == 1 for task_id in ids)
    assert "<<<<<<<" not in git(remote, "log", "-p", "main")
    assert stats["upstream"] == "origin/main"


def eventually(check: Callable[[], bool]) -> bool:
    """Ask `check` until it holds (bounded: 30 s of calls, no sleep between them)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if check():
            return True
    return False


def wait_for(server: ServerProcess, task_id: str, field: str, value: str) -> bool:
    """Ask until the server's answer shows `field` == `value`."""
    return eventually(
        lambda: server.call("get_task", task_id=task_id).get("task", {}).get(field) == value
    )


@pytest.mark.deep
def test_a_persons_pushed_commit_reaches_every_syncing_server_and_uncommitted_work_survives(
    tmp_path: Path,
) -> None:
    remote, ids = make_remote(tmp_path, 3)
    roots = [clone(tmp_path, remote, name) for name in ("a", "b")]
    draft = roots[0] / "work/tasks" / f"{ids[2]}.md"
    draft.write_text(draft.read_text() + "My notes, not committed.\n")
    servers = [ServerProcess(root, now=T0, extra=SYNC) for root in roots]
    person = clone(tmp_path, remote, "person")
    edited = person / "work/tasks" / f"{ids[0]}.md"
    edited.write_text(edited.read_text().replace(f"Job {ids[0]}", "Renamed by a person"))
    new = Task(id="p-new", title="Added by a person", path="", status="active", project="work")
    (person / "work/tasks/p-new.md").write_text(codec.dumps(new))
    status = person / "work/tasks" / f"{ids[1]}.md"
    status.write_text(status.read_text().replace("status: active", "status: blocked"))
    git(person, "add", ".")
    git(person, "commit", "-q", "-m", "a person's edits")
    git(person, "push", "-q", "origin", "HEAD:main")
    try:
        for server in servers:
            assert wait_for(server, ids[0], "title", "Renamed by a person")
            assert wait_for(server, "p-new", "title", "Added by a person")
            assert wait_for(server, ids[1], "status", "blocked")
        refused = servers[0].call("claim_task", task_id=ids[2], agent="a1", lease_seconds=60)
    finally:
        for server in servers:
            server.close()
    assert draft.read_text().endswith("My notes, not committed.\n")
    assert refused["error"] == "CONFLICT"
    assert "not committed" in refused["message"]


def listed(server: ServerProcess) -> list[tuple[str, str, str | None]]:
    """list_tasks as (id, status, claimed_by), every task."""
    answer = server.call("list_tasks", limit=500, fields="full")
    return [(t["id"], t["status"], t.get("claimed_by")) for t in answer["tasks"]]


def settles_on(server: ServerProcess, expected: list[tuple[str, str, str | None]]) -> bool:
    """Ask until the server lists `expected`."""
    return eventually(lambda: listed(server) == expected)


@pytest.mark.deep
def test_six_agents_in_three_clones_complete_120_tasks_once_through_the_remote(
    tmp_path: Path,
) -> None:
    remote, ids = make_remote(tmp_path, 120)
    roots = [clone(tmp_path, remote, name) for name in ("a", "b", "c")]
    servers = [ServerProcess(root, now=T0, extra=SYNC) for root in roots for _ in range(2)]
    try:
        done = in_parallel(lambda n: drain_and_complete(servers[n], f"agent-{n}"), 6)
        tasks = remote_tasks(tmp_path, remote)
        with ServerProcess(tmp_path / "fresh", now=T0) as fresh:
            expected = listed(fresh)
        assert all(settles_on(server, expected) for server in servers)
    finally:
        for server in servers:
            server.close()
    assert Counter(t for won in done for t in won) == Counter(ids)
    assert {t.status for t in tasks.values()} == {"done"}
    assert all(len(claimers(remote, task_id)) == 1 for task_id in ids)
    assert "<<<<<<<" not in git(remote, "log", "-p", "main")


def in_step(server: ServerProcess) -> bool:
    sync = server.call("get_index_stats")["sync"]
    return bool(sync["error"] is None and sync["ahead"] == 0 and sync["behind"] == 0)


def synced_cleanly(server: ServerProcess) -> bool:
    """Ask until the server's sync reports no error and nothing ahead or behind."""
    return eventually(lambda: in_step(server))


@pytest.mark.deep
def test_a_sync_server_killed_during_pushes_and_replays_leaves_a_clone_a_restart_syncs(
    tmp_path: Path,
) -> None:
    remote, ids = make_remote(tmp_path, 40)
    victim, rival_root = clone(tmp_path, remote, "a"), clone(tmp_path, remote, "b")
    rng = random.Random(36)
    with ServerProcess(rival_root, now=T0, extra=SYNC) as rival:
        rival.start_call("claim_next", {"agent": "rival", "lease_seconds": 600})
        for round_ in range(8):
            server = ServerProcess(victim, now=T0, extra=SYNC)
            server.start_call("claim_next", {"agent": f"victim-{round_}", "lease_seconds": 600})
            rival.call("claim_next", agent="rival", lease_seconds=600)  # the remote moves
            time.sleep(rng.uniform(0, 0.15))  # the random kill point, not a wait for anything
            server.kill()
    with ServerProcess(victim, now=T0, extra=SYNC) as restarted:
        assert synced_cleanly(restarted)
        assert "error" not in restarted.call("claim_next", agent="after", lease_seconds=600)
        assert synced_cleanly(restarted)
    assert git(victim, "status", "--porcelain") == ""
    assert not list((victim / ".git").rglob("*.lock"))
    assert all(len(claimers(remote, task_id)) <= 1 for task_id in ids)
    assert "<<<<<<<" not in git(remote, "log", "-p", "main")
