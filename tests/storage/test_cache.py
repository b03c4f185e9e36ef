"""The warm-start cache: unchanged files come from it, and a bad cache loses nothing."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from storage import cache
from storage.repository import TaskRepository
from tests.conftest import write

TASK = "---\nid: {id}\ntitle: {title}\nstatus: active\ncreated: 2026-01-02T03:04:05+01:00\n---\nB\n"


def tree(root: Path, count: int = 5) -> Path:
    for n in range(count):
        write(root, f"p/tasks/t{n}.md", TASK.format(id=f"t{n}", title=f"Task {n}"))
    write(root, "broken.md", "---\ntitle: [\n---\n")
    return root


def test_a_saved_cache_gives_back_every_task_and_problem_unchanged(tmp_path: Path) -> None:
    root = tree(tmp_path / "r")
    cold = TaskRepository(root).scan()
    cache.save(root.resolve(), cold.files.values())
    warm = TaskRepository(root).scan(cache.load(root.resolve()))
    assert warm.files == cold.files
    assert warm.problems() == cold.problems()


def test_only_files_whose_stamp_changed_are_read_again(tmp_path: Path) -> None:
    root = tree(tmp_path / "r").resolve()
    cache.save(root, TaskRepository(root).scan().files.values())
    edited = root / "p/tasks/t1.md"
    edited.write_text(TASK.format(id="t1", title="Edited by hand"))
    later = edited.stat().st_mtime_ns + 1_000_000_000
    os.utime(edited, ns=(later, later))
    cached = cache.load(root)
    warm = TaskRepository(root).scan(cached)
    reused = [path for path, result in warm.files.items() if cached.get(path) is result]
    assert sorted(reused) == sorted(set(cached) - {"p/tasks/t1.md"})
    assert warm.winner("t1").title == "Edited by hand"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "damage",
    [b"", b"not json", b'{"version": 999, "root": "x", "files": []}', b'{"version": 2}',
     b'{"version": 2, "root": "ROOT", "files": [["p/tasks/t0.md", [1, 2], [1, 2], null]]}'],
    ids=["empty", "not-json", "other-version", "no-files", "wrong-shape"],
)  # fmt: skip
def test_a_damaged_cache_means_a_full_read_and_loses_nothing(tmp_path: Path, damage: bytes) -> None:
    root = tree(tmp_path / "r").resolve()
    path = root / cache.CACHE_FILE
    path.parent.mkdir(parents=True)
    path.write_bytes(damage.replace(b"ROOT", str(root).encode()))
    assert cache.load(root) == {}
    assert len(TaskRepository(root).scan(cache.load(root)).tasks()) == 5


def test_a_cache_copied_with_its_tree_to_another_place_is_not_trusted(tmp_path: Path) -> None:
    first = tree(tmp_path / "first").resolve()
    cache.save(first, TaskRepository(first).scan().files.values())
    second = tmp_path / "second"
    shutil.copytree(first, second)
    assert cache.load(second.resolve()) == {}


def test_the_cache_is_not_read_as_a_task_file(tmp_path: Path) -> None:
    root = tree(tmp_path / "r").resolve()
    cache.save(root, TaskRepository(root).scan().files.values())
    assert json.loads((root / cache.CACHE_FILE).read_text())["version"] == cache.VERSION
    assert all(not p.startswith(".tasks-index") for p in TaskRepository(root).iter_paths())
