"""The change feed is exact: random writes through two server processes (stdio, the SDK
client) and editor saves (files written directly); after every step `get_changes` since the
previous answer's token, and since the example's first token (the steps composed), equal the
difference of two fresh loads read independently with python-frontmatter, readiness
computed the simple way (`tests.tasks_server.test_changes`). Quick: a few short examples,
the two servers in this process (each its own live tree); deep (`-m deep`): the full count,
two server processes."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import frontmatter
import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.conftest import examples, is_deep_run
from tests.tasks_server.conftest import make_server
from tests.tasks_server.test_changes import SECTIONS, expected, first_state, parse, write

STATUSES = ("active", "done", "blocked", "cancelled", "inbox")


def fresh_load(root: Path) -> dict[str, dict[str, Any]]:
    """id → metadata (with `path`, `body`) of every task file, hidden folders left out."""
    found = {}
    for path in sorted(root.rglob("*.md")):
        relative = path.relative_to(root).as_posix()
        if any(part.startswith(".") for part in relative.split("/")):
            continue
        meta = parse(path.read_text())
        if meta is not None and meta.get("id") not in found:
            found[meta["id"]] = {**meta, "path": relative}
    return found


def shape(found: dict[str, Any]) -> dict[str, Any]:
    """The comparable part of a delta: ids per section; for a change, the fields' names,
    whether the body changed and the move."""
    changed = {i: (sorted(f), b, m) for i, (f, b, m) in found["changed"].items()}
    return {**{s: found[s] for s in SECTIONS if s in found and s != "changed"}, "changed": changed}


def as_shape(answer: dict[str, Any]) -> dict[str, Any]:
    changed = {}
    for row in answer["changed"]:
        moved = (row["path"]["from"], row["path"]["to"]) if row["path"] else None
        changed[row["task_id"]] = (sorted(row["fields"]), row["body_changed"], moved)
    lists = {
        s: [r["id"] for r in answer[s]] for s in SECTIONS if s != "changed" and "problem" not in s
    }
    return {**lists, "changed": changed}


@dataclass
class Servers:
    portal: BlockingPortal
    clients: list[Client]
    root: Path

    def call(self, which: int, tool: str, **arguments: Any) -> dict[str, Any] | None:
        result = self.portal.call(self.clients[which].call_tool, tool, arguments)
        return None if result.is_error else dict(result.structured_content or {})

    def changes(self, token: str) -> dict[str, Any]:
        """Every section since `token`, paged, from the first server."""
        pages = [self.call(0, "get_changes", since_token=token, limit=7)]
        while pages[-1] and pages[-1]["next_cursor"]:
            cursor = pages[-1]["next_cursor"]
            pages.append(self.call(0, "get_changes", since_token=token, limit=7, cursor=cursor))
        assert all(pages), "a feed page failed"
        whole = {s: [r for p in pages for r in p[s]] for s in SECTIONS}  # type: ignore[index]
        return {**pages[-1], **whole}  # type: ignore[dict-item]


def params(root: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "tasks_server", "serve", "--root", str(root)],
        env=dict(os.environ),
    )


def connection(root: Path, processes: bool) -> Client:
    """A client of a server process over stdio (deep), or of a watching server in this
    process with its own live tree (quick: no process start; its writes reach the other
    server as an editor's do, through the files)."""
    return Client(params(root) if processes else make_server(root, watch=True))  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def servers(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[Servers]:
    root = tmp_path_factory.mktemp("feed") / "tasks"
    first_state(root)
    processes = is_deep_run(request.config)
    with (
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(connection(root, processes)) as first,
        portal.wrap_async_context_manager(connection(root, processes)) as second,
    ):
        yield Servers(portal, [first, second], root)


Step = tuple[str, str, int, int, int]
STEPS = st.tuples(
    st.sampled_from(["server0", "server1", "editor"]),
    st.sampled_from(["create", "status", "title", "parent", "depends", "delete"]),
    st.integers(0, 50), st.integers(0, 50), st.integers(0, len(STATUSES) - 1),
)  # fmt: skip


def editor_write(
    root: Path, op: str, task: dict[str, Any] | None, other: str, status: str, n: int
) -> None:
    if op == "create" or task is None:
        write(root, f"hand/e{n}.md", id=f"e{n}", title=f"By hand {n}", status=status)
        return
    path = root / task["path"]
    if op == "delete":
        path.unlink()
        return
    post = frontmatter.load(path)
    changes = {"status": status, "title": f"Retitled {n}", "parent": other, "depends_on": [other]}
    key = {"depends": "depends_on"}.get(op, op)
    post[key] = changes[key]
    path.write_text(frontmatter.dumps(post, sort_keys=False) + "\n")


def server_write(
    servers: Servers, which: int, op: str, task_id: str | None, other: str, status: str, n: int
) -> None:
    if op == "create" or task_id is None:
        servers.call(which, "create_task", title=f"Made {n}", status=status)
        return
    if op == "delete":
        servers.call(which, "delete_task", task_id=task_id)
        return
    fields = {"status": status, "title": f"Renamed {n}", "parent": other, "depends": [other]}
    name = {"depends": "depends_on"}.get(op, op)
    servers.call(which, "update_task", task_id=task_id, **{name: fields[op]})


def apply(servers: Servers, step: Step, counter: int) -> None:
    writer, op, pick, pick_other, status_at = step
    tasks = fresh_load(servers.root)
    ids = sorted(tasks)
    task_id = ids[pick % len(ids)] if ids else None
    other = ids[pick_other % len(ids)] if ids else "nobody"
    status = STATUSES[status_at]
    if writer == "editor":
        editor_write(servers.root, op, tasks.get(task_id or ""), other, status, counter)
    else:
        server_write(servers, int(writer[-1]), op, task_id, other, status, counter)


COUNTER = iter(range(10**9))


@settings(
    max_examples=examples(30),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(steps=st.lists(STEPS, min_size=1, max_size=5))
def test_the_feed_composed_over_any_writes_equals_two_fresh_loads(
    servers: Servers, steps: list[Step]
) -> None:
    start_state = fresh_load(servers.root)
    start = token = servers.call(0, "get_index_stats")["token"]  # type: ignore[index]
    before = start_state
    for step in steps:
        apply(servers, step, next(COUNTER))
        after = fresh_load(servers.root)
        answer = servers.changes(token)
        assert as_shape(answer) == shape(expected(before, after)), json.dumps(step)
        before, token = after, answer["token"]
    composed = servers.changes(start)
    assert as_shape(composed) == shape(expected(start_state, before))
