"""The review snapshot's changes_since through a real MCP client: its three lists are paged
as one sequence, each with its total, and nothing is left out or repeated."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from tests.tasks_server.conftest import call, fail

pytestmark = pytest.mark.anyio

LISTS = ("tasks_created", "tasks_completed", "tasks_modified")


async def every_page(client: Client, **arguments: Any) -> list[dict[str, Any]]:
    found = [await call(client, "get_review_snapshot", **arguments)]
    while found[-1]["next_cursor"] is not None:
        cursor = found[-1]["next_cursor"]
        found.append(await call(client, "get_review_snapshot", **arguments, cursor=cursor))
    return found


async def test_paging_changes_since_returns_each_list_whole_in_order(client: Client) -> None:
    whole = await call(client, "get_review_snapshot", since_days=3650, limit=1000)
    lists = {name: [b["id"] for b in whole["changes_since"][name]] for name in LISTS}
    size = sum(len(ids) for ids in lists.values())
    assert size > 7 and whole["next_cursor"] is None  # the bundled tree: more than a page
    pages = await every_page(client, since_days=3650, limit=7)
    assert len(pages) == -(-size // 7)
    for name in LISTS:
        assert [b["id"] for page in pages for b in page["changes_since"][name]] == lists[name]
        assert {page["changes_since"][f"{name}_total"] for page in pages} == {len(lists[name])}
    assert all(sum(len(p["changes_since"][n]) for n in LISTS) == 7 for p in pages[:-1])
    assert "cursor" in pages[0]["guidance"]["next_action"]
    assert "cursor" not in pages[-1]["guidance"]["next_action"]


async def test_a_review_cursor_for_another_window_or_after_an_edit_is_refused(
    client: Client,
) -> None:
    first = await call(client, "get_review_snapshot", since_days=3650, limit=3)
    other = await fail(
        client, "get_review_snapshot", since_days=1, limit=3, cursor=first["next_cursor"]
    )
    assert other["error"]["code"] == "INVALID_CURSOR"
    await call(client, "update_task", task_id="wx-6ca4a1a9", priority=0)
    stale = await fail(
        client, "get_review_snapshot", since_days=3650, limit=3, cursor=first["next_cursor"]
    )
    assert stale["error"]["code"] == "INVALID_CURSOR"
