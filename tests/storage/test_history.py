"""A state of the tree as a base with some files replaced: its file problems read among the
replaced files alone differ from the base's exactly as two whole tables' problems do. Two
commits' diff, kept once asked, answers the same again."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from storage.history import GitTree, TreeState
from storage.model import Task
from storage.table import FileResult, FileTable, Problem
from tests.gitrepo import commit_all, init

PATHS = st.sampled_from(["a.md", "b.md", "c.md", "d/e.md", "f.md", "g.md"])
CONTENT = st.sampled_from(["x", "y", "z", "not a task", "broken", "broken again"])
FILES = st.dictionaries(PATHS, CONTENT, max_size=6)
REPLACED = st.dictionaries(PATHS, st.one_of(st.none(), CONTENT), max_size=4)


def result(path: str, content: str) -> FileResult:
    if content.startswith("broken"):
        return FileResult(path, (0, 0), problem=Problem(path, "parse_error", content))
    if content == "not a task":
        return FileResult(path, (0, 0))
    return FileResult(path, (0, 0), Task(id=content, title=path, path=path))


def file_problems(table: FileTable) -> set[tuple[str, str]]:
    return {(p.path, p.message) for p in table.problems() if p.kind != "duplicate_id"}


@given(FILES, REPLACED)
def test_problems_read_among_the_replaced_files_differ_as_whole_tables_do(
    files: dict[str, str], replaced: dict[str, str | None]
) -> None:
    base = FileTable.of(result(p, c) for p, c in files.items())
    state = TreeState(base, {p: None if c is None else result(p, c) for p, c in replaced.items()})
    whole = FileTable.of(result(p, c) for p, c in ({**files, **replaced}).items() if c is not None)
    ids, paths = state.touched_ids(), set(replaced)
    in_base = TreeState(base, {})

    assert set(whole.duplicates().items()) ^ set(base.duplicates().items()) == set(
        state.duplicates_among(ids).items()
    ) ^ set(in_base.duplicates_among(ids).items())
    assert file_problems(whole) ^ file_problems(base) == set(
        state.problems_among(paths).items()
    ) ^ set(in_base.problems_among(paths).items())
    assert {i: state.winner(i) for i in ids} == {i: whole.winner(i) for i in ids}


def test_a_diff_between_two_commits_asked_again_is_the_same_and_its_own(tmp_path: Path) -> None:
    repo = init(tmp_path / "repo")
    (repo / "a.md").write_text("---\nid: a\ntitle: A\n---\n")
    first = commit_all(repo, "first")
    (repo / "a.md").write_text("---\nid: a\ntitle: A2\n---\n")
    (repo / "b.md").write_text("---\nid: b\ntitle: B\n---\n")
    second = commit_all(repo, "second")
    git = GitTree.open(repo)
    blob = git.run("rev-parse", f"{first}:a.md").decode().strip()

    asked = git.differences(first, second)
    asked["c.md"] = None  # the caller's copy: the kept diff is not changed
    assert git.differences(first, second) == {"a.md": blob, "b.md": None}
    assert GitTree.open(repo).differences(second, first) == {
        "a.md": git.run("rev-parse", f"{second}:a.md").decode().strip(),
        "b.md": git.run("rev-parse", f"{second}:b.md").decode().strip(),
    }
