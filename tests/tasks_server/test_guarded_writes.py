"""Guarded writes (claims, notes, a completion that respects a claim) decide on the file as
it is on disk, read once under its lock, even when the index has not seen a change yet: a
real context over a tree changed behind its back (no tool call between, so no refresh)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from storage.errors import TaskNotFound
from storage.model import Task
from tasks_server.context import ServerContext
from tasks_server.tools._guarded import Decision, guarded_write
from tasks_server.toolset import open_toolset
from tests.conftest import write

TASK = "---\nid: {id}\ntitle: {title}\nstatus: active\n---\nBody.\n"


@pytest.fixture
def context(tmp_path: Path) -> Iterator[ServerContext]:
    write(tmp_path, "p/one.md", TASK.format(id="one", title="As loaded"))
    toolset = open_toolset(tmp_path, watch=False)
    yield toolset.context
    toolset.context.close()


def done(task: Task) -> Decision:
    return {"status": "done"}, None


def test_decide_sees_the_file_as_it_is_now_not_as_the_index_loaded_it(
    context: ServerContext, tmp_path: Path
) -> None:
    write(tmp_path, "p/one.md", TASK.format(id="one", title="Saved since"))
    titles: list[str] = []

    def decide(task: Task) -> Decision:
        titles.append(task.title)
        return done(task)

    result, _ = guarded_write(context, "one", decide)
    assert titles == ["Saved since"]
    assert result.task is not None and result.task.status == "done"
    assert context.index.require("one").status == "done"  # recorded


def test_an_editor_save_during_the_write_is_kept_and_the_write_decides_again(
    context: ServerContext, tmp_path: Path
) -> None:
    path = tmp_path / "p/one.md"
    titles: list[str] = []

    def decide(task: Task) -> Decision:
        titles.append(task.title)
        if len(titles) == 1:  # the editor saves after our read, before our swap
            path.write_text(TASK.format(id="one", title="Editor's"))
        return done(task)

    guarded_write(context, "one", decide)
    assert titles == ["As loaded", "Editor's"]
    assert path.read_text() == TASK.format(id="one", title="Editor's").replace("active", "done")


@pytest.mark.parametrize(
    "text",
    [
        None,
        TASK.format(id="other", title="Another task now"),
        "not a task any more\n",
        "x" * 2_000_000,
    ],
    ids=["gone", "another task", "not a task", "too large"],
)
def test_a_file_that_no_longer_holds_the_task_is_task_not_found_and_kept(
    context: ServerContext, tmp_path: Path, text: str | None
) -> None:
    path = tmp_path / "p/one.md"
    if text is None:
        path.unlink()
    else:
        path.write_text(text)
    with pytest.raises(TaskNotFound) as info:
        guarded_write(context, "one", done)
    assert info.value.task_id == "one"  # the id asked for, never the path
    assert (path.read_text() if text is not None else None) == text
