"""Hostile tool arguments kept as a standing corpus, over a real MCP client: strings that look
like JSON stay strings, values YAML 1.1 would retype read back as written, and arguments out
of every sane range get a clean INVALID_ARGUMENT or INVALID_CURSOR (never INTERNAL_ERROR), a
short answer, and an untouched tree."""

from __future__ import annotations

import base64
import json
import stat
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.tasks_server.conftest import call, fail

pytestmark = pytest.mark.anyio

TASK = "wx-6ca4a1a9"
MB = 1024 * 1024


def files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.md"))}


def cursor_of(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


async def read(client: Client, task_id: str = TASK) -> dict[str, Any]:
    task: dict[str, Any] = (await call(client, "get_task", task_id=task_id))["task"]
    return task


@pytest.mark.parametrize("body", ["null", "[1, 2]", "123", "true", '{"a": 1}', "1e3", '"q"'])
async def test_a_body_that_looks_like_json_is_written_as_that_text(
    client: Client, body: str
) -> None:
    await call(client, "update_task", task_id=TASK, body=body)
    assert (await read(client))["body"].strip() == body


@pytest.mark.parametrize("title", ["123", "null", "[1, 2]", "true", "0b101", "1e3"])
async def test_a_title_that_looks_like_json_or_a_yaml_literal_is_kept_as_a_string(
    client: Client, title: str
) -> None:
    await call(client, "update_task", task_id=TASK, title=title)
    assert (await read(client))["title"] == title


async def test_a_tag_yaml_1_1_reads_as_a_number_reads_back_as_written(client: Client) -> None:
    await call(client, "update_task", task_id=TASK, tags=["0b101", "0x1F", "1_000"])
    assert (await read(client))["tags"] == ["0b101", "0x1F", "1_000"]


async def test_update_task_keeps_the_file_mode_of_the_task_file(
    client: Client, example_root: Path
) -> None:
    path = example_root / (await read(client))["path"]
    path.chmod(0o644)
    await call(client, "update_task", task_id=TASK, priority=3)
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


@pytest.mark.parametrize(
    ("tool", "key"),
    [("get_task", "task_id"), ("update_task", "task_id"), ("delete_task", "task_id"),
     ("get_task_neighborhood", "task_id"), ("complete_tasks", "task_ids")],
)  # fmt: skip
async def test_a_ten_megabyte_id_is_an_invalid_argument_with_a_short_answer(
    client: Client, example_root: Path, tool: str, key: str
) -> None:
    before = files(example_root)
    huge = "x" * (10 * MB)
    result = await client.call_tool(tool, {key: [huge] if key.endswith("s") else huge})
    text = result.content[0].text  # type: ignore[union-attr]
    assert result.is_error and json.loads(text)["error"]["code"] == "INVALID_ARGUMENT"
    assert len(text) < 2_000
    assert files(example_root) == before


@pytest.mark.parametrize(
    "cursor",
    [
        cursor_of(json.dumps({"a": {"b": {"c": [[[1]]]}}})),
        cursor_of("[" * 100_000 + "]" * 100_000),
        cursor_of('{"a":' * 50_000 + "1" + "}" * 50_000),
        cursor_of(json.dumps(["q", 0, 10**400])),
    ],
    ids=["nested", "deep_lists", "deep_objects", "huge_offset"],
)
async def test_a_cursor_that_decodes_to_nested_json_is_an_invalid_cursor(
    client: Client, cursor: str
) -> None:
    for tool in ("list_tasks", "get_structural_signals", "get_review_snapshot"):
        data = await fail(client, tool, cursor=cursor)
        assert data["error"]["code"] == "INVALID_CURSOR", (tool, data)


@pytest.mark.parametrize("stamp", ["2026-01-01", "2026-01-01T00:00:00", "2026-11-22T12:00"])
async def test_a_naive_expected_modified_is_an_invalid_argument_that_writes_nothing(
    client: Client, example_root: Path, stamp: str
) -> None:
    before = files(example_root)
    data = await fail(client, "update_task", task_id=TASK, priority=1, expected_modified=stamp)
    assert data["error"]["code"] == "INVALID_ARGUMENT"
    assert "expected_modified" in data["error"]["message"]
    assert files(example_root) == before


@pytest.mark.parametrize("days", [1e308, 1e10, 2_932_897])
async def test_a_since_days_past_the_calendar_is_an_invalid_argument(
    client: Client, days: float
) -> None:
    data = await fail(client, "get_review_snapshot", since_days=days)
    assert data["error"]["code"] == "INVALID_ARGUMENT"
    assert "since_days" in data["error"]["message"]


async def test_a_since_days_of_a_century_still_reviews_the_whole_tree(client: Client) -> None:
    data = await call(client, "get_review_snapshot", since_days=36_500)
    assert data["changes_since"]


@pytest.mark.parametrize("tool", ["story_bot_tool", "story_bot_shape_gather_context"])
async def test_a_bot_refuses_a_megabyte_user_input_instead_of_echoing_it(
    client: Client, tool: str
) -> None:
    result = await client.call_tool(tool, {"user_input": "x" * MB})
    text = result.content[0].text  # type: ignore[union-attr]
    assert result.is_error and json.loads(text)["error"]["code"] == "INVALID_ARGUMENT"
    assert len(text) < 2_000


@pytest.mark.parametrize("tool", ["update_task", "create_task"])
async def test_a_body_under_the_argument_cap_but_over_the_file_cap_is_refused_before_writing(
    client: Client, example_root: Path, tool: str
) -> None:
    before = files(example_root)
    arguments = {"task_id": TASK} if tool == "update_task" else {"title": "Big"}
    data = await fail(client, tool, **arguments, body="é" * 600_000)  # 1.2 MB of UTF-8
    assert data["error"]["code"] == "INVALID_ARGUMENT"
    assert files(example_root) == before


@pytest.mark.parametrize("front", ["? : title: \n", "? : a: \n"])
def test_a_frontmatter_key_that_is_a_mapping_or_list_is_a_parse_error(front: str) -> None:
    from storage import codec  # noqa: PLC0415
    from storage.errors import ParseError  # noqa: PLC0415

    with pytest.raises(ParseError, match="key"):
        codec.parse_front(codec.split(f"---\n{front}---\nbody\n"))
