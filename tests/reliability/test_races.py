"""Four server processes racing each invariant a check guards: one id, one file; no parent
or dependency cycle; no child written under a parent deleted at the same moment.

Each round sends the four racing calls before reading any answer, so every server has
checked its own index before the others' writes can be in it, unless the tree-wide write
lock makes them take turns (`TaskRepository.write_lock`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from storage.repository import TaskRepository
from tests.conftest import write
from tests.reliability.stdio import ServerProcess, error_code

# Four real server processes per round: a concurrency run, like the kill and load runs.
pytestmark = pytest.mark.deep

ROUNDS = 5
SERVERS = 4
TASK = "---\nid: {id}\ntitle: {id}\nstatus: active\n{extra}---\n"


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[list[ServerProcess]]:
    root = tmp_path / "tree"
    for r in range(ROUNDS):
        write(root, f"p/p{r}.md", TASK.format(id=f"p{r}", extra=""))
        for i in range(SERVERS):
            for kind in ("d", "q"):
                write(root, f"p/{kind}{r}-{i}.md", TASK.format(id=f"{kind}{r}-{i}", extra=""))
    started = [ServerProcess(root) for _ in range(SERVERS)]
    yield started
    for server in started:
        server.close()


def _race(servers: list[ServerProcess], calls: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """Send each server its call, all before any answer is read; "ok" or each error code."""
    sent = [
        server.start_call(tool, args) for server, (tool, args) in zip(servers, calls, strict=True)
    ]
    answers = []
    for server, request in zip(servers, sent, strict=True):
        result = server.answer(request)["result"]
        answers.append(error_code(result) if result.get("isError") else "ok")
    return answers


def _on_disk(servers: list[ServerProcess]) -> TaskRepository:
    root = Path(str(servers[0].process.args[-1]))  # type: ignore[index]
    return TaskRepository(root)


def _follows(tasks: dict[str, Any], start: str, key: str) -> list[str]:
    """The chain from `start` along `key` (a parent, or the first dependency)."""
    chain, at = [start], start
    while True:
        value = getattr(tasks[at], key)
        at = value[0] if isinstance(value, tuple) and value else value
        if not isinstance(at, str) or at not in tasks or at in chain:
            return chain + ([at] if at in chain else [])
        chain.append(at)


def test_four_servers_creating_one_id_at_once_write_one_file(
    servers: list[ServerProcess],
) -> None:
    for r in range(ROUNDS):
        calls = [("create_task", {"id": f"n{r}", "title": f"By {i}"}) for i in range(SERVERS)]
        answers = _race(servers, calls)
        files = [t for t in _on_disk(servers).scan().tasks() if t.id == f"n{r}"]
        assert sorted(answers) == ["ALREADY_EXISTS"] * (SERVERS - 1) + ["ok"], answers
        assert len(files) == 1


@pytest.mark.parametrize("key", ["depends_on", "parent"])
def test_four_servers_closing_a_cycle_at_once_leave_no_cycle(
    servers: list[ServerProcess], key: str
) -> None:
    kind = "d" if key == "depends_on" else "q"
    for r in range(ROUNDS):
        ring = [f"{kind}{r}-{i}" for i in range(SERVERS)]
        link = (lambda n: [n]) if key == "depends_on" else (lambda n: n)
        calls = [
            ("update_task", {"task_id": ring[i], key: link(ring[(i + 1) % SERVERS])})
            for i in range(SERVERS)
        ]
        answers = _race(servers, calls)
        tasks = {t.id: t for t in _on_disk(servers).scan().tasks()}
        chain = _follows(tasks, ring[0], key)
        assert chain[-1] not in chain[:-1], f"a {key} cycle on disk: {chain}"
        assert answers.count("ok") == SERVERS - 1, answers


def test_a_child_is_never_written_under_a_parent_deleted_at_the_same_moment(
    servers: list[ServerProcess],
) -> None:
    for r in range(ROUNDS):
        create = ("create_task", {"title": "child", "parent": f"p{r}", "id": f"c{r}-x"})
        calls = [("delete_task", {"task_id": f"p{r}"})]
        calls += [(create[0], {**create[1], "id": f"c{r}-{i}"}) for i in range(1, SERVERS)]
        sent = [
            server.start_call(tool, args)
            for server, (tool, args) in zip(servers, calls, strict=True)
        ]
        deleted = servers[0].answer(sent[0])["result"]["structuredContent"]
        for server, request in zip(servers[1:], sent[1:], strict=True):
            server.answer(request)
        children = {t.id for t in _on_disk(servers).scan().tasks() if t.parent == f"p{r}"}
        assert children <= set(deleted["now_dangling"]), "a child written after its parent went"
