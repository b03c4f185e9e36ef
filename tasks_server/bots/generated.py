"""The tool specs a bot's config generates (the list is in `tasks_server.bots.catalog`).

Imported only when a bots folder holds a bot: a tree without bots never loads their code.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from tasks_server.bots.config import Action, Behavior, BotConfig
from tasks_server.bots.models import ActionInput, BotResult, CloseInput, ProjectInput, RestartInput
from tasks_server.bots.runtime import BotRuntime
from tasks_server.spec import Hints, ToolSpec

if TYPE_CHECKING:
    from tasks_server.context import ServerContext

__all__ = ["bot_specs"]


def _hints(*, idempotent: bool) -> Hints:
    """Bot tools write only the bot's state file (and, once, the project task)."""
    return Hints(read_only=False, destructive=False, idempotent=idempotent)


In = TypeVar("In", bound=BaseModel)
Call = Callable[[In, datetime], BotResult]
"""What a bot tool does: its input and the server's clock reading."""


def _handler(call: Call[In]) -> Callable[[ServerContext, In], BotResult]:
    """A registry handler; bot errors are ToolFailures and propagate to the one mapping."""

    def handle(context: ServerContext, args: In) -> BotResult:
        return call(args, context.clock())

    return handle


def _spec(
    name: str,
    description: str,
    patterns: list[str],
    input_model: type[In],
    call: Call[In],
    *,
    idempotent: bool = True,
    confirm: Callable[[Any], str | None] | None = None,
) -> ToolSpec:
    text = f"{description} Triggers: {'; '.join(patterns)}." if patterns else description
    return ToolSpec(
        name=name, tier="workflow", description=text, input_model=input_model,
        output_model=BotResult, handler=_handler(call),
        hints=_hints(idempotent=idempotent), meta={"trigger_patterns": patterns},
        confirm=None if confirm is None else (lambda context, args: confirm(args)),
    )  # fmt: skip


def bot_specs(runtime: BotRuntime, origin: str) -> list[ToolSpec]:
    """Every tool of one bot, bot-level tools first, then per behavior and per action;
    `origin` (its config file) names where they come from."""
    config = runtime.loaded
    specs = _bot_level(runtime, config)
    for behavior in config.behaviors:
        specs.append(_behavior_spec(runtime, behavior))
        specs += [_action_spec(runtime, behavior, action) for action in behavior.actions]
    return [replace(spec, origin=origin) for spec in specs]


def _bot_level(runtime: BotRuntime, config: BotConfig) -> list[ToolSpec]:
    name, close_tool = config.name, config.close_tool
    summary = "".join(f" {text}" for text in (config.description, _goal(config.goal)) if text)
    return [
        _spec(
            config.bot_tool,
            f"Continue the {name} workflow where it left off: runs the current action and "
            f"returns its instructions.{summary}",
            list(config.patterns)
            or [f"continue {name}", "continue where I left off", "what is the next step"],
            ProjectInput, runtime.forward,
            confirm=lambda args: runtime.forward_question(),
        ),
        _spec(
            close_tool,
            f"Mark the current {name} action complete and move to the next one (at a "
            "behavior's end, the next behavior; at the bot's end, report it done). Call it "
            "once the action's outputs are produced and the user agrees.",
            ["done with this step", "close the current action", "move on"],
            CloseInput, runtime.close, idempotent=False, confirm=runtime.close_question,
        ),
        _spec(
            config.restart_tool,
            f"Reload {name}'s config and instructions from disk in this server process "
            "(no process is stopped). Tools added, removed or described anew are listed at "
            "once: the server sends notifications/tools/list_changed.",
            [f"reload {name}", "pick up the edited instructions"],
            RestartInput, lambda args, now: runtime.restart(),
        ),
    ]  # fmt: skip


def _goal(goal: str, before: str = "") -> str:
    """`Goal: <goal>.` as a description says it; nothing without a goal."""
    return f"{before}Goal: {goal.rstrip('.')}." if goal else ""


def _behavior_spec(runtime: BotRuntime, behavior: Behavior) -> ToolSpec:
    patterns = list(behavior.patterns) or [f"work on {behavior.name}", f"start {behavior.name}"]
    return _spec(
        behavior.tool,
        f"{behavior.description}{_goal(behavior.goal, ' ')} Runs the current action of the "
        f"{behavior.name} behavior "
        f"of {behavior.bot} (its first action unless some are complete) and makes "
        f"{behavior.name} current.",
        patterns, ProjectInput,
        lambda args, now: runtime.forward(args, now, behavior.name),
        confirm=lambda args: runtime.forward_question(behavior.name),
    )  # fmt: skip


def _action_spec(runtime: BotRuntime, behavior: Behavior, action: Action) -> ToolSpec:
    close_tool = f"{action.bot}_close_current_action"
    if not action.workflow:
        role = f"outside the workflow steps; becomes current, {close_tool} returns to the steps"
    else:
        step = f"step {behavior.steps.index(action) + 1} of {len(behavior.steps)}"
        then = (
            "completes itself once the project task exists"
            if action.auto_completes
            else f"close it with {close_tool}"
        )
        role = f"{step}; becomes the current action, {then}"
    return _spec(
        action.tool,
        f"{action.instructions.description} ({action.bot} {action.behavior}, {role}.)",
        list(action.patterns),
        ProjectInput if action.auto_completes else ActionInput,
        lambda args, now: runtime.run(action.behavior, action.name, args, now),
        confirm=lambda args: runtime.init_question(runtime.config(), action),
    )
