"""The walk never raises for a folder it cannot list: not when opening it fails, and not
when its listing fails part-way (the case that escaped before: `--root /` crashed on a
folder under /proc that opens but refuses to be read)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from storage.reading import problem_result, read_task_file
from storage.walk import Skipped, read_stale, survey_of, walk

MAP_FILES = "/proc/1/map_files"
"""A real folder the kernel lets even root open but refuses to list (without
CAP_SYS_ADMIN): the one such folder this machine has. Where it lists, it holds no task
files, and the walk must then report nothing."""


def _lists_in_full(path: str) -> bool:
    try:
        with os.scandir(path) as entries:
            for _ in entries:
                pass
    except OSError:
        return False
    return True


def test_a_folder_whose_listing_fails_is_a_problem_of_the_walk_never_an_exception() -> None:
    found = list(walk("/proc/1", lambda relative: relative != "map_files/", lambda *_: None))
    problems = [(path, why) for path, why in found if isinstance(why, Skipped)]
    if _lists_in_full(MAP_FILES):
        assert problems == []
    else:
        assert [path for path, _ in problems] == ["map_files"]
        assert problems[0][1].kind == "unreadable"
        assert problems[0][1].why.startswith("folder not read")


def test_a_folder_removed_before_the_walk_reaches_it_is_left_out_quietly(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "t.md").write_text("---\ntitle: T\n---\n")
    (tmp_path / "gone").mkdir()

    def ignored(relative: str) -> bool:
        if relative == "a/":
            (tmp_path / "gone").rmdir()  # listed, then gone before its turn
        return False

    found = [path for path, _ in walk(str(tmp_path), ignored, lambda *_: None)]
    assert found == ["a/t.md"]


def _survey_after(tmp_path: Path, change: str) -> tuple[list[str], int]:
    """The stale paths and current count of a survey of `t.md` against its own read, after
    `change` happened to it between the listing and the stat."""
    (tmp_path / "t.md").write_text("---\ntitle: T\n---\n")
    read = read_task_file("t.md", str(tmp_path / "t.md"), 1 << 20)
    assert read is not None
    known = {"t.md": read}

    def ignored(_: str) -> bool:  # asked for the file after its folder was listed
        if change == "deleted":
            (tmp_path / "t.md").unlink()
        elif change == "rewritten":
            (tmp_path / "t.md").write_text("---\ntitle: Longer\n---\n")
        return False

    listed = walk(str(tmp_path), ignored, lambda *_: None)
    survey = survey_of(listed, known, [])
    return survey.stale, survey.current


def test_a_file_unchanged_since_its_read_is_kept_as_read(tmp_path: Path) -> None:
    assert _survey_after(tmp_path, "none") == ([], 1)


@pytest.mark.parametrize("change", ["rewritten", "deleted"])
def test_a_file_changed_or_deleted_after_the_listing_is_read_again(
    tmp_path: Path, change: str
) -> None:
    assert _survey_after(tmp_path, change) == (["t.md"], 0)


def test_a_survey_with_nothing_stale_reads_to_the_known_results_in_walk_order(
    tmp_path: Path,
) -> None:
    (tmp_path / "b").mkdir()
    known = {}
    for name in ("a.md", "b/c.md"):
        (tmp_path / name).write_text(f"---\ntitle: {name}\n---\n")
        result = read_task_file(name, str(tmp_path / name), 1 << 20)
        assert result is not None
        known[name] = result
    first = [problem_result("x.md", (0, 0), "unreadable", "a problem before the walk")]
    survey = survey_of(walk(str(tmp_path), lambda _: False, lambda *_: None), known, first)
    results = read_stale(survey, lambda _: None, str(tmp_path), 1 << 20)
    assert survey.stale == []
    assert [r.path for r in results] == ["x.md", "a.md", "b/c.md"]
    assert results[1] is known["a.md"] and results[2] is known["b/c.md"]
    results.clear()  # the survey's own list is not handed out
    assert len(survey.found) == 3
