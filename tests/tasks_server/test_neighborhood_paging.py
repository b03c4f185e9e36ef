"""Neighbourhood and decomposition context through a real MCP client: the lists are paged as
one sequence with one limit and cursor, each carries its total, and nothing is left out or
repeated."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.conftest import write
from tests.tasks_server.conftest import call, fail, make_server

pytestmark = pytest.mark.anyio

CHILDREN = [f"kid-{i:02d}" for i in range(11)]
BLOCKED = [f"waits-{i:02d}" for i in range(9)]
NEEDED = [f"need-{i:02d}" for i in range(5)]
LOOSE = [f"loose-{i:02d}" for i in range(6)]


def task_file(task_id: str, **fields: Any) -> str:
    lines = [f"id: {task_id}", f"title: Task {task_id}", "status: active"]
    for key, value in fields.items():
        lines.append(
            f"{key}: [{', '.join(value)}]" if isinstance(value, list) else f"{key}: {value}"
        )
    return "---\n" + "\n".join(lines) + "\n---\n"


def hub_tree(root: Path) -> None:
    """A hub with 11 children, 9 tasks it blocks, 5 it needs, in a project of 28; 6 loose
    orphans and the project's top task."""
    files = {
        "top": task_file("top", project="big", type="project"),
        "hub": task_file("hub", project="big", parent="top", depends_on=NEEDED),
        **{
            i: task_file(i, project="big", parent="hub", order=n % 4)
            for n, i in enumerate(CHILDREN)
        },
        **{i: task_file(i, project="big", parent="top", depends_on=["hub"]) for i in BLOCKED},
        **{i: task_file(i, project="big", parent="top", priority=1) for i in NEEDED},
        **{i: task_file(i) for i in LOOSE},
    }
    for task_id, text in files.items():
        write(root, f"tasks/{task_id}.md", text)


@pytest.fixture
async def hub(tmp_path: Path) -> AsyncIterator[Client]:
    hub_tree(tmp_path)
    server = make_server(tmp_path)
    async with Client(server) as client:
        yield client
    server.context.close()


async def pages(client: Client, tool: str, **arguments: Any) -> list[dict[str, Any]]:
    """Every page of one call, following next_cursor to the end."""
    found = [await call(client, tool, **arguments)]
    while found[-1]["next_cursor"] is not None:
        found.append(await call(client, tool, **arguments, cursor=found[-1]["next_cursor"]))
    return found


def gather(found: list[dict[str, Any]], *path: str) -> list[str]:
    """The ids of the list at `path` (keys down to it), over every page in turn."""
    ids: list[str] = []
    for page in found:
        inner = page
        for key in path[:-1]:
            inner = inner[key]
        ids += [brief["id"] for brief in inner[path[-1]]]
    return ids


def briefs_on(page: dict[str, Any]) -> int:
    """How many task briefs a neighbourhood page lists (its parent aside)."""
    relations = page["existing_relationships"]
    lists = ("children", "depends_on", "blocks", "soft_depends_on", "soft_blocks")
    return sum(len(relations[k]) for k in lists) + sum(
        len(page[k]) for k in ("same_project_tasks", "orphan_tasks")
    )


async def test_paging_the_neighbourhood_returns_every_related_task_exactly_once(
    hub: Client,
) -> None:
    found = await pages(hub, "get_task_neighborhood", task_id="hub", limit=4)
    assert len(found) == 15  # 11 children, 5 needed, 9 blocked, 26 mates, 7 orphans: 58
    relations = "existing_relationships"
    assert sorted(gather(found, relations, "children")) == CHILDREN
    assert sorted(gather(found, relations, "blocks")) == BLOCKED
    assert sorted(gather(found, relations, "depends_on")) == NEEDED
    mates = gather(found, "same_project_tasks")
    assert sorted(mates) == sorted(["top", *CHILDREN, *BLOCKED, *NEEDED])
    assert sorted(gather(found, "orphan_tasks")) == sorted(["top", *LOOSE])
    for page in found:
        assert briefs_on(page) == (4 if page["next_cursor"] else 58 % 4)
        assert page[relations]["children_total"] == len(CHILDREN)
        assert page[relations]["blocks_total"] == len(BLOCKED)
        assert page[relations]["depends_on_total"] == len(NEEDED)
        assert (page["same_project_total"], page["orphan_total"]) == (len(mates), 7)


async def test_neighbourhood_lists_come_in_the_task_order(hub: Client) -> None:
    found = await pages(hub, "get_task_neighborhood", task_id="hub", limit=5)
    children = gather(found, "existing_relationships", "children")
    by_order = sorted(CHILDREN, key=lambda i: (CHILDREN.index(i) % 4, i))
    assert children == by_order
    assert gather(found, "same_project_tasks")[:5] == NEEDED


async def test_paging_the_decomposition_context_returns_every_list_exactly_once(
    hub: Client,
) -> None:
    found = await pages(hub, "get_decomposition_context", task_id="kid-03", limit=3)
    assert len(found) == 12  # 0 children, 10 siblings, 26 project tasks: 36, 3 a page
    assert gather(found, "existing_children") == []
    siblings = gather(found, "parent_context", "siblings")
    assert sorted(siblings) == [c for c in CHILDREN if c != "kid-03"]
    project = gather(found, "project_context", "project_tasks")
    everyone = ["top", "hub", *CHILDREN, *BLOCKED, *NEEDED]
    assert sorted(project) == sorted(i for i in everyone if i != "kid-03")
    for page in found:
        assert page["parent_context"]["siblings_total"] == len(CHILDREN) - 1
        assert page["project_context"]["project_tasks_total"] == len(project)
        assert page["existing_children_total"] == 0
    top = await pages(hub, "get_decomposition_context", task_id="hub", limit=3)
    assert sorted(gather(top, "existing_children")) == CHILDREN
    assert {page["existing_children_total"] for page in top} == {len(CHILDREN)}


@pytest.mark.parametrize("tool", ["get_task_neighborhood", "get_decomposition_context"])
async def test_a_cursor_from_before_an_edit_is_refused(hub: Client, tool: str) -> None:
    first = await call(hub, tool, task_id="hub", limit=4)
    await call(hub, "update_task", task_id="kid-00", priority=0)
    data = await fail(hub, tool, task_id="hub", limit=4, cursor=first["next_cursor"])
    assert data["error"]["code"] == "INVALID_CURSOR"


async def test_a_neighbourhood_cursor_does_not_page_another_task(hub: Client) -> None:
    first = await call(hub, "get_task_neighborhood", task_id="hub", limit=4)
    data = await fail(
        hub, "get_task_neighborhood", task_id="top", limit=4, cursor=first["next_cursor"]
    )
    assert data["error"]["code"] == "INVALID_CURSOR"


async def test_the_last_page_has_no_cursor_and_guidance_asks_for_more_until_then(
    hub: Client,
) -> None:
    found = await pages(hub, "get_task_neighborhood", task_id="hub", limit=10)
    assert [page["next_cursor"] is None for page in found] == [False] * 5 + [True]
    assert "next_cursor" in found[0]["guidance"]["next_action"]
    assert "update_task" in found[-1]["guidance"]["next_action"]


async def test_sections_choose_which_lists_are_paged_and_the_others_keep_their_totals(
    hub: Client,
) -> None:
    found = await pages(
        hub, "get_task_neighborhood", task_id="hub", limit=4, sections=["children", "blocks"]
    )
    assert len(found) == 5  # 11 children and 9 blocked: 20, 4 a page
    relations = "existing_relationships"
    assert sorted(gather(found, relations, "children")) == CHILDREN
    assert sorted(gather(found, relations, "blocks")) == BLOCKED
    assert gather(found, relations, "depends_on") == gather(found, "orphan_tasks") == []
    for page in found:
        assert page[relations]["depends_on_total"] == len(NEEDED)
        assert page["orphan_total"] == 7


async def test_one_page_can_hold_a_whole_large_section(hub: Client) -> None:
    page = await call(
        hub, "get_task_neighborhood", task_id="hub", limit=1000, sections=["same_project_tasks"]
    )
    assert len(page["same_project_tasks"]) == page["same_project_total"] == 26
    assert page["next_cursor"] is None


async def test_an_unknown_section_is_an_invalid_argument_naming_the_choices(hub: Client) -> None:
    data = await fail(hub, "get_task_neighborhood", task_id="hub", sections=["cousins"])
    assert data["error"]["code"] == "INVALID_ARGUMENT"
    assert "cousins" in data["error"]["message"] and "orphan_tasks" in data["error"]["message"]


async def test_a_cursor_does_not_carry_over_to_other_sections(hub: Client) -> None:
    first = await call(hub, "get_task_neighborhood", task_id="hub", limit=4, sections=["blocks"])
    data = await fail(
        hub, "get_task_neighborhood", task_id="hub", limit=4, cursor=first["next_cursor"]
    )
    assert data["error"]["code"] == "INVALID_CURSOR"
