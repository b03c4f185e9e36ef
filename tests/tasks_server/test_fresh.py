"""Read-your-writes across processes: a file change completed before a call starts is in that
call's answer, with no sleep and no waiting for a watcher.

The writers are real processes (an editor-like script, and a second `tasks_server serve`);
each trial's change is made and acknowledged, then the first server is asked at once.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tasks_server.edge.server import TasksServer
from tests.tasks_server.conftest import call, make_server

TASK_ID = "wx-6ca4a1a9"
TRIALS = 40
# Same-length statuses on purpose: a rewrite may keep the file's size and mtime tick.
STATUSES = ("review", "active", "done", "in_progress", "active", "waiting")

EDITOR = r"""
import os, sys
for line in sys.stdin:
    how, path, old, new = line.split()
    text = open(path, encoding="utf-8").read().replace("status: " + old, "status: " + new)
    if how == "inplace":
        with open(path, "r+", encoding="utf-8") as handle:
            handle.write(text)
            handle.truncate()
    else:
        temp = os.path.join(os.path.dirname(path), ".editor.swp")
        with open(temp, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temp, path)
    print("ok", flush=True)
"""


class Editor:
    """A separate process that rewrites a file when told, and says when it is done."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", EDITOR],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip

    def rewrite(self, how: str, path: Path, old: str, new: str) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(f"{how} {path} {old} {new}\n")
        self.proc.stdin.flush()
        assert self.proc.stdout.readline() == "ok\n"

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=10)
        assert self.proc.stdout is not None
        self.proc.stdout.close()


@pytest.fixture
def editor() -> Iterator[Editor]:
    process = Editor()
    yield process
    process.close()


@pytest.fixture
def watched_server(example_root: Path) -> Iterator[TasksServer]:
    built = make_server(example_root, watch=True)
    yield built
    built.context.close()


@pytest.fixture
async def first(watched_server: TasksServer) -> AsyncIterator[Client]:
    async with Client(watched_server) as session:
        yield session


async def status_of(client: Client, task_id: str = TASK_ID) -> str:
    return str((await call(client, "get_task", task_id=task_id))["task"]["status"])


def trial_statuses() -> Iterator[tuple[str, str]]:
    """(old, new) for each trial: every trial changes the file."""
    for trial in range(TRIALS):
        yield STATUSES[trial % len(STATUSES)], STATUSES[(trial + 1) % len(STATUSES)]


@pytest.mark.anyio
@pytest.mark.parametrize("how", ["inplace", "rename"])
async def test_an_edit_by_another_process_is_in_the_very_next_answer(
    first: Client, editor: Editor, example_root: Path, how: str
) -> None:
    path = example_root / (await call(first, "get_task", task_id=TASK_ID))["task"]["path"]
    editor.rewrite(how, path, "active", STATUSES[0])
    stale = 0
    for old, new in trial_statuses():
        editor.rewrite(how, path, old, new)
        stale += await status_of(first) != new
    assert stale == 0, f"{stale} of {TRIALS} answers were stale"


def serve_params(root: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "tasks_server", "serve", "--root", str(root)],
        env=dict(os.environ),
    )


@pytest.mark.anyio
async def test_a_write_acknowledged_by_another_server_process_is_in_the_next_answer(
    first: Client, example_root: Path
) -> None:
    stale = 0
    async with Client(serve_params(example_root)) as second:
        for _, new in trial_statuses():
            await call(second, "update_task", task_id=TASK_ID, status=new)
            stale += await status_of(first) != new
    assert stale == 0, f"{stale} of {TRIALS} answers were stale"


@pytest.mark.anyio
async def test_a_task_created_by_another_server_process_is_found_at_once(
    first: Client, example_root: Path
) -> None:
    missing = 0
    async with Client(serve_params(example_root)) as second:
        for trial in range(10):
            made = await call(second, "create_task", title=f"Made elsewhere {trial}", project="wx")
            found = await first.call_tool("get_task", {"task_id": made["task"]["id"]})
            missing += bool(found.is_error)
    assert missing == 0, f"{missing} of 10 new tasks were not found"


def git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        cwd=cwd, check=True, capture_output=True, timeout=60,
    )  # fmt: skip


@pytest.fixture
def upstream(example_root: Path, tmp_path: Path) -> Path:
    """The served tree as a git clone of `upstream`, where another agent commits."""
    git(example_root, "init", "-q", "-b", "main")
    git(example_root, "add", "-A")
    git(example_root, "commit", "-q", "-m", "tree")
    other = tmp_path / "upstream"
    git(tmp_path, "clone", "-q", str(example_root), str(other))
    git(example_root, "remote", "add", "up", str(other))
    return other


@pytest.mark.anyio
async def test_a_git_pull_is_in_the_very_next_answer(
    first: Client, example_root: Path, upstream: Path
) -> None:
    relative = (await call(first, "get_task", task_id=TASK_ID))["task"]["path"]
    stale, old = 0, "active"
    for new in STATUSES * 2:
        path = upstream / relative
        path.write_text(path.read_text().replace("status: " + old, "status: " + new))
        old = new
        git(upstream, "commit", "-q", "-am", new)
        git(example_root, "pull", "-q", "--ff-only", "up", "main")
        stale += await status_of(first) != new
    assert stale == 0, f"{stale} of {len(STATUSES) * 2} answers after a pull were stale"
