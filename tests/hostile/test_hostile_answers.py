"""Tree shapes that made answers without bound: a 10,000-task dependency cycle, a 2,000-level
parent chain, a page of megabyte bodies. Every answer over them is small, says what it
left out, and serializes (JSON depth never an error)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from graph.facts import CYCLE_SHOWN
from graph.query import TREE_DEPTH_LIMIT
from tasks_server.answer import ANSWER_CHARS
from tests.conftest import write
from tests.tasks_server.conftest import call, fail, make_server

TASK = "---\nid: {id}\ntitle: Task {id}\nstatus: active\n{extra}---\n{body}"
CYCLE = 10_000
CHAIN = 2_000


def _size(answer: dict[str, Any]) -> int:
    return len(json.dumps(answer))


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    """Module-wide, so one client session serves every test over the same tree."""
    return "asyncio"


@pytest.fixture(scope="module")
async def client(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Client]:
    """A session to a server over the tree `request.param` writes, shared by this module's
    tests on that tree: none changes it (the one write is refused)."""
    root = tmp_path_factory.mktemp(request.param.__name__)
    request.param(root)
    server = make_server(root)
    try:
        async with Client(server) as session:
            yield session
    finally:
        server.context.close()


def cycle_tree(root: Path) -> None:
    for n in range(CYCLE):
        extra = f"depends_on: [c{(n + 1) % CYCLE}]\n"
        write(root, f"c/c{n}.md", TASK.format(id=f"c{n}", extra=extra, body=""))
    for n in range(CYCLE):  # a chain the same length, which one more edge would close
        extra = f"depends_on: [k{n + 1}]\n" if n + 1 < CYCLE else ""
        write(root, f"k/k{n}.md", TASK.format(id=f"k{n}", extra=extra, body=""))


def chain_tree(root: Path) -> None:
    for n in range(CHAIN):
        extra = f"parent: l{n - 1}\n" if n else ""
        write(root, f"l/l{n}.md", TASK.format(id=f"l{n}", extra=extra, body=""))


def bodies_tree(root: Path) -> None:
    for n in range(100):
        write(root, f"b/b{n}.md", TASK.format(id=f"b{n}", extra="", body="x" * 1_000_000))


@pytest.mark.deep  # a 10,000-task tree
@pytest.mark.anyio
@pytest.mark.parametrize("client", [cycle_tree], indirect=True)
async def test_blocked_rows_on_a_10000_task_cycle_list_a_few_members_and_the_length(
    client: Client,
) -> None:
    blocked = await call(client, "get_blocked_tasks")
    task = await call(client, "get_task", task_id="c0")
    rows = blocked["tasks"]
    assert blocked["total"] == 2 * CYCLE - 1 and len(rows) == 50  # the cycle, then the chain
    assert all(r["task"]["id"].startswith("c") for r in rows)
    assert {(len(r["cycle"]), r["cycle_length"]) for r in rows} == {(CYCLE_SHOWN, CYCLE)}
    assert _size(blocked) < 100_000 and _size(task) < 20_000


@pytest.mark.deep  # a 10,000-task tree
@pytest.mark.anyio
@pytest.mark.parametrize("client", [cycle_tree], indirect=True)
async def test_a_write_refused_for_closing_a_10000_task_cycle_names_a_few_members(
    client: Client,
) -> None:
    data = await fail(client, "update_task", task_id=f"k{CYCLE - 1}", depends_on=["k0"])
    details = data["error"]["details"]
    assert data["error"]["code"] == "CYCLE" and _size(data) < 20_000
    assert (len(details["cycle"]), details["cycle_length"]) == (CYCLE_SHOWN, CYCLE)


@pytest.mark.anyio
@pytest.mark.parametrize("client", [chain_tree], indirect=True)
async def test_a_2000_level_chain_answers_its_tree_cut_at_the_depth_limit(
    client: Client,
) -> None:
    tree = await call(client, "get_task_tree", task_id="l0")
    ascii_tree = await call(client, "get_task_tree", task_id="l0", format="ascii")
    below = await call(client, "get_task_tree", task_id=tree["cut_at"][0], max_depth=2)
    last = f"l{TREE_DEPTH_LIMIT}"
    assert (tree["node_count"], tree["cut_at"]) == (TREE_DEPTH_LIMIT + 1, [last])
    node = tree["tree"][0]
    for _ in range(TREE_DEPTH_LIMIT):
        node = node["children"][0]
    assert (node["id"], node["children"], node["children_not_shown"]) == (last, [], 1)
    lines = ascii_tree["ascii"].splitlines()
    assert len(lines) == TREE_DEPTH_LIMIT + 2 and "1 more not shown" in lines[-1]
    assert max(len(line) for line in lines) < 4 * TREE_DEPTH_LIMIT + 80
    assert below["node_count"] == 3 and below["tree"][0]["id"] == last


@pytest.mark.anyio
@pytest.mark.parametrize("client", [chain_tree], indirect=True)
async def test_a_tree_over_its_node_cap_names_where_it_was_cut(client: Client) -> None:
    tree = await call(client, "get_task_tree", max_nodes=10)
    assert tree["node_count"] == 10 and tree["cut_at"] == ["l9"]
    assert tree["guidance"]["next_action"] == "Call get_task_tree with task_id l9 to go on below it"


@pytest.mark.anyio
@pytest.mark.parametrize("client", [bodies_tree], indirect=True)
async def test_a_page_of_megabyte_bodies_is_cut_to_one_answer_and_says_so(
    client: Client,
) -> None:
    listed = await call(client, "list_tasks", fields="full", max_body_chars=10**9, limit=100)
    rows = listed["tasks"]
    assert len(rows) == 100 and _size(listed) < ANSWER_CHARS + 10_000
    assert all(r["body_truncated"] and 1000 < len(r["body"]) < 50_000 for r in rows)
    [warning] = listed["guidance"]["warnings"]
    assert "100 strings cut" in warning and "tasks[0].body" in warning
