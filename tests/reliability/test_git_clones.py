"""Claims across machines: each agent has its own clone, a bare repository is the remote.
A claim is a commit; of two agents claiming one task, the push that loses the race is
the conflict, and after pulling, the loser's server answers CONFLICT with the winner."""

from __future__ import annotations

import os
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from storage import codec
from storage.model import Task
from tasks_server.toolset import open_toolset

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
TASK = "job-1"
FILE = "work/tasks/job-1.md"
GIT_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "agent",
    "GIT_AUTHOR_EMAIL": "agent@example.invalid",
    "GIT_COMMITTER_NAME": "agent",
    "GIT_COMMITTER_EMAIL": "agent@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args], cwd=cwd, env=GIT_ENV, check=check, capture_output=True, text=True
    )


def claim(root: Path, agent: str) -> dict[str, Any]:
    """claim_task through a server opened on one clone, at the fixed clock."""
    toolset = open_toolset(root, watch=False)
    toolset.context.clock = lambda: NOW
    try:
        arguments = {"task_id": TASK, "agent": agent, "lease_seconds": 3600}
        return toolset.run("claim_task", arguments).data
    finally:
        toolset.context.close()


def commit_claim(clone: Path, agent: str) -> None:
    git(clone, "commit", "-q", "-am", f"{agent} claims {TASK}")


def test_two_clones_claim_one_task_and_the_losing_push_is_the_conflict(tmp_path: Path) -> None:
    remote, first, second = tmp_path / "remote.git", tmp_path / "a", tmp_path / "b"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    git(tmp_path, "clone", "-q", str(remote), str(first))
    (first / "work" / "tasks").mkdir(parents=True)
    task = Task(id=TASK, title="Job", path="", status="active", project="work")
    (first / FILE).write_text(codec.dumps(task))
    (first / ".gitignore").write_text(".tasks-index/\n")
    git(first, "add", ".")
    git(first, "commit", "-q", "-m", "the tree")
    git(first, "push", "-q", "origin", "HEAD:main")
    git(tmp_path, "clone", "-q", str(remote), str(second))

    assert claim(first, "a1")["success"] is True
    assert claim(second, "a2")["success"] is True  # b has not seen a's claim: both win locally
    commit_claim(first, "a1")
    commit_claim(second, "a2")
    assert git(first, "push", "-q", "origin", "HEAD:main", check=False).returncode == 0
    lost = git(second, "push", "-q", "origin", "HEAD:main", check=False)
    assert lost.returncode != 0  # the race is decided here: b's push is refused
    assert "rejected" in lost.stderr or "fetch first" in lost.stderr

    git(second, "fetch", "-q", "origin")
    rebase = git(second, "rebase", "-q", "origin/main", check=False)
    assert rebase.returncode != 0  # both commits rewrote the same claim lines
    git(second, "rebase", "--abort")
    git(second, "reset", "-q", "--hard", "origin/main")  # the loser drops its claim
    again = claim(second, "a2")
    assert again["success"] is False
    assert again["error"]["code"] == "CONFLICT"
    assert again["error"]["details"]["claimed_by"] == "a1"
    assert git(second, "status", "--porcelain").stdout == ""
