"""The guidance object every result carries, and small builders for it.

Guidance is derived from state only (the same state gives the same guidance), names real
tools, and stays a few short strings. Its available actions are data (`Step`: a tool and
what it is for), rendered once when written out; a session's guidance is narrowed to the
tools it can call by `for_session`. Guidance about one task's state: `task_guidance.py`.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    SerializerFunctionWrapHandler,
    WithJsonSchema,
    model_serializer,
)
from pydantic.json_schema import SkipJsonSchema

__all__ = [
    "ACTION_HELP",
    "Guidance",
    "Step",
    "action",
    "edit_distance",
    "for_session",
    "guide",
    "nearest_tools",
    "similar_names",
]

ACTION_HELP = {  # every task tool (a meta-test keeps it whole); bot tools name themselves
    "get_task": "read one task in full",
    "list_tasks": "filter tasks by project, status, type, priority, tags, subtree, claim",
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
    "get_changes": "what changed since a token of an earlier answer, or between git states",
    "wait_for_changes": "wait until the tree changes, instead of asking again",
    "get_task_history": "the commits that changed a task, with field changes",
    "create_task": "write a new task",
    "update_task": "change fields of a task",
    "complete_task": "mark a task done",
    "complete_tasks": "mark several tasks done",
    "decompose_task": "write child tasks, all or none",
    "reorder_children": "set the order of a task's children",
    "delete_task": "move a task file to .trash",
    "claim_task": "take a task for an agent, with a lease",
    "claim_next": "take the first ready, unclaimed task, with a lease",
    "release_task": "give up an agent's claim",
    "add_note": "append a handoff note to a task",
    "rebuild_index": "re-read the whole tree",
}


@dataclass(frozen=True, slots=True)
class Step:
    """One available action as data: the tool, and what it is for here. Rendered once, as
    the wire shows it (`tool - what for`), when the guidance is written out."""

    tool: str
    purpose: str

    def __str__(self) -> str:
        return f"{self.tool} - {self.purpose}"


StepText = Annotated[
    Step, PlainSerializer(str, return_type=str), WithJsonSchema({"type": "string"})
]


class Guidance(BaseModel):
    """What state the result leaves you in and what you can do next."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    current_state: str = Field(description="The state the result leaves, as a short token.")
    next_action: str = Field(description="The most useful next step, naming a tool.")
    available_actions: list[StepText] = Field(
        description="Tools that apply now: 'tool - what for'."
    )
    warnings: list[str] | SkipJsonSchema[None] = Field(
        None, description="Issues worth attention; not errors."
    )
    blocked_reason: str | SkipJsonSchema[None] = Field(
        None, description="Why the request could not proceed."
    )
    context: dict[str, Any] | SkipJsonSchema[None] = Field(
        None, description="Small facts behind the guidance."
    )

    @model_serializer(mode="wrap")
    def _drop_empty(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Optional fields that do not apply are left out, keeping guidance compact."""
        data: dict[str, Any] = handler(self)
        return {key: value for key, value in data.items() if value is not None}


def action(tool: str, purpose: str | None = None) -> Step:
    """One available action: `tool`, for `purpose` (default: its line in ACTION_HELP)."""
    return Step(tool, purpose or ACTION_HELP.get(tool, tool))


def guide(
    state: str,
    next_action: str,
    tools: list[str],
    *,
    warnings: list[str] | None = None,
    blocked_reason: str | None = None,
    context: dict[str, Any] | None = None,
) -> Guidance:
    """Build guidance; `tools` are tool names (each listed once), described from one table."""
    return Guidance(
        current_state=state,
        next_action=next_action,
        available_actions=[action(tool) for tool in dict.fromkeys(tools)],
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
    "claim_task": ("get_ready_tasks", "get_task"),
    "claim_next": ("get_ready_tasks", "get_task"),
    "release_task": ("get_task", "get_ready_tasks"),
    "add_note": ("get_task", "search_tasks"),
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


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance: the fewest single-character inserts, deletes and substitutions
    that turn `a` into `b`.

    >>> edit_distance("gettask", "get_task")
    1
    """
    previous = list(range(len(b) + 1))
    for i, char in enumerate(a, 1):
        current = [i]
        for j, other in enumerate(b, 1):
            current.append(
                min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char != other))
            )
        previous = current
    return previous[-1]


def similar_names(name: str, names: Iterable[str], *, most: int = 3) -> list[str]:
    """The `names` spelled nearest to `name` (a typo's likely meaning): those within a third
    of its length in edit distance (at least 2), nearest first, then by name; none when no
    name is that close. A fact about spelling, not a judgement of which tool fits.

    >>> similar_names("get_tsk", ["get_task", "get_tasks_by_tag", "add_note"])
    ['get_task']
    >>> similar_names("make_coffee", ["get_task", "add_note"])
    []
    """
    limit = max(2, len(name) // 3)
    near = sorted((edit_distance(name, other), other) for other in names)
    return [other for distance, other in near if distance <= limit][:most]


def _named(text: str, known: Collection[str]) -> set[str]:
    return {word for word in _WORD.findall(text) if word in known}


def _first_step(actions: Sequence[Step]) -> str:
    """An instruction naming the first of `actions`.

    >>> _first_step([action("get_task")])
    'Call get_task (read one task in full)'
    >>> _first_step([])
    'Report this result to the user: no follow-up tool is open to this session'
    """
    if not actions:
        return "Report this result to the user: no follow-up tool is open to this session"
    first = actions[0]
    return f"Call {first.tool} ({first.purpose})" if first.purpose != first.tool else (
        f"Call {first.tool}")  # fmt: skip


def for_session(guidance: Guidance, hidden: Collection[str]) -> Guidance:
    """`guidance` naming only tools this session can call, not the `hidden` ones.

    Available actions it may not call are dropped (by their tool); a next step naming one
    becomes the first remaining action; warnings and context entries naming one are
    dropped; a blocked reason naming one says so without the name. Deterministic: the same
    state and the same session give the same guidance.
    """
    actions = [step for step in guidance.available_actions if step.tool not in hidden]
    step = guidance.next_action
    reason = guidance.blocked_reason
    context = guidance.context
    warnings = [w for w in guidance.warnings or () if not _named(w, hidden)]
    return guidance.model_copy(
        update={
            "available_actions": actions,
            "next_action": _first_step(actions) if _named(step, hidden) else step,
            "warnings": warnings or None,
            "blocked_reason": "It involves a tool this session cannot call"
            if reason and _named(reason, hidden)
            else reason,
            "context": {k: v for k, v in context.items() if not _named(str(v), hidden)}
            if context
            else context,
        }
    )
