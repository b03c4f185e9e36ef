"""Every list filter on every tool that takes it, against an independent computation over a
generated tree written to disk (through a real in-memory MCP client, fixed clock)."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from storage import codec
from storage.model import Task, pack_text
from tests.tasks_server.conftest import NOW, call, fail, make_server

pytestmark = pytest.mark.anyio

PROJECTS = ("alpha", "beta", None)
TYPES = ("task", "bug", "epic")
TAGS = ("ui", "db", "ops", "docs")
PEOPLE = ("ana", "bo", None)
WORD = "zebra"  # in some bodies, for search_tasks


@dataclass(frozen=True)
class Row:
    """One generated task as the test knows it (never read back through the server)."""

    id: str
    project: str | None
    type: str
    priority: int
    tags: frozenset[str]
    assignee: str | None
    parent: str | None
    status: str
    claim: str  # "none", "live" or "expired"
    searchable: bool


def generate(seed: int, count: int = 60) -> list[Row]:
    rng = random.Random(seed)
    rows: list[Row] = []
    for n in range(count):
        parent = rng.choice(rows).id if rows and rng.random() < 0.6 else None
        rows.append(
            Row(
                id=f"t{n:03d}",
                project=rng.choice(PROJECTS),
                type=rng.choice(TYPES),
                priority=rng.randrange(5),
                tags=frozenset(rng.sample(TAGS, rng.randrange(4))),
                assignee=rng.choice(PEOPLE),
                parent=parent,
                status=rng.choice(("active", "active", "active", "done", "in_progress")),
                claim=rng.choice(("none", "none", "live", "expired")),
                searchable=rng.random() < 0.5,
            )
        )
    return rows


def to_task(row: Row) -> Task:
    extra: dict[str, Any] = {}
    if row.claim != "none":
        ends = NOW + timedelta(minutes=5 if row.claim == "live" else -5)
        extra = {"claimed_by": "w", "claim_expires": ends.isoformat()}
    return Task(
        id=row.id,
        title=f"Task {row.id}",
        path="",
        type=row.type,
        status=row.status,
        priority=row.priority,
        parent=row.parent,
        project=row.project,
        tags=tuple(sorted(row.tags)),
        assignee=row.assignee,
        packed_body=pack_text(f"About {WORD}.\n" if row.searchable else "Nothing here.\n"),
        extra=extra,
    )


def descendants(rows: list[Row], top: str) -> set[str]:
    below: set[str] = set()
    frontier = [top]
    while frontier:
        current = frontier.pop()
        kids = [r.id for r in rows if r.parent == current]
        below.update(kids)
        frontier.extend(kids)
    return below


def ready(rows: list[Row]) -> set[str]:
    """Active, and no open child (the tree has no dependencies and no blocked status)."""
    open_parents = {r.parent for r in rows if r.status != "done"}
    return {r.id for r in rows if r.status == "active" and r.id not in open_parents}


SEEDS = (1, 2)
Tree = tuple[Client, list[Row]]  # a client on the generated tree, and its rows


@pytest.fixture(params=SEEDS, ids=[f"seed{s}" for s in SEEDS])
async def tree(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Tree]:
    rows = generate(request.param)
    for row in rows:
        task = replace(to_task(row), path=f"{row.id}.md")
        (tmp_path / f"{row.id}.md").write_text(codec.dumps(task))
    server = make_server(tmp_path)
    async with Client(server) as client:
        yield client, rows
    server.context.close()


def cases(rows: list[Row]) -> dict[str, tuple[dict[str, Any], Callable[[Row], bool]]]:
    """Filter arguments and the rule each must follow, computed here from the rows."""
    top = next(r.id for r in rows if any(x.parent == r.id for x in rows))
    below = descendants(rows, top)
    return {
        "project": ({"project": "alpha"}, lambda r: r.project == "alpha"),
        "type": ({"type": "bug"}, lambda r: r.type == "bug"),
        "priority_max": ({"priority_max": 1}, lambda r: r.priority <= 1),
        "tags_any": ({"tags_any": ["ui", "db"]}, lambda r: bool(r.tags & {"ui", "db"})),
        "tags_all": ({"tags_all": ["ui", "db"]}, lambda r: {"ui", "db"} <= r.tags),
        "assignee": ({"assignee": "ana"}, lambda r: r.assignee == "ana"),
        "unassigned": ({"unassigned": True}, lambda r: r.assignee is None),
        "under": ({"under": top}, lambda r: r.id in below),
        "unclaimed": ({"unclaimed": True}, lambda r: r.claim != "live"),
        "all at once": (
            {"priority_max": 3, "tags_any": ["ui", "ops"], "unclaimed": True, "project": "beta"},
            lambda r: (
                r.priority <= 3
                and bool(r.tags & {"ui", "ops"})
                and r.claim != "live"
                and r.project == "beta"
            ),
        ),
    }


FILTERS = ("project", "type", "priority_max", "tags_any", "tags_all", "assignee", "unassigned",
           "under", "unclaimed", "all at once")  # fmt: skip


async def ids_of(client: Client, tool: str, **arguments: Any) -> list[str]:
    data = await call(client, tool, limit=1000, **arguments)
    assert data["total"] == data["count"]
    return [t["id"] for t in data["tasks"]]


def in_task_order(rows: list[Row], keep: set[str]) -> list[str]:
    return [r.id for r in sorted(rows, key=lambda r: (r.priority, r.id)) if r.id in keep]


@pytest.mark.parametrize("name", FILTERS)
async def test_list_tasks_filters_match_an_independent_computation(tree: Tree, name: str) -> None:
    client, rows = tree
    arguments, rule = cases(rows)[name]
    expected = in_task_order(rows, {r.id for r in rows if rule(r)})
    assert expected, "the generated tree should exercise the filter"
    assert await ids_of(client, "list_tasks", **arguments) == expected


@pytest.mark.parametrize("name", FILTERS)
async def test_get_ready_tasks_filters_match_an_independent_computation(
    tree: Tree, name: str
) -> None:
    client, rows = tree
    arguments, rule = cases(rows)[name]
    expected = in_task_order(rows, {r.id for r in rows if rule(r)} & ready(rows))
    assert await ids_of(client, "get_ready_tasks", **arguments) == expected


@pytest.mark.parametrize("name", FILTERS)
async def test_search_tasks_filters_match_an_independent_computation(tree: Tree, name: str) -> None:
    client, rows = tree
    arguments, rule = cases(rows)[name]
    expected = sorted(r.id for r in rows if rule(r) and r.searchable)
    assert await ids_of(client, "search_tasks", query=WORD.upper(), **arguments) == expected


async def test_every_filter_is_published_alike_on_every_tool_that_takes_it(tree: Tree) -> None:
    client, _ = tree
    tools = {t.name: t.input_schema["properties"] for t in (await client.list_tools()).tools}
    names = ("project", "type", "priority_max", "tags_any", "tags_all", "assignee", "unassigned",
             "under", "unclaimed")  # fmt: skip
    for name in names:
        shown = [tools[t][name] for t in ("list_tasks", "get_ready_tasks", "search_tasks")]
        assert shown[0] == shown[1] == shown[2], name


async def test_under_a_task_that_does_not_exist_is_not_found(tree: Tree) -> None:
    client, _ = tree
    for tool, extra in (
        ("list_tasks", {}),
        ("get_ready_tasks", {}),
        ("search_tasks", {"query": "a"}),
    ):
        error = await fail(client, tool, under="nope", **extra)
        assert error["error"]["code"] == "TASK_NOT_FOUND"


async def paged_ids(client: Client, tool: str, **arguments: Any) -> list[str]:
    """Every id `tool` lists, read three at a time through its cursors."""
    data = await call(client, tool, limit=3, **arguments)
    ids = [t["id"] for t in data["tasks"]]
    while data["next_cursor"]:
        data = await call(client, tool, limit=3, cursor=data["next_cursor"], **arguments)
        ids += [t["id"] for t in data["tasks"]]
    return ids


@pytest.mark.parametrize("tool", ["list_tasks", "get_ready_tasks", "search_tasks"])
async def test_a_filtered_list_read_page_by_page_is_the_whole_filtered_list(
    tree: Tree, tool: str
) -> None:
    client, rows = tree
    arguments, _ = cases(rows)["unclaimed"]
    extra = {"query": WORD} if tool == "search_tasks" else {}
    paged = await paged_ids(client, tool, **arguments, **extra)
    assert len(paged) > 3, "the generated tree should give more than one page"
    assert paged == await ids_of(client, tool, **arguments, **extra)


@pytest.mark.parametrize("tool", ["list_tasks", "get_ready_tasks", "search_tasks"])
async def test_a_cursor_is_refused_once_a_filter_changes(tree: Tree, tool: str) -> None:
    client, _ = tree
    extra = {"query": WORD} if tool == "search_tasks" else {}
    first = await call(client, tool, limit=1, **extra)
    assert first["next_cursor"], "the generated tree should give more than one page"
    error = await fail(client, tool, unclaimed=True, cursor=first["next_cursor"], **extra)
    assert error["error"]["code"] == "INVALID_CURSOR"
