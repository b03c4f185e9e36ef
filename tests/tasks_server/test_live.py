"""The live tree with its file watcher: outside changes reach the next query, only changed
files are re-read, and the index always equals a fresh load of the tree."""

from __future__ import annotations

import gc
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import tasks_server.live as live_module
from graph.index import TaskIndex
from storage import cache
from storage.repository import TaskRepository
from tasks_server.live import LiveTree

TASK = "---\nid: {id}\ntitle: {title}\nstatus: {status}\n---\nBody.\n"


@pytest.fixture(params=["kernel", "thread"])
def live(example_root: Path, request: pytest.FixtureRequest) -> Iterator[LiveTree]:
    """A watching tree: on the kernel's queue (Linux), or on the watcher thread that
    platforms without inotify get."""
    tree = LiveTree(example_root, watch=True, inotify=request.param == "kernel")
    assert tree.watching and tree.mode == request.param
    yield tree
    tree.close()


def settle(live: LiveTree, done: Callable[[], bool]) -> None:
    """Apply what changed until `done()` holds.

    On the kernel's queue, one refresh must do it (read-your-writes). The watcher thread
    reports an edit later, and perhaps in more than one batch (a rename-save is a create
    of the temp name, then a move), so there we wait, batch by batch.
    """
    live.refresh()
    if live.mode == "kernel":
        assert done()
        return
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


class EditedWhileLoading(LiveTree):
    """A tree whose task file is edited after the load and before the watcher thread
    starts. (The kernel's queue opens before the load, so it has no such gap.)"""

    def _start_watcher(self) -> None:
        path = self.root / self.index.require("wx-6ca4a1a9").path
        path.write_text(path.read_text().replace("status: active", "status: done"))
        super()._start_watcher()


def test_an_edit_made_while_the_tree_loaded_reaches_the_first_query(example_root: Path) -> None:
    tree = EditedWhileLoading(example_root, watch=True, inotify=False)
    try:
        assert tree.index.require("wx-6ca4a1a9").status == "active"  # loaded before the edit
        tree.refresh()
        assert tree.index.require("wx-6ca4a1a9").status == "done"
        assert tree.last_refresh.files_read == 1
    finally:
        tree.close()


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


def cache_identity(root: Path) -> tuple[int, int]:
    """The cache file's inode and mtime: a save replaces the file, so both change."""
    stat = (root / cache.CACHE_FILE).stat()
    return stat.st_ino, stat.st_mtime_ns


def test_a_restart_with_nothing_changed_parses_no_file_and_leaves_the_cache_alone(
    example_root: Path,
) -> None:
    LiveTree(example_root, watch=False).close()
    before = cache_identity(example_root)
    second = LiveTree(example_root, watch=False)
    assert second.start_stats.files_read == 0
    assert second.cache_hits == len(second.table)
    assert cache_identity(example_root) == before
    assert same_as_fresh_load(second)
    second.close()


def chain(root: Path) -> None:
    """Task b depends on task a, both open: b is blocked until a is done."""
    (root / "a.md").write_text(TASK.format(id="a", title="A", status="active"))
    text = TASK.format(id="b", title="B", status="active")
    (root / "b.md").write_text(text.replace("status:", "depends_on: [a]\nstatus:"))


def mark_done(path: Path) -> None:
    path.write_text(path.read_text().replace("status: active", "status: done"))
    later = path.stat().st_mtime_ns + 1_000_000_000
    os.utime(path, ns=(later, later))


def test_a_restart_with_nothing_changed_takes_the_index_facts_saved_with_the_cache(
    tmp_path: Path,
) -> None:
    chain(tmp_path)
    first = LiveTree(tmp_path, watch=False)
    first.close()
    assert not first.start_stats.facts_taken and (tmp_path / cache.FACTS_FILE).is_file()
    second = LiveTree(tmp_path, watch=False)
    assert second.start_stats.facts_taken and second.start_stats.files_read == 0
    assert second.index.facts("b").is_blocked and same_as_fresh_load(second)
    second.close()


def assert_derived_then_taken(root: Path, *, b_ready: bool) -> None:
    """The next start derives the facts (and answers right); the one after takes them."""
    second = LiveTree(root, watch=False)
    assert not second.start_stats.facts_taken
    assert second.index.facts("b").is_ready == b_ready and same_as_fresh_load(second)
    second.close()
    third = LiveTree(root, watch=False)
    assert third.start_stats.facts_taken and third.index.facts("b").is_ready == b_ready
    third.close()


def test_facts_that_do_not_read_are_derived_again_and_saved_over(tmp_path: Path) -> None:
    chain(tmp_path)
    LiveTree(tmp_path, watch=False).close()
    facts = tmp_path / cache.FACTS_FILE
    token = facts.read_bytes().partition(b"\n")[0]
    facts.write_bytes(token + b"\nnot the facts")
    assert_derived_then_taken(tmp_path, b_ready=False)


def test_a_cache_from_before_tokens_is_saved_again_once_with_its_facts(tmp_path: Path) -> None:
    chain(tmp_path)
    LiveTree(tmp_path, watch=False).close()
    results = cache.load(tmp_path.resolve()).values()
    cache.save(tmp_path.resolve(), results)  # no token: as an older server wrote it
    (tmp_path / cache.FACTS_FILE).unlink()
    assert_derived_then_taken(tmp_path, b_ready=False)


def test_a_restart_in_another_process_takes_the_facts_this_one_saved(tmp_path: Path) -> None:
    chain(tmp_path)
    LiveTree(tmp_path, watch=False).close()
    script = (
        "import sys; from pathlib import Path; from tasks_server.live import LiveTree; "
        "tree = LiveTree(Path(sys.argv[1]), watch=False); "
        "print(tree.start_stats.facts_taken, tree.index.facts('b').is_blocked)"
    )
    env = {**os.environ, "PYTHONHASHSEED": "1"}  # another string hash order, other addresses
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)],
        capture_output=True, text=True, env=env, check=True,
    )  # fmt: skip
    assert done.stdout.split() == ["True", "True"]


def test_a_restart_after_an_edit_derives_the_facts_again_and_saves_them(
    tmp_path: Path,
) -> None:
    chain(tmp_path)
    LiveTree(tmp_path, watch=False).close()
    mark_done(tmp_path / "a.md")
    assert_derived_then_taken(tmp_path, b_ready=True)


def test_facts_are_not_taken_beside_a_cache_saved_after_edits_nor_after_a_deletion(
    tmp_path: Path,
) -> None:
    chain(tmp_path)
    first = LiveTree(tmp_path, watch=False)
    mark_done(tmp_path / "a.md")
    with first.snapshot():  # the edit is applied, and the cache saved at close
        assert first.index.facts("b").is_ready
    first.close()
    second = LiveTree(tmp_path, watch=False)  # the facts on disk are of the first cache
    assert not second.start_stats.facts_taken and second.start_stats.files_read == 0
    assert second.index.facts("b").is_ready and same_as_fresh_load(second)
    second.close()
    (tmp_path / "a.md").unlink()
    third = LiveTree(tmp_path, watch=False)
    assert not third.start_stats.facts_taken
    assert third.index.facts("b").is_blocked and same_as_fresh_load(third)
    third.close()


def test_a_restart_after_a_file_was_deleted_saves_the_cache_without_it(
    example_root: Path,
) -> None:
    first = LiveTree(example_root, watch=False)
    gone = first.index.require("wx-6ca4a1a9").path
    first.close()
    (example_root / gone).unlink()
    second = LiveTree(example_root, watch=False)
    assert second.start_stats.files_read == 0
    assert "wx-6ca4a1a9" not in second.index
    assert gone not in cache.load(second.root)
    assert same_as_fresh_load(second)
    second.close()


def test_a_task_the_cache_cannot_hold_is_read_at_each_start_without_rewriting_the_cache(
    example_root: Path,
) -> None:
    (example_root / "inbox" / "odd.md").write_text(
        "---\nid: odd-1\ntitle: Odd keys\nmatrix: {[1, 2]: a, 3: b}\n---\n"
    )
    LiveTree(example_root, watch=False).close()
    before = cache_identity(example_root)
    second = LiveTree(example_root, watch=False)
    assert second.start_stats.files_read == 1
    assert dict(second.index.require("odd-1").extra) == {"matrix": {(1, 2): "a", 3: "b"}}
    assert cache_identity(example_root) == before
    second.close()


def test_without_a_watcher_a_query_finds_edits_by_stat_and_reads_only_those(
    example_root: Path,
) -> None:
    tree = LiveTree(example_root, watch=False)
    edited = example_root / tree.index.require("wx-6ca4a1a9").path
    edited.write_text(edited.read_text().replace("status: active", "status: review"))
    later = edited.stat().st_mtime_ns + 1_000_000_000
    os.utime(edited, ns=(later, later))
    (example_root / tree.index.require("wx-1b2ba06b").path).unlink()
    (example_root / "inbox" / "new.md").write_text(
        TASK.format(id="n-1", title="N", status="active")
    )
    with tree.snapshot():
        assert tree.last_refresh.files_read == 3
        assert tree.index.require("wx-6ca4a1a9").status == "review"
        assert "wx-1b2ba06b" not in tree.index
        assert "n-1" in tree.index
        assert same_as_fresh_load(tree)
    tree.close()


def test_a_changed_tasksignore_is_applied_live_and_its_folders_watched(live: LiveTree) -> None:
    drafts = live.root / "drafts"
    drafts.mkdir()
    (drafts / "d1.md").write_text(TASK.format(id="d1", title="Draft", status="active"))
    (live.root / ".tasksignore").write_text("drafts/\n")
    settle(live, lambda: "d1" not in live.index)
    ids = set(live.index.ids())
    (live.root / ".tasksignore").write_text("# nothing ignored\n")
    settle(live, lambda: "d1" in live.index)
    (drafts / "d1.md").write_text(TASK.format(id="d1", title="Edited", status="active"))
    settle(live, lambda: live.index.require("d1").title == "Edited")
    (live.root / ".tasksignore").write_text("*.md\n")
    settle(live, lambda: len(live.index) == 0)
    assert ids - {"d1"} and same_as_fresh_load(live)


def test_orders_that_reads_keep_are_frozen_out_of_the_gcs_walks_in_steps(
    example_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(live_module, "FREEZE_STEP", 5)
    tree = LiveTree(example_root, watch=False)
    try:
        projects = tree.index.projects()
        with tree.snapshot():
            orders = [tree.index.in_order("project", name) for name in projects]
        kept = tree.index.orders.kept
        assert kept >= 5
        unfrozen = {id(o) for o in gc.get_objects()}
        assert all(id(order._ids) not in unfrozen for order in orders)  # frozen, not walked
        with tree.snapshot():  # nothing new kept: no collection, no freeze
            frozen = gc.get_freeze_count()
        assert gc.get_freeze_count() == frozen and tree.index.orders.kept == kept
    finally:
        tree.close()
