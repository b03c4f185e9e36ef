"""Guidance that knows the agent: the `next_action` of every answer about a task, in every
state (ready, blocked, done, in progress, deferred, held by the caller, held by another
agent) and role, succeeds when the caller does what it says: never CONFLICT,
TOOL_NOT_ALLOWED or a refused write.

The walker acts as one agent. It reads a task, takes the answer's `next_action` when it is a
call ("Call ..."; a step of the caller's own judgement, "Read the lists; link tasks with
update_task", names no task to call it on), finds the tool it names (the first the session
knows; for a claim it does not hold, the step the guidance gives another agent), fills the
arguments the sentence gives (the task it names, the agent it names), does the work a step
waits for ("once its work is done": it ticks the task's checklist), and calls it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from docs.examples import ARGUMENTS
from tests.tasks_server.conftest import error_of, make_server
from tests.tasks_server.test_every_call import SESSIONS
from tests.tasks_server.test_guidance_rules import HOLDER, STATES, make_states

pytestmark = pytest.mark.anyio

ME = "agent-w9"
HELD_BY_ME = "wx-dc36fc90"
READS = ["get_task", "get_children", "get_dependencies", "get_task_neighborhood"]
WRITES_NAMING_ME = ["claim_task", "update_task", "complete_task"]
WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9]")
REFUSED = {"CONFLICT", "TOOL_NOT_ALLOWED", "OPEN_CHECKLIST", "INVALID_ARGUMENT"}


def hold(root: Path) -> Path:
    """The walker's own live claim on a ready task, besides the made states."""
    (path,) = root.glob(f"*/tasks/{HELD_BY_ME}-*.md")
    lines = f"claimed_by: {ME}\nclaim_expires: 2099-01-01T00:00:00Z\n"
    path.write_text(path.read_text().replace("---\n", "---\n" + lines, 1))
    return make_states(root)


class Follower:
    """Calls what an answer's next_action says, as the agent ME."""

    def __init__(self, client: Client, known: set[str], ids: set[str], root: Path) -> None:
        self.client, self.known, self.ids, self.root = client, known, ids, root
        self.followed: list[str] = []

    def step_tool(self, step: str) -> str | None:
        other = re.search(r"\(if you are not (\S+): (\w+)", step)
        if other and other.group(1) != ME:
            return other.group(2)
        return next((w for w in WORD.findall(step) if w in self.known), None)

    def arguments(self, tool: str, step: str, task_id: str) -> dict[str, Any]:
        named = next((w for w in WORD.findall(step) if w in self.ids), task_id)
        agent = re.search(r"with agent (\S+)", step)
        me = {"agent": agent.group(1) if agent and tool == "complete_task" else ME}
        by_tool: dict[str, dict[str, Any]] = {
            "claim_task": {"task_id": named, **me, "lease_seconds": 60},
            "claim_next": {**me, "lease_seconds": 60},
            "complete_task": {"task_id": named, **me},
            "update_task": {"task_id": named, **me},
            "release_task": {"task_id": named, **me},
            "add_note": {"task_id": named, "text": "seen", "author": ME},
        }
        if tool in by_tool:
            return by_tool[tool]
        return {"task_id": named} if tool in READS or "task_id" in step else ARGUMENTS.get(tool, {})

    def do_the_work(self, task_id: str) -> None:
        """Tick the open checklist items of the task a step waits on."""
        for path in self.root.glob(f"*/tasks/{task_id}-*.md"):
            path.write_text(path.read_text().replace("- [ ]", "- [x]"))

    async def follow(self, answer: dict[str, Any], task_id: str) -> None:
        step = answer["guidance"]["next_action"]
        tool = self.step_tool(step)
        if tool is None or not step.startswith("Call "):
            return
        arguments = self.arguments(tool, step, task_id)
        if "once its work is done" in step and "task_id" in arguments:
            self.do_the_work(arguments["task_id"])
        result = await self.client.call_tool(tool, arguments)
        where = f"{step!r} -> {tool}({arguments})"
        if result.is_error:
            code = error_of(result)["error"]["code"]
            assert code not in REFUSED, f"{where}: {code}"
        assert not result.is_error, where
        self.followed.append(tool)


async def follow_every_answer(root: Path, shape: str, task_id: str) -> list[str]:
    server = make_server(root, **SESSIONS[shape])
    index = server.context.index
    try:
        async with Client(server) as client:
            listed = {tool.name for tool in (await client.list_tools()).tools}
            follower = Follower(client, set(server.toolset.specs), set(index.ids()), root)
            for tool in [t for t in [*READS, *WRITES_NAMING_ME] if t in listed]:
                arguments = follower.arguments(tool, "", task_id)
                result = await client.call_tool(tool, arguments)
                answer = error_of(result) if result.is_error else result.structured_content
                await follower.follow(dict(answer or {}), task_id)
    finally:
        server.context.close()
    return follower.followed


@pytest.mark.parametrize("state", [*sorted(STATES), "held_by_me"])
@pytest.mark.parametrize("shape", ["all", "editor", "planner"])
async def test_the_next_action_of_every_answer_about_a_task_succeeds_when_followed(
    example_root: Path, shape: str, state: str
) -> None:
    task_id = HELD_BY_ME if state == "held_by_me" else STATES[state]
    followed = await follow_every_answer(hold(example_root), shape, task_id)
    assert followed


async def test_a_task_another_agent_holds_sends_a_worker_to_claim_next(
    example_root: Path,
) -> None:
    root = hold(example_root)
    server = make_server(root, role="editor")
    try:
        async with Client(server) as client:
            read = await client.call_tool("get_task", {"task_id": STATES["claimed"]})
            guidance = (read.structured_content or {})["guidance"]
            assert guidance["current_state"] == "task_claimed"
            assert guidance["context"]["claimed_by"] == HOLDER
            assert f"if you are not {HOLDER}: claim_next" in guidance["next_action"]
    finally:
        server.context.close()


async def test_a_claimants_get_task_and_claim_task_answers_agree_on_one_next_step(
    example_root: Path,
) -> None:
    server = make_server(example_root, role="editor")
    task_id = STATES["ready"]
    try:
        async with Client(server) as client:
            arguments = {"task_id": task_id, "agent": ME, "lease_seconds": 600}
            claimed = await client.call_tool("claim_task", arguments)
            read = await client.call_tool("get_task", {"task_id": task_id})
        claim_step = (claimed.structured_content or {})["guidance"]["next_action"]
        read_step = (read.structured_content or {})["guidance"]["next_action"]
        assert claim_step.startswith(f"Call complete_task on {task_id} with agent {ME}")
        assert read_step.startswith(claim_step)
    finally:
        server.context.close()


async def test_a_deferred_task_says_so_and_sends_a_worker_to_claim_next(
    example_root: Path,
) -> None:
    server = make_server(make_states(example_root), role="editor")
    try:
        async with Client(server) as client:
            read = await client.call_tool("get_task", {"task_id": STATES["deferred"]})
        guidance = (read.structured_content or {})["guidance"]
        assert guidance["current_state"] == "task_deferred"
        assert guidance["context"]["deferred_until"].startswith("2099-01-01")
        assert guidance["next_action"].startswith("Call claim_next")
    finally:
        server.context.close()


@pytest.mark.parametrize(("shape", "step"), [("editor", "claim_next"), ("planner", None)])
async def test_get_ready_tasks_sends_a_worker_to_claim_next_and_never_a_planner(
    example_root: Path, shape: str, step: str | None
) -> None:
    server = make_server(example_root, **SESSIONS[shape])
    try:
        async with Client(server) as client:
            ready = await client.call_tool("get_ready_tasks", {})
        next_action = (ready.structured_content or {})["guidance"]["next_action"]
        assert ("claim_next" in next_action) == (step is not None)
        assert "get_task_scoring_factors" not in next_action or shape == "planner"
    finally:
        server.context.close()


async def test_a_note_on_a_done_task_offers_neither_a_claim_nor_a_completion(
    example_root: Path,
) -> None:
    server = make_server(example_root)
    try:
        async with Client(server) as client:
            arguments = {"task_id": STATES["done"], "text": "Shipped.", "author": ME}
            noted = await client.call_tool("add_note", arguments)
        actions = (noted.structured_content or {})["guidance"]["available_actions"]
        named = {entry.split(" - ")[0] for entry in actions}
        assert not named & {"claim_task", "complete_task", "release_task"}
    finally:
        server.context.close()
