"""A tree read by a child while the server imports: each plain file's result as a cold read
gives it, taken once, under the same size limit, and no child left behind."""

from __future__ import annotations

from pathlib import Path

from storage import cache, early_read
from storage.repository import MAX_FILE_BYTES, TaskRepository


def test_a_read_begun_early_gives_each_plain_file_as_a_cold_read_does(early_tree: Path) -> None:
    assert early_read.start(early_tree, MAX_FILE_BYTES)
    assert early_read.wait(early_tree)
    taken = early_read.take(early_tree, MAX_FILE_BYTES)
    read = TaskRepository(early_tree).read_tree()
    plain = {
        r.path: r for r in read.results if r.path not in read.survey.links and cache.is_storable(r)
    }
    assert taken == plain
    assert "odd/bad-yaml.md" in taken and "odd/link.md" not in taken


def test_a_load_under_another_size_limit_takes_nothing(early_tree: Path) -> None:
    assert early_read.start(early_tree, MAX_FILE_BYTES)
    assert early_read.wait(early_tree)
    assert early_read.take(early_tree, 4096) == {}
    assert early_read.take(early_tree, MAX_FILE_BYTES) == {}  # taken once: the child is gone


def test_a_read_is_wanted_once_for_a_folder_without_a_cache(tmp_path: Path) -> None:
    assert early_read.wanted(tmp_path)
    assert not early_read.wanted(tmp_path / "missing")
    assert early_read.start(tmp_path, MAX_FILE_BYTES)
    assert not early_read.wanted(tmp_path)  # begun already
    assert early_read.take(tmp_path.resolve(), MAX_FILE_BYTES) == {}  # an empty tree
    assert early_read.wanted(tmp_path)
