"""Task resources read by the MCP Inspector's CLI (`npx @modelcontextprotocol/inspector
--cli`), another client than ours: `resources/list` and `resources/read` over stdio. Deep:
npx fetches the Inspector the first time."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO
from tests.tasks_server.test_changes import first_state

pytestmark = pytest.mark.deep


def inspector(root: Path, *method: str) -> dict[str, Any]:
    npx = shutil.which("npx")
    assert npx is not None, "npx is needed for the Inspector"
    server = [sys.executable, "-m", "tasks_server", "serve", "--root", str(root)]
    done = subprocess.run(
        [npx, "-y", "@modelcontextprotocol/inspector", "--cli", "-e", f"PYTHONPATH={REPO}",
         *server, "--method", *method],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    found: dict[str, Any] = json.loads(done.stdout)
    return found


def test_the_inspector_lists_and_reads_task_resources(tmp_path: Path) -> None:
    root = tmp_path / "tasks"
    first_state(root)
    listed = inspector(root, "resources/list")
    read = inspector(root, "resources/read", "--uri", "task://b")
    assert {r["uri"] for r in listed["resources"]} >= {"task://a", "task://b", "task://p"}
    assert {r["mimeType"] for r in listed["resources"]} == {"text/markdown"}
    assert read["contents"][0]["text"] == (root / "b.md").read_text()
