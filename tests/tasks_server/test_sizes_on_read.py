"""A file written by hand may hold more than any write allows: it loads whole, `check`
reports each oversized value by file and line, and brief rows and the human commands show
it shortened with a marker; the file and the full view keep every character."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client

from storage.model import Task
from tasks_server.sizes import MAX_LIST_ITEMS, MAX_TITLE_CHARS, Oversize, clip, oversized
from tests.conftest import write
from tests.tasks_server.conftest import call, make_server

SCRIPT = Path(sys.executable).with_name("tasks-server")
HUGE_TITLE = "t" * 100_000
LONG_TAG = "g" * 300
WRAPPED_BODY = (
    "A hard-wrapped paragraph whose lines are all shorter than sixty characters,\n"
    "and a path: /a/long/path/to/some/file/that/goes/past/eighty/columns/of/any/terminal.md\n"
)


@pytest.fixture
def big_root(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    write(root, "big.md", f"---\nid: big-1\ntitle: {HUGE_TITLE}\nstatus: active\n"
          f"tags: [a, {LONG_TAG}]\n---\n{WRAPPED_BODY}")  # fmt: skip
    write(root, "ok.md", "---\nid: ok-1\ntitle: Fine\nstatus: active\n---\n")
    return root


def run(*args: str, columns: int = 120) -> subprocess.CompletedProcess[str]:
    """The command into a pipe `columns` wide (pytest and xdist set COLUMNS, or not)."""
    env = {**os.environ, "COLUMNS": str(columns)}
    return subprocess.run(
        [str(SCRIPT), *args], capture_output=True, text=True, timeout=120, check=False, env=env
    )


def test_oversized_names_each_value_past_the_limit_a_write_enforces() -> None:
    task = Task(id="a", title="x" * 501, path="a.md", tags=("t",) * 501, assignee="y" * 256)
    assert oversized(task) == [
        Oversize("title", 501, MAX_TITLE_CHARS),
        Oversize("assignee", 256, 255),
        Oversize("tags", 501, MAX_LIST_ITEMS, "items"),
    ]
    assert oversized(Task(id="b", title="x" * 500, path="b.md", tags=("t" * 255,))) == []


def test_clip_marks_how_much_it_left_out() -> None:
    assert clip("x" * 1_010, 10) == "x" * 10 + "… (+1,000 characters)"


def test_check_reports_each_oversized_value_by_file_and_line_and_changes_nothing(
    big_root: Path,
) -> None:
    before = (big_root / "big.md").read_bytes()
    done = run("check", "--root", str(big_root))
    assert done.returncode == 1
    lines = [line.strip() for line in done.stdout.splitlines()]
    assert lines[0] == "checked 2 tasks in 2 files: 2 errors, 0 warnings"
    assert any(line.startswith("big.md:3 ") and "title has 100,000 characters" in line
               for line in lines)  # fmt: skip
    assert any(line.startswith("big.md:5 ") and "tags item has 300" in line for line in lines)
    assert (big_root / "big.md").read_bytes() == before


@pytest.mark.anyio
async def test_a_brief_row_shortens_an_oversized_title_and_the_full_view_keeps_it(
    big_root: Path,
) -> None:
    server = make_server(big_root)
    try:
        async with Client(server) as client:
            listed = await call(client, "list_tasks")
            full = await call(client, "get_task", task_id="big-1")
    finally:
        server.close()
    row = next(row for row in listed["tasks"] if row["id"] == "big-1")
    assert row["title"] == clip(HUGE_TITLE, MAX_TITLE_CHARS)
    assert row["title"].endswith("… (+99,500 characters)")
    assert len(json.dumps(listed)) < 2_000
    assert full["task"]["title"] == HUGE_TITLE


@pytest.mark.parametrize("command", [["show", "big-1"], ["ready"], ["tree"]])
def test_every_human_command_shows_an_oversized_title_shortened(
    big_root: Path, command: list[str]
) -> None:
    done = run(*command, "--root", str(big_root))
    assert done.returncode == 0, done.stderr
    words = " ".join(done.stdout.split())  # a table may wrap the marker
    assert "(+99,500 characters)" in words and HUGE_TITLE[:501] not in done.stdout
    assert len(done.stdout) < 3_000


def test_show_keeps_the_bodys_own_line_breaks(big_root: Path) -> None:
    done = run("show", "big-1", "--root", str(big_root))
    assert done.stdout.endswith(WRAPPED_BODY)
    narrow = run("show", "big-1", "--root", str(big_root), columns=80)  # wrapped at spaces only
    assert narrow.stdout.endswith(WRAPPED_BODY.replace("path: /", "path:\n/"))
    assert "(+45 characters)" in done.stdout  # the tag, shortened like any field
