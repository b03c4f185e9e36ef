"""What each write pays for durability, counted in fsync calls (not time), through a real
in-memory MCP client: a one-task write is its file and its folder; the journal (and its
record) only where several files change together."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tasks_server.cli import main
from tests.conftest import write
from tests.tasks_server.conftest import call, session_on

pytestmark = pytest.mark.anyio

TASK = "---\nid: {id}\ntitle: Task {id}\nstatus: active\n{extra}---\nBody.\n"
CHILD = "parent: up\norder: {n}\n"


def tree(root: Path) -> Path:
    write(root, "p/up.md", TASK.format(id="up", extra=""))
    for n in range(3):
        extra = CHILD.format(n=n * n)  # orders 0, 1, 4
        write(root, f"p/kid{n}.md", TASK.format(id=f"kid{n}", extra=extra))
    for name in ("one", "two", "three", "four", "five", "six", "seven"):
        write(root, f"p/{name}.md", TASK.format(id=name, extra=""))
    return root


@pytest.fixture
def synced(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[list[str]]:
    """What each fsync of this process names, relative to the tree (`.` for its root;
    temporary files as `<folder>/~tmp`, journal files as `<folder>/~journal`)."""
    root, names, real = (tmp_path / "tree").resolve(), [], os.fsync

    def counted(fd: int) -> None:
        names.append(_shown(Path(os.readlink(f"/proc/self/fd/{fd}")), root))
        real(fd)

    monkeypatch.setattr(os, "fsync", counted)
    yield names


def _shown(path: Path, root: Path) -> str:
    relative = path.relative_to(root)
    name = relative.name
    if name.endswith(".tasks-tmp"):
        return f"{relative.parent}/~tmp"
    if name.endswith(".tasks-journal") or name.endswith(".json"):
        return f"{relative.parent}/~journal"
    return str(relative)


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[Client]:
    async with session_on(tree(tmp_path / "tree")) as session:
        yield session


async def synced_by(client: Client, synced: list[str], tool: str, **args: Any) -> list[str]:
    synced.clear()
    await call(client, tool, **args)
    return list(synced)


ONE_FILE = ["p/~tmp", "p"]


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("update_task", {"task_id": "one", "priority": 1}),
        ("complete_task", {"task_id": "two"}),
        ("complete_tasks", {"task_ids": ["three"]}),
        ("claim_task", {"task_id": "four", "agent": "a", "lease_seconds": 60}),
        ("add_note", {"task_id": "five", "text": "seen", "author": "a"}),
        ("reorder_children", {"parent_id": "up", "order": ["kid0", "kid1", "kid2"]}),
    ],
)
async def test_a_write_of_one_file_fsyncs_that_file_and_its_folder_only(
    client: Client, synced: list[str], tool: str, args: dict[str, Any]
) -> None:
    assert await synced_by(client, synced, tool, **args) == ONE_FILE


async def test_a_new_task_fsyncs_its_file_and_its_folder_only(
    client: Client, synced: list[str]
) -> None:
    await call(client, "create_task", title="First", project="q")  # makes q/tasks
    found = await synced_by(client, synced, "create_task", title="New", project="q")
    assert found == ["q/tasks/~tmp", "q/tasks"]


async def test_a_new_task_in_a_new_folder_first_makes_each_new_folder_durable_once(
    client: Client, synced: list[str]
) -> None:
    found = await synced_by(client, synced, "create_task", title="New", project="q")
    # `q` into the root, `tasks` into `q`, then the file and its folder: a task fsynced into
    # a folder whose own name a power cut could take would be lost with it
    assert found == [".", "q", "q/tasks/~tmp", "q/tasks"]


async def test_releasing_a_claim_fsyncs_the_file_and_its_folder_only(
    client: Client, synced: list[str]
) -> None:
    await call(client, "claim_task", task_id="six", agent="a", lease_seconds=60)
    assert await synced_by(client, synced, "release_task", task_id="six", agent="a") == ONE_FILE


ONE_TASK_WRITES: list[tuple[str, dict[str, Any]]] = [
    ("create_task", {"title": "New", "project": "p"}),
    ("update_task", {"task_id": "one", "title": "Renamed", "body": "New body."}),
    ("claim_task", {"task_id": "two", "agent": "a", "lease_seconds": 60}),
    ("add_note", {"task_id": "two", "text": "seen", "author": "a"}),
    ("release_task", {"task_id": "two", "agent": "a"}),
    ("complete_task", {"task_id": "three"}),
    ("complete_tasks", {"task_ids": ["four"]}),
    ("delete_task", {"task_id": "five"}),
    ("delete_task", {"task_id": "six"}),
]


async def test_every_one_task_write_is_exactly_two_fsyncs_once_its_folders_exist(
    client: Client, synced: list[str]
) -> None:
    await call(client, "create_task", title="Maker", project="p")  # makes p/tasks
    await call(client, "delete_task", task_id="seven")  # makes .trash/p
    counts = [len(await synced_by(client, synced, tool, **args)) for tool, args in ONE_TASK_WRITES]
    assert counts == [2] * len(ONE_TASK_WRITES)


async def test_a_batch_of_several_files_pays_for_its_journal_once(
    client: Client, synced: list[str]
) -> None:
    found = await synced_by(client, synced, "complete_tasks", task_ids=["six", "seven"])
    # both files staged, their folder, the record and its folder (the commit point), then
    # the folder again once the swaps are in
    journal = ".tasks-index/journal"
    assert found == ["p/~journal", "p/~journal", "p", f"{journal}/~journal", journal, "p"]


async def test_reordering_children_already_in_place_writes_nothing(
    client: Client, synced: list[str], tmp_path: Path
) -> None:
    await call(client, "reorder_children", parent_id="up", order=["kid0", "kid1"])
    before = {p: p.stat().st_mtime_ns for p in (tmp_path / "tree/p").glob("kid*.md")}
    found = await synced_by(client, synced, "reorder_children", parent_id="up", order=["kid0"])
    assert found == []
    children = (await call(client, "get_children", task_id="up"))["tasks"]
    assert [c["id"] for c in children] == ["kid0", "kid1", "kid2"]
    assert "order: 2\n" in (tmp_path / "tree/p/kid2.md").read_text()
    assert {p: p.stat().st_mtime_ns for p in before} == before


async def test_a_delete_fsyncs_the_trash_folder_and_the_folder_the_file_left(
    client: Client, synced: list[str]
) -> None:
    first = await synced_by(client, synced, "delete_task", task_id="six")
    assert first == [".", ".trash", ".trash/p", "p"]  # the new trash folders, made durable
    assert await synced_by(client, synced, "delete_task", task_id="seven") == [".trash/p", "p"]


def test_the_new_command_fsyncs_its_file_and_its_folder_only(
    synced: list[str], tmp_path: Path
) -> None:
    """A whole `tasks-server new` process, start to exit: the warm-start cache it saves on
    the way out is not fsynced (any damage to it only means a full read)."""
    root = tree(tmp_path / "tree")
    assert main(["new", "First", "--root", str(root), "--project", "p"]) == 0  # makes p/tasks
    synced.clear()
    assert main(["new", "Second", "--root", str(root), "--project", "p"]) == 0
    assert synced == ["p/tasks/~tmp", "p/tasks"]
    assert (root / ".tasks-index" / "files.jsonl").is_file()  # the cache was saved


@pytest.fixture
def read(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[list[str]]:
    """What each read of a file under the tree names, as `synced` names them."""
    root, names, real = (tmp_path / "tree").resolve(), [], os.read

    def counted(fd: int, size: int) -> bytes:
        path = Path(os.readlink(f"/proc/self/fd/{fd}"))
        if path.is_relative_to(root):
            names.append(_shown(path, root))
        return real(fd, size)

    monkeypatch.setattr(os, "read", counted)
    yield names


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("update_task", {"task_id": "one", "priority": 1}),
        ("complete_task", {"task_id": "one"}),
        ("claim_task", {"task_id": "one", "agent": "a", "lease_seconds": 60}),
        ("add_note", {"task_id": "one", "text": "seen", "author": "a"}),
    ],
)
async def test_a_write_of_one_file_reads_it_once_then_the_guard_looks_before_and_after_the_swap(
    client: Client, read: list[str], tool: str, args: dict[str, Any]
) -> None:
    read.clear()
    await call(client, tool, **args)
    # the read under the file's lock (parsed once), the guard's look at the file just before
    # the swap, and its look at what the swap displaced (now under the temporary name)
    assert read == ["p/one.md", "p/one.md", "p/~tmp"]
