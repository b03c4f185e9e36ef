"""The change feed through a real MCP client: `get_changes(since_token)` against an
independent reading of the files before and after (python-frontmatter), paging while the
tree moves on, every kind of structural problem, bad tokens, and `wait_for_changes`."""

from __future__ import annotations

import shutil
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from storage.feed import ChangeFeed
from tasks_server.edge.server import TasksServer
from tasks_server.live import LiveTree
from tasks_server.tools.feed import MAX_WAIT_SECONDS
from tests.gitrepo import EPOCH, commit_all, init
from tests.tasks_server.conftest import call, fail, make_server
from tests.tasks_server.test_changes import (
    SECTIONS,
    as_found,
    edit,
    expected,
    first_state,
    revision_tasks,
    second_state,
    uncommitted,
    write,
)

pytestmark = pytest.mark.anyio


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[tuple[Path, TasksServer, Client]]:
    root = tmp_path / "tasks"
    first_state(root)
    server = make_server(root)
    async with Client(server) as client:
        yield root, server, client
    server.context.close()


async def token_now(client: Client) -> str:
    token: str = (await call(client, "get_index_stats"))["token"]
    return token


async def feed_pages(client: Client, token: str, limit: int = 2) -> dict[str, Any]:
    """Every section of the changes since `token`, page by page, and the answer's token."""
    pages = [await call(client, "get_changes", since_token=token, limit=limit)]
    while pages[-1]["next_cursor"] is not None:
        cursor = pages[-1]["next_cursor"]
        pages.append(
            await call(client, "get_changes", since_token=token, limit=limit, cursor=cursor)
        )
    assert len({page["token"] for page in pages}) == 1
    return {**pages[0], **{s: [r for page in pages for r in page[s]] for s in SECTIONS}}


async def test_changes_since_a_token_match_an_independent_reading_of_both_states(
    served: tuple[Path, TasksServer, Client],
) -> None:
    root, _server, client = served
    before, token = revision_tasks(root, None), await token_now(client)
    second_state(root)
    uncommitted(root)

    found = await feed_pages(client, token)

    assert as_found(found) == expected(before, revision_tasks(root, None))
    assert found["since"] == token and found["token"] != token
    kinds = {row["kind"] for row in found["problems_appeared"] + found["problems_went_away"]}
    assert {"dependency_cycle", "dangling_depends_on"} <= kinds


async def test_the_token_of_an_answer_picks_up_where_it_ended(
    served: tuple[Path, TasksServer, Client],
) -> None:
    root, _server, client = served
    token = await token_now(client)
    edit(root, "a.md", status="done")
    first = await call(client, "get_changes", since_token=token)
    edit(root, "c.md", title="Renamed")
    second = await call(client, "get_changes", since_token=first["token"])
    assert [r["task_id"] for r in first["changed"]] == ["a"]
    assert [r["task_id"] for r in second["changed"]] == ["c"]
    assert second["summary"]["changed"] == 1 and second["summary"]["completed"] == 0


async def test_paging_one_feed_answer_survives_writes_between_its_pages(
    served: tuple[Path, TasksServer, Client],
) -> None:
    root, _server, client = served
    token = await token_now(client)
    for name in ("a", "b", "e"):
        edit(root, f"{name}.md", title=f"{name} renamed")
    page = await call(client, "get_changes", since_token=token, limit=1)
    edit(root, "f.md", title="Written between pages")
    rest = []
    while page["next_cursor"]:
        cursor = page["next_cursor"]
        page = await call(client, "get_changes", since_token=token, limit=1, cursor=cursor)
        rest += [r["task_id"] for r in page["changed"]]
    assert rest == ["b", "e"]
    after = await call(client, "get_changes", since_token=page["token"])
    assert [r["task_id"] for r in after["changed"]] == ["f"]


async def test_a_person_marking_a_parent_done_under_open_children_is_a_problem_that_appears(
    served: tuple[Path, TasksServer, Client],
) -> None:
    root, _server, client = served
    token = await token_now(client)
    edit(root, "p.md", status="done")
    appeared = (await call(client, "get_changes", since_token=token))["problems_appeared"]
    kinds = sorted((r["kind"], r["task_ids"], r["detail"]) for r in appeared)
    assert kinds == [
        ("open_under_terminal_parent", ["c"], "p"),
        ("terminal_with_open_children", ["p"], ""),
    ]
    middle = await token_now(client)
    edit(root, "c.md", status="done")
    gone = (await call(client, "get_changes", since_token=middle))["problems_went_away"]
    assert {r["kind"] for r in gone} == {
        "open_under_terminal_parent",
        "terminal_with_open_children",
    }


async def test_terminal_mismatches_appear_between_revisions_too(tmp_path: Path) -> None:
    top = init(tmp_path / "repo")
    root = top / "tasks"
    first_state(root)
    sha = commit_all(top, "plan", EPOCH)
    edit(root, "p.md", status="done")
    server = make_server(root)
    async with Client(server) as client:
        found = await call(client, "get_changes", since_ref=sha)
    server.context.close()
    assert {r["kind"] for r in found["problems_appeared"]} == {
        "open_under_terminal_parent",
        "terminal_with_open_children",
    }
    assert found["token"] is not None


async def test_a_write_through_the_server_is_in_the_feed(
    served: tuple[Path, TasksServer, Client],
) -> None:
    _root, _server, client = served
    token = await token_now(client)
    await call(client, "update_task", task_id="a", status="done")
    found = await call(client, "get_changes", since_token=token)
    assert found["completed"][0]["id"] == "a" and found["became_ready"][0]["id"] == "b"


# --- bad tokens -------------------------------------------------------------------------------


async def refused(client: Client, root: Path, tool: str, **arguments: Any) -> str:
    """The call is one-line INVALID_ARGUMENT and leaves every file as it was."""
    files = {p: p.read_bytes() for p in root.rglob("*.md")}
    error = (await fail(client, tool, **arguments))["error"]
    assert error["code"] == "INVALID_ARGUMENT" and "\n" not in error["message"]
    assert {p: p.read_bytes() for p in root.rglob("*.md")} == files
    message: str = error["message"]
    return message


@pytest.mark.parametrize("tool", ["get_changes", "wait_for_changes"])
async def test_a_forged_token_is_refused_with_the_way_back(
    served: tuple[Path, TasksServer, Client], tool: str
) -> None:
    root, _server, client = served
    tree, step, mac = (await token_now(client)).split(".")
    for forged in (f"{tree}.{step}.{'0' * 16}", f"{tree}.{int(step) + 5}.{mac}", "nonsense"):
        message = await refused(client, root, tool, since_token=forged)
        assert "get_index_stats" in message and "since_ref" in message


async def test_a_token_from_another_tree_or_a_restart_is_refused(
    served: tuple[Path, TasksServer, Client], tmp_path: Path
) -> None:
    root, _server, client = served
    other_root = tmp_path / "other"
    shutil.copytree(root, other_root)
    for elsewhere in (other_root, root):  # another tree; this tree's next run
        other = make_server(elsewhere)
        async with Client(other) as other_client:
            foreign = await token_now(other_client)
        other.context.close()
        message = await refused(client, root, "get_changes", since_token=foreign)
        assert ("another tree" in message) == (elsewhere == other_root)


async def test_a_token_older_than_the_feed_keeps_is_refused(
    served: tuple[Path, TasksServer, Client],
) -> None:
    root, server, client = served
    server.context.live.feed = ChangeFeed(max_steps=2)
    old = await token_now(client)
    for title in ("one", "two", "three"):
        edit(root, "a.md", title=title)
        await token_now(client)
    assert "too old" in await refused(client, root, "get_changes", since_token=old)


@pytest.mark.parametrize("timeout", [-1, MAX_WAIT_SECONDS + 1])
async def test_a_wait_out_of_bounds_is_refused(
    served: tuple[Path, TasksServer, Client], timeout: float
) -> None:
    root, _server, client = served
    token = await token_now(client)
    await refused(client, root, "wait_for_changes", since_token=token, timeout_seconds=timeout)


async def test_since_token_with_until_ref_is_refused(
    served: tuple[Path, TasksServer, Client],
) -> None:
    root, _server, client = served
    token = await token_now(client)
    await refused(client, root, "get_changes", since_token=token, until_ref="HEAD")


# --- waiting ----------------------------------------------------------------------------------


async def test_waiting_on_an_unchanged_tree_answers_unchanged_at_the_timeout(
    served: tuple[Path, TasksServer, Client],
) -> None:
    _root, _server, client = served
    token = await token_now(client)
    found = await call(client, "wait_for_changes", since_token=token, timeout_seconds=0)
    assert found["changed"] is False and found["summary"] == "no change"


async def test_waiting_after_a_change_answers_at_once_with_a_summary(
    served: tuple[Path, TasksServer, Client],
) -> None:
    root, _server, client = served
    token = await token_now(client)
    edit(root, "a.md", status="done")
    found = await call(client, "wait_for_changes", since_token=token, timeout_seconds=0)
    assert found["changed"] is True
    assert found["summary"] == "1 changed, 1 became_ready, 1 completed"
    again = await call(client, "get_changes", since_token=found["token"])
    assert again["summary"]["changed"] == 0


async def test_a_wait_for_some_sections_sleeps_through_other_changes(
    served: tuple[Path, TasksServer, Client],
) -> None:
    root, _server, client = served
    token = await token_now(client)
    edit(root, "a.md", title="Retitled")  # a change, but no new work
    found = await call(
        client, "wait_for_changes", since_token=token, timeout_seconds=0, sections=["added"]
    )
    assert found["summary"] == "1 changed"  # answered at the timeout, not woken by it
    write(root, "n.md", id="n", title="New", status="active")
    found = await call(
        client, "wait_for_changes", since_token=token, timeout_seconds=0, sections=["added"]
    )
    assert found["changed"] is True and "1 added" in found["summary"]


async def test_a_wait_for_a_section_no_answer_has_is_refused(
    served: tuple[Path, TasksServer, Client],
) -> None:
    root, _server, client = served
    token = await token_now(client)
    await refused(client, root, "wait_for_changes", since_token=token, sections=["ready"])


async def test_a_change_undone_is_no_change(served: tuple[Path, TasksServer, Client]) -> None:
    root, _server, client = served
    token = await token_now(client)
    text = (root / "a.md").read_text()
    edit(root, "a.md", title="Changed")
    await token_now(client)
    (root / "a.md").write_text(text)
    found = await call(client, "wait_for_changes", since_token=token, timeout_seconds=0)
    assert found["changed"] is False


async def test_a_waiting_call_wakes_on_an_editors_save(tmp_path: Path) -> None:
    root = tmp_path / "tasks"
    first_state(root)
    server = make_server(root, watch=True)
    async with Client(server) as client:
        token = await token_now(client)
        answers: list[dict[str, Any]] = []

        async def wait() -> None:
            answers.append(
                await call(client, "wait_for_changes", since_token=token, timeout_seconds=120)
            )

        async with anyio.create_task_group() as group:
            group.start_soon(wait)
            await call(client, "get_index_stats")  # other calls run while one waits
            write(root, "z.md", id="z", title="Zulu", status="active")
    server.context.close()
    assert answers[0]["changed"] is True and answers[0]["summary"] == "1 added"


@pytest.mark.parametrize("inotify", [True, False], ids=["kernel", "watcher_thread"])
def test_a_waiter_on_the_live_tree_wakes_on_an_editors_save(tmp_path: Path, inotify: bool) -> None:
    root = tmp_path / "tasks"
    first_state(root)
    live = LiveTree(root, inotify=inotify, use_cache=False)
    seen = live.feed.seq

    def wait() -> None:
        with live.lock:
            while live.feed.seq == seen:
                live.wait_past(seen, 60)
                live.refresh()

    waiter = threading.Thread(target=wait)
    waiter.start()
    edit(root, "a.md", title="Saved")
    waiter.join()
    assert live.feed.since(seen) is not None and "a.md" in (live.feed.since(seen) or {})
    live.close()
