"""Hostile tree shapes no file can use to take the tree down: frontmatter nested without
bound, names that are not UTF-8, folders the server may not read. Each is a load problem
of that path (with a line where there is one) and everything else is served."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import Client

from storage.repository import TaskRepository
from tests.conftest import write
from tests.tasks_server.conftest import call, make_server
from tests.tasks_server.test_cli import run

GOOD = "---\nid: {id}\ntitle: Good {id}\nstatus: active\n---\n"
DEEP = {
    "deep-block.md": "---\nid: h-deep\ntitle: T\nx:\n" + "- " * 400 + "1\n---\n",
    "deep-indent.md": "---\nid: h-indent\ntitle: T\nx:\n"
    + "".join(" " * n + "-\n" for n in range(1, 60))
    + "---\n",
    "deep-maps.md": "---\nid: h-maps\ntitle: T\nx: " + "{a: " * 100 + "1" + "}" * 100 + "\n---\n",
    "deep-crash.md": "---\nid: h-crash\ntitle: T\nx:\n" + "- " * 100_000 + "1\n---\n",
}
NOT_UTF8 = [b"p/bad\xff\xfe.md", b"bad\xff-folder/t.md"]


@pytest.fixture
def hostile_tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    write(root, "p/good.md", GOOD.format(id="good"))
    for name, text in DEEP.items():
        write(root, f"p/{name}", text)
    for raw in NOT_UTF8:
        path = os.fsencode(root) + b"/" + raw
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as file:
            file.write(GOOD.format(id="hidden").encode())
    return root


@pytest.mark.anyio
async def test_deep_files_and_bad_names_are_problems_and_the_rest_is_served(
    hostile_tree: Path,
) -> None:
    server = make_server(hostile_tree)
    try:
        async with Client(server) as client:
            stats = await call(client, "get_index_stats")
            assert (await call(client, "get_task", task_id="good"))["task"]["title"] == "Good good"
            listed = await call(client, "list_tasks", fields="full")
            await call(client, "update_task", task_id="good", status="blocked")
    finally:
        server.context.close()
    problems = {p["path"]: p["message"] for p in stats["problems"]}
    assert set(problems) == {
        *(f"p/{name}" for name in DEEP),
        "p/bad\\xff\\xfe.md",
        "bad\\xff-folder",
    }
    assert "nests deeper than 32 levels" in problems["p/deep-block.md"]
    assert [t["id"] for t in listed["tasks"]] == ["good"]
    reloaded = TaskRepository(hostile_tree).scan()  # the next start, with its cache
    assert [t.status for t in reloaded.tasks()] == ["blocked"]


def test_check_names_the_file_and_line_of_a_deep_value(hostile_tree: Path) -> None:
    done = run("check", "--root", str(hostile_tree))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "p/deep-block.md:4" in done.stdout and "p/deep-crash.md:5" in done.stdout


@pytest.fixture
def shared_tree() -> Iterator[Path]:
    """A tree another user can read, with one folder (like lost+found) they cannot."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        root.chmod(0o755)
        write(root, "p/good.md", GOOD.format(id="good"))
        write(root, "lost+found/x.md", GOOD.format(id="x"))
        (root / "p").chmod(0o755)
        (root / "lost+found").chmod(0o700 if os.geteuid() == 0 else 0o000)
        yield root


def _scan_as_nobody(root: Path) -> dict[str, object]:
    """Scan in a forked child that gave up root (the modules are loaded already)."""
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os.setgid(65534)
            os.setuid(65534)
            table = TaskRepository(root).scan()
            found = {"ids": [t.id for t in table.tasks()], "problems": table.problems()}
            os.write(writer, json.dumps(found, default=str).encode())
        finally:
            os._exit(0)
    os.close(writer)
    with os.fdopen(reader, "rb") as answer:
        data = answer.read()
    os.waitpid(pid, 0)
    return dict(json.loads(data))


def test_a_folder_the_server_may_not_read_is_a_problem_not_a_failed_start(
    shared_tree: Path,
) -> None:
    if os.geteuid() == 0:
        found = _scan_as_nobody(shared_tree)
    else:
        table = TaskRepository(shared_tree).scan()
        found = {"ids": [t.id for t in table.tasks()], "problems": table.problems()}
    assert found["ids"] == ["good"]
    assert "lost+found" in str(found["problems"]) and "Permission denied" in str(found["problems"])
