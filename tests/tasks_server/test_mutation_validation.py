"""Bad writes are refused before the first byte: a clear code, a bounded message, and the
tree on disk exactly as it was (through a real in-memory MCP client)."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tasks_server.edge.schemas import input_schema
from tasks_server.models import MAX_ID_CHARS
from tasks_server.registry import discover
from tests.tasks_server.conftest import call, fail

pytestmark = pytest.mark.anyio

TASK = "wx-6ca4a1a9"  # an active task of the bundled tree
SMALL = 4000  # bytes: an error result that echoes no caller's value in full
TOO_BIG_BODY = "é" * 600_000  # under the character cap, 1.2 MB once encoded


def files(root: Path) -> dict[str, bytes]:
    """Every file of the tree with its bytes (the server's own cache aside)."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".tasks-index" not in p.parts
    }


async def refused(client: Client, root: Path, code: str, tool: str, **args: Any) -> None:
    """`tool` fails with `code`, answers in a few KB, and leaves every file as it was."""
    before = files(root)
    data = await fail(client, tool, **args)
    assert data["error"]["code"] == code
    assert len(json.dumps(data)) < SMALL
    assert files(root) == before


@pytest.mark.parametrize(
    "title", ["", "   ", "\t\n", "x" * 10_000_000], ids=["empty", "spaces", "blank", "10MB"]
)
async def test_creating_with_a_blank_or_huge_title_writes_nothing(
    client: Client, example_root: Path, title: str
) -> None:
    await refused(client, example_root, "INVALID_ARGUMENT", "create_task", title=title)


async def test_creating_a_file_over_the_size_limit_writes_nothing(
    client: Client, example_root: Path
) -> None:
    await refused(
        client, example_root, "INVALID_ARGUMENT", "create_task", title="Big", body=TOO_BIG_BODY
    )


@pytest.mark.parametrize("body", ["y" * 2_000_000, TOO_BIG_BODY], ids=["2MB", "1.2MB-encoded"])
async def test_updating_a_body_past_the_size_limit_leaves_the_file_and_the_task(
    client: Client, example_root: Path, body: str
) -> None:
    await refused(client, example_root, "INVALID_ARGUMENT", "update_task", task_id=TASK, body=body)
    assert (await call(client, "get_task", task_id=TASK))["task"]["id"] == TASK


async def test_a_large_body_that_fits_is_written_and_shown_cut(client: Client) -> None:
    data = await call(client, "update_task", task_id=TASK, body="z" * 500_000)
    assert data["task"]["body_truncated"] is True
    full = await call(client, "get_task", task_id=TASK)
    assert full["task"]["body"] == "z" * 500_000


@pytest.mark.parametrize(
    "bad_child",
    [{"title": " "}, {"title": "Huge", "body": TOO_BIG_BODY}, {"title": "x" * 100_000}],
    ids=["blank-title", "oversized-file", "huge-title"],
)
async def test_decomposing_with_one_bad_child_among_good_ones_writes_none(
    client: Client, example_root: Path, bad_child: dict[str, str]
) -> None:
    children = [{"title": "Good one"}, bad_child, {"title": "Good two"}]
    await refused(
        client, example_root, "INVALID_ARGUMENT", "decompose_task", task_id=TASK, children=children
    )


async def test_a_child_may_not_depend_on_a_later_sibling_by_key(
    client: Client, example_root: Path
) -> None:
    children = [
        {"title": "First", "key": "a", "depends_on": ["b"]},
        {"title": "Second", "key": "b", "depends_on": ["a"]},
    ]
    await refused(
        client, example_root, "INVALID_ARGUMENT", "decompose_task", task_id=TASK, children=children
    )


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("create_task", {"title": "Long id", "id": "a" * 300}),
        ("create_task", {"title": "Long project", "project": "p" * 300}),
        ("create_task", {"title": "Newline id", "id": "abc\n"}),
        ("create_task", {"title": "Long parent", "parent": "q" * 300}),
        ("update_task", {"task_id": "t" * 10_000_000, "status": "done"}),
        ("update_task", {"task_id": TASK, "project": "p" * 300}),
        ("update_task", {"task_id": TASK, "depends_on": ["d" * 300]}),
        ("complete_task", {"task_id": "c" * 300}),
        ("complete_tasks", {"task_ids": [TASK] * 501}),
        ("delete_task", {"task_id": "d" * 300}),
        ("reorder_children", {"parent_id": TASK, "order": ["o" * 300]}),
    ],
    ids=lambda value: value if isinstance(value, str) else ",".join(value),
)
async def test_oversized_or_malformed_ids_are_invalid_arguments(
    client: Client, example_root: Path, tool: str, args: dict[str, Any]
) -> None:
    await refused(client, example_root, "INVALID_ARGUMENT", tool, **args)


@pytest.mark.parametrize("stamp", ["2026-01-01", "2026-01-01T00:00:00"])
async def test_a_naive_expected_modified_is_an_invalid_argument(
    client: Client, example_root: Path, stamp: str
) -> None:
    await refused(
        client,
        example_root,
        "INVALID_ARGUMENT",
        "update_task",
        task_id=TASK,
        status="blocked",
        expected_modified=stamp,
    )


def cursor_of(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


@pytest.mark.parametrize(
    "cursor",
    [
        cursor_of(b"[" * 100_000 + b"]" * 100_000),
        cursor_of(b'{"q": {"r": [1, 2]}, "g": 1, "o": 2}'),
        cursor_of(b'[["x"], 1, 2]'),
        cursor_of(b"[1e999, 1, 1]"),
        "%%%",
    ],
    ids=["deeply-nested", "object", "nested-query", "float", "not-base64"],
)
async def test_a_garbage_cursor_is_an_invalid_cursor(
    client: Client, example_root: Path, cursor: str
) -> None:
    await refused(client, example_root, "INVALID_CURSOR", "list_tasks", cursor=cursor)


async def test_a_10mb_cursor_is_refused_by_the_argument_cap_before_it_is_read(
    client: Client, example_root: Path
) -> None:
    """Every argument string is capped at 1 MiB before any tool reads it."""
    await refused(client, example_root, "INVALID_ARGUMENT", "list_tasks", cursor="A" * 10_000_000)


@pytest.mark.parametrize("since_days", [1e300, 10**30, 40_000])
async def test_a_huge_since_days_is_an_invalid_argument(
    client: Client, example_root: Path, since_days: float
) -> None:
    await refused(
        client, example_root, "INVALID_ARGUMENT", "get_review_snapshot", since_days=since_days
    )


async def test_a_century_of_since_days_is_answered(client: Client) -> None:
    data = await call(client, "get_review_snapshot", since_days=36_500)
    assert data["success"] is True


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("get_task", {"task_id": "t" * 10_000_000}),
        ("get_children", {"task_id": "t" * 300}),
        ("get_task_neighborhood", {"task_id": "t" * 300}),
        ("get_task_tree", {"project": "p" * 300}),
        ("list_tasks", {"project": "p" * 300}),
        ("get_ready_tasks", {"project": "p" * 300}),
        ("get_graph_metrics", {"scope": "project", "scope_id": "p" * 300}),
    ],
    ids=lambda value: value if isinstance(value, str) else ",".join(value),
)
async def test_queries_refuse_oversized_ids_and_projects_without_echoing_them(
    client: Client, example_root: Path, tool: str, args: dict[str, Any]
) -> None:
    await refused(client, example_root, "INVALID_ARGUMENT", tool, **args)


def types_of(field: dict[str, Any]) -> list[str]:
    found = field.get("type", [])
    return found if isinstance(found, list) else [found]


ID_FIELDS = {"task_id", "task_ids", "parent_id", "parent", "project", "scope_id", "id", "order"}


def declared(*tiers: str) -> list[tuple[str, dict[str, Any]]]:
    """Each task tool of these tiers with the input schema its model declares: what the
    server checks every call against (tools/list leaves out what the session's instructions
    say once for every tool, such as the usual 255-character cap; bots declare their own)."""
    return [(s.name, input_schema(s.input_model)) for s in discover() if s.tier in tiers]


def test_every_id_or_project_a_task_tool_takes_is_capped() -> None:
    for tool, schema in declared("query", "mutation", "admin"):
        for name, field in schema.get("properties", {}).items():
            value = field.get("items", field)
            if name in ID_FIELDS and "string" in types_of(value):
                limit = value.get("maxLength")
                assert limit is not None and limit <= MAX_ID_CHARS, f"{tool}.{name}"


def test_every_string_and_list_a_write_takes_is_bounded() -> None:
    for tool, schema in declared("mutation"):
        fields = [*schema.get("properties", {}).items()]
        for definition in schema.get("$defs", {}).values():
            fields += definition.get("properties", {}).items()
        for name, field in fields:
            types = types_of(field)
            if "string" in types and "format" not in field:
                assert "maxLength" in field, f"{tool}.{name}"
            if "array" in types:
                assert "maxItems" in field, f"{tool}.{name}"


@pytest.mark.parametrize(
    ("key", "value"), [("due", 1.5), ("due", 0), ("expected_modified", 1_700_000_000)]
)
async def test_a_date_time_given_as_a_number_is_refused_as_its_schema_refuses_it(
    client: Client, example_root: Path, key: str, value: float
) -> None:
    """Found by the hostile fuzz: the model's lax mode read 1.5 as 1970-01-01T00:00:01.5."""
    arguments = {"task_id": "wx-6ca4a1a9", key: value}
    await refused(client, example_root, "INVALID_ARGUMENT", "update_task", **arguments)


@pytest.mark.parametrize("project", ["../../x", "a/b", ".hidden", "x\n"])
async def test_a_project_that_is_not_an_id_is_refused_by_update_task(
    client: Client, example_root: Path, project: str
) -> None:
    await refused(
        client, example_root, "INVALID_ARGUMENT", "update_task", task_id=TASK, project=project
    )


async def test_tags_are_kept_as_written_spaces_and_all(client: Client) -> None:
    await call(client, "update_task", task_id=TASK, tags=[" spaced ", "plain"])
    task = (await call(client, "get_task", task_id=TASK))["task"]
    assert task["tags"] == [" spaced ", "plain"]
