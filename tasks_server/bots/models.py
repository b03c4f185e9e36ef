"""The typed inputs of the bot tools and the one result model they all return."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from tasks_server.models import Envelope

__all__ = [
    "ActionInput",
    "BotResult",
    "CloseInput",
    "InstructionsView",
    "ProjectInput",
    "RestartInput",
    "StateView",
]


USER_INPUT_CHARS = 20_000
"""The longest user_input a bot takes: it is echoed back, so it is bounded."""


class _Input(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ActionInput(_Input):
    user_input: str | None = Field(
        None,
        max_length=USER_INPUT_CHARS,
        description="The user's request in their own words; returned with the instructions "
        "so they can be applied to it.",
    )


class ProjectInput(ActionInput):
    project: str | None = Field(
        None,
        description="Id of the workflow's project task, used when the action run is "
        "initialize_project. Default: '<bot name>-project'.",
    )
    project_title: str | None = Field(
        None, description="Title for the project task if it has to be created."
    )


class CloseInput(_Input):
    action: str | None = Field(
        None,
        description="The action you finished, as 'behavior.action' (e.g. "
        "'shape.gather_context'). When given, only that action is closed: closing it again "
        "changes nothing, and the call is refused if another action is current.",
    )


class RestartInput(_Input):
    pass


class InstructionsView(BaseModel):
    model_config = ConfigDict(extra="forbid")

    description: str | None = Field(
        description="What the action is for; null when its file gives only the lines of "
        "`steps` (the first of them says it)."
    )
    steps: list[str] = Field(description="What to do, in order.")
    outputs: list[str] = Field(description="What the action should produce.")


class StateView(BaseModel):
    model_config = ConfigDict(extra="forbid")

    current_behavior: str = Field(description="The current behavior, as 'bot.behavior'.")
    current_action: str = Field(description="The current action, as 'bot.behavior.action'.")
    timestamp: str | None = Field(description="When the state last changed (UTC).")
    completed_actions: int = Field(description="How many actions are recorded as complete.")
    completed_in_behavior: list[str] = Field(
        description="The current behavior's completed actions, in workflow order."
    )


class BotResult(Envelope):
    """What every bot tool returns."""

    bot: str = Field(description="The bot's name.")
    behavior: str = Field(description="The behavior of the action this result is about.")
    action: str = Field(description="The action this result is about (now current).")
    tool: str = Field(description="The tool that runs that action directly.")
    instructions: InstructionsView | None = Field(
        description="The action's instructions; null when no action was run (close, restart)."
    )
    trigger_patterns: list[str] = Field(description="Phrases that mean that action.")
    user_input: str | None = Field(description="The user's request, as passed in.")
    closed: str | None = Field(description="The action a close marked complete, if any.")
    project_task: str | None = Field(
        description="The project task id, when initialize_project made sure it exists."
    )
    state: StateView = Field(description="The workflow state after the call.")
    done: bool = Field(description="True when the bot's last action is complete.")
    status: str | None = Field(
        None, description="Seed 000's close status: 'completed' on a close; null otherwise."
    )
    completed_action: str | None = Field(
        None, description="On a close: the name of the action marked complete."
    )
    next_action: str | None = Field(
        None,
        description="On a close: the name of the action now current (its behavior is in "
        "`behavior`); null when the bot is done.",
    )
