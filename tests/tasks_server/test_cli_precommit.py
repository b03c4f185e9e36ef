"""The repository's pre-commit hook, run the way a team would: `pre-commit try-repo`.

pre-commit builds the hook's own environment from this repository (`language: python`), which
needs the package index and about a minute on a quiet machine; hence `deep`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import DATA, REPO, write


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


@pytest.mark.deep
def test_the_hook_fails_a_commit_whose_task_file_names_a_missing_task_beside_a_readme(
    tmp_path: Path,
) -> None:
    repo = tmp_path / "team"
    shutil.copytree(DATA / "wx", repo / "tasks" / "wx")
    broken = write(
        repo,
        "tasks/wx/tasks/wx-00000bad-broken.md",
        "---\nid: wx-00000bad\ntitle: Broken\nstatus: active\ndepends_on: [wx-gone]\n---\n",
    )
    readme = write(repo, "README.md", "# The team's notes, not a task file\n")
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        "TASKS_ROOT": str(repo / "tasks"),
        "COLUMNS": "200",  # one table row a problem, however the caller's terminal is set
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.org",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.org",
    }
    env.pop("PYTHONPATH", None)  # the hook runs from its own environment, as for a team
    clean = next((repo / "tasks" / "wx").rglob("wx-6ca4a1a9-*.md"))
    files = [str(p.relative_to(repo)) for p in (broken, clean, readme)]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pre_commit",
            "try-repo",
            str(REPO),
            "tasks-check",
            "--files",
            *files,
        ],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Failed" in done.stdout
    assert "wx/tasks/wx-00000bad-broken.md" in done.stdout and "wx-gone" in done.stdout
    assert "1 error" in done.stdout
