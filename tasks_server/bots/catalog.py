"""The bot catalog: every bot in a folder, and the tool specs generated from their configs.

Per bot `b` with behaviors `h` and actions `a` (all tier `workflow`):

    b_tool                      run the current action (continue where you left off)
    b_h_tool                    run behavior h's current action; h becomes current
    b_h_a                       run action a of h directly; it becomes current
    b_close_current_action      mark the current action complete and move on
    b_restart_server            reload config and instructions in this process

A config edited on disk is re-read on the next call; its tool list changes only on
`b_restart_server` (until then a config that adds or removes actions is reported in
`warnings`), and then the server tells the client (notifications/tools/list_changed).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from tasks_server.bots.config import Action, Behavior, BotConfig
from tasks_server.bots.errors import BotConfigError, UnknownBot
from tasks_server.bots.models import ActionInput, BotResult, CloseInput, ProjectInput, RestartInput
from tasks_server.bots.project import TaskTree
from tasks_server.bots.runtime import BotRuntime
from tasks_server.spec import Hints, ToolSpec

if TYPE_CHECKING:
    from tasks_server.context import ServerContext

__all__ = ["BotCatalog", "bot_specs"]

CONFIG_FILE = Path("config") / "bot_config.json"


class BotCatalog:
    """The bots found in one folder, each bound to the task tree."""

    def __init__(self, bots: dict[str, BotRuntime]) -> None:
        self.bots = bots

    @classmethod
    def load(cls, bots_dir: Path | None, live: TaskTree) -> BotCatalog:
        """Every sub-folder of `bots_dir` holding `config/bot_config.json` is a bot; no folder
        means no bots. A broken config raises BotConfigError naming the file and field."""
        if bots_dir is None or not bots_dir.is_dir():
            return cls({})
        folders = sorted(p for p in bots_dir.iterdir() if (p / CONFIG_FILE).is_file())
        bots = {runtime.name: runtime for runtime in (BotRuntime(f, live) for f in folders)}
        _check_unique_tools(list(bots.values()))
        return cls(bots)

    def check_names(self, taken: dict[str, ToolSpec]) -> None:
        """BotConfigError when a generated tool would take the name of one in `taken`
        (a built-in, say): one line naming both, never a replacement."""
        for runtime in self.bots.values():
            others = (n for r in self.bots.values() if r is not runtime for n in r.registered)
            runtime.reserved = frozenset(taken).union(others)
            clash = next((name for name in runtime.registered if name in taken), None)
            if clash is not None:
                raise BotConfigError(
                    runtime.folder / CONFIG_FILE, "name", f"generated tool {clash!r} is also "
                    f"the name of the tool from {taken[clash].where}; rename the bot, "
                    "behavior or action",
                )  # fmt: skip

    def names(self) -> list[str]:
        return sorted(self.bots)

    @property
    def version(self) -> int:
        """Grows whenever a bot's registered tools change (a restart_server that found new,
        removed or re-described tools)."""
        return sum(runtime.version for runtime in self.bots.values())

    def bot(self, name: str) -> BotRuntime:
        if name not in self.bots:
            raise UnknownBot(name, self.names())
        return self.bots[name]

    def specs(self, only: str | None = None) -> list[ToolSpec]:
        """The tool specs of every bot (or of bot `only`)."""
        names = [only] if only is not None else self.names()
        return [spec for name in names for spec in bot_specs(self.bot(name))]

    def catalog_json(self, only: str | None = None) -> list[dict[str, Any]]:
        """Name, description, trigger patterns and parameter schema of every bot tool."""
        return [
            {
                "name": spec.name,
                "description": spec.description,
                "trigger_patterns": list((spec.meta or {}).get("trigger_patterns", [])),
                "parameters": spec.input_model.model_json_schema(),
            }
            for spec in self.specs(only)
        ]


def _check_unique_tools(bots: list[BotRuntime]) -> None:
    seen: dict[str, str] = {}
    for runtime in bots:
        for name in runtime.registered:
            if name in seen:
                path = runtime.folder / CONFIG_FILE
                raise BotConfigError(path, "name", f"tool {name!r} is also made by {seen[name]}")
            seen[name] = runtime.name


# --- spec generation ----------------------------------------------------------------------------


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


def bot_specs(runtime: BotRuntime) -> list[ToolSpec]:
    """Every tool of one bot, bot-level tools first, then per behavior and per action."""
    config = runtime.loaded
    specs = _bot_level(runtime, config)
    for behavior in config.behaviors:
        specs.append(_behavior_spec(runtime, behavior))
        specs += [_action_spec(runtime, behavior, action) for action in behavior.actions]
    origin = str(runtime.folder / CONFIG_FILE)
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
