"""Task views: a full view stays bounded (a hub's dependents are counted in full and listed
by id up to a page, in task order); brief rows are kept per task record and never outlive
an edit; a full view shows every field of the task and of the graph's answer about it."""

from __future__ import annotations

from dataclasses import fields
from datetime import UTC, datetime
from pathlib import Path

import pytest
from mcp import Client

from graph.about import TaskAbout
from graph.index import TaskIndex
from storage.model import Task, pack_text
from tasks_server.views import BLOCKS_SHOWN, NOT_IN_VIEW, BriefCache, to_view
from tests.conftest import write
from tests.tasks_server.conftest import call, make_server

pytestmark = pytest.mark.anyio


def task(task_id: str, title: str = "T", parent: str | None = None) -> Task:
    return Task(id=task_id, title=title, path=f"{task_id}.md", parent=parent)


async def test_a_hub_view_counts_every_dependent_and_lists_the_first_page(
    tmp_path: Path,
) -> None:
    write(tmp_path, "hub.md", "---\nid: hub\ntitle: Hub\nstatus: active\n---\n")
    waiting = [f"w{i:03d}" for i in range(BLOCKS_SHOWN + 10)]
    for n, task_id in enumerate(waiting):
        text = f"---\nid: {task_id}\ntitle: W\npriority: {n % 3}\ndepends_on: [hub]\n---\n"
        write(tmp_path, f"{task_id}.md", text)
    server = make_server(tmp_path)
    async with Client(server) as client:
        view = (await call(client, "get_task", task_id="hub"))["task"]
    server.context.close()
    in_order = sorted(waiting, key=lambda i: (waiting.index(i) % 3, i))
    assert view["blocking_count"] == len(waiting)
    assert view["blocks"] == in_order[:BLOCKS_SHOWN]


def test_a_kept_brief_is_reused_for_the_same_record_and_rebuilt_for_a_new_one() -> None:
    cache = BriefCache()
    first, other = task("a"), task("b", parent="a")
    kept = cache.of([first, other])
    assert [row.id for row in kept] == ["a", "b"] and kept[1].parent == "a"
    assert cache.of([other, first]) == [kept[1], kept[0]]
    assert cache.of([first])[0] is kept[0]
    edited = task("a", title="Edited")  # an edit is a new frozen record under the same id
    assert cache.of([edited])[0].title == "Edited"
    assert cache.of([first])[0].title == "T"  # the record decides, not the id


def test_the_cache_forgets_everything_past_its_bound_and_still_answers_right() -> None:
    cache = BriefCache(most=3)
    tasks = [task(f"t{n}", title=f"Title {n}") for n in range(5)]
    assert [row.title for row in cache.of(tasks[:3])] == ["Title 0", "Title 1", "Title 2"]
    assert [row.title for row in cache.of(tasks[3:])] == ["Title 3", "Title 4"]
    assert [row.id for row in cache.of(tasks)] == [f"t{n}" for n in range(5)]


async def test_a_list_shows_an_editors_change_and_a_tools_change_at_once(
    tmp_path: Path,
) -> None:
    for task_id in ("a", "b"):
        write(tmp_path, f"{task_id}.md", f"---\nid: {task_id}\ntitle: Old {task_id}\n---\n")
    server = make_server(tmp_path)
    async with Client(server) as client:
        before = (await call(client, "list_tasks"))["tasks"]
        write(tmp_path, "a.md", "---\nid: a\ntitle: Edited by hand\nparent: b\n---\n")
        await call(client, "update_task", task_id="b", title="Edited by a tool")
        after = (await call(client, "list_tasks"))["tasks"]
    server.context.close()
    assert [row["title"] for row in before] == ["Old a", "Old b"]
    assert [(row["title"], row.get("parent")) for row in after] == [
        ("Edited by hand", "b"),
        ("Edited by a tool", None),
    ]


async def test_a_claim_shows_once_in_a_full_view_as_its_fields_not_again_in_extra(
    client: Client,
) -> None:
    await call(client, "claim_task", task_id="wx-6ca4a1a9", agent="w1", lease_seconds=60)
    one = (await call(client, "get_task", task_id="wx-6ca4a1a9", fields="full"))["task"]
    listed = (await call(client, "list_tasks", project="wx", fields="full", limit=100))["tasks"]
    row = next(t for t in listed if t["id"] == "wx-6ca4a1a9")
    for view in (one, row):
        claim = {key: view[key] for key in ("claimed_by", "claim_expires", "claim_live")}
        assert claim == {
            "claimed_by": "w1",
            "claim_expires": "2026-11-22T12:01:00Z",
            "claim_live": True,
        }
        assert "claimed_by" not in (view["extra"] or {})
        assert "claim_expires" not in (view["extra"] or {})


async def test_claim_keys_no_field_can_show_stay_in_extra_as_written(tmp_path: Path) -> None:
    front = "id: {id}\ntitle: T\nclaimed_by: {who}\nclaim_expires: {until}\nsize: big"
    for task_id, who, until in [("odd", "w1", "soon"), ("nobody", "''", "2026-11-22")]:
        text = "---\n" + front.format(id=task_id, who=who, until=until) + "\n---\n"
        write(tmp_path, f"{task_id}.md", text)
    server = make_server(tmp_path)
    async with Client(server) as client:
        odd = (await call(client, "get_task", task_id="odd", fields="full"))["task"]
        nobody = (await call(client, "get_task", task_id="nobody", fields="full"))["task"]
    server.context.close()
    assert odd["claimed_by"] == "w1" and "claim_expires" not in odd
    assert odd["extra"] == {"claim_expires": "soon", "size": "big"}  # not a time: kept
    assert "claimed_by" not in nobody  # an empty name is no claim: both keys as written
    assert nobody["extra"] == {"claimed_by": "", "claim_expires": "2026-11-22", "size": "big"}


def every_field_set() -> Task:
    """A task with every field of the model given a value of its own."""
    when = datetime(2026, 3, 1, tzinfo=UTC)
    return Task(
        id="full", title="Full", path="full.md", type="bug", status="active", priority=1,
        order=3, parent="up", depends_on=("dep",), soft_depends_on=("soft",), project="p",
        tags=("t",), assignee="ann", complexity="high", effort="2d", context="ctx",
        due=when, created=when, modified=when, completed=when, packed_body=pack_text("Body"),
        extra={"defer_until": "2027-01-01", "claimed_by": "agent-1",
               "claim_expires": "2027-01-01T00:00:00Z", "note": "kept"},
    )  # fmt: skip


def test_every_task_field_and_every_answer_of_the_graph_shows_in_a_full_view() -> None:
    task = every_field_set()
    index = TaskIndex.build([task, Task(id="waits", title="W", path="w.md", depends_on=("full",))])
    now = datetime(2026, 6, 1, tzinfo=UTC)
    answer = index.about("full", now, shown=BLOCKS_SHOWN)
    shown = to_view(task, "full", about=answer, now=now).model_dump(mode="json")
    declared = {f.name for f in fields(Task)} | {f.name for f in fields(TaskAbout)}
    assert declared >= NOT_IN_VIEW  # an exclusion names a field that exists
    assert sorted(declared - NOT_IN_VIEW - shown.keys()) == []
    assert shown["blocks"] == ["waits"] and shown["deferred_until"] == "2027-01-01T00:00:00Z"
    assert shown["claimed_by"] == "agent-1" and shown["claim_live"] is True
    assert shown["extra"] == {"defer_until": "2027-01-01", "note": "kept"}
    assert shown["body"] == "Body" and shown["depends_on"] == ["dep"]


def test_a_view_of_a_task_outside_the_index_has_no_computed_facts_and_says_blocks_null() -> None:
    shown = to_view(every_field_set(), "full").model_dump(mode="json")
    assert shown["blocks"] is None and "depth" not in shown and "is_ready" not in shown
    assert "claimed_by" not in shown and shown["extra"]["claimed_by"] == "agent-1"
