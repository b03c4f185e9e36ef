"""Through a real in-memory MCP client: roles, error codes, paging, writes and freshness."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from mcp import Client

from tasks_server.edge.server import TasksServer
from tasks_server.registry import discover
from tests.tasks_server.conftest import call, fail, make_server

pytestmark = pytest.mark.anyio

READY = {"wx-6ca4a1a9", "wx-dc36fc90", "pipe-281fa6f5", "pipe-a84567f9", "grant-c85990d2"}


async def test_ready_tasks_on_the_bundled_tree_are_the_hand_checked_five(client: Client) -> None:
    data = await call(client, "get_ready_tasks")
    assert {task["id"] for task in data["tasks"]} == READY
    assert data["total"] == 5 and data["next_cursor"] is None


async def test_blocked_tasks_carry_their_reasons(client: Client) -> None:
    rows = {row["task"]["id"]: row for row in (await call(client, "get_blocked_tasks"))["tasks"]}
    assert rows["wx-ec7ac8ad"]["unmet_dependencies"] == ["wx-2399d29d"]
    assert rows["vol-588efbce"]["status_blocked"] is True
    assert sorted(rows["grant-03f84c48"]["unmet_dependencies"]) == [
        "grant-5df6f817", "grant-5e5c4176", "grant-66c164e7", "grant-b0992bcf",
    ]  # fmt: skip


async def test_unknown_id_is_task_not_found_with_recovery_guidance(client: Client) -> None:
    data = await fail(client, "get_task", task_id="nope-00000000")
    assert data["success"] is False
    assert data["error"]["code"] == "TASK_NOT_FOUND"
    assert "search_tasks" in data["guidance"]["next_action"]


async def test_unknown_scope_is_an_invalid_argument_never_all(client: Client) -> None:
    data = await fail(client, "get_graph_metrics", scope="everything")
    assert data["error"]["code"] == "INVALID_ARGUMENT"


async def test_project_scope_without_a_project_is_an_invalid_argument(client: Client) -> None:
    data = await fail(client, "get_graph_metrics", scope="project")
    assert data["error"]["code"] == "INVALID_ARGUMENT"


async def test_unknown_argument_is_an_invalid_argument(client: Client) -> None:
    data = await fail(client, "get_task", task_id="wx-6ca4a1a9", colour="red")
    assert data["error"]["code"] == "INVALID_ARGUMENT"


async def test_unknown_tool_is_reported_as_unknown_tool(client: Client) -> None:
    data = await fail(client, "make_coffee")
    assert data["error"]["code"] == "UNKNOWN_TOOL"


async def test_planner_sees_only_query_tools_and_is_refused_the_rest(example_root: Path) -> None:
    server = make_server(example_root, role="planner")
    query = {spec.name for spec in discover() if spec.tier == "query"}
    async with Client(server) as client:
        listed = {tool.name for tool in (await client.list_tools()).tools}
        refused = await fail(client, "create_task", title="Should not be written")
    assert listed == query
    assert refused["error"]["code"] == "TOOL_NOT_ALLOWED"
    assert refused["guidance"]["current_state"] == "error_tool_not_allowed"
    assert not list(example_root.glob("inbox/*should-not*"))


async def test_tool_patterns_allow_exactly_the_matching_tools(example_root: Path) -> None:
    server = make_server(example_root, tools=["get_ready_*", "get_task"])
    async with Client(server) as client:
        listed = sorted(tool.name for tool in (await client.list_tools()).tools)
    assert listed == ["get_ready_tasks", "get_task"]


async def test_paging_returns_every_task_once_in_a_stable_order(client: Client) -> None:
    everything = (await call(client, "list_tasks", limit=1000))["tasks"]
    seen: list[str] = []
    cursor = None
    while True:
        page = await call(client, "list_tasks", limit=7, cursor=cursor)
        seen += [task["id"] for task in page["tasks"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == [task["id"] for task in everything]
    assert len(seen) == len(set(seen)) == page["total"]


async def test_cursor_from_before_a_write_is_refused_not_silently_shifted(client: Client) -> None:
    first = await call(client, "list_tasks", limit=5)
    await call(client, "create_task", title="Appears between pages", project="wx")
    data = await fail(client, "list_tasks", limit=5, cursor=first["next_cursor"])
    assert data["error"]["code"] == "INVALID_CURSOR"


@pytest.mark.parametrize("cursor", ["garbage", "eyJhIjoxfQ", "W10"])
async def test_cursor_not_issued_by_the_server_is_refused(client: Client, cursor: str) -> None:
    data = await fail(client, "list_tasks", limit=5, cursor=cursor)
    assert data["error"]["code"] == "INVALID_CURSOR"


async def test_cursor_of_another_query_is_refused(client: Client) -> None:
    first = await call(client, "list_tasks", limit=5)
    data = await fail(client, "list_tasks", limit=5, cursor=first["next_cursor"], project="wx")
    assert data["error"]["code"] == "INVALID_CURSOR"


async def saved_since_read(client: Client, root: Path, task_id: str) -> tuple[str, Path, str]:
    """Read a task (its `file_modified`), then save its file as an editor would, a moment
    later; returns what was read, the file and what the editor saved."""
    task = (await call(client, "get_task", task_id=task_id))["task"]
    path = root / task["path"]
    human = path.read_text().replace("status: active", "status: waiting")
    path.write_text(human)
    later = path.stat().st_mtime_ns + 2_000_000_000
    os.utime(path, ns=(later, later))
    return task["file_modified"], path, human


async def test_update_based_on_an_old_read_is_a_conflict_and_the_file_is_kept(
    client: Client, example_root: Path
) -> None:
    read_at, path, human = await saved_since_read(client, example_root, "wx-6ca4a1a9")
    data = await fail(
        client, "update_task", task_id="wx-6ca4a1a9", priority=0, expected_modified=read_at
    )  # fmt: skip
    assert data["error"]["code"] == "CONFLICT"
    assert path.read_text() == human


async def test_update_with_the_file_modified_just_read_goes_through(client: Client) -> None:
    task = (await call(client, "get_task", task_id="wx-6ca4a1a9"))["task"]
    data = await call(
        client, "update_task", task_id="wx-6ca4a1a9", priority=0,
        expected_modified=task["file_modified"],
    )  # fmt: skip
    assert data["task"]["priority"] == 0 and data["changed"] == ["modified", "priority"]


async def test_a_dependency_that_would_close_a_cycle_is_refused_with_the_cycle(
    client: Client,
) -> None:
    data = await fail(client, "update_task", task_id="wx-2399d29d", depends_on=["wx-ec7ac8ad"])
    assert data["error"]["code"] == "CYCLE"
    assert set(data["error"]["details"]["cycle"]) >= {"wx-2399d29d", "wx-ec7ac8ad"}


async def test_reparenting_under_its_own_descendant_is_refused(client: Client) -> None:
    children = (await call(client, "get_children", task_id="wx-84e61ceb"))["tasks"]
    data = await fail(client, "update_task", task_id="wx-84e61ceb", parent=children[0]["id"])
    assert data["error"]["code"] == "CYCLE"


async def test_linking_to_a_missing_task_is_refused(client: Client) -> None:
    data = await fail(client, "update_task", task_id="wx-6ca4a1a9", depends_on=["ghost-1"])
    assert data["error"]["code"] == "TASK_NOT_FOUND"


async def test_completing_with_open_checklist_items_is_refused_unless_forced(
    client: Client,
) -> None:
    created = await call(
        client, "create_task", title="Checklist", project="wx", status="active",
        body="- [x] done part\n- [ ] open part\n",
    )  # fmt: skip
    task_id = created["task"]["id"]
    refused = await fail(client, "complete_task", task_id=task_id)
    assert refused["error"]["code"] == "OPEN_CHECKLIST"
    forced = await call(client, "complete_task", task_id=task_id, force=True)
    assert forced["task"]["status"] == "done"


async def test_completing_the_last_open_dependency_reports_the_unblocked_task(
    client: Client,
) -> None:
    data = await call(client, "complete_task", task_id="wx-2399d29d", force=True)
    assert "wx-ec7ac8ad" in [row["task_id"] for row in data["became_ready"]]
    ready = {t["id"] for t in (await call(client, "get_ready_tasks"))["tasks"]}
    assert "wx-ec7ac8ad" in ready


async def test_decompose_writes_every_child_with_sibling_dependencies(
    client: Client, example_root: Path
) -> None:
    data = await call(
        client, "decompose_task", task_id="wx-6ca4a1a9",
        children=[{"title": "Draft", "key": "draft"}, {"title": "Review", "depends_on": ["draft"]},
                  {"title": "Publish", "depends_on": [1]}],
    )  # fmt: skip
    ids = [child["id"] for child in data["children"]]
    assert len(ids) == 3
    review = (await call(client, "get_task", task_id=ids[1]))["task"]
    publish = (await call(client, "get_task", task_id=ids[2]))["task"]
    assert review["depends_on"] == [ids[0]] and publish["depends_on"] == [ids[1]]
    assert review["parent"] == "wx-6ca4a1a9"


async def test_decompose_with_one_bad_child_writes_nothing(
    client: Client, example_root: Path
) -> None:
    before = sorted(example_root.rglob("*.md"))
    data = await fail(
        client, "decompose_task", task_id="wx-6ca4a1a9",
        children=[{"title": "Fine"}, {"title": "Broken", "depends_on": ["ghost-2"]}],
    )  # fmt: skip
    assert data["error"]["code"] == "TASK_NOT_FOUND"
    assert sorted(example_root.rglob("*.md")) == before


async def test_delete_moves_the_file_to_trash_and_names_the_now_dangling(
    client: Client, example_root: Path
) -> None:
    data = await call(client, "delete_task", task_id="wx-2399d29d")
    assert (example_root / data["trash_path"]).exists()
    assert "wx-ec7ac8ad" in data["now_dangling"]
    blocked = {r["task"]["id"]: r for r in (await call(client, "get_blocked_tasks"))["tasks"]}
    assert blocked["wx-ec7ac8ad"]["dangling_dependencies"] == ["wx-2399d29d"]


async def test_delete_based_on_an_old_read_is_a_conflict_and_the_file_stays(
    client: Client, example_root: Path
) -> None:
    read_at, path, human = await saved_since_read(client, example_root, "wx-2399d29d")
    data = await fail(client, "delete_task", task_id="wx-2399d29d", expected_modified=read_at)
    assert data["error"]["code"] == "CONFLICT"
    assert path.read_text() == human
    assert not list(example_root.glob(".trash/**/*.md"))


async def test_delete_with_the_file_modified_just_read_goes_through(
    client: Client, example_root: Path
) -> None:
    task = (await call(client, "get_task", task_id="wx-2399d29d"))["task"]
    data = await call(
        client, "delete_task", task_id="wx-2399d29d", expected_modified=task["file_modified"]
    )
    assert (example_root / data["trash_path"]).exists()
    assert not (example_root / task["path"]).exists()


async def test_a_human_edit_on_disk_is_seen_by_the_next_call(
    client: Client, example_root: Path
) -> None:
    task = (await call(client, "get_task", task_id="wx-6ca4a1a9"))["task"]
    path = example_root / task["path"]
    path.write_text(path.read_text().replace("status: active", "status: done"))
    assert (await call(client, "get_task", task_id="wx-6ca4a1a9"))["task"]["status"] == "done"
    new = example_root / "wx/tasks/wx-0000beef-new.md"
    new.write_text("---\nid: wx-0000beef\ntitle: Typed by a human\nstatus: active\n---\n")
    assert (await call(client, "get_task", task_id="wx-0000beef"))["task"][
        "title"
    ] == "Typed by a human"
    new.unlink()
    assert (await fail(client, "get_task", task_id="wx-0000beef"))["error"][
        "code"
    ] == "TASK_NOT_FOUND"


async def test_a_file_broken_by_hand_is_reported_and_the_rest_still_answers(
    client: Client, example_root: Path
) -> None:
    task = (await call(client, "get_task", task_id="wx-6ca4a1a9"))["task"]
    (example_root / task["path"]).write_text("---\ntitle: [unclosed\n---\n")
    stats = await call(client, "get_index_stats")
    assert [(p["path"], p["kind"]) for p in stats["problems"]] == [(task["path"], "parse_error")]
    assert (await call(client, "get_ready_tasks"))["total"] == 4


async def test_creating_a_task_with_an_id_in_use_is_already_exists(client: Client) -> None:
    data = await fail(client, "create_task", title="Again", id="wx-6ca4a1a9")
    assert data["error"]["code"] == "ALREADY_EXISTS"


async def test_creating_a_task_with_an_id_that_names_a_path_is_invalid(
    client: Client, example_root: Path
) -> None:
    data = await fail(client, "create_task", title="Escape", id="../../outside")
    assert data["error"]["code"] == "INVALID_ARGUMENT"
    assert not (example_root.parent / "outside-escape.md").exists()


async def test_a_project_name_that_names_a_path_is_invalid(client: Client) -> None:
    data = await fail(client, "create_task", title="Escape", project="../up")
    assert data["error"]["code"] == "INVALID_ARGUMENT"


async def test_an_unexpected_failure_is_an_internal_error_without_a_stack_trace(
    server: TasksServer,
) -> None:
    assert server.context is not None
    server.context.live.table = None  # type: ignore[assignment]  # break the server's state
    async with Client(server) as session:
        data = await fail(session, "get_index_stats")
    assert data["error"]["code"] == "INTERNAL_ERROR"
    assert "Traceback" not in data["error"]["message"]


async def test_completing_a_done_task_again_changes_nothing(
    client: Client, example_root: Path
) -> None:
    first = await call(client, "complete_task", task_id="wx-6ca4a1a9", force=True)
    path = example_root / first["task"]["path"]
    before = path.read_bytes()
    again = await call(client, "complete_task", task_id="wx-6ca4a1a9", force=True)
    assert path.read_bytes() == before
    assert again["task"]["completed"] == first["task"]["completed"]


async def test_creating_a_done_task_records_when_it_was_completed(client: Client) -> None:
    data = await call(client, "create_task", title="Already done", project="wx", status="closed")
    assert data["task"]["status"] == "done" and data["task"]["completed"] is not None
