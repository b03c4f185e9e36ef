"""`update_with`: one file changed by what it holds, read once under its lock, written with
the same guard as any update (an editor's save between the read and the swap is kept)."""

from __future__ import annotations

from pathlib import Path

import pytest

from storage.errors import Conflict, ParseError, TaskNotFound
from storage.model import Task
from storage.repository import TaskRepository
from tests.conftest import write

TASK = "---\nid: {id}\ntitle: {title}\nstatus: active\n---\nBody of {id}.\n"


def test_decide_is_given_the_task_the_file_holds_and_its_changes_are_written(
    tmp_path: Path,
) -> None:
    path = write(tmp_path, "a.md", TASK.format(id="a", title="On disk"))
    seen: list[Task] = []

    def decide(task: Task) -> tuple[dict[str, object], str | None]:
        seen.append(task)
        return {"status": "done"}, "New body.\n"

    result = TaskRepository(tmp_path).update_with("a.md", decide)
    assert [(t.id, t.title, t.path) for t in seen] == [("a", "On disk", "a.md")]
    assert result.task is not None and result.task.status == "done"
    assert path.read_text() == TASK.format(id="a", title="On disk").replace(
        "active", "done"
    ).replace("Body of a.\n", "New body.\n")


def test_an_editor_save_between_the_read_and_the_swap_is_kept_and_a_conflict(
    tmp_path: Path,
) -> None:
    path = write(tmp_path, "a.md", TASK.format(id="a", title="Read"))
    saved = TASK.format(id="a", title="Saved by the editor meanwhile")

    def decide(task: Task) -> tuple[dict[str, object], str | None]:
        path.write_text(saved)  # in place, without our lock, as an editor saves
        return {"status": "done"}, None

    with pytest.raises(Conflict) as info:
        TaskRepository(tmp_path).update_with("a.md", decide)
    assert info.value.path == "a.md"
    assert path.read_text() == saved


def test_what_decide_raises_reaches_the_caller_and_nothing_is_written(tmp_path: Path) -> None:
    text = TASK.format(id="a", title="A")
    path = write(tmp_path, "a.md", text)

    def refuse(task: Task) -> tuple[dict[str, object], str | None]:
        raise TaskNotFound(f"not {task.id}")

    repo = TaskRepository(tmp_path)
    with pytest.raises(TaskNotFound, match="not a"):
        repo.update_with("a.md", refuse)
    assert path.read_text() == text
    assert repo.update_with("a.md", lambda task: ({"priority": 1}, None)).task is not None


@pytest.mark.parametrize(
    ("text", "error"),
    [(None, TaskNotFound), ("no frontmatter at all\n", ParseError)],
)
def test_a_file_gone_or_not_a_task_is_refused_before_decide_runs(
    tmp_path: Path, text: str | None, error: type[Exception]
) -> None:
    if text is not None:
        write(tmp_path, "a.md", text)
    called: list[Task] = []

    def decide(task: Task) -> tuple[dict[str, object], str | None]:
        called.append(task)
        return {}, None

    with pytest.raises(error):
        TaskRepository(tmp_path).update_with("a.md", decide)
    assert called == []
