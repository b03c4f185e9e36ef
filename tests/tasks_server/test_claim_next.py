"""claim_next: the first ready, unclaimed task that passes the filters, claimed in one call,
through a real in-memory MCP client; a race lost inside the call moves on to the next task,
never CONFLICT. (Six server processes draining a tree: `tests/reliability/test_claim_next.py`.)"""

from __future__ import annotations

import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from bench.claim_bench import make_tree
from storage import codec
from tasks_server.tools.agents import ClaimNextInput, claim_next
from tasks_server.toolset import open_toolset
from tests.tasks_server.conftest import NOW, call, make_server

pytestmark = pytest.mark.anyio

AGENT = "agent-w1"


def file_of(root: Path, task_id: str) -> Path:
    return next(root.rglob(f"{task_id}-*.md"))


def meta_of(root: Path, task_id: str) -> dict[str, object]:
    return dict(codec.from_bytes(file_of(root, task_id).read_bytes(), "t.md").extra)


async def test_claim_next_takes_the_first_task_get_ready_tasks_lists(
    client: Client, example_root: Path
) -> None:
    first = (await call(client, "get_ready_tasks", unclaimed=True))["tasks"][0]["id"]
    data = await call(client, "claim_next", agent=AGENT, lease_seconds=60)
    assert data["claimed"]["id"] == first
    assert data["claimed"]["claimed_by"] == AGENT and data["claimed"]["claim_live"] is True
    assert "body" in data["claimed"]  # the full view
    assert meta_of(example_root, first)["claimed_by"] == AGENT
    assert data["guidance"]["current_state"] == "task_held_by_you"
    assert data["guidance"]["next_action"].startswith(f"Call complete_task on {first}")


async def test_claim_next_skips_what_is_claimed_and_honours_the_filters(client: Client) -> None:
    ready = [t["id"] for t in (await call(client, "get_ready_tasks", project="pipe"))["tasks"]]
    first = await call(client, "claim_next", agent=AGENT, lease_seconds=60, project="pipe")
    second = await call(client, "claim_next", agent="agent-w2", lease_seconds=60, project="pipe")
    assert [first["claimed"]["id"], second["claimed"]["id"]] == ready[:2]


async def test_claim_next_with_start_sets_the_task_in_progress(client: Client) -> None:
    data = await call(client, "claim_next", agent=AGENT, lease_seconds=60, start=True)
    assert data["claimed"]["status"] == "in_progress"


async def test_claim_next_answers_null_when_nothing_is_left_never_conflict(
    client: Client,
) -> None:
    total = len((await call(client, "get_ready_tasks"))["tasks"])
    for n in range(total):
        assert (await call(client, "claim_next", agent=f"a{n}", lease_seconds=60))["claimed"]
    last = await call(client, "claim_next", agent="late", lease_seconds=60)
    assert last["claimed"] is None and last["claim_expires"] is None
    assert last["guidance"]["current_state"] == "nothing_to_claim"


async def test_claim_next_with_a_bad_lease_is_invalid_and_claims_nothing(
    client: Client,
) -> None:
    result = await client.call_tool("claim_next", {"agent": AGENT, "lease_seconds": 0})
    assert result.is_error
    assert (await call(client, "get_ready_tasks", unclaimed=True))["total"] == 5


async def test_a_task_taken_between_the_read_and_the_write_is_skipped_for_the_next(
    example_root: Path,
) -> None:
    """Another writer's claim lands after the index was read (the handler is run on the
    index as the call found it, the race's window held open): the write finds it in the
    file, and the call takes the next task."""
    server = make_server(example_root)
    async with Client(server) as client:
        ready = [t["id"] for t in (await call(client, "get_ready_tasks"))["tasks"]]
    path = file_of(example_root, ready[0])
    path.write_text(
        path.read_text().replace(
            "---\n", "---\nclaimed_by: rival\nclaim_expires: 2099-01-01T00:00:00Z\n", 1
        )
    )
    args = ClaimNextInput(agent=AGENT, lease_seconds=60)
    answer = claim_next(server.context, args)
    server.context.close()
    assert answer.claimed is not None and answer.claimed.id == ready[1]
    assert meta_of(example_root, ready[0])["claimed_by"] == "rival"


def test_four_servers_in_one_process_drain_a_tree_each_task_claimed_once(tmp_path: Path) -> None:
    ids = make_tree(tmp_path, 24)
    toolsets = [open_toolset(tmp_path, watch=False) for _ in range(4)]
    won: list[list[str]] = [[] for _ in toolsets]
    errors: list[dict[str, Any]] = []

    def drain(n: int) -> None:
        toolsets[n].context.clock = lambda: NOW
        while True:
            outcome = toolsets[n].run("claim_next", {"agent": f"a{n}", "lease_seconds": 60})
            if outcome.is_error:
                errors.append(outcome.data)
                return
            if outcome.data["claimed"] is None:
                return
            won[n].append(outcome.data["claimed"]["id"])

    threads = [threading.Thread(target=drain, args=(n,)) for n in range(len(toolsets))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for toolset in toolsets:
        toolset.context.close()
    assert errors == []
    wins = Counter(task_id for claimed in won for task_id in claimed)
    assert sorted(wins) == ids and set(wins.values()) == {1}


async def test_decomposing_a_claimed_task_ends_its_claim_and_says_so(
    client: Client, example_root: Path
) -> None:
    taken = (await call(client, "claim_next", agent=AGENT, lease_seconds=60))["claimed"]["id"]
    data = await call(client, "decompose_task", task_id=taken, children=[{"title": "Half"}])
    assert data["claim_ended"] == AGENT
    assert any(AGENT in warning for warning in data["guidance"]["warnings"])
    assert "claimed_by" not in meta_of(example_root, taken)
    child = data["children"][0]["id"]
    nxt = await call(client, "claim_next", agent=AGENT, lease_seconds=60, under=taken)
    assert nxt["claimed"]["id"] == child


async def test_decomposing_an_unclaimed_task_ends_no_claim(client: Client) -> None:
    ready = (await call(client, "get_ready_tasks"))["tasks"][0]["id"]
    data = await call(client, "decompose_task", task_id=ready, children=[{"title": "Half"}])
    assert data["claim_ended"] is None and "warnings" not in data["guidance"]
