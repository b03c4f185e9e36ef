"""Claims with leases, through a real in-memory MCP client on a copy of the bundled tree:
who may claim, renew, release, complete and update, judged by the server's fixed clock."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from mcp import Client

from storage import codec
from tasks_server.edge.server import TasksServer
from tasks_server.tools.agents import MAX_LEASE_SECONDS
from tests.tasks_server.conftest import NOW, call, fail
from tests.tasks_server.test_mutation_validation import refused

pytestmark = pytest.mark.anyio

TASK = "wx-6ca4a1a9"  # an active, ready task of the bundled tree


def file_of(root: Path, task_id: str) -> Path:
    return next(root.rglob(f"{task_id}-*.md"))


def meta_of(root: Path, task_id: str) -> dict[str, object]:
    return dict(codec.from_bytes(file_of(root, task_id).read_bytes(), "t.md").extra)


def later(server: TasksServer, seconds: float) -> None:
    """Move the server's fixed clock forward."""
    server.context.clock = lambda: NOW + timedelta(seconds=seconds)


async def test_a_claim_is_written_in_the_file_and_shown_live(
    client: Client, example_root: Path
) -> None:
    data = await call(client, "claim_task", task_id=TASK, agent="w1", lease_seconds=60)
    assert data["renewed"] is False
    assert meta_of(example_root, TASK) == {
        "claimed_by": "w1",
        "claim_expires": "2026-11-22T12:01:00Z",
    }
    task = (await call(client, "get_task", task_id=TASK))["task"]
    assert (task["claimed_by"], task["claim_live"]) == ("w1", True)
    assert task["claim_expires"] == "2026-11-22T12:01:00Z"


async def test_another_agent_gets_conflict_with_the_holder_and_nothing_changes(
    client: Client, example_root: Path
) -> None:
    await call(client, "claim_task", task_id=TASK, agent="w1", lease_seconds=60)
    before = file_of(example_root, TASK).read_bytes()
    error = (await fail(client, "claim_task", task_id=TASK, agent="w2", lease_seconds=60))["error"]
    assert error["code"] == "CONFLICT"
    assert error["details"] == {
        "task_id": TASK,
        "claimed_by": "w1",
        "claim_expires": "2026-11-22T12:01:00Z",
    }
    assert file_of(example_root, TASK).read_bytes() == before


async def test_the_holder_renews_and_the_lease_runs_from_now(
    client: Client, server: TasksServer, example_root: Path
) -> None:
    await call(client, "claim_task", task_id=TASK, agent="w1", lease_seconds=60)
    later(server, 30)
    data = await call(client, "claim_task", task_id=TASK, agent="w1", lease_seconds=60)
    assert data["renewed"] is True
    assert meta_of(example_root, TASK)["claim_expires"] == "2026-11-22T12:01:30Z"


async def test_an_expired_claim_shows_expired_and_another_agent_takes_it(
    client: Client, server: TasksServer, example_root: Path
) -> None:
    await call(client, "claim_task", task_id=TASK, agent="w1", lease_seconds=1)
    later(server, 1)
    task = (await call(client, "get_task", task_id=TASK, fields="brief"))["task"]
    assert (task["claimed_by"], task["claim_live"]) == ("w1", False)
    data = await call(client, "claim_task", task_id=TASK, agent="w2", lease_seconds=60)
    assert data["renewed"] is False
    assert meta_of(example_root, TASK)["claimed_by"] == "w2"
    error = (await fail(client, "claim_task", task_id=TASK, agent="w1", lease_seconds=1))["error"]
    assert error["details"]["claimed_by"] == "w2"


async def test_a_closed_task_cannot_be_claimed(client: Client, example_root: Path) -> None:
    await call(client, "complete_task", task_id=TASK, force=True)
    await refused(
        client, example_root, "CONFLICT", "claim_task", task_id=TASK, agent="w1", lease_seconds=5
    )


async def test_release_by_the_holder_clears_the_claim(client: Client, example_root: Path) -> None:
    before = file_of(example_root, TASK).read_bytes()
    await call(client, "claim_task", task_id=TASK, agent="w1", lease_seconds=60)
    assert (await call(client, "release_task", task_id=TASK, agent="w1"))["released"] is True
    assert file_of(example_root, TASK).read_bytes() == before
    again = await call(client, "release_task", task_id=TASK, agent="w1")
    assert again["released"] is False


async def test_release_by_another_agent_is_conflict_while_the_lease_runs(
    client: Client, server: TasksServer, example_root: Path
) -> None:
    await call(client, "claim_task", task_id=TASK, agent="w1", lease_seconds=60)
    await refused(client, example_root, "CONFLICT", "release_task", task_id=TASK, agent="w2")
    later(server, 60)
    assert (await call(client, "release_task", task_id=TASK, agent="w2"))["released"] is True
    assert meta_of(example_root, TASK) == {}


async def test_completing_as_another_agent_is_conflict_unless_forced(
    client: Client, example_root: Path
) -> None:
    await call(client, "claim_task", task_id=TASK, agent="w1", lease_seconds=60)
    await refused(client, example_root, "CONFLICT", "complete_task", task_id=TASK, agent="w2")
    await refused(client, example_root, "CONFLICT", "complete_task", task_id=TASK)
    await refused(client, example_root, "CONFLICT", "complete_tasks", task_ids=[TASK])
    await call(client, "complete_task", task_id=TASK, agent="w2", force=True)
    assert meta_of(example_root, TASK) == {}


async def test_completing_as_the_holder_ends_the_claim(client: Client, example_root: Path) -> None:
    await call(client, "claim_task", task_id=TASK, agent="w1", lease_seconds=60)
    data = await call(client, "complete_task", task_id=TASK, agent="w1")
    assert data["task"]["status"] == "done"
    assert "claimed_by" not in data["task"]
    assert meta_of(example_root, TASK) == {}


async def test_updating_as_another_agent_is_conflict_unless_forced(
    client: Client, example_root: Path
) -> None:
    await call(client, "claim_task", task_id=TASK, agent="w1", lease_seconds=60)
    await refused(client, example_root, "CONFLICT", "update_task", task_id=TASK, priority=0)
    await refused(
        client, example_root, "CONFLICT", "update_task", task_id=TASK, priority=0, agent="w2"
    )
    await call(client, "update_task", task_id=TASK, priority=0, agent="w1")
    await call(client, "update_task", task_id=TASK, priority=1, agent="w2", force=True)
    assert meta_of(example_root, TASK)["claimed_by"] == "w1"


async def test_closing_through_update_ends_the_claim(client: Client, example_root: Path) -> None:
    await call(client, "claim_task", task_id=TASK, agent="w1", lease_seconds=60)
    data = await call(client, "update_task", task_id=TASK, status="cancelled", agent="w1")
    assert "claimed_by" not in data["changed"]
    assert meta_of(example_root, TASK) == {}


@pytest.mark.parametrize(
    "agent",
    ["w\n1", "w\r", "w\x00", "w\x1b[31m", "a\u2028b", "a\u0085b", " w1", "", "x" * 129],
    ids=["newline", "cr", "nul", "escape", "line-sep", "nel", "leading-space", "empty", "long"],
)
async def test_an_agent_name_that_is_not_one_printable_line_writes_nothing(
    client: Client, example_root: Path, agent: str
) -> None:
    bad = "INVALID_ARGUMENT"
    await refused(
        client, example_root, bad, "claim_task", task_id=TASK, agent=agent, lease_seconds=9
    )
    await refused(client, example_root, bad, "add_note", task_id=TASK, text="hi", author=agent)


@pytest.mark.parametrize("lease", [0, -1, MAX_LEASE_SECONDS + 1, 10**12])
async def test_a_lease_out_of_bounds_writes_nothing(
    client: Client, example_root: Path, lease: int
) -> None:
    bad = "INVALID_ARGUMENT"
    await refused(
        client, example_root, bad, "claim_task", task_id=TASK, agent="w1", lease_seconds=lease
    )


async def test_claiming_a_task_that_does_not_exist_is_not_found(client: Client) -> None:
    error = (await fail(client, "claim_task", task_id="nope", agent="w1", lease_seconds=5))["error"]
    assert error["code"] == "TASK_NOT_FOUND"


async def test_ready_unclaimed_leaves_out_live_claims_only(
    client: Client, server: TasksServer
) -> None:
    ready = [t["id"] for t in (await call(client, "get_ready_tasks", limit=1000))["tasks"]]
    assert TASK in ready and len(ready) >= 2
    other = next(i for i in ready if i != TASK)
    await call(client, "claim_task", task_id=TASK, agent="w1", lease_seconds=10)
    await call(client, "claim_task", task_id=other, agent="w2", lease_seconds=100)
    free = await call(client, "get_ready_tasks", unclaimed=True, limit=1000)
    assert [t["id"] for t in free["tasks"]] == [i for i in ready if i not in (TASK, other)]
    later(server, 10)
    free = await call(client, "get_ready_tasks", unclaimed=True, limit=1000)
    assert [t["id"] for t in free["tasks"]] == [i for i in ready if i != other]
    rows = {t["id"]: t for t in (await call(client, "get_ready_tasks", limit=1000))["tasks"]}
    assert (rows[TASK]["claim_live"], rows[other]["claim_live"]) == (False, True)


async def test_a_lease_ending_further_ahead_than_the_longest_lease_is_flagged_in_the_view(
    client: Client, server: TasksServer, example_root: Path
) -> None:
    """A server whose clock runs two hours ahead takes a full lease: by this server's clock it
    ends two hours past the longest lease, which the view says (the claim still holds)."""
    ahead = NOW + timedelta(hours=2, seconds=MAX_LEASE_SECONDS)
    text = file_of(example_root, TASK).read_text()
    stamp = ahead.isoformat().replace("+00:00", "Z")
    head = f"---\nclaimed_by: w9\nclaim_expires: {stamp}\n"
    file_of(example_root, TASK).write_text(text.replace("---\n", head, 1))
    await call(client, "rebuild_index")
    task = (await call(client, "get_task", task_id=TASK, fields="brief"))["task"]
    assert (task["claim_live"], task["claim_beyond_max_lease"]) == (True, True)
    later(server, 2 * 3600)
    task = (await call(client, "get_task", task_id=TASK, fields="brief"))["task"]
    assert task["claim_live"] is True and "claim_beyond_max_lease" not in task


async def test_a_claim_this_server_takes_is_never_flagged_beyond_the_longest_lease(
    client: Client,
) -> None:
    await call(client, "claim_task", task_id=TASK, agent="w1", lease_seconds=MAX_LEASE_SECONDS)
    task = (await call(client, "get_task", task_id=TASK, fields="brief"))["task"]
    assert task["claim_live"] is True and "claim_beyond_max_lease" not in task


def test_a_real_server_shows_a_lease_beyond_the_longest_in_the_full_view(
    example_root: Path,
) -> None:
    """Through a real process (`tasks-server call`, an MCP client session in it), with the
    server's clock fixed: a lease a day and an hour ahead is shown live and flagged."""
    ahead = NOW + timedelta(seconds=MAX_LEASE_SECONDS + 3600)
    stamp = ahead.isoformat().replace("+00:00", "Z")
    text = file_of(example_root, TASK).read_text()
    file_of(example_root, TASK).write_text(
        text.replace("---\n", f"---\nclaimed_by: w9\nclaim_expires: {stamp}\n", 1)
    )
    args = ["call", "get_task", "--args", json.dumps({"task_id": TASK}), "--root"]
    now = NOW.isoformat().replace("+00:00", "Z")
    done = subprocess.run(
        [
            str(Path(sys.executable).with_name("tasks-server")),
            *args,
            str(example_root),
            "--now",
            now,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    task = json.loads(done.stdout)["task"]
    assert (task["claimed_by"], task["claim_live"], task["claim_beyond_max_lease"]) == (
        "w9",
        True,
        True,
    )
