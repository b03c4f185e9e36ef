"""The guidance rules, walked over every tool × session × task state through a real client.

States: a task that is ready, one that is blocked, one done, one in progress, one deferred,
one another agent's live claim holds (each tool that takes a task is called on it), and
errors (every tool with an unknown argument, every task tool with an unknown id, a bad
cursor; the git tools outside git, and in git with pages to follow). On every answer:

- `current_state` is set, and for a tool reporting one task it is that task's real state;
- `next_action` starts with a verb and names a tool this session lists (when one is open);
- `available_actions` lists each tool once, every one listed by the session;
- a terminal task is never offered complete_task;
- a task left blocked carries `blocked_reason`, a sentence naming every reason;
- an error lists the tools that recover from it, and says why in `blocked_reason`;
- the same state gives the same guidance, and guidance stays compact.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from docs.examples import ARGUMENTS
from graph.claims import claim_of, deferred_until
from graph.index import TaskIndex
from storage.model import TERMINAL_STATUSES
from tasks_server.edge.server import TasksServer
from tests.gitrepo import commit_all, init
from tests.tasks_server.conftest import NOW, error_of, make_server
from tests.tasks_server.test_every_call import SESSIONS

pytestmark = pytest.mark.anyio

STATES = {  # tasks of the bundled tree in each state
    "ready": "wx-6ca4a1a9",
    "blocked": "wx-ec7ac8ad",
    "done": "wx-b80469b8",
    "in_progress": "wx-1b2ba06b",
    "deferred": "pipe-281fa6f5",
    "claimed": "pipe-a84567f9",
}
HOLDER = "agent-w1"
MADE = {  # frontmatter lines that put a ready task of the bundled tree in its state
    "deferred": "defer_until: 2099-01-01",
    "claimed": f"claimed_by: {HOLDER}\nclaim_expires: 2099-01-01T00:00:00Z",
}


def make_states(root: Path) -> Path:
    """Write the deferred and claimed states into their tasks' files."""
    for state, lines in MADE.items():
        (path,) = root.glob(f"*/tasks/{STATES[state]}-*.md")
        text = path.read_text()
        path.write_text(text.replace("---\n", "---\n" + lines + "\n", 1))
    return root


VERBS = {"Call", "Review", "Fix", "Tell", "Follow", "Rank", "Apply", "Write", "Finish", "Retry",
         "Use", "Tick", "Check", "Report", "Read", "Propose", "Choose", "Start"}  # fmt: skip
TASK_TOOLS: dict[str, dict[str, Any]] = {  # called on each state's task, in this order
    "get_task": {},
    "get_children": {},
    "get_dependencies": {},
    "get_task_tree": {},
    "get_decomposition_context": {},
    "get_task_neighborhood": {},
    "get_graph_metrics": {"scope": "{id}"},
    "update_task": {"priority": 1},
    "decompose_task": {"children": [{"title": "Sub"}]},
    "reorder_children": {"parent_id": "{id}"},
    "complete_task": {"force": True},
    "delete_task": {},
}
REPORTS_THE_TASK = {"get_task", "get_dependencies", "update_task"}
WORD = re.compile(r"[a-z][a-z0-9_]*[a-z0-9]")


def state_of(index: TaskIndex, task_id: str) -> str:
    """The state a test expects from a call that does not name its agent, from the index
    directly."""
    task, facts = index.require(task_id), index.facts(task_id)
    claim = claim_of(task)
    if task.status in TERMINAL_STATUSES:
        return task.status
    if facts.is_blocked:
        return "blocked"
    if deferred_until(task, NOW):
        return "deferred"
    if claim is not None and claim.is_live(NOW):
        return "claimed"
    return "ready" if facts.is_ready else task.status


def task_arguments(tool: str, task_id: str, index: TaskIndex) -> dict[str, Any]:
    given = {k: v.replace("{id}", task_id) if isinstance(v, str) else v
             for k, v in TASK_TOOLS[tool].items()}  # fmt: skip
    if tool == "reorder_children":
        return {**given, "order": index.children(task_id)[::-1]}
    return given if "scope" in given or "parent_id" in given else {"task_id": task_id, **given}


def _spelled_like_no_tool(guidance: dict[str, Any]) -> bool:
    """An unknown tool name near no tool's spelling: its recovery is tools/list itself
    (offering some other tool would be a guess, not a fact)."""
    return (
        guidance["current_state"] == "error_unknown_tool"
        and "tools/list" in (guidance["next_action"])
    )


class Walk:
    """One session: calls tools and checks every answer's guidance against the rules."""

    def __init__(self, server: TasksServer, client: Client, listed: set[str]) -> None:
        self.server, self.client, self.listed = server, client, listed
        self.known = set(server.toolset.specs)
        self.checked = 0

    def named(self, text: str) -> set[str]:
        return {word for word in WORD.findall(text) if word in self.known}

    async def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = await self.client.call_tool(tool, arguments)
        data = error_of(result) if result.is_error else dict(result.structured_content or {})
        self.check(tool, data)
        return data

    def check(self, tool: str, data: dict[str, Any]) -> None:
        guidance = data["guidance"]
        where = f"{tool}: {json.dumps(guidance)}"
        assert guidance["current_state"], where
        step = guidance["next_action"]
        assert step.split()[0] in VERBS, f"{where}: next_action does not start with a verb"
        assert self.named(step) <= self.listed, f"{where}: next_action names a hidden tool"
        actions = [entry.split(" - ")[0] for entry in guidance["available_actions"]]
        assert len(actions) == len(set(actions)), f"{where}: an action is listed twice"
        assert set(actions) <= self.listed, f"{where}: an action this session cannot call"
        if actions:
            assert self.named(step) & self.listed, f"{where}: next_action names no open tool"
        if data["success"] is False and not _spelled_like_no_tool(guidance):
            assert actions, f"{where}: an error without recovery tools"
            assert guidance["blocked_reason"], where
        assert len(json.dumps(guidance)) < 1200, f"{where}: not compact"
        self.checked += 1

    def check_task(self, tool: str, task_id: str, data: dict[str, Any]) -> None:
        """The rules that follow the task's state after the call."""
        index = self.server.context.index
        if task_id not in index or data["success"] is False:
            return
        guidance, state = data["guidance"], state_of(index, task_id)
        actions = {entry.split(" - ")[0] for entry in guidance["available_actions"]}
        if state in TERMINAL_STATUSES:
            assert not actions & {"complete_task", "complete_tasks"}, (tool, guidance)
        if state == "blocked":
            reason, reasons = guidance.get("blocked_reason") or "", index.reasons(task_id)
            assert reason.startswith(f"{task_id} is blocked: "), (tool, guidance)
            for dependency in [*reasons.unmet_dependencies, *reasons.dangling_dependencies]:
                assert dependency in reason, (tool, reason)
        if tool in REPORTS_THE_TASK:
            assert guidance["current_state"] == f"task_{state}", (tool, state, guidance)


async def open_walk(root: Path, shape: str) -> tuple[TasksServer, Client, Walk]:
    server = make_server(root, **SESSIONS[shape])
    client = Client(server)
    await client.__aenter__()
    listed = {tool.name for tool in (await client.list_tools()).tools}
    return server, client, Walk(server, client, listed)


@pytest.mark.parametrize("state", sorted(STATES))
@pytest.mark.parametrize("shape", sorted(SESSIONS))
async def test_every_task_tool_guides_by_the_state_of_its_task(
    example_root: Path, shape: str, state: str
) -> None:
    server, client, walk = await open_walk(make_states(example_root), shape)
    task_id = STATES[state]
    index = server.context.index
    assert state_of(index, task_id) == state, "the bundled tree changed; pick another task"
    try:
        for tool in [name for name in TASK_TOOLS if name in walk.listed]:
            data = await walk.call(tool, task_arguments(tool, task_id, index))
            walk.check_task(tool, task_id, data)
            if tool == "get_task":  # the same state gives the same guidance
                again = await walk.call(tool, task_arguments(tool, task_id, index))
                assert again["guidance"] == data["guidance"]
    finally:
        await client.__aexit__(None, None, None)
        server.context.close()
    assert walk.checked or not set(TASK_TOOLS) & walk.listed


@pytest.mark.parametrize("shape", sorted(SESSIONS))
async def test_every_other_tool_and_every_error_guides_by_the_rules(
    example_root: Path, shape: str
) -> None:
    server, client, walk = await open_walk(example_root, shape)
    try:
        for tool in sorted(walk.listed - set(TASK_TOOLS)):
            await walk.call(tool, ARGUMENTS.get(tool, {}))
        for tool in sorted(walk.listed):
            await walk.call(tool, {"not_an_argument": 1})
        for tool in sorted(walk.listed & set(TASK_TOOLS)):
            arguments = {"task_id": "nope"} if tool != "reorder_children" else {}
            await walk.call(tool, arguments)
        for tool in sorted(walk.listed & {"list_tasks", "get_ready_tasks", "search_tasks"}):
            await walk.call(tool, {**ARGUMENTS.get(tool, {}), "cursor": "garbage"})
        await walk.call("no_such_tool", {})
    finally:
        await client.__aexit__(None, None, None)
        server.context.close()
    assert walk.checked > len(walk.listed)


NEW_TASK = "---\nid: {id}\ntitle: New {id}\nstatus: active\n---\n"


@pytest.mark.parametrize("shape", ["all", "allowlist", "editor", "planner"])
async def test_the_git_tools_guide_by_the_rules_on_a_tree_in_git(
    example_root: Path, shape: str
) -> None:
    commit_all(init(example_root), "the example tree")
    for task_id in ("zz-new-1", "zz-new-2"):  # two added tasks: a second page to follow
        (example_root / f"{task_id}.md").write_text(NEW_TASK.format(id=task_id))
    server, client, walk = await open_walk(example_root, shape)
    calls = {
        "get_changes": {"since_ref": "HEAD", "limit": 1},
        "get_task_history": {"task_id": STATES["ready"], "limit": 1},
    }
    try:
        for tool in sorted(walk.listed & set(calls)):
            first = await walk.call(tool, calls[tool])
            assert first["success"] is True, first
            if tool == "get_changes":  # two added tasks, one a page
                assert first["next_cursor"] and first["guidance"]["next_action"].startswith(
                    "Call get_changes with cursor"
                )
                await walk.call(tool, {**calls[tool], "cursor": first["next_cursor"]})
            await walk.call(tool, {**calls[tool], "cursor": "garbage"})
        if "get_changes" in walk.listed:
            await walk.call("get_changes", {"since_ref": "no-such-revision"})
    finally:
        await client.__aexit__(None, None, None)
        server.context.close()
    assert walk.checked >= 2
