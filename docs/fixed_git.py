"""Git repositories made with the `git` command and a fixed author, committer and clock, so
every sha and time is the same on every run: the docs' example tree (`docgen.py`) and the
tests' repositories (`tests/gitrepo.py`) are made the same way, and the docs import no test
module."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

__all__ = ["EPOCH", "GitFailed", "commit_all", "git", "git_env", "init"]

EPOCH = 1_790_000_000  # 2026-09-21, before the tests' fixed NOW (2026-11-22)


class GitFailed(RuntimeError):
    """A `git` command exited non-zero: its arguments and what it printed on stderr."""

    def __init__(self, args: tuple[str, ...], stderr: str) -> None:
        super().__init__(f"git {' '.join(args)} failed: {stderr.strip()}")
        self.command = args


def git_env(seconds: int = EPOCH) -> dict[str, str]:
    stamp = f"{seconds} +0000"
    return {
        **os.environ,
        "GIT_AUTHOR_NAME": "Ada Editor",
        "GIT_AUTHOR_EMAIL": "ada@example.org",
        "GIT_COMMITTER_NAME": "Ada Editor",
        "GIT_COMMITTER_EMAIL": "ada@example.org",
        "GIT_AUTHOR_DATE": stamp,
        "GIT_COMMITTER_DATE": stamp,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_SYSTEM": os.devnull,
    }


def git(repo: Path, *args: str, seconds: int = EPOCH) -> str:
    """`git ARGS` in `repo`; its output, stripped. Raises `GitFailed` when git fails."""
    done = subprocess.run(
        ["git", *args], cwd=repo, env=git_env(seconds), capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise GitFailed(args, done.stderr)
    return done.stdout.strip()


def init(repo: Path) -> Path:
    repo.mkdir(parents=True, exist_ok=True)
    git(repo, "init", "-q", "-b", "main")
    return repo


def commit_all(repo: Path, message: str, seconds: int = EPOCH) -> str:
    """Stage everything (deletions and moves too) and commit; the new commit's sha."""
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", message, seconds=seconds)
    return git(repo, "rev-parse", "HEAD")
