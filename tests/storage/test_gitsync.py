"""The git plumbing of `serve --sync` (`storage.gitsync`), on real clones of a bare remote:
commits of touched paths only, replay that keeps the remote's version, and a clone left
by a killed operation finished by the next one."""

from __future__ import annotations

from pathlib import Path

import pytest

from storage.errors import HistoryError
from storage.gitsync import SyncRepo, Upstream
from tests.gitrepo import git

FILE = "work/tasks/t1.md"
OTHER = "work/tasks/t2.md"


def clones(tmp_path: Path) -> tuple[Path, Path]:
    """A bare remote with two task files, and two clones of it."""
    remote, first = tmp_path / "remote.git", tmp_path / "a"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    git(tmp_path, "clone", "-q", str(remote), str(first))
    (first / "work/tasks").mkdir(parents=True)
    (first / FILE).write_text("---\nid: t1\ntitle: One\n---\n")
    (first / OTHER).write_text("---\nid: t2\ntitle: Two\n---\n")
    git(first, "add", ".")
    git(first, "commit", "-q", "-m", "tree")
    git(first, "push", "-q", "origin", "HEAD:main")
    git(tmp_path, "clone", "-q", str(remote), str(tmp_path / "b"))
    return first, tmp_path / "b"


def opened(root: Path) -> tuple[SyncRepo, Upstream]:
    repo = SyncRepo(root)
    upstream = repo.upstream()
    assert upstream is not None
    return repo, upstream


def test_a_commit_holds_only_the_touched_path_and_leaves_the_persons_work(tmp_path: Path) -> None:
    first, _ = clones(tmp_path)
    (first / OTHER).write_text("---\nid: t2\ntitle: Staged by a person\n---\n")
    git(first, "add", OTHER)
    (first / FILE).write_text("---\nid: t1\ntitle: Written by the server\n---\n")
    repo, _ = opened(first)
    commit = repo.commit_paths([FILE], "update_task: t1\n", "w1")
    assert commit is not None
    assert git(first, "show", "--name-only", "--format=%an %s", commit).split() == [
        "w1",
        "update_task:",
        "t1",
        FILE,
    ]
    assert git(first, "status", "--porcelain") == f"M  {OTHER}"


def test_a_replay_keeps_the_remotes_version_of_a_file_both_changed(tmp_path: Path) -> None:
    first, second = clones(tmp_path)
    (first / FILE).write_text("---\nid: t1\ntitle: One\nclaimed_by: a1\n---\n")
    git(first, "commit", "-qam", "a1 claims")
    git(first, "push", "-q", "origin", "HEAD:main")
    (second / FILE).write_text("---\nid: t1\ntitle: One\nclaimed_by: b1\n---\n")
    (second / OTHER).write_text("---\nid: t2\ntitle: Two, renamed\n---\n")
    repo, upstream = opened(second)
    repo.commit_paths([FILE, OTHER], "claim_next: t1\n", "b1")
    assert repo.push(upstream, git(second, "rev-parse", "HEAD")) is False
    repo.fetch(upstream)
    done = repo.integrate(upstream)
    assert [d.path for d in done.dropped] == [FILE]
    assert "claimed_by: a1" in (second / FILE).read_text()
    assert "renamed" in (second / OTHER).read_text()
    assert git(second, "status", "--porcelain") == ""
    assert repo.push(upstream, git(second, "rev-parse", "HEAD")) is True


def test_an_uncommitted_edit_survives_a_fast_forward_that_changes_its_file(
    tmp_path: Path,
) -> None:
    first, second = clones(tmp_path)
    (first / FILE).write_text("---\nid: t1\ntitle: Remote edit\n---\n")
    git(first, "commit", "-qam", "edit")
    git(first, "push", "-q", "origin", "HEAD:main")
    (second / FILE).write_text("---\nid: t1\ntitle: Mine, not committed\n---\n")
    repo, upstream = opened(second)
    repo.fetch(upstream)
    assert repo.integrate(upstream).kept == [FILE]
    assert "Mine, not committed" in (second / FILE).read_text()


def test_a_move_killed_half_way_is_finished_by_the_next_operation(tmp_path: Path) -> None:
    first, second = clones(tmp_path)
    (first / FILE).write_text("---\nid: t1\ntitle: Remote edit\n---\n")
    git(first, "commit", "-qam", "edit")
    git(first, "push", "-q", "origin", "HEAD:main")
    repo, upstream = opened(second)
    old, new = git(second, "rev-parse", "HEAD"), repo.fetch(upstream)
    git_dir = second / ".git"
    (git_dir / "tasks-sync-move").write_text(f"{old} {new}\n")  # killed after the journal,
    (git_dir / "tasks-sync-busy").write_text("1")  # before any file moved; git's own locks:
    for lock in ("index.lock", "HEAD.lock", "refs/heads/main.lock"):
        (git_dir / lock).write_text("")
    with repo.operation():
        pass
    assert git(second, "rev-parse", "HEAD") == new
    assert "Remote edit" in (second / FILE).read_text()
    assert git(second, "status", "--porcelain") == ""
    assert not list(git_dir.glob("*.lock")) and not (git_dir / "tasks-sync-move").exists()


def test_fetch_commit_and_push_run_no_program_the_clones_config_names(tmp_path: Path) -> None:
    first, _ = clones(tmp_path)
    marker = tmp_path / "ran"
    url = str(tmp_path / "remote.git")
    traps = {
        f"remote.{url}.uploadpack": f"touch {marker}; git-upload-pack",
        f"remote.{url}.receivepack": f"touch {marker}; git-receive-pack",
        "remote.origin.uploadpack": f"touch {marker}; git-upload-pack",
        "remote.origin.receivepack": f"touch {marker}; git-receive-pack",
        "core.sshCommand": f"touch {marker}",
        "credential.helper": f"!touch {marker}",
        "commit.gpgSign": "true",
        "gpg.program": f"touch {marker}",
    }
    for key, value in traps.items():
        git(first, "config", key, value)
    for hook in ("pre-push", "reference-transaction", "post-commit", "post-update"):
        (first / ".git/hooks" / hook).write_text(f"#!/bin/sh\ntouch {marker}\n")
        (first / ".git/hooks" / hook).chmod(0o755)
    (first / FILE).write_text("---\nid: t1\ntitle: Changed\n---\n")
    repo, upstream = opened(first)
    commit = repo.commit_paths([FILE], "update_task: t1\n", None)
    assert commit is not None
    assert repo.push(upstream, commit) is True
    assert repo.fetch(upstream) == commit
    assert not marker.exists()


def test_a_local_merge_commit_is_never_replayed_and_the_sync_says_why(tmp_path: Path) -> None:
    first, second = clones(tmp_path)
    (first / FILE).write_text("---\nid: t1\ntitle: Remote edit\n---\n")
    git(first, "commit", "-qam", "edit")
    git(first, "push", "-q", "origin", "HEAD:main")
    git(second, "checkout", "-q", "-b", "side")
    (second / OTHER).write_text("---\nid: t2\ntitle: Side\n---\n")
    git(second, "commit", "-qam", "side")
    git(second, "checkout", "-q", "main")
    (second / "work/tasks/t3.md").write_text("---\nid: t3\ntitle: Three\n---\n")
    git(second, "add", ".")
    git(second, "commit", "-qm", "three")
    git(second, "merge", "-q", "--no-ff", "-m", "merge side", "side")
    repo, upstream = opened(second)
    repo.fetch(upstream)
    head = git(second, "rev-parse", "HEAD")
    with pytest.raises(HistoryError, match="merge commit"):
        repo.integrate(upstream)
    assert git(second, "rev-parse", "HEAD") == head
