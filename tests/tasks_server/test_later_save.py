"""A serving tree writes its warm-start cache after its first call, not before its first
answer; the write is complete and taken by the next start, and one never made only means
the next start reads every file."""

from __future__ import annotations

from pathlib import Path

from storage import cache
from tasks_server.live import LiveTree
from tests.tasks_server.test_live import chain, mark_done, same_as_fresh_load


def test_a_serving_tree_writes_no_cache_before_its_first_call(tmp_path: Path) -> None:
    chain(tmp_path)
    live = LiveTree(tmp_path, watch=False, save_later=True)
    assert not (tmp_path / cache.CACHE_FILE).exists()
    live.close()


def test_the_cache_written_after_the_first_call_is_whole_and_taken_by_the_next_start(
    tmp_path: Path,
) -> None:
    chain(tmp_path)
    first = LiveTree(tmp_path, watch=False, save_later=True)
    with first.snapshot():
        pass
    first.close()  # waits for the write the first call began
    second = LiveTree(tmp_path, watch=False)
    assert second.start_stats.files_cached == 2 and second.start_stats.files_read == 0
    assert second.start_stats.facts_taken and second.index.facts("b").is_blocked
    second.close()


def test_a_tree_closed_before_any_call_still_writes_its_cache(tmp_path: Path) -> None:
    chain(tmp_path)
    LiveTree(tmp_path, watch=False, save_later=True).close()
    second = LiveTree(tmp_path, watch=False)
    assert second.start_stats.files_read == 0 and second.start_stats.facts_taken
    second.close()


def test_a_change_applied_before_the_write_keeps_the_facts_out_and_the_next_start_right(
    tmp_path: Path,
) -> None:
    chain(tmp_path)
    first = LiveTree(tmp_path, watch=False, save_later=True)
    mark_done(tmp_path / "a.md")
    with first.snapshot():  # applies the edit: the loaded index's facts no longer fit
        assert first.index.facts("b").is_ready
    first.close()  # the load's cache without facts, then the edited table's over it
    second = LiveTree(tmp_path, watch=False)
    assert not second.start_stats.facts_taken
    assert second.index.facts("b").is_ready and same_as_fresh_load(second)
    second.close()


def test_a_start_whose_process_ended_before_the_write_reads_every_file(tmp_path: Path) -> None:
    chain(tmp_path)
    LiveTree(tmp_path, watch=False, save_later=True)  # never closed: as if killed
    second = LiveTree(tmp_path, watch=False)
    assert second.start_stats.files_read == 2 and same_as_fresh_load(second)
    second.close()
