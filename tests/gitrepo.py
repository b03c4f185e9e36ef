"""Git repositories for tests, made with the `git` command and a fixed author, committer
and clock, so every sha and time is the same on every run: the docs' own helper
(`docs/fixed_git.py`; a failing git command raises `GitFailed` and fails the test)."""

from __future__ import annotations

from docs.fixed_git import EPOCH, GitFailed, commit_all, git, git_env, init

__all__ = ["EPOCH", "GitFailed", "commit_all", "git", "git_env", "init"]
