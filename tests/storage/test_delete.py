"""A delete moves a task file into `.trash/`: durable as a one-file write (the folders it
changed fsynced, counted by name), and guarded like an update against an editor's save."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from storage.errors import Conflict, TaskNotFound
from storage.repository import TaskRepository, mtime_of
from tests.conftest import write

TASK = "---\nid: {id}\ntitle: {title}\nstatus: active\n---\nBody of {id}.\n"


@pytest.fixture
def synced(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[list[str]]:
    """What each fsync of this process names, relative to `tmp_path` (`.` for itself)."""
    root, names, real = tmp_path.resolve(), [], os.fsync

    def counted(fd: int) -> None:
        names.append(str(Path(os.readlink(f"/proc/self/fd/{fd}")).relative_to(root)))
        real(fd)

    monkeypatch.setattr(os, "fsync", counted)
    yield names


def test_a_delete_fsyncs_the_trash_folder_and_the_folder_the_file_left(
    tmp_path: Path, synced: list[str]
) -> None:
    write(tmp_path, "p/tasks/a.md", TASK.format(id="a", title="A"))
    write(tmp_path, "p/tasks/b.md", TASK.format(id="b", title="B"))
    repo = TaskRepository(tmp_path)
    repo.delete("p/tasks/a.md")
    synced.clear()
    assert repo.delete("p/tasks/b.md") == ".trash/p/tasks/b.md"
    assert synced == [".trash/p/tasks", "p/tasks"]


def test_the_first_delete_fsyncs_each_trash_folder_it_makes_into_its_parent(
    tmp_path: Path, synced: list[str]
) -> None:
    write(tmp_path, "p/tasks/a.md", TASK.format(id="a", title="A"))
    repo = TaskRepository(tmp_path)
    synced.clear()
    repo.delete("p/tasks/a.md")
    assert synced == [".", ".trash", ".trash/p", ".trash/p/tasks", "p/tasks"]
    assert (tmp_path / ".trash/p/tasks/a.md").exists()


def test_a_delete_based_on_an_old_read_is_refused_and_the_edit_stays_in_place(
    tmp_path: Path, synced: list[str]
) -> None:
    repo = TaskRepository(tmp_path)
    path = write(tmp_path, "a.md", TASK.format(id="a", title="Agent read this"))
    read_at = mtime_of(repo.read("a.md").stamp)  # type: ignore[union-attr]
    human = TASK.format(id="a", title="Human saved it since")
    path.write_text(human)
    later = path.stat().st_mtime_ns + 1_000_000_000
    os.utime(path, ns=(later, later))
    synced.clear()
    with pytest.raises(Conflict) as info:
        repo.delete("a.md", expected_modified=read_at)
    assert info.value.path == "a.md"
    assert path.read_text() == human
    assert not list(tmp_path.glob(".trash/*.md"))
    assert synced == []


def test_a_delete_with_the_current_modified_goes_through(tmp_path: Path) -> None:
    repo = TaskRepository(tmp_path)
    write(tmp_path, "a.md", TASK.format(id="a", title="A"))
    current = mtime_of(repo.read("a.md").stamp)  # type: ignore[union-attr]
    assert repo.delete("a.md", expected_modified=current) == ".trash/a.md"
    assert not (tmp_path / "a.md").exists()


def test_an_earlier_modified_than_the_files_is_a_conflict_too(tmp_path: Path) -> None:
    repo = TaskRepository(tmp_path)
    path = write(tmp_path, "a.md", TASK.format(id="a", title="A"))
    current = mtime_of(repo.read("a.md").stamp)  # type: ignore[union-attr]
    with pytest.raises(Conflict):
        repo.delete("a.md", expected_modified=current + timedelta(seconds=1))
    assert path.exists()


def test_a_delete_of_a_missing_file_is_task_not_found_and_makes_no_trash(tmp_path: Path) -> None:
    with pytest.raises(TaskNotFound):
        TaskRepository(tmp_path).delete("gone.md")
    assert not (tmp_path / ".trash").exists()
