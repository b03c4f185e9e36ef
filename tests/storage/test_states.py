"""A state of the tree as a base with some files replaced: its file problems read among the
replaced files alone differ from the base's exactly as two whole tables' problems do.

The tree at a commit seen from the file table: brought up to date from the table's journal,
it stays what a whole comparison of the table with the commit finds, through edits, reverts,
new files, deletions and `.gitignore` edits the table never sees."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from storage.history import GitTree
from storage.model import Task
from storage.repository import TaskRepository
from storage.states import TreeState, disk_tree_at
from storage.table import FileResult, FileTable, Problem
from tests.gitrepo import commit_all, init

PATHS = st.sampled_from(["a.md", "b.md", "c.md", "d/e.md", "f.md", "g.md"])
CONTENT = st.sampled_from(["x", "y", "z", "not a task", "broken", "broken again"])
FILES = st.dictionaries(PATHS, CONTENT, max_size=6)
REPLACED = st.dictionaries(PATHS, st.one_of(st.none(), CONTENT), max_size=4)


def made(path: str, content: str) -> FileResult:
    if content.startswith("broken"):
        return FileResult.of(path, (0, 0), problem=Problem(path, "parse_error", content))
    if content == "not a task":
        return FileResult.of(path, (0, 0))
    return FileResult.of(path, (0, 0), Task(id=content, title=path, path=path))


def file_problems(table: FileTable) -> set[tuple[str, str]]:
    return {(p.path, p.message) for p in table.problems() if p.kind != "duplicate_id"}


@given(FILES, REPLACED)
def test_problems_read_among_the_replaced_files_differ_as_whole_tables_do(
    files: dict[str, str], replaced: dict[str, str | None]
) -> None:
    base = FileTable.of(made(p, c) for p, c in files.items())
    state = TreeState(base, {p: None if c is None else made(p, c) for p, c in replaced.items()})
    whole = FileTable.of(made(p, c) for p, c in ({**files, **replaced}).items() if c is not None)
    ids, paths = state.touched_ids(), set(replaced)
    in_base = TreeState(base, {})

    assert set(whole.duplicates().items()) ^ set(base.duplicates().items()) == set(
        state.duplicates_among(ids).items()
    ) ^ set(in_base.duplicates_among(ids).items())
    assert file_problems(whole) ^ file_problems(base) == set(
        state.problems_among(paths).items()
    ) ^ set(in_base.problems_among(paths).items())
    assert {i: state.winner(i) for i in ids} == {i: whole.winner(i) for i in ids}


TASK = "---\nid: {id}\ntitle: {title}\nstatus: {status}\n---\nBody.\n"


def task_text(task_id: str, status: str = "active", title: str = "") -> str:
    return TASK.format(id=task_id, title=title or task_id.upper(), status=status)


class Tree:
    """A task root in a folder of a git repository, its table kept as the watcher keeps it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.repository = TaskRepository(root)
        self.table = self.repository.scan()
        self.git = GitTree.open(root)

    def write(self, relative: str, text: str) -> None:
        (self.root / relative).write_text(text)
        found = self.repository.read(relative)
        assert found is not None
        self.table.put(found)

    def delete(self, relative: str) -> None:
        (self.root / relative).unlink()
        self.table.drop(relative)

    def at(self, commit: str, table: FileTable | None = None) -> dict[str, FileResult | None]:
        state = disk_tree_at(
            self.git,
            table or self.table,
            commit,
            is_task_path=self.repository.is_task_path,
            max_bytes=self.repository.max_bytes,
        )
        return dict(state.replaced)

    def at_from_scratch(self, commit: str) -> dict[str, FileResult | None]:
        """A whole comparison: a table nobody compared with the commit before."""
        return self.at(commit, FileTable.of(self.table.files.values()))


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Tree, str]:
    top = init(tmp_path / "repo")
    root = top / "tasks"
    root.mkdir()
    for task_id in ("a", "b", "c"):
        (root / f"{task_id}.md").write_text(task_text(task_id))
    (top / "README.md").write_text("not under the root\n")
    return Tree(root), commit_all(top, "first")


def titles(found: dict[str, FileResult | None]) -> dict[str, str | None]:
    """Path → the commit's task title there (None: absent at the commit)."""
    return {p: r.task.title if r and r.task else None for p, r in found.items()}


def test_the_journal_keeps_the_comparison_equal_to_a_whole_one(
    tree: tuple[Tree, str],
) -> None:
    state, commit = tree
    steps: list[tuple[Callable[[], object], dict[str, str | None]]] = [
        (lambda: None, {}),
        (lambda: state.write("a.md", task_text("a", "done")), {"a.md": "A"}),
        (lambda: state.write("a.md", task_text("a")), {}),  # put back: the same again
        (lambda: state.write("n.md", task_text("n")), {"n.md": None}),
        (lambda: state.delete("b.md"), {"n.md": None, "b.md": "B"}),
        (lambda: state.write("c.md", task_text("c", title="Renamed")), {"n.md": None,
                                                                        "b.md": "B", "c.md": "C"}),
    ]  # fmt: skip
    for step, want in steps:
        step()
        assert titles(state.at(commit)) == want
        assert state.at(commit) == state.at_from_scratch(commit)


def test_a_file_git_ignores_counts_the_same_until_gitignore_stops_ignoring_it(
    tree: tuple[Tree, str],
) -> None:
    state, commit = tree
    assert state.at(commit) == {}
    (state.root / ".gitignore").write_text("scratch.md\n")
    state.write("scratch.md", task_text("s"))
    assert state.at(commit) == {} == state.at_from_scratch(commit)
    (state.root / ".gitignore").write_text("# nothing ignored\n")  # the table never sees it
    assert titles(state.at(commit)) == {"scratch.md": None}
    assert state.at(commit) == state.at_from_scratch(commit)
    (state.root / ".gitignore").write_text("scratch.md\n")
    assert state.at(commit) == {} == state.at_from_scratch(commit)


def test_each_commit_keeps_its_own_comparison(tree: tuple[Tree, str]) -> None:
    state, first = tree
    state.write("a.md", task_text("a", "done"))
    second = commit_all(state.root.parent, "second")
    state.write("b.md", task_text("b", "blocked"))
    assert titles(state.at(first)) == {"a.md": "A", "b.md": "B"}
    assert titles(state.at(second)) == {"b.md": "B"}
    state.write("b.md", task_text("b"))
    assert state.at(second) == {} == state.at_from_scratch(second)
    assert titles(state.at(first)) == {"a.md": "A"} == titles(state.at_from_scratch(first))


def test_staging_an_ignored_file_or_a_nested_gitignore_is_seen_without_a_table_change(
    tree: tuple[Tree, str],
) -> None:
    state, commit = tree
    (state.root / "notes").mkdir()
    (state.root / "notes" / ".gitignore").write_text("*.md\n")
    state.write("notes/kept.md", task_text("k"))
    state.write("notes/staged.md", task_text("s"))
    assert state.at(commit) == {} == state.at_from_scratch(commit)
    state.git.run("add", "-f", "notes/staged.md")  # tracked now: git ignores it no more
    assert titles(state.at(commit)) == {"notes/staged.md": None}
    (state.root / "notes" / ".gitignore").write_text("staged.md\n")
    assert titles(state.at(commit)) == {"notes/staged.md": None, "notes/kept.md": None}
    assert state.at(commit) == state.at_from_scratch(commit)


def test_git_says_which_files_it_ignores_one_by_one_or_from_a_walk(
    tree: tuple[Tree, str],
) -> None:
    state, _ = tree
    (state.root / ".gitignore").write_text("odd-*.md\n")
    names = [f"{kind}-{n}.md" for n in range(130) for kind in ("odd", "even")]
    for name in names:
        (state.root / name).write_text("x\n")
    want = {n for n in names if n.startswith("odd-")}
    assert state.git.ignored(names) == want  # many: one walk
    assert state.git.ignored(names[:20]) == want & set(names[:20])  # few: check-ignore
    assert state.git.ignored(["a.md"]) == set()  # tracked: never ignored
