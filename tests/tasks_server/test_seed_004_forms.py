"""The short argument forms (a task id as the metrics scope) and the second names of
result fields, through a real in-memory MCP client."""

from __future__ import annotations

import pytest
from mcp import Client

from tests.tasks_server.conftest import call, fail

pytestmark = pytest.mark.anyio


async def test_a_task_id_as_the_metrics_scope_gives_that_tasks_subtree(client: Client) -> None:
    by_id = await call(client, "get_graph_metrics", scope="pipe-2052e52b")
    spelled_out = await call(client, "get_graph_metrics", scope="subtree", scope_id="pipe-2052e52b")
    assert (by_id["scope"], by_id["scope_id"]) == ("subtree", "pipe-2052e52b")
    assert by_id == spelled_out
    assert by_id["total_tasks"] < (await call(client, "get_graph_metrics"))["total_tasks"]


@pytest.mark.parametrize(
    "arguments",
    [
        {"scope": "all", "scope_id": "wx"},
        {"scope_id": "wx"},
        {"scope": "pipe-2052e52b", "scope_id": "wx"},
    ],
)
async def test_a_scope_id_the_scope_takes_none_of_is_an_invalid_argument(
    client: Client, arguments: dict[str, str]
) -> None:
    data = await fail(client, "get_graph_metrics", **arguments)
    assert data["error"]["code"] == "INVALID_ARGUMENT"


async def test_the_review_snapshots_staleness_entries_are_a_brief_row_and_the_days(
    client: Client,
) -> None:
    staleness = (await call(client, "get_review_snapshot", since_days=7))["staleness"]
    ready, busy = staleness["oldest_ready_task"], staleness["oldest_in_progress"]
    assert set(ready) == {"task", "days_ready"} and set(busy) == {"task", "days_in_progress"}
    shown = await call(client, "get_task", task_id=ready["task"]["id"])
    assert ready["task"]["title"] == shown["task"]["title"]
    assert busy["task"]["status"] == "in_progress"


async def test_scoring_factors_come_fifty_to_a_page_by_default(client: Client) -> None:
    await call(client, "create_task", title="The fifty-first task", project="wx")
    data = await call(client, "get_task_scoring_factors", ready_only=False, include_done=True)
    assert data["count"] == 50 < data["total"] and data["next_cursor"]


async def test_a_scoped_metric_describes_the_scoped_graph(client: Client) -> None:
    """pipe-5e0e14ca sits one level below its project's root: within its subtree it is the
    one root at depth 0, its children at depth 1."""
    data = await call(client, "get_graph_metrics", scope="pipe-5e0e14ca")
    assert (data["root_count"], data["max_depth"]) == (1, 1)
    assert data["max_absolute_depth"] == 3
    project = await call(client, "get_graph_metrics", scope="project", scope_id="wx")
    assert project["root_count"] == 1 and project["max_depth"] < project["max_absolute_depth"]
