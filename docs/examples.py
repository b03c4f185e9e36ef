"""Each tool's example call, in the order a walk over the bundled tree makes them.

The tool reference (`docgen.py`) prints the answer of each call, and the tests that call every
tool (`tests/tasks_server/test_every_call.py` and the other clients' walks) make the same calls
in the same order: both read them here, so the docs do not depend on the tests.
"""

from __future__ import annotations

from typing import Any

from tasks_server.registry import discover

__all__ = ["ARGUMENTS", "BOT_ARGUMENTS", "FIRST"]

FIRST = [
    "get_task",
    "search_tasks",
    "get_children",
    "get_dependencies",
    "get_task_tree",
    "get_decomposition_context",
    "get_task_neighborhood",
    "claim_task",
    "claim_next",
    "add_note",
    "release_task",
    "create_task",
    "update_task",
    "complete_task",
    "complete_tasks",
    "decompose_task",
    "reorder_children",
    "delete_task",
]
"""The walk's order where it matters: reads of the bundled tree as it is, then the writers
whose examples build on each other (claim, note, release); every other tool after them."""
BOT_ARGUMENTS: dict[str, dict[str, Any]] = {
    "story_bot_tool": {"project": "story-meta", "project_title": "Meta story"},
    "triage_bot_tool": {"project": "triage-meta", "project_title": "Meta triage"},
}
"""The bundled bots' starting calls (a bot's tool is generated, with no `@tool` example)."""


def _examples() -> dict[str, dict[str, Any]]:
    """Each tool's declared example call (`@tool(example=...)`), in the walk's order, then
    the bots' starting calls: a new tool is walked with its own example, no edit here."""
    declared = {s.name: s.example for s in discover() if s.example}
    ordered = [n for n in FIRST if n in declared] + sorted(set(declared) - set(FIRST))
    return {**{n: dict(declared[n]) for n in ordered}, **BOT_ARGUMENTS}


ARGUMENTS: dict[str, dict[str, Any]] = _examples()
"""Tool name to the arguments of a call that succeeds on the bundled tree, in walk order."""
