"""Two states of a tree's git a person must be told plainly, through a real server process:
git missing from PATH ("git is not installed", not "not in a git work tree"), and a task file
left with merge-conflict markers (named as conflicted wherever its id is asked for, and its
history still read)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from storage.conflicts import conflict_ids, has_conflict_markers, sides
from tests.gitrepo import EPOCH, commit_all, git, git_env
from tests.gittraps import History, hostile_history
from tests.reliability.stdio import ServerProcess, stop_all


@pytest.fixture(autouse=True)
def _no_server_left_running() -> Iterator[None]:
    yield
    stop_all()


def conflicted(tmp_path: Path) -> History:
    """`hostile_history`'s tree with a.md in an unresolved merge: both branches changed its
    priority."""
    found = hostile_history(tmp_path / "repo")
    root = found.root
    git(root, "checkout", "-q", "--", "b.md")
    git(root, "checkout", "-q", "-b", "other", found.first)
    (root / "a.md").write_text((root / "a.md").read_text().replace("priority: 2", "priority: 4"))
    commit_all(root, "a can wait", EPOCH + 120)
    git(root, "checkout", "-q", "main")
    done = git_may_fail(root, "merge", "-q", "other")
    assert "CONFLICT" in done
    assert has_conflict_markers((root / "a.md").read_bytes())
    return found


def git_may_fail(root: Path, *args: str) -> str:
    """`git ARGS`' output, whatever its exit (a merge that conflicts exits 1)."""
    done = subprocess.run(
        ["git", *args],
        cwd=root,
        env=git_env(EPOCH + 180),
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout + done.stderr


def error(answer: dict[str, object]) -> dict[str, object]:
    assert "error" in answer, answer
    data: dict[str, object] = json.loads(str(answer["message"]))["error"]
    return data


def test_a_conflicted_task_is_named_as_conflicted_and_its_history_still_reads(
    tmp_path: Path,
) -> None:
    found = conflicted(tmp_path)
    with ServerProcess(found.root) as server:
        asked = {
            "get_task": server.call("get_task", task_id="a"),
            "claim_task": server.call("claim_task", task_id="a", agent="ada", lease_seconds=600),
            "add_note": server.call("add_note", task_id="a", text="hi", author="ada"),
        }
        history = server.call("get_task_history", task_id="a")
        unknown = server.call("get_task", task_id="zz")
        server.close()
    for tool, answer in asked.items():
        assert answer["error"] == "PARSE_ERROR", tool
        details = error(answer)["details"]
        assert details == {"path": "a.md", "task_id": "a", "conflicted": True}, tool
        assert "merge-conflict" in str(error(answer)["message"])
    assert [c["message"] for c in history["commits"]] == ["a is urgent", "plan"]
    assert unknown["error"] == "TASK_NOT_FOUND"


def test_the_sides_of_a_conflict_each_give_the_id_and_the_file_name_is_the_last_resort() -> None:
    data = b"---\nid: x\n<<<<<<< HEAD\ntitle: One\n=======\ntitle: Two\n>>>>>>> b\n---\n"
    assert sides(data) == (b"---\nid: x\ntitle: One\n---\n", b"---\nid: x\ntitle: Two\n---\n")
    assert conflict_ids("f/x.md", data) == {"x"}
    broken = b"---\n<<<<<<< HEAD\n: [\n=======\n: {\n>>>>>>> b\n---\n"
    assert conflict_ids("f/named.md", broken) == {"named"}
    assert not has_conflict_markers(b"<<<<<<< only an opening line\n")


def test_without_git_on_path_the_history_tools_say_git_is_not_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    found = hostile_history(tmp_path / "repo")
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    with ServerProcess(found.root) as server:
        answers = [
            server.call("get_changes", since_ref="HEAD"),
            server.call("get_task_history", task_id="a"),
        ]
        review = server.call("get_review_snapshot", since_days=30)
        server.close()
    for answer in answers:
        assert answer["error"] == "GIT_NOT_INSTALLED"
        assert "git is not installed" in str(error(answer)["message"])
    assert review["metrics"]["total_tasks"] == 2  # the review falls back on file times
