"""The review's changes_since counts a human's edits: a task an editor marked done by
rewriting its file (no `modified`, no `completed` written) is completed and modified in the
window, read from git when the tree is in git and from the file's time otherwise."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import frontmatter
import pytest
from mcp import Client

from tests.gitrepo import commit_all, init
from tests.tasks_server.conftest import NOW, call, make_server

pytestmark = pytest.mark.anyio

HOUR = 3600
NOW_S = int(NOW.timestamp())


def write(root: Path, name: str, **meta: Any) -> Path:
    path = root / name
    path.write_text(frontmatter.dumps(frontmatter.Post("", **meta), sort_keys=False) + "\n")
    return path


def mark_done_in_an_editor(path: Path) -> None:
    post = frontmatter.load(path)
    post["status"] = "done"
    post["title"] = f"{post['title']} (renamed)"
    path.write_text(frontmatter.dumps(post, sort_keys=False) + "\n")


def tree(root: Path, stamp: int) -> dict[str, Path]:
    root.mkdir(parents=True, exist_ok=True)
    files = {
        "edited": write(root, "edited.md", id="edited", title="Edited", status="active"),
        "quiet": write(root, "quiet.md", id="quiet", title="Quiet", status="active"),
    }
    for path in files.values():
        os.utime(path, (stamp, stamp))
    return files


async def changes(root: Path, since_days: float = 1) -> dict[str, list[str]]:
    server = make_server(root)
    async with Client(server) as client:
        found = await call(client, "get_review_snapshot", since_days=since_days, limit=1000)
    server.context.close()
    lists = found["changes_since"]
    return {
        name: [t["id"] for t in lists[name]]
        for name in ("tasks_created", "tasks_completed", "tasks_modified")
    }


async def test_without_git_an_editors_done_counts_by_the_files_time(tmp_path: Path) -> None:
    files = tree(tmp_path / "plain", NOW_S - 30 * 24 * HOUR)
    mark_done_in_an_editor(files["edited"])
    os.utime(files["edited"], (NOW_S - HOUR, NOW_S - HOUR))
    assert await changes(tmp_path / "plain") == {
        "tasks_created": [],
        "tasks_completed": ["edited"],
        "tasks_modified": ["edited"],
    }


async def test_without_git_a_file_time_after_the_clock_is_outside_the_window(
    tmp_path: Path,
) -> None:
    files = tree(tmp_path / "plain", NOW_S + 24 * HOUR)  # a checkout after a fixed --now
    mark_done_in_an_editor(files["edited"])
    os.utime(files["edited"], (NOW_S + HOUR, NOW_S + HOUR))
    assert await changes(tmp_path / "plain") == {
        "tasks_created": [],
        "tasks_completed": [],
        "tasks_modified": [],
    }


@pytest.mark.parametrize("committed", [False, True], ids=["uncommitted", "committed"])
async def test_in_git_an_editors_done_counts_from_the_delta(
    tmp_path: Path, committed: bool
) -> None:
    repo = init(tmp_path / "repo")
    files = tree(repo, NOW_S)  # file times say nothing here: git does
    commit_all(repo, "plan", NOW_S - 30 * 24 * HOUR)
    mark_done_in_an_editor(files["edited"])
    write(repo, "fresh.md", id="fresh", title="Fresh", status="active")
    if committed:
        commit_all(repo, "edits", NOW_S - HOUR)
    assert await changes(repo) == {
        "tasks_created": ["fresh"],
        "tasks_completed": ["edited"],
        "tasks_modified": ["edited"],
    }
    assert await changes(repo, since_days=60) == {  # the history is younger: all created
        "tasks_created": ["edited", "fresh", "quiet"],
        "tasks_completed": ["edited"],
        "tasks_modified": [],
    }
