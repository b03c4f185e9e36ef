"""Task trees come from other people's git pushes: the server's own folders linked out of
the root, its cache or ignore file a device or a pipe. Nothing is ever written or moved
outside the root, nothing hangs, nothing reads without bound; each case is a clear error
or a reported load problem, and the rest of the tree works."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client

from storage import cache
from storage.errors import ParseError, PathOutsideRoot
from storage.model import Task
from storage.repository import TaskRepository
from tasks_server.bots.state import WorkflowState
from tasks_server.bots.store import STATE_LIMIT, StateFile, state_path
from tests.conftest import REPO, write
from tests.tasks_server.conftest import fail, make_server

STATE_NAME = ".workflow/story_bot/workflow_state.json"
TASK = "---\nid: {id}\ntitle: {title}\nstatus: active\n---\nBody of {id}.\n"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    tree = tmp_path / "tree"
    write(tree, "p/tasks/a.md", TASK.format(id="a", title="A"))
    return tree


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    return folder


def test_delete_never_moves_a_task_through_a_trash_link_out_of_the_root(
    root: Path, outside: Path
) -> None:
    (root / ".trash").symlink_to(outside)
    with pytest.raises(PathOutsideRoot, match="symlink"):
        TaskRepository(root).delete("p/tasks/a.md")
    assert (root / "p/tasks/a.md").read_text() == TASK.format(id="a", title="A")
    assert list(outside.iterdir()) == []


def test_a_trash_subfolder_linked_out_is_refused_too(root: Path, outside: Path) -> None:
    (root / ".trash").mkdir()
    (root / ".trash/p").symlink_to(outside)
    with pytest.raises(PathOutsideRoot):
        TaskRepository(root).delete("p/tasks/a.md")
    assert (root / "p/tasks/a.md").exists()
    assert list(outside.iterdir()) == []


def test_the_cache_is_never_written_or_read_through_an_index_link(
    root: Path, outside: Path
) -> None:
    (root / ".tasks-index").symlink_to(outside)
    result = TaskRepository(root).read("p/tasks/a.md")
    assert result is not None
    with pytest.raises(OSError, match="symlink"):
        cache.save(root.resolve(), [result])
    assert list(outside.iterdir()) == []
    (outside / Path(cache.CACHE_FILE).name).write_bytes(cache.dumps(root.resolve(), [result]))
    assert cache.load(root.resolve()) == {}


def test_a_batch_is_never_journaled_through_an_index_link(root: Path, outside: Path) -> None:
    (root / ".tasks-index").symlink_to(outside)
    repo = TaskRepository(root)
    with pytest.raises(PathOutsideRoot, match="symlink"):
        repo.write_batch([Task(id="b", title="B", path=""), Task(id="c", title="C", path="")])
    assert list(outside.iterdir()) == []
    assert sorted(t.id for t in repo.scan().tasks()) == ["a"]


def test_bot_state_is_never_written_through_a_workflow_link(root: Path, outside: Path) -> None:
    (root / ".workflow").symlink_to(outside)
    store = StateFile(state_path(root.resolve(), "story_bot"))
    with pytest.raises(PathOutsideRoot, match="symlink"), store.transaction() as transaction:
        transaction.result = WorkflowState(current_behavior="write")
    assert list(outside.iterdir()) == []


STATE = json.dumps({"current_action": "story_bot.write.draft", "completed_actions": []})


@pytest.mark.parametrize("link", [".workflow", ".workflow/story_bot", STATE_NAME])
def test_bot_state_is_never_read_through_a_link(root: Path, outside: Path, link: str) -> None:
    (outside / "story_bot").mkdir()
    for folder in (outside, outside / "story_bot"):
        (folder / "workflow_state.json").write_text(STATE)
    target = {".workflow": outside, ".workflow/story_bot": outside / "story_bot"}.get(
        link, outside / "workflow_state.json"
    )
    (root / link).parent.mkdir(parents=True, exist_ok=True)
    (root / link).symlink_to(target)
    with pytest.raises(PathOutsideRoot, match="symlink"):
        StateFile(state_path(root.resolve(), "story_bot")).read()


@pytest.mark.parametrize("make", ["fifo", "huge"])
def test_a_state_file_that_is_a_pipe_or_too_big_is_refused_and_left_as_it_is(
    root: Path, make: str
) -> None:
    path = state_path(root, "story_bot")
    path.parent.mkdir(parents=True)
    if make == "fifo":
        os.mkfifo(path)
    else:
        with path.open("wb") as file:
            file.truncate(STATE_LIMIT + 1)  # sparse: no 16 MB written
    with pytest.raises(ParseError, match="left as it is"):
        StateFile(path).read()
    assert path.stat().st_size == (0 if make == "fifo" else STATE_LIMIT + 1)


@pytest.mark.parametrize("name", [".tasks-index", ".trash", ".workflow"])
def test_the_servers_own_folders_stay_out_of_git_status(root: Path, name: str) -> None:
    repo = TaskRepository(root)
    if name == ".tasks-index":
        cache.save(repo.root, repo.scan().files.values())
    elif name == ".trash":
        repo.delete("p/tasks/a.md")
    else:
        with StateFile(state_path(repo.root, "story_bot")).transaction() as transaction:
            transaction.result = WorkflowState(current_behavior="write")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert (root / name).is_dir()
    assert name not in status


def _limit_memory() -> None:
    gigabyte = 1 << 30
    resource.setrlimit(resource.RLIMIT_AS, (2 * gigabyte, 2 * gigabyte))


def _stats(root: Path) -> dict[str, object]:
    """`get_index_stats` from a fresh server process on `root`, with memory capped and a
    time limit: a start that reads without bound or blocks fails here."""
    done = subprocess.run(
        [sys.executable, "-m", "tasks_server", "call", "get_index_stats", "--root", str(root)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        preexec_fn=_limit_memory,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return dict(json.loads(done.stdout))


def _make_hostile(path: Path, kind: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "zero":
        path.symlink_to("/dev/zero")
    else:
        os.mkfifo(path)


@pytest.mark.parametrize("kind", ["zero", "fifo"])
def test_a_cache_file_that_is_a_device_or_a_pipe_is_ignored_at_start(root: Path, kind: str) -> None:
    _make_hostile(root / cache.CACHE_FILE, kind)
    stats = _stats(root)
    assert (stats["tasks"], stats["problems"]) == (1, [])


@pytest.mark.parametrize("kind", ["zero", "fifo"])
def test_an_ignore_file_that_is_a_device_or_a_pipe_is_a_load_problem(root: Path, kind: str) -> None:
    _make_hostile(root / ".tasksignore", kind)
    stats = _stats(root)
    assert stats["tasks"] == 1
    assert [(p["path"], p["kind"]) for p in stats["problems"]] == [  # type: ignore[attr-defined]
        (".tasksignore", "unreadable")
    ]


def test_an_oversized_ignore_file_is_a_load_problem_not_a_read(root: Path) -> None:
    write(root, ".tasksignore", "drafts/\n" * 200)
    table = TaskRepository(root, max_bytes=1000).scan()
    assert [(p.path, p.kind) for p in table.problems()] == [(".tasksignore", "too_large")]
    assert [t.id for t in table.tasks()] == ["a"]


@pytest.mark.anyio
async def test_tools_refuse_to_write_through_linked_server_folders(
    root: Path, outside: Path
) -> None:
    (root / ".trash").symlink_to(outside)
    (root / ".tasks-index").symlink_to(outside)
    server = make_server(root)
    try:
        async with Client(server) as client:
            deleted = await fail(client, "delete_task", task_id="a")
            split = await fail(client, "decompose_task", task_id="a", children=[{"title": "C"}])
    finally:
        server.context.close()
    assert (deleted["error"]["code"], split["error"]["code"]) == (
        "PATH_OUTSIDE_ROOT",
        "PATH_OUTSIDE_ROOT",
    )
    assert "symlink" in deleted["error"]["message"]
    assert list(outside.iterdir()) == []
    assert sorted(p.name for p in (root / "p/tasks").iterdir()) == ["a.md"]


def test_a_journal_record_naming_a_path_outside_the_root_is_dropped(
    root: Path, outside: Path
) -> None:
    steps = [{"kind": "create", "target": f"../{outside.name}/x.md", "ino": 0}]
    record = {"version": 1, "steps": steps}
    write(root, ".tasks-index/journal/0123456789abcdef.json", json.dumps(record))
    write(outside, ".x.md.0123456789abcdef.tasks-journal", TASK.format(id="x", title="X"))
    assert [t.id for t in TaskRepository(root).scan().tasks()] == ["a"]
    assert not (outside / "x.md").exists()
    assert list((root / ".tasks-index/journal").iterdir()) == []


@pytest.mark.anyio
async def test_a_bot_tool_over_a_linked_workflow_folder_is_a_clean_error(
    root: Path, outside: Path
) -> None:
    (outside / "story_bot").mkdir()
    (outside / "story_bot/workflow_state.json").write_text(STATE)
    (root / ".workflow").symlink_to(outside)
    server = make_server(root, bots=REPO / "data" / "bots")
    try:
        async with Client(server) as client:
            refused = await fail(client, "story_bot_restart_server")
    finally:
        server.context.close()
    assert refused["error"]["code"] == "PATH_OUTSIDE_ROOT"
    assert "symlink" in refused["error"]["message"]
    assert (outside / "story_bot/workflow_state.json").read_text() == STATE
