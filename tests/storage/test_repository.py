"""The repository: whole trees read with their problems, and safe writes in place."""

from __future__ import annotations

import fcntl
import fnmatch
import json
import os
import subprocess
import sys
import textwrap
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from storage import codec
from storage.errors import (
    AlreadyExists,
    Conflict,
    InvalidId,
    PathOutsideRoot,
    TaskNotFound,
    TooLarge,
    WouldNotLoad,
)
from storage.files import Changed, Seen, read_seen, replace_checked
from storage.journal import JournalWrite
from storage.model import Task, pack_text
from storage.repository import FILE_STEM_CHARS, TaskRepository, mtime_of
from tests.conftest import REPO, write

TASK = "---\nid: {id}\ntitle: {title}\nstatus: active\n---\nBody of {id}.\n"


def test_odd_tree_loads_every_good_task_and_reports_every_bad_file(odd_root: Path) -> None:
    table = TaskRepository(odd_root).scan()
    problems = {(p.path, p.kind) for p in table.problems()}
    assert problems == {
        ("bad-yaml.md", "parse_error"),
        ("unclosed-frontmatter.md", "parse_error"),
        ("not-mapping.md", "parse_error"),
        ("not-utf8.md", "not_utf8"),
        ("dup-a.md", "duplicate_id"),
    }
    assert table.not_tasks() == ["no-frontmatter.md", "not-a-task.md"]
    ids = {task.id for task in table.tasks()}
    assert {"odd-status-no", "0123", "odd-date-title", "no-id", "odd-dup", "odd-self"} <= ids
    assert len(table) == len(list(odd_root.glob("*.md")))


def test_duplicate_id_keeps_the_first_path_and_names_every_path(odd_root: Path) -> None:
    table = TaskRepository(odd_root).scan()
    assert table.duplicates() == {"odd-dup": ("dup-a.md", "dup-b.md")}
    winner = table.winner("odd-dup")
    assert winner is not None and winner.path == "dup-a.md"


def test_hidden_folders_and_ignored_paths_are_not_read(tmp_path: Path) -> None:
    write(tmp_path, "p/tasks/a.md", TASK.format(id="a", title="A"))
    write(tmp_path, ".trash/b.md", TASK.format(id="b", title="B"))
    write(tmp_path, "drafts/c.md", TASK.format(id="c", title="C"))
    write(tmp_path, ".tasksignore", "# scratch\ndrafts/\n")
    assert [t.id for t in TaskRepository(tmp_path).scan().tasks()] == ["a"]


def test_bundled_tree_skips_its_odd_folder_and_loads_without_problems() -> None:
    table = TaskRepository(REPO / "data").scan()
    assert table.problems() == []
    assert len(table.tasks()) >= 40
    assert not any(task.path.startswith("odd/") for task in table.tasks())


def test_oversized_file_is_reported_not_read(tmp_path: Path) -> None:
    write(tmp_path, "big.md", "---\ntitle: Big\n---\n" + "x" * 2000)
    table = TaskRepository(tmp_path, max_bytes=1000).scan()
    assert [(p.path, p.kind) for p in table.problems()] == [("big.md", "too_large")]


def test_create_writes_under_the_project_tasks_folder(tmp_path: Path) -> None:
    repo = TaskRepository(tmp_path)
    result = repo.create(Task(id="p-0000abcd", title="Write the guide!", path="", project="p"))
    assert result.path == "p/tasks/p-0000abcd-write-the-guide.md"
    assert result.task is not None and result.task.title == "Write the guide!"


def test_create_without_project_goes_to_the_inbox(tmp_path: Path) -> None:
    result = TaskRepository(tmp_path).create(Task(id="task-1", title="Loose end", path=""))
    assert result.path == "inbox/task-1-loose-end.md"


def test_create_never_overwrites_an_existing_file(tmp_path: Path) -> None:
    repo = TaskRepository(tmp_path)
    repo.create(Task(id="task-1", title="First", path=""))
    with pytest.raises(AlreadyExists):
        repo.create(Task(id="task-1", title="First", path=""))
    assert "title: First" in (tmp_path / "inbox/task-1-first.md").read_text()


def test_update_changes_the_file_in_place_wherever_it_is(tmp_path: Path) -> None:
    path = write(tmp_path, "odd/place/mine.md", TASK.format(id="m", title="Mine"))
    result = TaskRepository(tmp_path).update("odd/place/mine.md", {"status": "done"})
    assert result.task is not None and result.task.status == "done"
    assert path.read_text() == TASK.format(id="m", title="Mine").replace("active", "done")


def test_update_based_on_an_old_read_is_refused_and_the_human_edit_kept(tmp_path: Path) -> None:
    repo = TaskRepository(tmp_path)
    path = write(tmp_path, "a.md", TASK.format(id="a", title="Agent read this"))
    read_at = mtime_of(repo.read("a.md").stamp)  # type: ignore[union-attr]
    human = TASK.format(id="a", title="Human renamed it")
    path.write_text(human)
    later = path.stat().st_mtime_ns + 1_000_000_000  # the editor saved a second later
    os.utime(path, ns=(later, later))
    with pytest.raises(Conflict) as info:
        repo.update("a.md", {"title": "Agent title"}, expected_modified=read_at)
    assert info.value.path == "a.md"
    assert path.read_text() == human


def test_update_with_the_current_modified_goes_through(tmp_path: Path) -> None:
    repo = TaskRepository(tmp_path)
    write(tmp_path, "a.md", TASK.format(id="a", title="A"))
    current = mtime_of(repo.read("a.md").stamp)  # type: ignore[union-attr]
    result = repo.update("a.md", {"status": "review"}, expected_modified=current)
    assert result.task is not None and result.task.status == "review"


def test_update_of_a_missing_file_is_task_not_found(tmp_path: Path) -> None:
    with pytest.raises(TaskNotFound):
        TaskRepository(tmp_path).update("gone.md", {"status": "done"})


def test_delete_moves_the_file_to_trash_and_loses_nothing(tmp_path: Path) -> None:
    text = TASK.format(id="a", title="A")
    write(tmp_path, "p/tasks/a.md", text)
    repo = TaskRepository(tmp_path)
    assert repo.delete("p/tasks/a.md") == ".trash/p/tasks/a.md"
    write(tmp_path, "p/tasks/a.md", text)
    second = repo.delete("p/tasks/a.md")
    assert second.startswith(".trash/p/tasks/a.") and second != ".trash/p/tasks/a.md"
    assert (tmp_path / ".trash/p/tasks/a.md").read_text() == text
    assert (tmp_path / second).read_text() == text
    assert repo.scan().tasks() == []


@pytest.mark.parametrize("relative", ["../outside.md", "/etc/passwd", "p/../../outside.md"])
def test_paths_that_leave_the_root_are_refused(tmp_path: Path, relative: str) -> None:
    root = tmp_path / "root"
    root.mkdir()
    with pytest.raises(PathOutsideRoot):
        TaskRepository(root).update(relative, {"status": "done"})
    with pytest.raises(PathOutsideRoot):
        TaskRepository(root).delete(relative)


@pytest.mark.parametrize("bad", ["../x", "a/b", "", ".hidden", "a b"])
def test_ids_that_could_name_a_path_are_refused_on_create(tmp_path: Path, bad: str) -> None:
    with pytest.raises(InvalidId):
        TaskRepository(tmp_path).create(Task(id=bad, title="T", path=""))


def test_project_that_could_name_a_path_is_refused_on_create(tmp_path: Path) -> None:
    with pytest.raises(InvalidId):
        TaskRepository(tmp_path).create(Task(id="a", title="T", path="", project="../x"))


def test_symlinks_leaving_the_root_are_neither_followed_nor_written(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    write(outside, "secret.md", TASK.format(id="s", title="Secret"))
    write(outside, "dir/other.md", TASK.format(id="o", title="Other"))
    root = tmp_path / "root"
    write(root, "a.md", TASK.format(id="a", title="A"))
    (root / "link.md").symlink_to(outside / "secret.md")
    (root / "linkdir").symlink_to(outside / "dir")
    repo = TaskRepository(root)
    table = repo.scan()
    assert [t.id for t in table.tasks()] == ["a"]
    assert [(p.path, p.kind) for p in table.problems()] == [("link.md", "unsafe_path")]
    with pytest.raises(PathOutsideRoot):
        repo.update("link.md", {"status": "done"})
    with pytest.raises(PathOutsideRoot):
        repo.update("linkdir/other.md", {"status": "done"})
    assert "status: active" in (outside / "secret.md").read_text()


def test_a_pipe_and_a_symlink_loop_named_like_tasks_are_reported_without_stopping_the_scan(
    tmp_path: Path,
) -> None:
    write(tmp_path, "a.md", TASK.format(id="a", title="A"))
    os.mkfifo(tmp_path / "pipe.md")  # opening it for reading would wait for a writer
    (tmp_path / "loop.md").symlink_to(tmp_path / "loop.md")
    table = TaskRepository(tmp_path).scan()
    assert [t.id for t in table.tasks()] == ["a"]
    problems = {p.path: (p.kind, p.message) for p in table.problems()}
    assert problems["pipe.md"] == ("unreadable", "not a regular file")
    assert problems["loop.md"][0] == "unreadable"
    assert "cannot resolve" in problems["loop.md"][1]


def test_a_file_that_cannot_be_opened_is_a_problem_not_an_error(tmp_path: Path) -> None:
    name = "a" * 300 + ".md"  # longer than a file name may be: open fails (as root too)
    result = TaskRepository(tmp_path).read(name)
    assert result is not None and result.problem is not None
    assert (result.problem.kind, result.problem.message) == (
        "unreadable",
        "cannot open: File name too long",
    )


def test_a_survey_keeps_current_results_and_lists_changed_new_and_linked_files(
    tmp_path: Path,
) -> None:
    root = tmp_path.resolve()
    for name in ("same", "edited", "linked"):
        write(root, f"p/{name}.md", TASK.format(id=name, title=name))
    (root / "link.md").symlink_to(root / "p/linked.md")
    repo = TaskRepository(root)
    known = repo.scan().files
    edited = root / "p/edited.md"
    later = edited.stat().st_mtime_ns + 1_000_000_000
    os.utime(edited, ns=(later, later))
    write(root, "p/new.md", TASK.format(id="new", title="New"))
    survey = repo.survey(known)
    assert sorted(survey.stale) == ["link.md", "p/edited.md", "p/new.md"]
    assert survey.current == 2
    assert {item.path for item in survey.found if not isinstance(item, str)} == {
        "p/same.md",
        "p/linked.md",
    }
    assert [r.path for r in repo.read_stale(survey)] == [
        item if isinstance(item, str) else item.path for item in survey.found
    ]


def test_a_file_deleted_after_the_survey_is_left_out_of_the_read(tmp_path: Path) -> None:
    write(tmp_path, "a.md", TASK.format(id="a", title="A"))
    write(tmp_path, "b.md", TASK.format(id="b", title="B"))
    repo = TaskRepository(tmp_path)
    survey = repo.survey({})
    (tmp_path / "b.md").unlink()
    assert [r.path for r in repo.read_stale(survey)] == ["a.md"]


def test_batch_write_is_all_or_nothing(tmp_path: Path) -> None:
    repo = TaskRepository(tmp_path)
    repo.create(Task(id="b", title="B", path=""))
    batch = [Task(id="a", title="A", path=""), Task(id="b", title="B", path="")]
    with pytest.raises(AlreadyExists):
        repo.write_batch(batch)
    assert sorted(p.name for p in (tmp_path / "inbox").iterdir()) == ["b-b.md"]


def test_batch_write_creates_and_updates_together(tmp_path: Path) -> None:
    repo = TaskRepository(tmp_path)
    parent = repo.create(Task(id="p", title="P", path=""))
    results = repo.write_batch(
        [Task(id="c", title="C", path="", parent="p")], [(parent.path, {"status": "active"})]
    )
    assert [r.task.id for r in results if r.task] == ["c", "p"]
    assert "status: active" in (tmp_path / parent.path).read_text()


WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    sys.path.insert(0, {repo!r})
    from storage.repository import TaskRepository
    repo = TaskRepository(Path(sys.argv[1]))
    for n in range(int(sys.argv[3])):
        repo.update("t.md", {{sys.argv[2] + "_" + str(n): n}})
    """
)


def test_two_processes_writing_one_task_lose_no_update_and_leave_no_files(tmp_path: Path) -> None:
    write(tmp_path, "t.md", TASK.format(id="t", title="Shared"))
    script = tmp_path.parent / "writer.py"
    script.write_text(WRITER.format(repo=str(REPO)))
    count = 40
    procs = [
        subprocess.Popen([sys.executable, str(script), str(tmp_path), name, str(count)])
        for name in ("alpha", "beta")
    ]
    assert [proc.wait(timeout=120) for proc in procs] == [0, 0]
    task = codec.loads((tmp_path / "t.md").read_text())
    for name in ("alpha", "beta"):
        assert [task.extra[f"{name}_{n}"] for n in range(count)] == list(range(count))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.md"]


READER_WHILE_WRITING = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    sys.path.insert(0, {repo!r})
    from storage.repository import TaskRepository
    repo = TaskRepository(Path(sys.argv[1]))
    for n in range(200):
        repo.update("t.md", {{"title": "Title " + str(n) * (n % 50 + 1)}})
    """
)


def test_readers_never_see_a_half_written_file(tmp_path: Path) -> None:
    write(tmp_path, "t.md", TASK.format(id="t", title="Start"))
    script = tmp_path.parent / "rewriter.py"
    script.write_text(READER_WHILE_WRITING.format(repo=str(REPO)))
    proc = subprocess.Popen([sys.executable, str(script), str(tmp_path)])
    reads = 0
    while proc.poll() is None or reads == 0:
        task = codec.loads((tmp_path / "t.md").read_text())  # raises on a torn file
        assert task.body == "Body of t.\n"
        reads += 1
    assert proc.wait() == 0
    assert codec.loads((tmp_path / "t.md").read_text()).title.startswith("Title 199")


def test_mtime_of_is_utc_and_precise_to_the_microsecond() -> None:
    moment = mtime_of((1_700_000_000_123_456_789, 10))
    assert moment == datetime(2023, 11, 14, 22, 13, 20, 123456, tzinfo=UTC)
    assert moment + timedelta(microseconds=1) > moment


def test_update_keeps_the_file_mode(tmp_path: Path) -> None:
    path = write(tmp_path, "a.md", TASK.format(id="a", title="A"))
    path.chmod(0o644)
    TaskRepository(tmp_path).update("a.md", {"status": "done"})
    assert path.stat().st_mode & 0o777 == 0o644


def test_a_new_task_file_gets_the_mode_a_new_file_gets(tmp_path: Path) -> None:
    umask = os.umask(0o022)
    os.umask(umask)
    result = TaskRepository(tmp_path).create(Task(id="a", title="A", path=""))
    assert (tmp_path / result.path).stat().st_mode & 0o777 == 0o666 & ~umask


def test_an_update_over_the_size_cap_is_refused_and_the_file_kept(tmp_path: Path) -> None:
    text = TASK.format(id="a", title="A")
    path = write(tmp_path, "a.md", text)
    with pytest.raises(TooLarge):
        TaskRepository(tmp_path, max_bytes=1000).update("a.md", {}, body="x" * 2000)
    assert path.read_text() == text


def test_a_create_over_the_size_cap_writes_nothing(tmp_path: Path) -> None:
    with pytest.raises(TooLarge):
        TaskRepository(tmp_path, max_bytes=1000).create(Task(id="a", title="t" * 2000, path=""))
    assert not (tmp_path / "inbox").exists() or list((tmp_path / "inbox").iterdir()) == []


def test_a_create_that_would_not_read_back_as_a_task_writes_nothing(tmp_path: Path) -> None:
    with pytest.raises(WouldNotLoad):
        TaskRepository(tmp_path).create(Task(id="a", title="", path=""))
    assert list(tmp_path.rglob("*.md")) == []


def test_a_batch_with_one_oversized_file_writes_none(tmp_path: Path) -> None:
    repo = TaskRepository(tmp_path, max_bytes=1000)
    batch = [
        Task(id="a", title="A", path=""),
        Task(id="b", title="B", path="", packed_body=pack_text("x" * 2000)),
    ]
    with pytest.raises(TooLarge):
        repo.write_batch(batch)
    assert list(tmp_path.rglob("*.md")) == []


def test_a_batch_update_of_a_file_changed_before_the_commit_is_a_conflict(
    tmp_path: Path,
) -> None:
    repo = TaskRepository(tmp_path)
    write(tmp_path, "a.md", TASK.format(id="a", title="A"))
    seen = read_seen_of(tmp_path / "a.md")
    (tmp_path / "a.md").write_text(TASK.format(id="a", title="Edited"))
    write_a = JournalWrite("a.md", TASK.format(id="a", title="Ours").encode(), seen)
    with pytest.raises(Changed):
        repo.journal.commit([write_a])
    assert "Edited" in (tmp_path / "a.md").read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == [".tasks-index", "a.md"]


def read_seen_of(path: Path) -> Seen:
    fd = os.open(path, os.O_RDONLY)
    try:
        return read_seen(fd, path, 1 << 20)
    finally:
        os.close(fd)


@pytest.mark.parametrize("how", ["in place", "by rename"])
def test_an_editor_save_after_our_read_is_kept_and_our_write_refused(
    tmp_path: Path, how: str
) -> None:
    path = write(tmp_path, "a.md", TASK.format(id="a", title="A"))
    seen = read_seen_of(path)
    editor = TASK.format(id="a", title="B")  # same size: only the bytes tell
    if how == "in place":
        path.write_text(editor)
        os.utime(path, ns=(seen.stamp[0], seen.stamp[0]))  # and the same time
    else:
        (tmp_path / "a.md~").write_text(editor)
        os.replace(tmp_path / "a.md~", path)
    with pytest.raises(Changed):
        replace_checked(path, TASK.format(id="a", title="Ours").encode(), seen)
    assert path.read_text() == editor
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.md"]


def test_an_update_always_moves_the_modified_time_forward(tmp_path: Path) -> None:
    repo = TaskRepository(tmp_path)
    path = write(tmp_path, "a.md", TASK.format(id="a", title="A"))
    ahead = path.stat().st_mtime_ns + 10_000_000_000  # a clock that ran ahead, or one tick
    os.utime(path, ns=(ahead, ahead))
    first = mtime_of(repo.update("a.md", {"status": "done"}).stamp)
    second = mtime_of(repo.update("a.md", {"status": "active"}).stamp)
    assert mtime_of((ahead, 0)) < first < second
    with pytest.raises(Conflict):
        repo.update("a.md", {"title": "Stale"}, expected_modified=first)


def test_a_committed_batch_of_a_killed_writer_is_completed_at_the_next_open(
    tmp_path: Path,
) -> None:
    write(tmp_path, "a.md", TASK.format(id="a", title="A"))
    record = tmp_path / ".tasks-index/journal/0123456789abcdef.json"
    record.parent.mkdir(parents=True)
    ino = (tmp_path / "a.md").stat().st_ino
    steps = [
        {"kind": "replace", "target": "a.md", "ino": ino},
        {"kind": "create", "target": "p/b.md", "ino": 0},
    ]
    record.write_text(json.dumps({"version": 1, "steps": steps}))
    write(tmp_path, "p/.b.md.0123456789abcdef.tasks-journal", TASK.format(id="b", title="B"))
    write(tmp_path, ".a.md.0123456789abcdef.tasks-journal", TASK.format(id="a", title="New"))
    tasks = {t.id: t.title for t in TaskRepository(tmp_path).scan().tasks()}
    assert tasks == {"a": "New", "b": "B"}
    assert leftovers(tmp_path) == []


def test_an_uncommitted_batch_of_a_killed_writer_is_dropped_at_the_next_open(
    tmp_path: Path,
) -> None:
    write(tmp_path, "a.md", TASK.format(id="a", title="A"))
    write(tmp_path, ".tasks-index/journal/0123456789abcdef.json", "")
    write(tmp_path, "p/.b.md.0123456789abcdef.tasks-journal", TASK.format(id="b", title="B"))
    write(tmp_path, "p/.c.md.x1y2z3w4.tasks-tmp", "half")
    write(tmp_path, "p/.d.md.abc_1234.tmp", "half, from before")
    tasks = {t.id: t.title for t in TaskRepository(tmp_path).scan().tasks()}
    assert tasks == {"a": "A"}
    assert leftovers(tmp_path) == []


def test_a_live_writers_temp_file_is_never_swept(tmp_path: Path) -> None:
    temp = write(tmp_path, "p/.b.md.x1y2z3w4.tasks-tmp", "being written")
    fd = os.open(temp, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        TaskRepository(tmp_path).scan()
        assert temp.exists()
    finally:
        os.close(fd)
    TaskRepository(tmp_path).scan()
    assert not temp.exists()


def leftovers(root: Path) -> list[str]:
    """Temp files and journal records anywhere in a tree."""
    found = [p for p in root.rglob(".*") if p.is_file() and p.name != ".gitignore"]
    found += list((root / ".tasks-index/journal").glob("*"))
    return sorted(str(p.relative_to(root)) for p in found)


@pytest.mark.parametrize("length", [180, 200, 201, 255])
def test_a_long_id_gets_a_file_name_that_fits_or_a_clear_refusal(
    tmp_path: Path, length: int
) -> None:
    repo = TaskRepository(tmp_path)
    task = Task(id="a" * length, title="A title long enough to make a slug", path="")
    if length > FILE_STEM_CHARS:
        with pytest.raises(InvalidId, match="file name"):
            repo.create(task)
        assert not list(tmp_path.rglob("*.md"))
        return
    written = repo.create(task)
    assert len(Path(written.path).name.encode()) <= FILE_STEM_CHARS + 3
    assert repo.scan().tasks()[0].id == "a" * length


def test_a_link_to_a_file_that_is_not_there_is_a_reported_problem(tmp_path: Path) -> None:
    write(tmp_path, "p/a.md", "---\nid: a\ntitle: A\n---\n")
    (tmp_path / "p/x.md").symlink_to("nothere.md")
    table = TaskRepository(tmp_path).scan()
    [problem] = [r.problem for r in table.files.values() if r.problem]
    assert [t.id for t in table.tasks()] == ["a"]
    assert (problem.path, problem.kind) == ("p/x.md", "unreadable")
    assert "nothere.md" in problem.message


def test_ignore_patterns_are_compiled_once_not_tried_one_by_one_per_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(50):
        write(tmp_path, f"p/t{n}.md", TASK.format(id=f"t{n}", title="T"))
    write(tmp_path, "gen/x.md", TASK.format(id="x", title="X"))
    patterns = [f"gen-{n}/*.md" if n % 2 else f"lit-{n}.md" for n in range(20_000)]
    write(tmp_path, ".tasksignore", "\n".join([*patterns, "gen/"]))
    calls: list[str] = []
    real = fnmatch.fnmatch

    def counted(name: str, pattern: str) -> bool:
        calls.append(pattern)
        return real(name, pattern)

    monkeypatch.setattr(fnmatch, "fnmatch", counted)
    table = TaskRepository(tmp_path).scan()
    assert len(table.tasks()) == 50 and "x" not in {t.id for t in table.tasks()}
    assert calls == []


@pytest.mark.parametrize(
    ("pattern", "ignored", "kept"),
    [
        ("drafts/", ["drafts/a.md", "drafts/x/b.md"], ["p/drafts/a.md", "draftsy/a.md"]),
        ("*.tmp.md", ["a.tmp.md", "p/q/a.tmp.md"], ["a.md"]),
        ("p*/", ["p/a.md", "pq/r/a.md"], ["q/p/a.md"]),
        ("[ab]?.md", ["a1.md", "x/b2.md"], ["c1.md", "a12.md"]),
        ("notes.md", ["notes.md", "p/notes.md"], ["p/notes.md.md"]),
        ("docs/*", ["docs/a.md", "docs/x/y.md"], ["p/docs/a.md"]),
    ],
)
def test_an_ignore_pattern_matches_the_whole_path_or_its_last_part(
    tmp_path: Path, pattern: str, ignored: list[str], kept: list[str]
) -> None:
    for relative in ignored + kept:
        write(tmp_path, relative, TASK.format(id=relative.replace("/", "_")[:-3], title="T"))
    write(tmp_path, ".tasksignore", pattern + "\n")
    paths = {t.path for t in TaskRepository(tmp_path).scan().tasks()}
    assert paths == set(kept)


def test_a_write_of_one_file_answers_what_a_fresh_read_of_it_finds(tmp_path: Path) -> None:
    repo = TaskRepository(tmp_path)
    write(tmp_path, "p/a.md", TASK.format(id="a", title="A"))
    write(tmp_path, "p/b.md", TASK.format(id="b", title="B"))
    created = repo.create(Task(id="c", title="C", path="", project="p"))
    assert created == repo.read(created.path)
    assert repo.update("p/a.md", {"title": "Ours"}) == repo.read("p/a.md")
    [batched] = repo.write_batch([], [("p/b.md", {"status": "done"})])
    assert batched == repo.read("p/b.md")
    assert batched.task is not None and batched.task.status == "done"


def test_a_batch_of_one_file_changed_since_its_read_is_a_conflict_and_the_edit_kept(
    tmp_path: Path,
) -> None:
    repo = TaskRepository(tmp_path)
    write(tmp_path, "a.md", TASK.format(id="a", title="A"))
    with pytest.raises(Conflict):
        repo.update("a.md", {"title": "Ours"}, expected_modified=datetime(2000, 1, 1, tzinfo=UTC))
    assert "title: A" in (tmp_path / "a.md").read_text()


def test_a_batch_that_changes_no_bytes_writes_nothing(tmp_path: Path) -> None:
    repo = TaskRepository(tmp_path)
    path = write(tmp_path, "a.md", TASK.format(id="a", title="A"))
    before = path.stat()
    assert repo.write_batch([], [("a.md", {"title": "A"})]) == []
    assert (path.stat().st_ino, path.stat().st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_a_parse_error_quoting_utf8_is_a_parse_error_and_a_bad_name_is_not_utf8(
    tmp_path: Path,
) -> None:
    write(tmp_path, "quoted.md", "---\nid: ../UTF-8\ntitle: Q\n---\n")
    (tmp_path / "bad-\udcff-name.md").write_text(TASK.format(id="n", title="N"))
    problems = {(p.path, p.kind) for p in TaskRepository(tmp_path).scan().problems()}
    assert problems == {("quoted.md", "parse_error"), ("bad-\\xff-name.md", "not_utf8")}
