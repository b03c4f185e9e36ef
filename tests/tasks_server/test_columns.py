"""Rows in columns: `format: "columns"` on the list tools writes a page's rows as one list of
field names and a list of cells per row, the same rows in the same order and pages; a field
with one value on every row of the page is written once, in `same`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from mcp import Client

from tasks_server.edge.schemas import output_schema
from tasks_server.listing import TaskListArgs
from tasks_server.registry import discover
from tasks_server.views import TaskView
from tests.tasks_server.conftest import call, fail, session_on

pytestmark = pytest.mark.anyio

LIST_CALLS: dict[str, dict[str, Any]] = {
    "list_tasks": {"limit": 1000},
    "search_tasks": {"query": "the"},
    "get_children": {"task_id": "grant-939ae232"},
    "get_ready_tasks": {},
    "get_review_tasks": {},
    "get_blocked_tasks": {"include_deferred": True},
}


def as_objects(page: dict[str, Any]) -> list[dict[str, Any]]:
    """The rows of a page in columns, back as objects (a null cell: the object leaves the
    field out, or holds null): each row's cells by `columns`, plus `same`."""
    columns, rows = page["tasks"]["columns"], page["tasks"]["rows"]
    same = page["tasks"].get("same", {})
    assert all(len(cells) == len(columns) for cells in rows)
    if "same" in page["tasks"]:  # written only when some field has one value
        assert same and set(same).isdisjoint(columns)
    return [dict(zip(columns, cells, strict=True)) | same for cells in rows]


def one_value_fields(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The fields that have one value (of one type) on every row of a page of two or more
    (a row leaving a field out holds null there)."""
    if len(rows) < 2:
        return {}
    names = {name: None for row in rows for name in row}
    cells = {name: [row.get(name) for row in rows] for name in names}
    return {
        name: found[0]
        for name, found in cells.items()
        if all(cell == found[0] and type(cell) is type(found[0]) for cell in found)
    }


def without_nulls(row: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in row.items() if value is not None}


def test_every_list_tool_with_format_is_covered_here() -> None:
    takes_format = {s.name for s in discover() if issubclass(s.input_model, TaskListArgs)}
    assert takes_format == set(LIST_CALLS)


@pytest.mark.parametrize("tool", sorted(LIST_CALLS))
async def test_columns_hold_the_object_rows_field_by_field(client: Client, tool: str) -> None:
    await call(client, "claim_task", task_id="grant-b0992bcf", agent="w1", lease_seconds=60)
    objects = await call(client, tool, **LIST_CALLS[tool])
    columns = await call(client, tool, **LIST_CALLS[tool], format="columns")
    assert objects["tasks"], tool
    rebuilt = as_objects(columns)
    assert [without_nulls(row) for row in rebuilt] == [
        without_nulls(row) for row in objects["tasks"]
    ]
    written = columns["tasks"]["columns"] + list(columns["tasks"].get("same", {}))
    assert sorted(written) == sorted(set().union(*objects["tasks"]))
    assert columns["tasks"].get("same", {}) == one_value_fields(objects["tasks"])
    for key in ("count", "total", "next_cursor", "guidance"):
        assert columns[key] == objects[key], key


async def test_columns_are_the_brief_fields_some_row_has_in_a_fixed_order(client: Client) -> None:
    await call(client, "claim_task", task_id="grant-b0992bcf", agent="w1", lease_seconds=60)
    page = await call(client, "list_tasks", limit=1000, format="columns")
    names = page["tasks"]["columns"]
    assert names == [name for name in TaskView.model_fields if name in names]
    assert {"id", "title", "project", "parent", "claimed_by", "claim_live"} <= set(names)
    rows = as_objects(page)
    claimed = [row for row in rows if row["id"] == "grant-b0992bcf"]
    assert claimed[0]["claimed_by"] == "w1" and claimed[0]["claim_live"] is True
    assert any(row["claimed_by"] is None for row in rows)  # padded with null where absent


async def test_a_field_with_one_value_on_every_row_is_written_once_in_same(
    client: Client,
) -> None:
    page = await call(client, "list_tasks", project="wx", status="active", format="columns")
    assert len(page["tasks"]["rows"]) > 1
    assert page["tasks"]["same"] == {"status": "active", "project": "wx"}
    assert {"status", "project"}.isdisjoint(page["tasks"]["columns"])
    assert page["tasks"]["columns"][:2] == ["id", "title"]
    objects = await call(client, "list_tasks", project="wx", status="active")
    assert as_objects(page) == objects["tasks"]


async def test_a_page_of_one_row_writes_every_field_in_its_cells(client: Client) -> None:
    page = await call(client, "list_tasks", project="wx", limit=1, format="columns")
    assert "same" not in page["tasks"]
    assert {"id", "project"} <= set(page["tasks"]["columns"])
    assert len(page["tasks"]["rows"]) == 1


async def test_same_is_left_out_when_no_field_has_one_value(client: Client) -> None:
    page = await call(client, "list_tasks", limit=1000, format="columns")
    assert "same" not in page["tasks"]
    objects = await call(client, "list_tasks", limit=1000)
    assert one_value_fields(objects["tasks"]) == {}


async def test_blocked_rows_with_one_valued_reasons_rebuild_exactly(client: Client) -> None:
    objects = await call(client, "get_blocked_tasks", include_deferred=True)
    page = await call(client, "get_blocked_tasks", include_deferred=True, format="columns")
    assert page["tasks"]["same"]  # e.g. no cycles anywhere: `cycle` written once
    rebuilt = as_objects(page)
    assert [without_nulls(row) for row in rebuilt] == [
        without_nulls(row) for row in objects["tasks"]
    ]
    assert all(set(row) <= set(again) for row, again in zip(objects["tasks"], rebuilt, strict=True))


async def test_full_rows_in_columns_hold_every_field_the_objects_hold(client: Client) -> None:
    arguments = {"project": "wx", "fields": "full", "max_body_chars": 40}
    objects = await call(client, "list_tasks", **arguments)
    columns = await call(client, "list_tasks", **arguments, format="columns")
    assert "body" in columns["tasks"]["columns"]
    assert [without_nulls(r) for r in as_objects(columns)] == [
        without_nulls(r) for r in objects["tasks"]
    ]


async def test_bodies_cut_by_the_answer_cap_are_marked_in_columns_as_in_objects(
    example_root: Path,
) -> None:
    for path in sorted((example_root / "wx" / "tasks").glob("*.md"))[:6]:
        path.write_text(path.read_text() + "\n" + "lorem ipsum " * 80_000 + "\n")
    arguments = {"project": "wx", "fields": "full", "max_body_chars": 10**7, "limit": 1000}
    async with session_on(example_root) as client:
        objects = await call(client, "list_tasks", **arguments)
        columns = await call(client, "list_tasks", **arguments, format="columns")
    cut = [row["id"] for row in objects["tasks"] if row["body_truncated"]]
    assert len(cut) == 6 and objects["guidance"]["warnings"]
    rebuilt = as_objects(columns)
    assert [row["id"] for row in rebuilt if row["body_truncated"]] == cut
    assert "body_truncated" not in columns["tasks"].get("same", {})


async def test_an_empty_page_in_columns_has_no_columns_and_no_rows(client: Client) -> None:
    page = await call(client, "list_tasks", status="cancelled", tag="no-such-tag", format="columns")
    assert page["tasks"] == {"columns": [], "rows": []}
    assert page["total"] == 0


async def test_pages_in_columns_are_the_pages_in_objects(client: Client) -> None:
    walks: dict[str, list[list[str]]] = {}
    for fmt in ("objects", "columns"):
        cursor, pages = None, []
        while True:
            more: dict[str, str] = {"cursor": cursor} if cursor else {}
            page = await call(client, "list_tasks", limit=7, format=fmt, **more)
            rows = as_objects(page) if fmt == "columns" else page["tasks"]
            pages.append([row["id"] for row in rows])
            cursor = page["next_cursor"]
            if cursor is None:
                break
        walks[fmt] = pages
    assert walks["objects"] == walks["columns"]
    assert len(walks["objects"]) > 2


async def test_a_cursor_goes_on_across_formats(client: Client) -> None:
    first = await call(client, "list_tasks", limit=5)
    in_columns = await call(
        client, "list_tasks", limit=5, format="columns", cursor=first["next_cursor"]
    )
    as_objects_again = await call(client, "list_tasks", limit=5, cursor=first["next_cursor"])
    assert [row["id"] for row in as_objects(in_columns)] == [
        row["id"] for row in as_objects_again["tasks"]
    ]
    assert first_ids(in_columns).isdisjoint(first_ids(first))
    assert in_columns["next_cursor"] == as_objects_again["next_cursor"]
    third = await call(client, "list_tasks", limit=5, cursor=in_columns["next_cursor"])
    assert {row["id"] for row in third["tasks"]}.isdisjoint(first_ids(first, in_columns))


def first_ids(*pages: dict[str, Any]) -> set[str]:
    ids: set[str] = set()
    for page in pages:
        rows = page["tasks"] if isinstance(page["tasks"], list) else as_objects(page)
        ids.update(row["id"] for row in rows)
    return ids


async def test_objects_stay_the_default_and_can_be_asked_for_by_name(client: Client) -> None:
    default = await call(client, "get_ready_tasks")
    named = await call(client, "get_ready_tasks", format="objects")
    assert isinstance(default["tasks"], list) and default == named


@pytest.mark.parametrize("bad", ["rows", "COLUMNS", 1, ["columns"]])
async def test_an_unknown_format_is_an_invalid_argument(client: Client, bad: object) -> None:
    error = (await fail(client, "list_tasks", format=bad))["error"]
    assert error["code"] == "INVALID_ARGUMENT"
    assert "format" in error["message"]


def test_a_list_publishes_object_rows_first_then_columns_as_their_two_keys() -> None:
    spec = next(spec for spec in discover() if spec.name == "list_tasks")
    rows, columns = output_schema(spec.output_model)["properties"]["tasks"]["anyOf"]
    assert rows["type"] == "array" and columns == {
        "type": "object",
        "required": ["columns", "rows"],
    }
    both = Draft202012Validator({"anyOf": [rows, columns]})
    assert both.is_valid(
        [{"id": "a", "title": "A", "type": "task", "status": "active", "priority": 2}]
    )
    assert both.is_valid({"columns": ["id", "priority"], "rows": [["a", 1], ["b", None]]})
    assert both.is_valid({"columns": ["id"], "rows": [["a"], ["b"]], "same": {"priority": 1}})
    assert not both.is_valid({"columns": ["id"]})
    assert not both.is_valid([{"id": "a"}])
