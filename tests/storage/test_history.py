"""Two commits' diff, kept once asked, answers the same again."""

from __future__ import annotations

from pathlib import Path

from storage.history import GitTree
from tests.gitrepo import commit_all, init


def test_a_diff_between_two_commits_asked_again_is_the_same_and_its_own(tmp_path: Path) -> None:
    repo = init(tmp_path / "repo")
    (repo / "a.md").write_text("---\nid: a\ntitle: A\n---\n")
    first = commit_all(repo, "first")
    (repo / "a.md").write_text("---\nid: a\ntitle: A2\n---\n")
    (repo / "b.md").write_text("---\nid: b\ntitle: B\n---\n")
    second = commit_all(repo, "second")
    git = GitTree.open(repo)
    blob = git.run("rev-parse", f"{first}:a.md").decode().strip()

    asked = git.differences(first, second)
    asked["c.md"] = None  # the caller's copy: the kept diff is not changed
    assert git.differences(first, second) == {"a.md": blob, "b.md": None}
    assert GitTree.open(repo).differences(second, first) == {
        "a.md": git.run("rev-parse", f"{second}:a.md").decode().strip(),
        "b.md": git.run("rev-parse", f"{second}:b.md").decode().strip(),
    }
