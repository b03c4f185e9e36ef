"""The guidance object every result carries, and small builders for it.

Guidance is derived from state only (the same state gives the same guidance), names real
tools, and stays a few short strings.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer
from pydantic.json_schema import SkipJsonSchema

from graph.facts import BlockedReasons, TaskFacts
from storage.model import TERMINAL_STATUSES

__all__ = [
    "ACTION_HELP",
    "Guidance",
    "action",
    "blocked_sentence",
    "edit_distance",
    "for_session",
    "for_task",
    "guide",
    "nearest_tools",
    "similar_names",
    "task_state",
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
    "get_changes": "what changed between two git revisions, or since one",
    "get_task_history": "the commits that changed a task, with field changes",
    "create_task": "write a new task",
    "update_task": "change fields of a task",
    "complete_task": "mark a task done",
    "complete_tasks": "mark several tasks done",
    "decompose_task": "write child tasks, all or none",
    "reorder_children": "set the order of a task's children",
    "delete_task": "move a task file to .trash",
    "claim_task": "take a task for an agent, with a lease",
    "release_task": "give up an agent's claim",
    "add_note": "append a handoff note to a task",
    "rebuild_index": "re-read the whole tree",
}


class Guidance(BaseModel):
    """What state the result leaves you in and what you can do next."""

    model_config = ConfigDict(extra="forbid")

    current_state: str = Field(description="The state the result leaves, as a short token.")
    next_action: str = Field(description="The most useful next step, naming a tool.")
    available_actions: list[str] = Field(description="Tools that apply now: 'tool - what for'.")
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
    """Build guidance; `tools` are tool names (each listed once), described from one table."""
    return Guidance(
        current_state=state,
        next_action=next_action,
        available_actions=[action(tool) for tool in dict.fromkeys(tools)],
        warnings=warnings or None,
        blocked_reason=blocked_reason,
        context=context or None,
    )


# --- one task's state ---------------------------------------------------------------------------

SHOWN_IDS = 5
"""The most ids a sentence of guidance spells out (the rest are counted)."""


def _ids(ids: Sequence[str]) -> str:
    """`a, b and c`, at most SHOWN_IDS of them.

    >>> _ids(["a"]), _ids(["a", "b", "c"]), _ids([str(n) for n in range(7)])
    ('a', 'a, b and c', '0, 1, 2, 3, 4 and 2 more')
    """
    shown = list(ids[:SHOWN_IDS])
    rest = len(ids) - len(shown)
    if rest:
        return f"{', '.join(shown)} and {rest} more"
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} and {shown[-1]}"


def task_state(status: str, facts: TaskFacts) -> str:
    """A task's state as guidance names it: its terminal status, `blocked`, `in_progress`,
    `ready`, `waiting_on_children` (open but held by open children), else its status."""
    if status in TERMINAL_STATUSES:
        return status
    if facts.is_blocked:
        return "blocked"
    if status == "in_progress":
        return status
    if facts.is_ready:
        return "ready"
    return "waiting_on_children" if facts.open_child_count else status


def blocked_sentence(task_id: str, reasons: BlockedReasons) -> str | None:
    """Why `task_id` is blocked, in one sentence built from its readiness reasons; None when
    no reason applies.

    >>> blocked_sentence("t1", BlockedReasons(unmet_dependencies=["d1"], blocked_ancestor="p"))
    't1 is blocked: it depends on d1, not done yet; its ancestor p is blocked.'
    """
    parts = [
        *(["its own status is blocked"] if reasons.status_blocked else []),
        *([f"it depends on {_ids(reasons.unmet_dependencies)}, not done yet"]
          if reasons.unmet_dependencies else []),
        *([f"it depends on {_ids(reasons.dangling_dependencies)}, which no task has"]
          if reasons.dangling_dependencies else []),
        *([f"it sits on the dependency cycle {_ids(reasons.cycle)}"] if reasons.cycle else []),
        *([f"its ancestor {reasons.blocked_ancestor} is blocked"]
          if reasons.blocked_ancestor else []),
    ]  # fmt: skip
    return f"{task_id} is blocked: {'; '.join(parts)}." if parts else None


def _unblock(task_id: str, reasons: BlockedReasons) -> tuple[str, list[str]]:
    """The step that works on the first reason a task is blocked, and the tools for it."""
    tools = ["get_dependencies", "get_task_neighborhood", "update_task", "get_blocked_tasks"]
    if reasons.unmet_dependencies:
        first = reasons.unmet_dependencies[0]
        return f"Call get_task on {first}, the first unmet dependency of {task_id}", [
            "get_task", *tools]  # fmt: skip
    if reasons.dangling_dependencies:
        missing = reasons.dangling_dependencies[0]
        return f"Call update_task to drop or fix the missing dependency {missing}", tools
    if reasons.cycle:
        return f"Call get_dependencies on {task_id} to find the cycle and break it", tools
    if reasons.blocked_ancestor:
        ancestor = reasons.blocked_ancestor
        return f"Call get_task on {ancestor}, the blocked ancestor of {task_id}", [
            "get_task", *tools]  # fmt: skip
    return f"Call update_task to set {task_id} active once its blocker is gone", tools


_BY_STATE: dict[str, tuple[str, list[str]]] = {
    "ready": ("Call update_task to set {id} in_progress and start it",
              ["update_task", "complete_task", "get_task_neighborhood",
               "get_decomposition_context", "decompose_task"]),
    "in_progress": ("Call complete_task on {id} once its work is done",
                    ["complete_task", "update_task", "get_task_neighborhood", "decompose_task"]),
    "waiting_on_children": ("Call get_children on {id} to work on its open children",
                            ["get_children", "get_task_tree", "update_task", "complete_task"]),
    "review": ("Review {id}, then call complete_task to accept it",
               ["complete_task", "update_task", "get_task_neighborhood"]),
    "inbox": ("Call update_task to set {id} active once it is planned",
              ["update_task", "get_decomposition_context", "get_task_neighborhood",
               "delete_task"]),
    "done": ("Call get_ready_tasks to pick the next task",
             ["get_ready_tasks", "get_task_neighborhood", "update_task"]),
}  # fmt: skip
_OPEN = ("Call update_task on {id} when what it waits for is there",
         ["update_task", "complete_task", "get_task_neighborhood"])  # fmt: skip


def for_task(task_id: str, status: str, facts: TaskFacts, *, first: Sequence[str] = ()) -> Guidance:
    """Guidance about one task, from its state alone: `task_<state>`, the step that state
    calls for, the tools valid in it (`first` ahead of them: the tool just used, say), and
    why it is blocked when it is. A terminal task is never offered complete_task."""
    state = task_state(status, facts)
    if state == "blocked":
        step, tools = _unblock(task_id, facts.reasons)
    else:
        text, tools = _BY_STATE.get("done" if status in TERMINAL_STATUSES else state, _OPEN)
        step = text.format(id=task_id)
    listed = [*first, *tools]
    if status in TERMINAL_STATUSES:
        listed = [tool for tool in listed if tool not in {"complete_task", "complete_tasks"}]
    reason = blocked_sentence(task_id, facts.reasons) if state == "blocked" else None
    return guide(f"task_{state}", step, listed, blocked_reason=reason)


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


def _first_step(actions: Sequence[str]) -> str:
    """An instruction naming the first of `actions` ('tool - what for').

    >>> _first_step(["get_task - read one task in full"])
    'Call get_task (read one task in full)'
    >>> _first_step([])
    'Report this result to the user: no follow-up tool is open to this session'
    """
    if not actions:
        return "Report this result to the user: no follow-up tool is open to this session"
    tool, _, purpose = actions[0].partition(" - ")
    return f"Call {tool} ({purpose})" if purpose and purpose != tool else f"Call {tool}"


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
        guidance["next_action"] = _first_step(actions)
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
