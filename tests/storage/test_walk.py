"""The walk never raises for a folder it cannot list: not when opening it fails, and not
when its listing fails part-way (the case that escaped before: `--root /` crashed on a
folder under /proc that opens but refuses to be read)."""

from __future__ import annotations

import os
from pathlib import Path

from storage.walk import Skipped, walk

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
