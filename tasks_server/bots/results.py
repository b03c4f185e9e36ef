"""Bot results and their guidance, derived from the config and the state alone."""

from __future__ import annotations

from tasks_server.bots.config import Action, BotConfig
from tasks_server.bots.models import BotResult, InstructionsView, StateView
from tasks_server.bots.state import CloseOutcome, WorkflowState, completed, is_done, successor
from tasks_server.guidance import Guidance, Step, action

__all__ = ["action_result", "close_result", "restart_result", "state_view"]


def state_view(config: BotConfig, state: WorkflowState, current: Action) -> StateView:
    behavior = config.owner(current)
    return StateView(
        current_behavior=behavior.key,
        current_action=current.key,
        timestamp=state.timestamp,
        completed_actions=len(state.completed_actions),
        completed_in_behavior=[a.name for a in behavior.actions if completed(state, a.key)],
    )


def _instructions(current: Action) -> InstructionsView:
    text = current.instructions
    return InstructionsView(
        description=text.description, steps=list(text.steps), outputs=list(text.outputs)
    )


def _result(
    config: BotConfig,
    state: WorkflowState,
    current: Action,
    guidance: Guidance,
    *,
    instructions: InstructionsView | None = None,
    user_input: str | None = None,
    closed: str | None = None,
    project: str | None = None,
) -> BotResult:
    return BotResult(
        success=True, bot=config.name, behavior=current.behavior, action=current.name,
        tool=current.tool, instructions=instructions, trigger_patterns=list(current.patterns),
        user_input=user_input, closed=closed, project_task=project,
        state=state_view(config, state, current), done=is_done(config, state), guidance=guidance,
    )  # fmt: skip


def _guidance(
    state: str, next_action: str, tools: list[Step], warnings: list[str], **context: object
) -> Guidance:
    return Guidance(
        current_state=state, next_action=next_action, available_actions=tools,
        warnings=warnings or None, blocked_reason=None,
        context={k: v for k, v in context.items() if v is not None} or None,
    )  # fmt: skip


def _common(config: BotConfig) -> list[Step]:
    return [
        action(config.bot_tool, "continue at the current action"),
        action(config.close_tool, "mark the current action complete and move on"),
    ]


def action_result(
    config: BotConfig,
    state: WorkflowState,
    current: Action,
    warnings: list[str],
    *,
    user_input: str | None = None,
    project: str | None = None,
) -> BotResult:
    """The result of running (or forwarding to) `current`."""
    following = successor(config, state, current)
    tools = _common(config)
    if following is not None:
        tools.append(action(following.tool, f"then: {following.behavior}.{following.name}"))
    if is_done(config, state):
        text = (
            f"Tell the user the {config.name} workflow is finished; "
            f"{config.behaviors[0].tool} revisits it"
        )
        phase = "bot_done"
    elif current.auto_completes:
        text = f"Tell the user the project task id {project}, then call {config.close_tool}"
        phase = "action_complete"
    else:
        text = f"Follow the instructions, then call {config.close_tool}"
        phase = "action_open"
    guidance = _guidance(phase, text, tools, warnings, action=current.key, project=project)
    return _result(
        config, state, current, guidance, instructions=_instructions(current),
        user_input=user_input, project=project,
    )  # fmt: skip


def close_result(
    config: BotConfig, state: WorkflowState, outcome: CloseOutcome, warnings: list[str]
) -> BotResult:
    """The result of closing `outcome.closed`."""
    current = outcome.current
    tools = [action(current.tool, f"instructions of {current.behavior}.{current.name}")]
    tools += _common(config)
    if outcome.done:
        behavior = config.behaviors[0].tool
        text = f"Tell the user the {config.name} workflow is finished; {behavior} revisits it"
        phase = "bot_done"
    else:
        text = f"Call {current.tool} for the instructions of {current.behavior}.{current.name}"
        phase = "action_closed"
    entered = current.behavior if current.behavior != outcome.closed.behavior else None
    guidance = _guidance(
        phase, text, tools, warnings, already_closed=outcome.already_closed or None,
        entered_behavior=entered,
    )  # fmt: skip
    result = _result(config, state, current, guidance, closed=outcome.closed.key)
    seed = {  # the close fields bots of the base_actions/ layout expect, beside ours
        "status": "completed",
        "completed_action": outcome.closed.name,
        "next_action": None if outcome.done else current.name,
    }
    return result.model_copy(update=seed)


def restart_result(
    config: BotConfig, state: WorkflowState, current: Action, warnings: list[str], files: int
) -> BotResult:
    """The result of reloading the config in-process."""
    text = f"Call {config.bot_tool} to continue at {current.behavior}.{current.name}"
    tools = _common(config)
    guidance = _guidance("config_reloaded", text, tools, warnings, files_read=files)
    return _result(config, state, current, guidance)
