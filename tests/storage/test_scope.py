"""Which paths under a root are task files: hidden folders, `.tasksignore` and the given
patterns, and the ignore file read again only when it changes."""

from __future__ import annotations

from pathlib import Path

from storage.scope import IGNORE_FILE, TaskScope
from tests.conftest import write

LIMIT = 1024 * 1024


def test_a_path_is_a_task_when_markdown_not_hidden_and_matched_by_no_pattern(
    tmp_path: Path,
) -> None:
    write(tmp_path, IGNORE_FILE, "# scratch\n*.tmp.md\n")
    scope = TaskScope(tmp_path, ["drafts/"], LIMIT)
    tasks = ["a.md", "p/tasks/b.md", "p/drafts-old/c.md"]
    others = ["a.txt", ".hidden/a.md", "p/.git/a.md", "drafts/a.md", "p/x.tmp.md"]
    assert [path for path in tasks + others if scope.is_task_path(path)] == tasks


def test_a_folder_is_walked_into_unless_hidden_or_ignored(tmp_path: Path) -> None:
    scope = TaskScope(tmp_path, ["drafts/"], LIMIT)
    assert scope.walks_into("p") and scope.walks_into("p/tasks")
    assert not scope.walks_into(".trash")
    assert not scope.walks_into("p/.git")
    assert not scope.walks_into("drafts")


def test_the_given_patterns_come_first_then_the_ignore_file_s(tmp_path: Path) -> None:
    write(tmp_path, IGNORE_FILE, "gen/\n\n  old/  \n")
    scope = TaskScope(tmp_path, ["drafts/"], LIMIT)
    assert scope.exclude == ("drafts/", "gen/", "old/")
    assert scope.ignore_problem is None


def test_the_ignore_file_is_read_again_only_when_it_changed(tmp_path: Path) -> None:
    scope = TaskScope(tmp_path, [], LIMIT)
    assert not scope.reload()
    write(tmp_path, IGNORE_FILE, "gen/\n")
    assert scope.reload()
    assert not scope.is_task_path("gen/a.md")
    assert not scope.reload()
    (tmp_path / IGNORE_FILE).unlink()
    assert scope.reload()
    assert scope.is_task_path("gen/a.md")


def test_an_unreadable_ignore_file_ignores_nothing_and_is_a_problem(tmp_path: Path) -> None:
    (tmp_path / IGNORE_FILE).write_bytes(b"gen/\n\xff\n")
    scope = TaskScope(tmp_path, ["drafts/"], LIMIT)
    problem = scope.ignore_problem.problem if scope.ignore_problem else None
    assert problem is not None and (problem.path, problem.kind) == (IGNORE_FILE, "unreadable")
    assert scope.exclude == ("drafts/",)
    assert scope.is_task_path("gen/a.md")


def test_an_ignore_file_over_the_size_cap_is_a_problem_too(tmp_path: Path) -> None:
    write(tmp_path, IGNORE_FILE, "gen/\n" * 10)
    scope = TaskScope(tmp_path, [], 16)
    problem = scope.ignore_problem.problem if scope.ignore_problem else None
    assert problem is not None and problem.kind == "too_large"
    assert scope.is_task_path("gen/a.md")
