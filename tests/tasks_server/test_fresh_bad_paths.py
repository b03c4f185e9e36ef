"""A path that cannot be read (a symlink loop, a FIFO, a socket, a link to a folder) is a load
problem of that path: the calls still answer, and the other changes of the same batch are
applied, whichever way the tree finds its changes."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import Client

from tasks_server.live import LiveTree
from tests.tasks_server.conftest import call, make_server

EDITED = "wx-6ca4a1a9"
MODES = {
    "kernel": {"watch": True},
    "thread": {"watch": True, "inotify": False},
    "walk": {"watch": False},
}


def symlink_loop(path: Path) -> None:
    path.symlink_to(path.name)


def folder_loop(path: Path) -> None:
    (path.parent / "spin").mkdir()
    (path.parent / "spin" / "back").symlink_to("..")  # a folder link: never followed
    path.symlink_to("spin/back/spin/back/" + path.name)


def fifo(path: Path) -> None:
    os.mkfifo(path)


def unix_socket(path: Path) -> None:
    with socket.socket(socket.AF_UNIX) as bound:
        bound.bind(str(path))


def link_to_folder(path: Path) -> None:
    path.symlink_to(".")


def dangling_link(path: Path) -> None:
    path.symlink_to("nowhere.md")


HOSTILE: dict[str, Callable[[Path], None]] = {
    "symlink loop": symlink_loop,
    "loop through a folder link": folder_loop,
    "fifo": fifo,
    "socket": unix_socket,
    "link to a folder": link_to_folder,
    "dangling link": dangling_link,
}


def edit(root: Path, tree: LiveTree, status: str) -> None:
    path = root / tree.table.files[tree.table.path_of(EDITED) or ""].path
    text = path.read_text()
    path.write_text(
        text.replace(f"status: {tree.index.require(EDITED).status}", f"status: {status}")
    )


@pytest.fixture(params=sorted(MODES))
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def open_tree(root: Path, mode: str) -> LiveTree:
    return LiveTree(root, **MODES[mode])  # type: ignore[arg-type]


@pytest.fixture
def loop_at_start(example_root: Path) -> Path:
    symlink_loop(example_root / "wx" / "tasks" / "loop.md")
    return example_root


def test_a_symlink_loop_found_at_start_does_not_stop_later_edits(
    loop_at_start: Path, mode: str
) -> None:
    tree = open_tree(loop_at_start, mode)
    try:
        for status in ("done", "review", "waiting"):
            edit(loop_at_start, tree, status)
            os.utime(loop_at_start / "wx" / "tasks", follow_symlinks=False)
            tree.refresh()
            if mode != "thread":  # the thread reports later; the rest must see it at once
                assert tree.index.require(EDITED).status == status
        assert "wx/tasks/loop.md" in {p.path for p in tree.table.problems()}
    finally:
        tree.close()


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_a_bad_path_made_with_an_edit_is_a_problem_and_the_edit_is_applied(
    example_root: Path, mode: str, kind: str
) -> None:
    tree = open_tree(example_root, mode)
    try:
        HOSTILE[kind](example_root / "wx" / "tasks" / "bad.md")
        edit(example_root, tree, "done")
        tree.refresh()
        if mode == "thread":
            while tree.index.require(EDITED).status != "done":
                assert tree.wait_for_changes(timeout=10)
                tree.refresh()
        edit(example_root, tree, "review")  # and the next batch, past the bad path again
        os.utime(example_root / "wx" / "tasks" / "bad.md", follow_symlinks=False)
        tree.refresh()
        if mode != "thread":
            assert tree.index.require(EDITED).status == "review"
    finally:
        tree.close()


@pytest.mark.anyio
@pytest.mark.parametrize("watch", [True, False])
async def test_a_served_tree_with_a_symlink_loop_answers_and_reports_it(
    loop_at_start: Path, watch: bool
) -> None:
    server = make_server(loop_at_start, watch=watch)
    try:
        async with Client(server) as client:
            task = await call(client, "get_task", task_id=EDITED)
            signals = await call(client, "get_structural_signals")
    finally:
        server.context.close()
    assert task["task"]["id"] == EDITED
    unparseable = {item["path"] for item in signals["unparseable_files"]}
    assert "wx/tasks/loop.md" in unparseable


def run_cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tasks_server", *args, "--root", str(root)],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip


def test_check_reports_a_symlink_loop_as_a_problem_of_that_file(loop_at_start: Path) -> None:
    done = run_cli(loop_at_start, "check")
    assert done.returncode == 1
    assert "wx/tasks/loop.md" in done.stdout
    assert "INTERNAL" not in done.stdout + done.stderr and "Traceback" not in done.stderr


def test_call_answers_beside_a_symlink_loop(loop_at_start: Path) -> None:
    done = run_cli(loop_at_start, "call", "get_task", "--args", f'{{"task_id": "{EDITED}"}}')
    assert done.returncode == 0, done.stdout + done.stderr
    assert '"success": true' in done.stdout
