"""The guidance object every result carries (seed 003), and small builders for it.

Guidance is derived from state only (the same state gives the same guidance), names real
tools, and stays a few short strings.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

__all__ = ["ACTION_HELP", "Guidance", "action", "for_session", "guide", "nearest_tools"]

ACTION_HELP = {  # every task tool (a meta-test keeps it whole); bot tools name themselves
    "get_task": "read one task in full",
    "list_tasks": "filter tasks by project, status, type, priority, tag",
    "search_tasks": "substring search over titles and bodies",
    "get_children": "a task's children",
    "get_dependencies": "a task's hard dependencies",
    "get_task_tree": "a subtree or project as a tree",
    "get_ready_tasks": "tasks that can be started now",
    "get_blocked_tasks": "blocked tasks with the reasons",
    "get_review_tasks": "tasks waiting for review",
    "get_graph_metrics": "counts and degrees of the graph",
    "get_task_scoring_factors": "raw factors per task for your own ranking",
    "get_decomposition_context": "what you need to split a task",
    "get_task_neighborhood": "a task's relationships and project peers",
    "get_tasks_with_topology": "tasks with depth and degree metrics",
    "get_review_snapshot": "changes, staleness and velocity since N days",
    "get_structural_signals": "cycles, dangling references, load problems",
    "get_index_stats": "index counts, root, load problems",
    "get_changes": "what changed between two git revisions, or since one",
    "get_task_history": "the commits that changed a task, with field changes",
    "create_task": "write a new task",
    "update_task": "change fields of a task",
    "complete_task": "mark a task done",
    "complete_tasks": "mark several tasks done",
    "decompose_task": "write child tasks, all or none",
    "reorder_children": "set the order of a task's children",
    "delete_task": "move a task file to .trash",
    "rebuild_index": "re-read the whole tree",
}


class Guidance(BaseModel):
    """What state the result leaves you in and what you can do next."""

    model_config = ConfigDict(extra="forbid")

    current_state: str = Field(description="The state the result leaves, as a short token.")
    next_action: str = Field(description="The most useful next step, naming a tool.")
    available_actions: list[str] = Field(description="Tools that apply now: 'tool - what for'.")
    warnings: list[str] | None = Field(None, description="Issues worth attention; not errors.")
    blocked_reason: str | None = Field(None, description="Why the request could not proceed.")
    context: dict[str, Any] | None = Field(None, description="Small facts behind the guidance.")

    @model_serializer(mode="wrap")
    def _drop_empty(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Optional fields that do not apply are left out, keeping guidance compact."""
        data: dict[str, Any] = handler(self)
        return {key: value for key, value in data.items() if value is not None}


def action(tool: str, purpose: str | None = None) -> str:
    """`tool - purpose` as guidance lists it."""
    return f"{tool} - {purpose or ACTION_HELP.get(tool, tool)}"


def guide(
    state: str,
    next_action: str,
    tools: list[str],
    *,
    warnings: list[str] | None = None,
    blocked_reason: str | None = None,
    context: dict[str, Any] | None = None,
) -> Guidance:
    """Build guidance; `tools` are tool names, described from one table."""
    return Guidance(
        current_state=state,
        next_action=next_action,
        available_actions=[action(tool) for tool in tools],
        warnings=warnings or None,
        blocked_reason=blocked_reason,
        context=context or None,
    )


# --- what one session may be told ------------------------------------------------------------

_NEAREST: dict[str, tuple[str, ...]] = {
    "create_task": ("list_tasks", "get_decomposition_context"),
    "update_task": ("get_task", "get_task_neighborhood"),
    "complete_task": ("get_task", "get_review_tasks"),
    "complete_tasks": ("get_ready_tasks", "get_review_tasks"),
    "decompose_task": ("get_decomposition_context", "get_children"),
    "reorder_children": ("get_children", "get_task_tree"),
    "delete_task": ("get_task", "get_structural_signals"),
    "rebuild_index": ("get_index_stats", "get_structural_signals"),
}
"""For a tool a session may not call, the tools that do the nearest job (reading instead of
writing); tools not named here fall back to the allowed tools of their own family."""

_WORD = re.compile(r"[a-z][a-z0-9_]*[a-z0-9]")


def nearest_tools(tool: str, allowed: Sequence[str], *, most: int = 5) -> list[str]:
    """The allowed tools that do the nearest job to `tool`: its listed neighbours, then tools
    sharing its first name part (a bot's other tools), then the first allowed tools.

    >>> nearest_tools("update_task", ["get_task", "list_tasks", "story_bot_tool"])
    ['get_task', 'list_tasks', 'story_bot_tool']
    """
    family = tool.split("_", 1)[0]
    ranked = [
        *(t for t in _NEAREST.get(tool, ()) if t in allowed),
        *(t for t in allowed if t.split("_", 1)[0] == family and t != tool),
        *allowed,
    ]
    return list(dict.fromkeys(ranked))[:most]


def _named(text: str, known: Collection[str]) -> set[str]:
    return {word for word in _WORD.findall(text) if word in known}


def for_session(guidance: dict[str, Any], hidden: Collection[str]) -> None:
    """Make dumped guidance name only tools this session can call, not the `hidden` ones
    (in place).

    Available actions it may not call are dropped; a next step naming one becomes the first
    remaining action; warnings and context entries naming one are dropped; a blocked reason
    naming one says so without the name. Deterministic: the same state and the same
    session give the same guidance.
    """
    actions = [a for a in guidance["available_actions"] if a.split(" - ")[0] not in hidden]
    guidance["available_actions"] = actions
    if _named(guidance["next_action"], hidden):
        guidance["next_action"] = (
            f"Call {actions[0]}" if actions else "No follow-up tool is open to this session"
        )
    if "warnings" in guidance:
        kept = [w for w in guidance["warnings"] if not _named(w, hidden)]
        guidance["warnings"] = kept
        if not kept:
            del guidance["warnings"]
    if _named(guidance.get("blocked_reason") or "", hidden):
        guidance["blocked_reason"] = "It involves a tool this session cannot call"
    context = guidance.get("context")
    if context:
        guidance["context"] = {k: v for k, v in context.items() if not _named(str(v), hidden)}
