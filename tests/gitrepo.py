"""Git repositories for tests, made with the `git` command and a fixed author, committer
and clock, so every sha and time is the same on every run."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

EPOCH = 1_790_000_000  # 2026-09-21, before the tests' fixed NOW (2026-11-22)


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
    """`git ARGS` in `repo`; its output, stripped. Fails the test when git fails."""
    done = subprocess.run(
        ["git", *args], cwd=repo, env=git_env(seconds), capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
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
