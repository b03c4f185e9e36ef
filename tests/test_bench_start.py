"""The start bench's parts that could count wrong: the peers' copies of our tree say what it
says, and each fsync is put on the write it happened in."""

from __future__ import annotations

import json
from pathlib import Path

import frontmatter
import pytest

from bench.fsync_count import count_syncs
from bench.generate import generate_tree
from bench.peer_trees import (
    BACKLOG_STATUS,
    TASKMASTER_STATUS,
    PeerTask,
    peer_tasks,
    write_backlog,
    write_taskmaster,
)


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> list[PeerTask]:
    root = tmp_path_factory.mktemp("tree")
    generate_tree(root, 60, seed=3)
    return peer_tasks(root)


def test_every_task_of_the_tree_is_numbered_once_with_its_links(source: list[PeerTask]) -> None:
    assert [peer.number for peer in source] == list(range(1, 61))
    numbers = {peer.task.id: peer.number for peer in source}
    for peer in source:
        assert peer.depends_on == tuple(numbers[d] for d in peer.task.depends_on)
        assert peer.parent == (numbers[peer.task.parent] if peer.task.parent else None)


def test_a_backlog_board_reads_back_with_the_same_titles_statuses_and_links(
    source: list[PeerTask], tmp_path: Path
) -> None:
    assert write_backlog(source, tmp_path) == len(source)
    files = sorted((tmp_path / "backlog" / "tasks").glob("task-* - *.md"))
    read = {post["id"]: post for post in (frontmatter.load(path) for path in files)}
    assert len(read) == len(source)
    for peer in source:
        post = read[f"TASK-{peer.number}"]
        assert post["title"] == peer.task.title
        assert post["status"] == BACKLOG_STATUS.get(peer.task.status, "To Do")
        assert post["dependencies"] == [f"TASK-{n}" for n in peer.depends_on]
        parent = f"TASK-{peer.parent}" if peer.parent else None
        assert post.get("parent_task_id") == parent
        assert post.content == peer.task.body.strip()
    assert "To Do" in (tmp_path / "backlog" / "config.yml").read_text()


def test_a_task_master_file_holds_every_task_with_its_status_and_dependencies(
    source: list[PeerTask], tmp_path: Path
) -> None:
    assert write_taskmaster(source, tmp_path) == len(source)
    document = json.loads((tmp_path / ".taskmaster" / "tasks" / "tasks.json").read_text())
    rows = {row["id"]: row for row in document["master"]["tasks"]}
    assert len(rows) == len(source)
    for peer in source:
        row = rows[peer.number]
        assert row["title"] == peer.task.title
        assert row["status"] == TASKMASTER_STATUS.get(peer.task.status, "pending")
        assert row["dependencies"] == list(peer.depends_on)


STRACE_LOG = """\
101 1000.50 fsync(3) = 0
102 1001.10 fsync(4 <unfinished ...>
101 1001.20 fdatasync(5) = 0
102 1001.30 <... fsync resumed>) = 0
101 1002.40 fsync(6) = 0
101 1003.00 sync_file_range(7, 0, 0, 2) = 0
101 1009.00 fsync(8) = 0
101 1009.10 +++ exited with 0 +++
"""


def test_each_sync_call_counts_once_on_the_write_whose_window_holds_it() -> None:
    windows = [("create_task", 1001.0, 1001.5), ("add_note", 1002.9, 1003.2)]
    per_tool, outside = count_syncs(STRACE_LOG, windows)
    assert per_tool == {"create_task": 2, "add_note": 1}
    assert outside == {"start": 1, "between": 1, "exit": 1}
