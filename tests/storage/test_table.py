"""The file table: a whole load at once gives the same table as the files one by one."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from storage.model import Task
from storage.reading import changed_of
from storage.table import Delta, FileResult, FileTable, mark_of, mark_of_stat

PATHS = st.sampled_from(["a.md", "b.md", "c.md", "d/e.md", "f.md"])
IDS = st.sampled_from(["x", "y", "z", None])
FILES = st.lists(st.tuples(PATHS, IDS, st.integers(0, 3)), max_size=12)


def result(path: str, task_id: str | None, version: int) -> FileResult:
    task = Task(id=task_id, title=f"v{version}", path=path) if task_id else None
    return FileResult.of(path, (version, 1), task)


@given(FILES)
def test_a_table_built_at_once_equals_one_built_file_by_file(
    files: list[tuple[str, str | None, int]],
) -> None:
    results = [result(*file) for file in files]
    one_by_one = FileTable()
    for each in results:
        one_by_one.put(each)
    at_once = FileTable.of(results)
    assert at_once.files == one_by_one.files
    assert at_once.duplicates() == one_by_one.duplicates()
    assert sorted(at_once.tasks(), key=repr) == sorted(one_by_one.tasks(), key=repr)
    assert at_once.problems() == one_by_one.problems()


def test_the_first_path_wins_a_duplicate_id_whatever_the_load_order() -> None:
    table = FileTable.of([result("b.md", "x", 0), result("a.md", "x", 0)])
    assert table.path_of("x") == "a.md"
    assert table.duplicates() == {"x": ("a.md", "b.md")}


def test_both_files_of_a_duplicate_id_dropped_in_one_change_remove_the_id() -> None:
    twins = [FileResult.of(p, (1, 1), Task(id="dup", title=p, path=p)) for p in ("a.md", "b.md")]
    table = FileTable.of(twins)
    delta = Delta()
    delta.extend(table.drop("a.md"))  # b.md's task now holds the id: upserted
    delta.extend(table.drop("b.md"))  # then it goes too: the removal is the last word
    assert ([t.id for t in delta.upserted], delta.removed) == ([], ["dup"])
    delta.extend(table.put(twins[0]))  # and back again
    assert ([t.path for t in delta.upserted], delta.removed) == (["a.md"], [])


STEPS = st.lists(st.tuples(PATHS, IDS, st.integers(0, 3), st.booleans()), max_size=20)


@given(STEPS)
def test_after_any_puts_and_drops_each_id_is_held_by_its_first_path(
    steps: list[tuple[str, str | None, int, bool]],
) -> None:
    table = FileTable()
    model: dict[str, str | None] = {}  # path -> the id its file holds
    for path, task_id, version, dropped in steps:
        if dropped:
            table.drop(path)
            model.pop(path, None)
        else:
            table.put(result(path, task_id, version))
            model[path] = task_id
    claims: dict[str, list[str]] = {}
    for path, task_id in sorted(model.items()):
        if task_id is not None:
            claims.setdefault(task_id, []).append(path)
    for task_id in ("x", "y", "z"):
        paths = claims.get(task_id, [])
        assert table.paths_of(task_id) == tuple(paths)
        assert table.path_of(task_id) == (paths[0] if paths else None)
        winner = table.winner(task_id)
        assert (winner.path if winner else None) == table.path_of(task_id)
    assert table.duplicates() == {i: tuple(p) for i, p in sorted(claims.items()) if len(p) > 1}
    assert sorted(t.path for t in table.tasks()) == sorted(p[0] for p in claims.values())


def test_a_mark_taken_from_a_stat_is_the_mark_of_its_stamp_and_change(tmp_path: Path) -> None:
    (tmp_path / "t.md").write_text("x")
    st = os.stat(tmp_path / "t.md")
    assert mark_of_stat(st) == mark_of((st.st_mtime_ns, st.st_size), changed_of(st))
