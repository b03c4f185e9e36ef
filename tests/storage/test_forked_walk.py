"""A survey made from a forked child's walk is the survey of a serial walk: the same files
found, stale, linked and skipped, in the same order; whatever the child does (fails, is
killed, sends what does not decode), the caller gets that survey, and no child outlives
its block."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator
from pathlib import Path

import msgspec
import pytest

from bench.generate import generate_tree
from bench.procs import children
from storage import cache
from storage.forked_walk import (
    FORK_AT_BYTES,
    collect,
    fork_walk,
    survey_of_marks,
    walk_ahead,
    walk_marks,
    walked_of,
)
from storage.forking import Child
from storage.reading import read_task_file
from storage.repository import TaskRepository
from storage.table import FileResult
from storage.temps import TEMP_SUFFIX
from storage.walk import Survey, survey_of, walk
from tests.conftest import write

NOT_UTF8_FILE = os.fsdecode(b"p/bad-\xff.md")
NOT_UTF8_FOLDER = os.fsdecode(b"dir-\xfe")
STRAY = f"p/.a.md.0123abcd{TEMP_SUFFIX}"
"""A temporary file no writer holds: the walk hands it to the repository's sweep."""


def _nothing_ignored(_: str) -> bool:
    return False


@pytest.fixture
def changed_tree(tmp_path: Path) -> Iterator[tuple[TaskRepository, dict[str, FileResult]]]:
    """A tree with a cache of it, then changed: a file rewritten, new files, a symlinked
    file, a folder chmod 000, names that are not UTF-8 and a stray temporary file."""
    generate_tree(tmp_path, 30, seed=11)
    write(tmp_path, "p/a.md", "---\nid: a\ntitle: A\n---\n")
    repository = TaskRepository(tmp_path)
    cache.save(tmp_path, repository.read_tree().results)
    known = cache.load(tmp_path)
    write(tmp_path, "p/a.md", "---\nid: a\ntitle: A rewritten\n---\n")
    write(tmp_path, "p/new.md", "---\nid: new\ntitle: New\n---\n")
    (tmp_path / "p/link.md").symlink_to(tmp_path / "p/a.md")
    write(tmp_path, "locked/t.md", "---\nid: locked\n---\n").parent.chmod(0)
    write(tmp_path, NOT_UTF8_FILE, "---\nid: bad\n---\n")
    write(tmp_path, f"{NOT_UTF8_FOLDER}/t.md", "---\nid: in-bad\n---\n")
    write(tmp_path, STRAY, "half a write")
    try:
        yield repository, known
    finally:
        (tmp_path / "locked").chmod(0o755)


def forked(root: Path | str, ignored: Callable[[str], bool]) -> Child:
    ahead = fork_walk(str(root), ignored)
    assert ahead is not None
    return ahead


def _forked_survey(repository: TaskRepository, known: dict[str, FileResult]) -> Survey:
    with forked(repository.root, repository.scope.ignored) as ahead:
        return repository.survey(known, ahead)


def test_a_forked_survey_equals_the_serial_one_on_a_changed_tree(
    changed_tree: tuple[TaskRepository, dict[str, FileResult]],
) -> None:
    repository, known = changed_tree
    forked = _forked_survey(repository, known)
    serial = repository.survey(known)
    assert forked == serial
    assert forked.forked and not serial.forked  # the child's walk, not a fallback
    assert serial.stale and serial.links == frozenset({"p/link.md"}) and serial.current > 1
    kinds = {
        item.problem.kind for item in serial.found if isinstance(item, FileResult) and item.problem
    }
    assert "not_utf8" in kinds


def test_the_child_sweeps_no_temporary_file_and_the_survey_sweeps_it_after(
    changed_tree: tuple[TaskRepository, dict[str, FileResult]],
) -> None:
    repository, known = changed_tree
    walked = walk_marks(str(repository.root), repository.scope.ignored)
    assert (os.fsencode(STRAY), os.fsencode(Path(STRAY).name)) in walked.temps
    assert (repository.root / STRAY).exists()
    _forked_survey(repository, known)
    assert not (repository.root / STRAY).exists()


def test_the_marks_sent_back_decode_to_the_same_survey(
    changed_tree: tuple[TaskRepository, dict[str, FileResult]],
) -> None:
    repository, known = changed_tree
    walked = walked_of(msgspec.msgpack.encode(walk_marks(str(repository.root), _nothing_ignored)))
    assert walked is not None
    serial = survey_of(walk(str(repository.root), _nothing_ignored, lambda *_: None), known, [])
    assert survey_of_marks(walked, known, []) == serial


def test_current_results_are_the_known_objects_themselves(tmp_path: Path) -> None:
    generate_tree(tmp_path, 20, seed=12)
    repository = TaskRepository(tmp_path)
    known = {result.path: result for result in repository.read_tree().results}
    survey = _forked_survey(repository, known)
    assert survey == repository.survey(known) and survey.forked
    assert all(item is known[item.path] for item in survey.found if not isinstance(item, str))


def test_an_unlistable_folder_is_skipped_alike_by_a_forked_walk() -> None:
    def ignored(relative: str) -> bool:
        return relative != "map_files/"

    with forked("/proc/1", ignored) as ahead:
        walked = collect(ahead)
    assert walked is not None
    serial = survey_of(walk("/proc/1", ignored, lambda *_: None), {}, [])
    assert survey_of_marks(walked, {}, []) == serial


@pytest.mark.parametrize("change", ["rewritten", "deleted"])
def test_a_file_changed_or_deleted_after_the_childs_listing_is_read_again(
    tmp_path: Path, change: str
) -> None:
    write(tmp_path, "t.md", "---\ntitle: T\n---\n")
    read = read_task_file("t.md", str(tmp_path / "t.md"), 1 << 20)
    assert read is not None

    def ignored(_: str) -> bool:  # asked, in the child, for the file after its listing
        if change == "deleted":
            (tmp_path / "t.md").unlink()
        else:
            write(tmp_path, "t.md", "---\ntitle: Longer\n---\n")
        return False

    with forked(tmp_path, ignored) as ahead:
        walked = collect(ahead)
    assert walked is not None
    survey = survey_of_marks(walked, {"t.md": read}, [])
    assert (survey.stale, survey.current) == (["t.md"], 0)


def test_a_child_that_fails_leaves_the_caller_to_walk_alone_with_the_same_survey(
    changed_tree: tuple[TaskRepository, dict[str, FileResult]],
) -> None:
    repository, known = changed_tree
    parent = os.getpid()

    def fails_in_the_child(_: str) -> bool:
        if os.getpid() != parent:
            raise RuntimeError("the child fails")
        return False

    with forked(repository.root, fails_in_the_child) as ahead:
        survey = repository.survey(known, ahead)
    with forked(repository.root, fails_in_the_child) as ahead:
        assert collect(ahead) is None
    assert survey == repository.survey(known) and not survey.forked


@pytest.fixture
def stuck() -> Iterator[Callable[[str], bool]]:
    """An ignore rule that, in a child, waits for a byte never written: a child walking
    with it runs until it is killed."""
    parent = os.getpid()
    read_end, write_end = os.pipe()

    def waits_in_the_child(_: str) -> bool:
        if os.getpid() != parent:
            os.read(read_end, 1)
        return False

    yield waits_in_the_child
    os.close(read_end)
    os.close(write_end)


def test_a_killed_child_sends_nothing(tmp_path: Path, stuck: Callable[[str], bool]) -> None:
    generate_tree(tmp_path, 5, seed=13)
    with forked(tmp_path, stuck) as ahead:
        assert ahead.pid is not None
        os.kill(ahead.pid, signal.SIGKILL)
        assert collect(ahead) is None


@pytest.mark.parametrize("data", [b"", b"\xc1", b"\x94\x91\xa0\x91\xc4\x01S\x90\x90"])
def test_bytes_that_are_not_a_whole_walk_decode_to_nothing(data: bytes) -> None:
    assert walked_of(data) is None  # not msgpack; not a walk; a skipped mark, no path


def test_a_block_interrupted_before_the_collect_leaves_no_child(
    tmp_path: Path, stuck: Callable[[str], bool]
) -> None:
    generate_tree(tmp_path, 5, seed=14)
    before = children()
    with pytest.raises(KeyboardInterrupt), forked(tmp_path, stuck) as ahead:
        assert ahead.pid in children()
        raise KeyboardInterrupt
    assert children() == before  # killed and reaped: not even a zombie


def test_a_small_cache_walks_in_this_process(tmp_path: Path) -> None:
    with walk_ahead(str(tmp_path), _nothing_ignored, FORK_AT_BYTES - 1) as ahead:
        assert ahead is None


def test_a_read_tree_walked_ahead_equals_a_serial_one(
    changed_tree: tuple[TaskRepository, dict[str, FileResult]],
) -> None:
    repository, known = changed_tree
    with repository.walking_ahead(FORK_AT_BYTES) as ahead:  # forks when a core is free
        forked = repository.read_tree(known, ahead)
    serial = repository.read_tree(known)
    assert (forked.survey, forked.results) == (serial.survey, serial.results)
