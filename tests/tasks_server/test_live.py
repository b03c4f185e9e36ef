"""The live tree with its file watcher: outside changes reach the next query, only changed
files are re-read, and the index always equals a fresh load of the tree."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from graph.index import TaskIndex
from storage.repository import TaskRepository
from tasks_server.live import LiveTree

TASK = "---\nid: {id}\ntitle: {title}\nstatus: {status}\n---\nBody.\n"


@pytest.fixture
def live(example_root: Path) -> Iterator[LiveTree]:
    tree = LiveTree(example_root, watch=True)
    assert tree.watching
    yield tree
    tree.close()


def settle(live: LiveTree, done: Callable[[], bool]) -> None:
    """Apply what the watcher reports, batch by batch, until `done()` holds.

    One edit can reach the watcher in more than one batch (a rename-save is a create of
    the temp name, then a move), so a single batch is not enough to wait for.
    """
    deadline = time.monotonic() + 10
    while not done():
        assert live.wait_for_changes(timeout=max(deadline - time.monotonic(), 0)), "no change"
        live.refresh()


def same_as_fresh_load(live: LiveTree) -> bool:
    fresh = TaskIndex.build(TaskRepository(live.root).scan().tasks())
    return all(live.index.facts(i) == fresh.facts(i) for i in fresh.ids()) and sorted(
        live.index.ids()
    ) == sorted(fresh.ids())


def test_editor_save_by_rename_is_seen_and_only_that_file_is_read(live: LiveTree) -> None:
    task = live.index.require("wx-6ca4a1a9")
    path = live.root / task.path
    temp = path.with_name(".edit.tmp")
    temp.write_text(path.read_text().replace("status: active", "status: done"))
    os.replace(temp, path)
    settle(live, lambda: live.index.require("wx-6ca4a1a9").status == "done")
    assert live.last_refresh.files_read <= 2  # the file (and the temp name it came from)
    assert same_as_fresh_load(live)


def test_created_moved_and_deleted_files_are_seen(live: LiveTree) -> None:
    new = live.root / "wx" / "tasks" / "wx-0000cafe-new.md"
    new.write_text(TASK.format(id="wx-0000cafe", title="New", status="active"))
    settle(live, lambda: "wx-0000cafe" in live.index)
    moved = live.root / "inbox" / new.name
    os.replace(new, moved)
    settle(live, lambda: live.index.require("wx-0000cafe").path == f"inbox/{new.name}")
    moved.unlink()
    settle(live, lambda: "wx-0000cafe" not in live.index)
    assert same_as_fresh_load(live)


def test_a_whole_folder_moved_in_is_read(live: LiveTree, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere" / "extra"
    outside.mkdir(parents=True)
    (outside / "x.md").write_text(TASK.format(id="ext-1", title="From outside", status="active"))
    shutil.move(str(outside), live.root / "extra")
    settle(live, lambda: "ext-1" in live.index)
    assert live.index.require("ext-1").title == "From outside"


def test_a_checkout_that_rewrites_many_files_leaves_the_index_equal_to_a_fresh_load(
    live: LiveTree,
) -> None:
    for task in list(live.index.tasks())[:20]:
        path = live.root / task.path
        path.write_text(path.read_text().replace("status: active", "status: waiting"))
    settle(live, lambda: same_as_fresh_load(live))


def test_a_restart_reuses_the_cache_and_sees_edits_made_while_down(example_root: Path) -> None:
    first = LiveTree(example_root, watch=False)
    task = first.index.require("wx-6ca4a1a9")
    first.close()
    path = example_root / task.path
    path.write_text(path.read_text().replace("status: active", "status: review"))
    later = path.stat().st_mtime_ns + 1_000_000_000
    os.utime(path, ns=(later, later))
    second = LiveTree(example_root, watch=False)
    assert second.cache_hits == len(second.table) - 1
    assert second.index.require("wx-6ca4a1a9").status == "review"
    assert same_as_fresh_load(second)
    second.close()
