"""Workflow state: where a bot stands, as pure transitions over `workflow_state.json`.

The file (`<root>/.workflow/<bot>/workflow_state.json`) holds `current_behavior`
(`bot.behavior`), `current_action` (`bot.behavior.action`), `timestamp`,
`completed_actions` (`[{action_state, timestamp}]`) and, once initialize_project has run,
`project` (the id of the workflow's project task). It is re-read on every call; nothing is
kept in memory. The current action is, in order of precedence: `current_action` when it names
a valid action; else the successor of the last completed action; else the bot's first action.

The functions here are pure (config and state in, state out); `store.py` does the file I/O.

>>> from tasks_server.bots.state import WorkflowState, completed
>>> completed(WorkflowState(), "story_bot.shape.gather_context")
False
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from tasks_server.bots.config import Action, Behavior, BotConfig
from tasks_server.bots.errors import NotCurrent

__all__ = [
    "CloseOutcome",
    "Completion",
    "Resolution",
    "WorkflowState",
    "behavior_current",
    "close",
    "complete",
    "completed",
    "is_done",
    "resolve_current",
    "select",
    "step_past_completed",
    "successor",
]


@dataclass(frozen=True, slots=True)
class Completion:
    action_state: str
    timestamp: str


@dataclass(frozen=True, slots=True)
class WorkflowState:
    current_behavior: str | None = None
    current_action: str | None = None
    timestamp: str | None = None
    completed_actions: tuple[Completion, ...] = ()
    project: str | None = None


@dataclass(frozen=True, slots=True)
class Resolution:
    """The current action and, when the file's `current_action` was unusable, why."""

    action: Action
    warning: str | None = None


@dataclass(frozen=True, slots=True)
class CloseOutcome:
    closed: Action
    current: Action
    done: bool
    already_closed: bool
    warning: str | None = None


def completed(state: WorkflowState, key: str) -> bool:
    return any(c.action_state == key for c in state.completed_actions)


def _last_completed(config: BotConfig, state: WorkflowState) -> Action | None:
    for record in reversed(state.completed_actions):
        action = config.find(record.action_state)
        if action is not None:
            return action
    return None


def resume_point(config: BotConfig, state: WorkflowState, behavior: Behavior) -> Action:
    """Where a behavior picks up from its completions alone: the successor of its last
    completed workflow action, else its first action."""
    for record in reversed(state.completed_actions):
        action = config.find(record.action_state)
        if action is not None and action.behavior == behavior.name and action.workflow:
            return behavior.after(action) or behavior.steps[0]
    return behavior.steps[0]


def successor(config: BotConfig, state: WorkflowState, action: Action) -> Action | None:
    """The action after `action`: the next in its behavior, else the next behavior's first;
    None after the bot's last action. A non-workflow action returns to its behavior."""
    behavior = config.owner(action)
    if not action.workflow:
        return resume_point(config, state, behavior)
    following = behavior.after(action)
    if following is not None:
        return following
    next_behavior = config.next_behavior(behavior)
    return next_behavior.steps[0] if next_behavior else None


def resolve_current(config: BotConfig, state: WorkflowState) -> Resolution:
    """The current action: `current_action` if valid, else the last completed action's
    successor (the last action itself when the bot is finished), else the first action."""
    if state.current_action is not None:
        action = config.find(state.current_action)
        if action is not None:
            return Resolution(action)
    last = _last_completed(config, state)
    fallback = config.first if last is None else successor(config, state, last) or last
    if state.current_action is None:
        return Resolution(fallback)
    warning = (
        f"current_action {state.current_action!r} names no action of {config.name}; "
        f"continuing at {fallback.key}"
    )
    return Resolution(fallback, warning)


def behavior_current(config: BotConfig, state: WorkflowState, behavior: Behavior) -> Resolution:
    """A behavior's current action: the bot's current action when it is in that behavior,
    else the behavior's resume point."""
    resolution = resolve_current(config, state)
    if resolution.action.behavior == behavior.name:
        return resolution
    return Resolution(resume_point(config, state, behavior), resolution.warning)


def step_past_completed(
    config: BotConfig, state: WorkflowState, resolution: Resolution, within: Behavior | None = None
) -> Resolution:
    """Where a forward tool runs: past every completed action to the first open one (staying
    inside `within` when given); the last action stays when everything after it is complete."""
    action, seen = resolution.action, {resolution.action.key}
    while completed(state, action.key):
        following = successor(config, state, action)
        if following is None or following.key in seen:
            break
        if within is not None and following.behavior != within.name:
            break
        action = following
        seen.add(action.key)
    return replace(resolution, action=action)


def is_done(config: BotConfig, state: WorkflowState) -> bool:
    """True when the current action is the bot's last and it is complete."""
    current = resolve_current(config, state).action
    return successor(config, state, current) is None and completed(state, current.key)


def select(
    state: WorkflowState, action: Action, now: str, *, reopen: bool = False
) -> WorkflowState:
    """Make `action` current; `reopen` also clears its own completion. Unchanged state is
    returned as is (so a repeated call writes nothing)."""
    records = state.completed_actions
    if reopen:
        records = tuple(r for r in records if r.action_state != action.key)
    behavior_key = f"{action.bot}.{action.behavior}"
    unchanged = (state.current_action, state.current_behavior) == (action.key, behavior_key)
    if unchanged and records == state.completed_actions:
        return state
    return replace(
        state, current_behavior=behavior_key, current_action=action.key, timestamp=now,
        completed_actions=records,
    )  # fmt: skip


def complete(state: WorkflowState, action: Action, now: str) -> WorkflowState:
    """Record `action` as completed, once."""
    if completed(state, action.key):
        return state
    return replace(
        state,
        timestamp=now,
        completed_actions=(*state.completed_actions, Completion(action.key, now)),
    )


def close(
    config: BotConfig, state: WorkflowState, now: str, *, expected: Action | None = None
) -> tuple[WorkflowState, CloseOutcome]:
    """Mark the current action complete and move to its successor (or report the bot done).

    With `expected`, close only that action: when it is not current but already complete,
    nothing changes (a retried close is harmless); NotCurrent when it is neither.
    """
    resolution = resolve_current(config, state)
    current = resolution.action
    if expected is not None and expected != current:
        if not completed(state, expected.key):
            raise NotCurrent(expected.key, current.key)
        return state, CloseOutcome(
            expected, current, is_done(config, state), True, resolution.warning
        )
    closed = complete(state, current, now)
    following = successor(config, closed, current)
    closed = select(closed, following or current, now)
    outcome = CloseOutcome(
        current, following or current, following is None, closed == state, resolution.warning
    )
    return closed, outcome
