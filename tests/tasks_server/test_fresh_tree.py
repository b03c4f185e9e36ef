"""The kernel's queue in the live tree: every completed change reaches the next refresh, with
no waiting: folders made, renamed or moved away, links, a lost queue; and no work at all
when nothing changed."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from storage.watch import TreeWatch
from tasks_server.live import LiveTree
from tests.tasks_server.test_live import TASK, same_as_fresh_load

EDITED = "wx-6ca4a1a9"


@pytest.fixture
def live(example_root: Path) -> Iterator[LiveTree]:
    tree = LiveTree(example_root, watch=True)
    assert tree.mode == "kernel"  # Linux: the tree's own inotify queue
    yield tree
    tree.close()


def status_of(live: LiveTree, task_id: str = EDITED) -> str:
    live.refresh()
    return live.index.require(task_id).status


def test_a_rewrite_that_keeps_the_size_and_the_mtime_is_still_seen(live: LiveTree) -> None:
    path = live.root / live.index.require(EDITED).path
    before = path.stat()
    path.write_text(path.read_text().replace("status: active", "status: review"))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_size == before.st_size
    assert status_of(live) == "review"


def test_a_folder_tree_made_in_one_go_is_read_at_once(live: LiveTree) -> None:
    deep = live.root / "new" / "a" / "b"
    deep.mkdir(parents=True)
    (deep / "n.md").write_text(TASK.format(id="n-1", title="Deep", status="active"))
    assert status_of(live, "n-1") == "active"
    (deep / "n.md").write_text(TASK.format(id="n-1", title="Deep", status="done"))
    assert status_of(live, "n-1") == "done"  # the new folders are watched too


def test_a_folder_renamed_inside_the_tree_moves_its_tasks_and_stays_watched(
    live: LiveTree,
) -> None:
    os.rename(live.root / "wx", live.root / "weather")
    live.refresh()
    assert live.index.require(EDITED).path.startswith("weather/")
    assert same_as_fresh_load(live)
    path = live.root / live.index.require(EDITED).path
    path.write_text(path.read_text().replace("status: active", "status: done"))
    assert status_of(live) == "done"


def test_a_folder_moved_out_of_the_tree_takes_its_tasks_and_is_no_longer_watched(
    live: LiveTree, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    shutil.move(live.root / "wx", outside)
    live.refresh()
    assert EDITED not in live.index
    moved = next(outside.rglob(f"{EDITED}*.md"))
    moved.write_text(moved.read_text().replace("status: active", "status: done"))
    live.refresh()
    assert EDITED not in live.index
    assert same_as_fresh_load(live)


def test_a_lost_event_queue_is_made_good_by_one_survey(live: LiveTree) -> None:
    limit = int(Path("/proc/sys/fs/inotify/max_queued_events").read_text())
    noise = [live.root / "inbox" / "noise-a.txt", live.root / "inbox" / "noise-b.txt"]
    for path in noise:
        path.write_text("")
    for turn in range(limit + 10):  # two names in turn: the kernel cannot merge them
        os.utime(noise[turn % 2])
    path = live.root / live.index.require(EDITED).path
    path.write_text(path.read_text().replace("status: active", "status: waiting"))
    (live.root / "late").mkdir()  # made while events were lost: its watch comes from the survey
    (live.root / "late" / "l.md").write_text(TASK.format(id="l-1", title="L", status="active"))
    assert status_of(live) == "waiting"
    assert status_of(live, "l-1") == "active"
    (live.root / "late" / "l.md").write_text(TASK.format(id="l-1", title="L", status="done"))
    assert status_of(live, "l-1") == "done"
    assert same_as_fresh_load(live)


def test_a_linked_task_file_follows_its_target(live: LiveTree) -> None:
    target = live.root / "shared" / "real.txt"
    target.parent.mkdir()
    target.write_text(TASK.format(id="lnk-1", title="Linked", status="active"))
    (live.root / "inbox" / "linked.md").symlink_to("../shared/real.txt")
    assert status_of(live, "lnk-1") == "active"
    target.write_text(TASK.format(id="lnk-1", title="Linked", status="done"))
    assert status_of(live, "lnk-1") == "done"


def test_a_link_present_at_start_follows_its_target(example_root: Path) -> None:
    target = example_root / "shared" / "real.txt"
    target.parent.mkdir()
    target.write_text(TASK.format(id="lnk-1", title="Linked", status="active"))
    (example_root / "inbox" / "linked.md").symlink_to("../shared/real.txt")
    tree = LiveTree(example_root, watch=True)
    try:
        target.write_text(TASK.format(id="lnk-1", title="Linked", status="done"))
        assert status_of(tree, "lnk-1") == "done"
    finally:
        tree.close()


def test_nothing_changed_means_nothing_read(live: LiveTree) -> None:
    live.refresh()
    assert live.refresh().files_read == 0


def test_temp_files_and_hidden_folders_cause_no_reads(live: LiveTree) -> None:
    live.refresh()
    folder = live.root / "wx" / "tasks"
    (folder / ".x.md.1234.tmp").write_text("half")
    (folder / ".x.md.1234.tmp").unlink()
    (live.root / ".trash" / "wx").mkdir(parents=True)
    (live.root / ".trash" / "wx" / "gone.md").write_text(TASK.format(id="g", title="G", status="a"))
    assert live.refresh().files_read == 0


def test_a_tools_own_write_seen_again_by_the_queue_changes_nothing(live: LiveTree) -> None:
    live.refresh()
    task = live.index.require(EDITED)
    live.record([live.repository.update(task.path, {"status": "done"})])
    generation = live.generation
    stats = live.refresh()
    assert stats.files_read == 1  # the queue reports the write; reading it finds no change
    assert live.generation == generation  # so page cursors handed out since stay valid


class LimitedWatch(TreeWatch):
    """The kernel's queue on a machine whose watch limit is reached at folder `full`."""

    def _add(self, folder: str) -> bool:
        if folder.endswith("full"):
            self.exhausted = True  # what ENOSPC from inotify_add_watch sets
            return False
        return super()._add(folder)


class LimitedTree(LiveTree):
    def _open_kernel_watch(self) -> TreeWatch | None:
        return LimitedWatch.open(self.root, descend=self.repository.walks_into)


def test_at_the_watch_limit_the_tree_falls_back_to_walking_and_misses_nothing(
    example_root: Path,
) -> None:
    tree = LimitedTree(example_root, watch=True)
    try:
        assert tree.mode == "kernel"
        (example_root / "full").mkdir()
        (example_root / "full" / "f.md").write_text(TASK.format(id="f-1", title="F", status="a"))
        assert status_of(tree, "f-1") == "a"
        assert tree.mode == "walk"
        (example_root / "full" / "f.md").write_text(TASK.format(id="f-1", title="F", status="bb"))
        assert status_of(tree, "f-1") == "bb"
    finally:
        tree.close()
