"""A real editor, headless: Neovim's built-in LSP client over `tasks-server lsp`, on a task
file of the bundled tree. It shows what `check` finds (nothing, for the bundled tree), the
dangling dependency typed into the unsaved buffer, and ids when completing `depends_on`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tasks_server.editor.tree import EditorTree
from tasks_server.findings import problems_in, tree_problems
from tests.conftest import REPO

DRIVER = Path(__file__).with_name("nvim_drive.lua")
FILE = "pipe/tasks/pipe-37b00307-define-the-reading-message-schema.md"


def nvim() -> str:
    found = shutil.which("nvim")
    if found is None:
        pytest.fail("Neovim is not installed (apt-get install neovim; .ci/run installs it)")
    return found


@pytest.mark.deep
def test_neovim_shows_checks_diagnostics_and_completes_ids(example_root: Path) -> None:
    out = example_root.parent / "nvim.json"
    path = example_root / FILE
    id_line = (
        path.read_text()
        .splitlines()
        .index(next(line for line in path.read_text().splitlines() if line.startswith("id:")))
    )
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "LSP_PYTHON": sys.executable,
        "LSP_ROOT": str(example_root),
        "LSP_FILE": str(path),
        "LSP_OUT": str(out),
        "LSP_LINE": str(id_line + 1),
        "LSP_PREFIX": "pipe-2",
    }
    subprocess.run(
        [nvim(), "--headless", "-u", "NONE", "-i", "NONE", "-c", f"luafile {DRIVER}"],
        env=env,
        check=True,
        timeout=300,
        capture_output=True,
        cwd=example_root,
    )
    seen = json.loads(out.read_text())
    tree = EditorTree(example_root, watch=False)
    checked = problems_in(tree_problems(tree.index, tree.table, example_root), {FILE})
    tree.close()
    assert seen["opened"] and seen["on_open"] == [p.message for p in checked] == []
    task_id = path.read_text().splitlines()[id_line].removeprefix("id: ")
    assert seen["changed"]
    assert [d["message"] for d in seen["on_change"]] == [
        f"{task_id}: depends_on names nvim-ghost, which no task has"
    ]
    assert seen["on_change"][0]["line"] == id_line + 1
    assert seen["completion"] and all(c.startswith("pipe-2") for c in seen["completion"])
    assert "pipe-2052e52b" in seen["completion"]
