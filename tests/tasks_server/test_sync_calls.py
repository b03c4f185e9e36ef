"""`serve --sync` in process: a call's write is a commit pushed before the answer, in a tree
that is a folder of the clone; what the sync cannot serve is said at once."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from storage import codec
from storage.model import Task
from tasks_server.toolset import Outcome, open_toolset
from tests.gitrepo import git

TASK = "job-1"


def clone_with_tree(tmp_path: Path, folder: str) -> tuple[Path, Path]:
    """A bare remote and a clone of it whose task tree is `folder` inside the clone."""
    remote, work = tmp_path / "remote.git", tmp_path / "work"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    git(tmp_path, "clone", "-q", str(remote), str(work))
    tasks = work / folder / "work" / "tasks"
    tasks.mkdir(parents=True)
    task = Task(id=TASK, title="Job", path="", status="active", project="work")
    (tasks / f"{TASK}.md").write_text(codec.dumps(task))
    (work / ".gitignore").write_text(".tasks-index/\n")
    git(work, "add", ".")
    git(work, "commit", "-q", "-m", "tree")
    git(work, "push", "-q", "origin", "HEAD:main")
    return remote, work / folder


def claim_with_sync(root: Path) -> tuple[Outcome, dict[str, Any]]:
    """claim_task on TASK by w1 through a syncing toolset, and its sync stats after."""
    toolset = open_toolset(root, watch=False)
    toolset.context.start_sync(3600)
    try:
        answer = toolset.run("claim_task", {"task_id": TASK, "agent": "w1", "lease_seconds": 60})
        stats: dict[str, Any] = toolset.run("get_index_stats", {}).data["sync"]
    finally:
        toolset.context.close()
    return answer, stats


def test_a_claim_in_a_tree_inside_the_clone_is_pushed_before_the_answer(tmp_path: Path) -> None:
    remote, root = clone_with_tree(tmp_path, "plans")
    answer, stats = claim_with_sync(root)
    assert answer.is_error is False
    assert git(remote, "log", "-1", "--format=%an|%s", "main") == "w1|claim_task: job-1"
    shown = git(remote, "show", f"main:plans/work/tasks/{TASK}.md")
    assert "claimed_by: w1" in shown
    assert (stats["upstream"], stats["ahead"], stats["behind"]) == ("origin/main", 0, 0)
    assert git(root.parent, "status", "--porcelain") == ""


def test_a_clone_without_an_upstream_is_served_and_says_it_has_none(tmp_path: Path) -> None:
    _, root = clone_with_tree(tmp_path, "plans")
    git(root, "branch", "--unset-upstream")
    answer, stats = claim_with_sync(root)
    assert answer.is_error is False
    assert stats["upstream"] is None
    assert git(root, "log", "-1", "--format=%s") == "claim_task: job-1"


def test_serve_sync_outside_a_git_clone_is_one_line_and_exit_2(tmp_path: Path) -> None:
    (tmp_path / "tasks").mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "tasks_server", "serve", "--root", str(tmp_path), "--sync"],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("--sync: ")
    assert len(done.stderr.strip().splitlines()) == 1


def test_a_claim_the_remote_took_first_is_conflict_and_claim_next_takes_another(
    tmp_path: Path,
) -> None:
    remote, first = clone_with_tree(tmp_path, "plans")
    other = Task(id="job-2", title="Other", path="", status="active", project="work")
    (first / "work/tasks/job-2.md").write_text(codec.dumps(other))
    git(first.parent, "add", ".")
    git(first.parent, "commit", "-q", "-m", "a second task")
    git(first.parent, "push", "-q", "origin", "HEAD:main")
    git(tmp_path, "clone", "-q", str(remote), str(tmp_path / "second"))
    toolsets = [
        open_toolset(root / "plans", watch=False) for root in (first.parent, tmp_path / "second")
    ]
    for toolset in toolsets:
        toolset.context.start_sync(3600)  # both clones have seen the tree as it is now
    late = toolsets[1].context.sync
    assert late is not None
    late.before = lambda tool: False  # type: ignore[method-assign]  # its fetch came just before a1's push
    try:
        claim = {"task_id": TASK, "lease_seconds": 600}
        won = toolsets[0].run("claim_task", {**claim, "agent": "a1"})
        lost = toolsets[1].run("claim_task", {**claim, "agent": "b1"})
        taken = toolsets[1].run("claim_next", {"agent": "b1", "lease_seconds": 600})
        stats = toolsets[1].run("get_index_stats", {}).data["sync"]
    finally:
        for toolset in toolsets:
            toolset.context.close()
    assert won.is_error is False
    assert lost.data["error"]["code"] == "CONFLICT"
    assert lost.data["error"]["details"]["claimed_by"] == "a1"
    assert taken.data["claimed"]["id"] == "job-2"
    assert any("sync dropped" in w for w in taken.data["guidance"]["warnings"])
    assert stats["dropped"] == ["plans/work/tasks/job-1.md (claim_task: job-1)"]
    shown = git(remote, "show", "main:plans/work/tasks/job-1.md")
    assert "claimed_by: a1" in shown and "<<<<<<<" not in shown


def test_call_with_sync_commits_and_pushes_a_write_that_waits_for_the_next_round(
    tmp_path: Path,
) -> None:
    remote, root = clone_with_tree(tmp_path, "plans")
    arguments = '{"task_id": "job-1", "title": "Renamed from the CLI"}'
    command = ["-m", "tasks_server", "call", "update_task", "--root", str(root), "--sync"]
    done = subprocess.run(
        [sys.executable, *command, "--args", arguments],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Renamed from the CLI" in git(remote, "show", f"main:plans/work/tasks/{TASK}.md")
    assert git(remote, "log", "-1", "--format=%an|%s", "main") == "tasks-server|update_task: job-1"


def test_a_claim_whose_push_fails_is_sync_failed_and_stays_committed_here(
    tmp_path: Path,
) -> None:
    _, root = clone_with_tree(tmp_path, "plans")
    git(root, "remote", "set-url", "origin", str(tmp_path / "gone.git"))
    answer, stats = claim_with_sync(root)  # its first fetch fails: served all the same
    assert answer.data["error"]["code"] == "SYNC_FAILED"
    assert "get_index_stats" in answer.data["guidance"]["next_action"]
    assert stats["error"] is not None and stats["ahead"] == 1
    assert git(root, "log", "-1", "--format=%s") == "claim_task: job-1"


def test_a_file_with_uncommitted_changes_is_conflict_and_survives_a_round(
    tmp_path: Path,
) -> None:
    remote, root = clone_with_tree(tmp_path, "plans")
    path = root / "work/tasks" / f"{TASK}.md"
    mine = path.read_text() + "My notes, not committed.\n"
    path.write_text(mine)
    git(tmp_path, "clone", "-q", str(remote), str(tmp_path / "person"))
    theirs = tmp_path / "person/plans/work/tasks" / f"{TASK}.md"
    theirs.write_text(theirs.read_text().replace("title: Job", "title: Theirs"))
    git(tmp_path / "person", "commit", "-qam", "their edit")
    git(tmp_path / "person", "push", "-q", "origin", "HEAD:main")
    answer, stats = claim_with_sync(root)
    assert answer.data["error"]["code"] == "CONFLICT"
    assert answer.data["error"]["details"]["uncommitted"] is True
    assert path.read_text() == mine
    assert stats["kept_uncommitted"] == [f"plans/work/tasks/{TASK}.md"]
