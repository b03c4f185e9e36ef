"""Guidance about one task: its state as guidance names it (terminal, blocked, deferred,
claimed, in progress, ready, ...), for the caller when the call names its agent, the step
that state calls for, and why it is blocked. See docs/agents.md for the table of states."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from graph.claims import Claim, iso
from graph.facts import BlockedReasons
from storage.model import TERMINAL_STATUSES
from tasks_server.guidance import Guidance, guide

__all__ = ["Readiness", "Situation", "blocked_sentence", "for_task", "held_by_you", "task_state"]

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


class Readiness(Protocol):
    """What guidance reads of a task's readiness (`TaskIndex.about`'s answer holds it)."""

    @property
    def is_ready(self) -> bool: ...
    @property
    def is_blocked(self) -> bool: ...
    @property
    def open_child_count(self) -> int: ...
    @property
    def reasons(self) -> BlockedReasons: ...


@dataclass(frozen=True, slots=True)
class Situation:
    """What guidance about a task reads besides its status and facts, at the server's
    clock: its deferral while it runs, the live claim on it, and the calling agent when the
    call names one (None: a read, which does not know who asks)."""

    deferred_until: datetime | None = None
    claim: Claim | None = None
    agent: str | None = None

    def claim_state(self) -> str:
        """`held_by_you`, `held_by_other`, or `claimed` when the caller is not known."""
        if self.claim is None or self.agent is None:
            return "claimed"
        return "held_by_you" if self.claim.agent == self.agent else "held_by_other"


def task_state(status: str, facts: Readiness, situation: Situation = Situation()) -> str:
    """A task's state as guidance names it: its terminal status, `blocked`, `deferred`,
    `held_by_you` / `held_by_other` / `claimed` (a live claim; the last when the caller did
    not name itself), `in_progress`, `ready`,
    `waiting_on_children` (open but held by open children), else its status."""
    if status in TERMINAL_STATUSES:
        return status
    if facts.is_blocked:
        return "blocked"
    if situation.deferred_until is not None:
        return "deferred"
    if situation.claim is not None:
        return situation.claim_state()
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
    "ready": ("Call claim_task on {id} with your agent name to take it",
              ["claim_task", "claim_next", "update_task", "complete_task",
               "get_task_neighborhood", "get_decomposition_context", "decompose_task"]),
    "in_progress": ("Call complete_task on {id} once its work is done",
                    ["complete_task", "update_task", "get_task_neighborhood", "decompose_task"]),
    "waiting_on_children": ("Call get_children on {id} to work on its open children",
                            ["get_children", "get_task_tree", "update_task", "complete_task"]),
    "review": ("Review {id}, then call complete_task to accept it",
               ["complete_task", "update_task", "get_task_neighborhood"]),
    "inbox": ("Call update_task to set {id} active once it is planned",
              ["update_task", "get_decomposition_context", "get_task_neighborhood",
               "delete_task"]),
    "done": ("Call claim_next to take the next ready task",
             ["claim_next", "get_ready_tasks", "get_task_neighborhood", "update_task"]),
    "deferred": ("Call claim_next to take a task that is ready now",
                 ["claim_next", "get_ready_tasks", "get_task_neighborhood"]),
    "held_by_other": ("Call claim_next to take another task",
                      ["claim_next", "get_ready_tasks", "add_note", "get_task_neighborhood"]),
}  # fmt: skip
_OPEN = ("Call update_task on {id} when what it waits for is there",
         ["update_task", "complete_task", "get_task_neighborhood"])  # fmt: skip
_HELD = ["complete_task", "claim_task", "add_note", "release_task", "update_task"]


def _holder_step(task_id: str, agent: str, expires: datetime | None) -> str:
    renew = f"; renew with claim_task before {iso(expires)}" if expires is not None else ""
    return f"Call complete_task on {task_id} with agent {agent} once its work is done{renew}"


def held_by_you(
    task_id: str, agent: str, expires: datetime | None, *, context: dict[str, Any] | None = None
) -> Guidance:
    """The one next step of an agent holding `task_id`'s claim, whichever tool told it:
    finish the work and complete it under its name, renewing before the lease ends."""
    return guide("task_held_by_you", _holder_step(task_id, agent, expires), _HELD, context=context)


def _claimed(task_id: str, claim: Claim, context: dict[str, Any] | None) -> Guidance:
    """A live claim seen by a read, which does not know who asks: the holder's step (the
    one its claim answer gave), and another agent's."""
    step = _holder_step(task_id, claim.agent, claim.expires)
    return guide(
        "task_claimed",
        f"{step} (if you are not {claim.agent}: claim_next for another task)",
        [*_HELD, "claim_next"],
        context=context,
    )


def _situation_context(situation: Situation) -> dict[str, Any] | None:
    """The facts behind a deferred or claimed state: when the deferral ends, who holds it."""
    if situation.deferred_until is not None:
        return {"deferred_until": iso(situation.deferred_until)}
    claim = situation.claim
    if claim is None:
        return None
    return {
        "claimed_by": claim.agent,
        "claim_expires": iso(claim.expires) if claim.expires else None,
    }


def for_task(
    task_id: str,
    status: str,
    facts: Readiness,
    *,
    first: Sequence[str] = (),
    situation: Situation = Situation(),
) -> Guidance:
    """Guidance about one task, from its state alone: `task_<state>`, the step that state
    calls for, the tools valid in it (`first` ahead of them: the tool just used, say), and
    why it is blocked when it is. A terminal task is never offered complete_task, nor a
    claim."""
    state = task_state(status, facts, situation)
    if state == "held_by_you" and situation.claim is not None and situation.agent is not None:
        return held_by_you(task_id, situation.agent, situation.claim.expires)
    if state == "claimed" and situation.claim is not None:
        return _claimed(task_id, situation.claim, _situation_context(situation))
    if state == "blocked":
        step, tools = _unblock(task_id, facts.reasons)
    else:
        text, tools = _BY_STATE.get("done" if status in TERMINAL_STATUSES else state, _OPEN)
        step = text.format(id=task_id)
    listed = [*first, *tools]
    if status in TERMINAL_STATUSES:
        closed = {"complete_task", "complete_tasks", "claim_task", "release_task"}
        listed = [tool for tool in listed if tool not in closed]
    reason = blocked_sentence(task_id, facts.reasons) if state == "blocked" else None
    context = _situation_context(situation) if state != "blocked" else None
    return guide(f"task_{state}", step, listed, blocked_reason=reason, context=context)
