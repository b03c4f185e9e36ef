"""`git` for the benches' own repositories: an identity set, the output as text."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

__all__ = ["ENV", "git"]

ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.org",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.org",
}


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, env=ENV, capture_output=True, check=True)
    return done.stdout.decode().strip()
