"""A read split with a forked child gives every file's result exactly as one process
reading them all, in the same walk order, whatever the child sends back or fails to."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bench.generate import generate_tree
from bench.procs import children
from storage import forked_read
from storage.forked_read import read_all, read_forked
from storage.importers import import_backlog
from storage.model import Task
from storage.reading import read_task_file
from storage.repository import TaskRepository
from storage.table import FileResult
from tests.conftest import datasets, need_datasets, write

LIMIT = 1 << 20


def reader(root: Path) -> Callable[[str], FileResult | None]:
    def read_one(relative: str) -> FileResult | None:
        return read_task_file(relative, f"{root}/{relative}", LIMIT)

    return read_one


def paths_of(root: Path) -> list[str]:
    return TaskRepository(root).survey({}).stale


def add_odd_files(root: Path) -> None:
    """Problems, and a task the cache cannot hold exactly (the child sends it not)."""
    write(root, "odd/bad-yaml.md", "---\nid: [unclosed\n---\n")
    write(root, "odd/no-id.md", "---\ntitle: no id\n---\nbody\n")
    write(root, "odd/int-key.md", "---\nid: ik\ntitle: T\nstatus: todo\nx: {1: a}\n---\n")
    write(root, "odd/big.md", "---\nid: big\n---\n" + "x" * (LIMIT + 1))


def assert_same_as_serial(root: Path) -> None:
    paths = paths_of(root)
    read_one = reader(root)
    forked = read_forked(paths, read_one, root)
    assert list(forked) != [] and set(forked) == set(paths)
    assert {p: forked[p] for p in paths} == {p: read_one(p) for p in paths}


def test_a_forked_read_equals_a_serial_one_on_a_generated_tree_with_problems(
    tmp_path: Path,
) -> None:
    generate_tree(tmp_path, 200, seed=5)
    add_odd_files(tmp_path)
    assert_same_as_serial(tmp_path)


@datasets
def test_a_forked_read_equals_a_serial_one_on_an_imported_dataset(tmp_path: Path) -> None:
    source = need_datasets() / "backlog" / "ChronoVortex07__taskwright"
    import_backlog(source, TaskRepository(tmp_path), project="taskwright")
    assert_same_as_serial(tmp_path)


def test_a_child_that_fails_sends_nothing_and_this_process_reads_every_file(
    tmp_path: Path,
) -> None:
    generate_tree(tmp_path, 40, seed=6)
    parent, read_one = os.getpid(), reader(tmp_path)

    def dies_in_the_child(relative: str) -> FileResult | None:
        if os.getpid() != parent:
            raise RuntimeError("the child fails")
        return read_one(relative)

    paths = paths_of(tmp_path)
    assert read_forked(paths, dies_in_the_child, tmp_path) == {p: read_one(p) for p in paths}


def test_a_file_gone_since_the_walk_reads_as_none(tmp_path: Path) -> None:
    generate_tree(tmp_path, 10, seed=7)
    paths = paths_of(tmp_path)
    (tmp_path / paths[-1]).unlink()
    assert read_forked(paths, reader(tmp_path), tmp_path)[paths[-1]] is None


def test_a_small_read_stays_in_this_process(tmp_path: Path) -> None:
    generate_tree(tmp_path, 10, seed=8)
    paths, read_one = paths_of(tmp_path), reader(tmp_path)
    assert read_all(paths, read_one, tmp_path) == {p: read_one(p) for p in paths}


def test_a_cold_load_of_a_tree_read_by_two_processes_equals_the_tree(tmp_path: Path) -> None:
    generate_tree(tmp_path, 100, seed=9)
    add_odd_files(tmp_path)
    read = TaskRepository(tmp_path).read_tree()
    paths = paths_of(tmp_path)
    forked = read_forked(paths, reader(tmp_path), tmp_path)
    assert read.results == [forked[p] for p in paths if forked[p] is not None]


def test_a_read_interrupted_here_leaves_no_child_behind(tmp_path: Path) -> None:
    generate_tree(tmp_path, 20, seed=10)
    parent, read_one = os.getpid(), reader(tmp_path)

    def fails_here(relative: str) -> FileResult | None:
        if os.getpid() == parent:
            raise KeyboardInterrupt
        return read_one(relative)

    before = children()
    with pytest.raises(KeyboardInterrupt):
        read_forked(paths_of(tmp_path), fails_here, tmp_path)
    assert children() == before  # killed and reaped: not even a zombie


def read_here(
    root: Path, seen: list[str], hold: Callable[[str], None] = lambda _: None
) -> Callable[[str], FileResult | None]:
    """`reader(root)` that notes each path it reads in this process (the child's notes
    stay in the child's copy of `seen`), calling `hold(path)` first in either process."""
    read_one, parent = reader(root), os.getpid()

    def noted(relative: str) -> FileResult | None:
        hold(relative)
        if os.getpid() == parent:
            seen.append(relative)
        return read_one(relative)

    return noted


@pytest.fixture
def pipe() -> Iterator[tuple[int, int]]:
    """A pipe (read end, write end) both processes hold, closed after the test."""
    ends = os.pipe()
    yield ends
    for end in ends:
        os.close(end)


def child_first(paths: list[str], pipe: tuple[int, int]) -> Callable[[str], None]:
    """A `hold` under which this process reads its last own path only once the child has
    read all of its own: nothing is left for this process to take back."""
    half, (done_r, done_w), parent = len(paths) // 2, pipe, os.getpid()

    def hold(relative: str) -> None:
        if relative == paths[half - 1] and os.getpid() == parent:
            os.read(done_r, 1)
        elif relative == paths[-1]:
            os.write(done_w, b".")

    return hold


def assert_the_child_sends_its_half(
    root: Path, pipe: tuple[int, int], size: int, seed: int
) -> None:
    """On a generated tree, this process reads only its own half (the child reads all of
    its own first), and the results are a serial read's."""
    generate_tree(root, size, seed=seed)
    paths, seen = paths_of(root), list[str]()
    forked = read_forked(paths, read_here(root, seen, child_first(paths, pipe)), root)
    assert seen == paths[: len(paths) // 2]
    assert forked == {p: reader(root)(p) for p in paths}


def test_the_childs_half_comes_back_from_the_child_not_read_again(
    tmp_path: Path, pipe: tuple[int, int]
) -> None:
    assert_the_child_sends_its_half(tmp_path, pipe, 200, seed=8)


def test_a_slow_child_leaves_this_process_its_paths_from_the_end(
    tmp_path: Path, pipe: tuple[int, int]
) -> None:
    """The child holds at its first path until this process has taken back every other
    one of its paths: this process reads them from the end, and stops at the child's."""
    generate_tree(tmp_path, 120, seed=13)
    paths, seen = paths_of(tmp_path), list[str]()
    theirs = paths[len(paths) // 2 :]
    (go_r, go_w), parent = pipe, os.getpid()

    def hold(relative: str) -> None:
        if relative == theirs[0] and os.getpid() != parent:
            os.read(go_r, 1)  # the child waits here
        elif relative == theirs[1] and os.getpid() == parent:
            os.write(go_w, b".")  # the last path this process takes back

    forked = read_forked(paths, read_here(tmp_path, seen, hold), tmp_path)
    assert seen == paths[: len(paths) // 2] + theirs[:0:-1]
    assert forked == {p: reader(tmp_path)(p) for p in paths}


def test_without_memory_files_the_child_writes_to_a_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pipe: tuple[int, int]
) -> None:
    monkeypatch.delattr(os, "memfd_create", raising=False)
    assert_the_child_sends_its_half(tmp_path, pipe, 120, seed=9)


def test_a_child_sending_many_short_lines_gives_every_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(forked_read, "CHILD_ROWS", 3)
    generate_tree(tmp_path, 60, seed=11)
    add_odd_files(tmp_path)
    assert_same_as_serial(tmp_path)


def test_lines_from_the_child_that_do_not_decode_are_read_here_and_no_child_is_left(
    tmp_path: Path,
) -> None:
    generate_tree(tmp_path, 30, seed=12)
    read_one = reader(tmp_path)

    def elsewhere(relative: str) -> FileResult | None:
        """A result whose task names another file: a cache line of it does not decode."""
        result = read_one(relative)
        assert result is not None and result.task is not None
        return FileResult.of(relative, result.stamp, Task(result.task.id, "T", "other.md"))

    paths, before = paths_of(tmp_path), children()
    assert read_forked(paths, elsewhere, tmp_path) == {p: elsewhere(p) for p in paths}
    assert children() == before
