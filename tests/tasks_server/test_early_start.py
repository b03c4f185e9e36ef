"""A live tree takes a read begun early as its warm-start cache: each result checked
against its file (what changed since is read again), none begun where a cache is kept."""

from __future__ import annotations

from pathlib import Path

from storage import cache, early_read
from storage.model import Task
from storage.repository import MAX_FILE_BYTES, TaskRepository
from tasks_server.live import LiveTree
from tests.conftest import write


def by_id(task: Task) -> str:
    return task.id


def test_a_load_takes_the_early_read_and_reads_again_what_changed_since(early_tree: Path) -> None:
    assert early_read.start(early_tree, MAX_FILE_BYTES)
    assert early_read.wait(early_tree)
    first = sorted(p.relative_to(early_tree).as_posix() for p in early_tree.rglob("*.md"))[0]
    write(early_tree, first, "---\nid: changed-1\ntitle: Changed since\nstatus: todo\n---\n")
    write(early_tree, "new/added.md", "---\nid: added-1\ntitle: Added\nstatus: todo\n---\n")
    live = LiveTree(early_tree, watch=False)
    try:
        assert live.start_stats.files_cached > 0 and live.start_stats.files_read >= 2
        fresh = TaskRepository(early_tree).read_tree().table
        assert sorted(live.table.tasks(), key=by_id) == sorted(fresh.tasks(), key=by_id)
        assert live.table.problems() == fresh.problems()
        assert live.index.require("changed-1").title == "Changed since"
    finally:
        live.close()


def test_no_early_read_where_a_cache_is_kept(early_tree: Path) -> None:
    LiveTree(early_tree, watch=False).close()  # writes the warm-start cache
    assert cache.stored_bytes(early_tree) > 0
    assert not early_read.wanted(early_tree) and not early_read.begin(early_tree, MAX_FILE_BYTES)
    assert early_read.take(early_tree, MAX_FILE_BYTES) == {}
