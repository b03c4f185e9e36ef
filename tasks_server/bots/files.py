"""The JSON files of a bot folder, as written, and a reader that remembers what it read.

    config/bot_config.json      BotFile            name, description, behaviors
    instructions.json (bot)     BotInstructions    botName, description, goal, baseActionsPath,
                                                   behaviors {folder: line}, instructions
    behavior.json, and a        BehaviorFile       behaviorName, description, goal, inputs,
    behaviour's instructions.json                  outputs, baseActionsPath, instructions,
                                                   patterns | trigger_patterns, and (behavior.json)
                                                   actions_workflow {actions: [WorkflowStep]}
    action_config.json          ActionFile         name, workflow, order, next_action
    instructions.json (action)  InstructionsFile   description, steps, outputs; or actionName,
                                                   instructions, templates
    trigger_words.json          TriggerWordsFile   patterns | trigger_patterns, with description and
                                                   priority beside them; or intent-keyed
                                                   {intent: {patterns, priority}} (optional)

Keys a file holds beyond these are ignored (the system that writes these files adds its own);
only a malformed file (bad JSON, a known key of the wrong type, a required one missing) is an
error. Every problem is one `BotConfigError(path, field, detail)`, including a name that cannot be
part of a tool name or is given twice (`check_name`, `check_unique`).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from storage.nesting import TooDeep, json_loads
from tasks_server.bots.errors import BotConfigError

__all__ = [
    "ActionFile",
    "ActionsWorkflow",
    "BehaviorFile",
    "BotFile",
    "BotInstructions",
    "InstructionsFile",
    "Reader",
    "Stamp",
    "Template",
    "TriggerWordsFile",
    "WorkflowStep",
    "check_name",
    "check_unique",
    "patterns_of",
    "split_prefix",
    "stamp",
]

Stamp = tuple[int, int] | None
NAME_PATTERN = re.compile(r"^[a-z][a-z0-9_]*$")


def split_prefix(folder_name: str) -> tuple[int | None, str]:
    """`3_build_knowledge` → (3, 'build_knowledge'); no prefix → (None, name).

    >>> split_prefix("2_gather_context"), split_prefix("correct_bot")
    ((2, 'gather_context'), (None, 'correct_bot'))
    """
    head, sep, tail = folder_name.partition("_")
    return (int(head), tail) if sep and tail and head.isdigit() else (None, folder_name)


def stamp(path: str) -> Stamp:
    try:
        stat = os.stat(path)
    except FileNotFoundError:
        return None
    return stat.st_mtime_ns, stat.st_size


def check_name(path: Path, field_name: str, name: str) -> None:
    """Refuse a name (of a bot, behaviour or action) that cannot be part of a tool name."""
    if not NAME_PATTERN.match(name):
        raise BotConfigError(
            path, field_name, f"{name!r} cannot be part of a tool name: use [a-z][a-z0-9_]*"
        )


def check_unique(path: Path, field_name: str, names: list[str]) -> None:
    """Refuse the first name `names` holds twice."""
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise BotConfigError(path, field_name, f"duplicate name {name!r}")
        seen.add(name)


class _File(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True, frozen=True)


class _Patterns(_File):
    patterns: list[str] | None = Field(None, description="Trigger phrases.")
    trigger_patterns: list[str] | None = Field(None, description="Seed 000's name for patterns.")


class BotFile(_File):
    name: str = Field(description="The bot's name; prefixes every tool name.")
    description: str = Field("", description="What the bot is for.")
    behaviors: list[str] = Field(description="Behavior names in workflow order (1_shape or shape).")


class BotInstructions(BaseModel):
    """A bot-level instructions.json: who the bot is, where its shared actions are, a line
    per behaviour; other keys are kept for the bot's own use."""

    model_config = ConfigDict(extra="allow", strict=True, frozen=True, populate_by_name=True)
    bot_name: str | None = Field(None, alias="botName", description="The bot's name.")
    description: str | None = Field(None, description="What the bot is for.")
    goal: str | None = Field(None, description="What the bot achieves.")
    base_actions_path: str | None = Field(
        None, alias="baseActionsPath", description="Folder of the shared actions."
    )
    behaviors: dict[str, str] | None = Field(
        None, description="One line per behaviour, by folder or name."
    )
    instructions: list[str] | None = Field(None, description="Instructions for the whole bot.")


class WorkflowStep(_File):
    """One action of a behavior.json's actions_workflow."""

    name: str = Field(description="The action's name.")
    order: int = Field(description="Position in the workflow.")
    next_action: str | None = Field(None, description="The following workflow action.")
    description: str | None = Field(None, description="One-line summary of the action.")
    instructions: list[str] = Field(description="What to do, in order.")


class ActionsWorkflow(_File):
    actions: list[WorkflowStep] = Field(description="The behaviour's workflow actions.")


class BehaviorFile(_Patterns):
    """A behaviour's behavior.json or instructions.json: what it is for, and (in a
    behavior.json) its workflow actions in `actions_workflow`."""

    model_config = ConfigDict(extra="ignore", strict=True, frozen=True, populate_by_name=True)
    behavior_name: str | None = Field(None, alias="behaviorName", description="Its name.")
    description: str | None = Field(None, description="What the behavior achieves.")
    goal: str | None = Field(None, description="Its goal.")
    inputs: list[str] | None = Field(None, description="What it takes.")
    outputs: list[str] | None = Field(None, description="What it produces.")
    base_actions_path: str | None = Field(
        None, alias="baseActionsPath", description="Folder of its shared actions."
    )
    instructions: list[str] | None = Field(None, description="Instructions for all its actions.")
    actions_workflow: ActionsWorkflow | None = Field(None, description="Its workflow actions.")


class ActionFile(_File):
    name: str = Field(description="The action's name (its folder name without prefix).")
    workflow: bool = Field(description="True when the action is a step of the workflow.")
    order: int | None = Field(None, description="Position in the workflow; else the prefix.")
    next_action: str | None = Field(None, description="The following workflow action.")
    requires_confirmation: bool = Field(
        False, description="initialize_project: the person confirms before the project is made."
    )


class Template(_File):
    template: str = Field(description="The template file.")
    description: str = Field("", description="What it is for.")
    location: str | None = Field(None, description="Where its output goes.")


class InstructionsFile(_File):
    """An action's instructions.json, in either shape: ours (`description`, `steps`,
    `outputs`) or a base action's (`actionName`, `instructions`, optional `templates`)."""

    model_config = ConfigDict(extra="ignore", strict=True, frozen=True, populate_by_name=True)
    description: str | None = Field(None, min_length=1, description="One-line summary.")
    steps: list[str] | None = Field(None, description="What to do, in order.")
    outputs: list[str] | None = Field(None, description="What the action produces.")
    action_name: str | None = Field(None, alias="actionName", description="The action's name.")
    instructions: list[str] | None = Field(None, description="What to do, in order.")
    templates: dict[str, Template] | None = Field(None, description="Templates by name.")


class Intent(_File):
    """One intent of an intent-keyed trigger_words.json."""

    patterns: list[str] = Field(description="Trigger phrases of the intent.")
    priority: int | None = Field(None, description="The intent's priority (kept, not used).")


class TriggerWordsFile(_Patterns):
    """A trigger_words.json: `{patterns | trigger_patterns, description?, priority?}`, or
    intent-keyed `{"<intent>": {patterns, priority}}` (read into `intents`)."""

    description: str | None = Field(None, description="What the triggers are for.")
    priority: int | None = Field(None, description="Its priority (kept, not used).")
    intents: dict[str, Intent] | None = Field(None, description="Patterns by intent.")

    @model_validator(mode="before")
    @classmethod
    def _intent_keyed(cls, data: Any) -> Any:
        """`{intent: {patterns, ...}}` (no pattern list of its own) → `{intents: {...}}`."""
        if not isinstance(data, dict) or {"patterns", "trigger_patterns", "intents"} & set(data):
            return data
        intents = {key: value for key, value in data.items() if isinstance(value, dict)}
        rest = {key: value for key, value in data.items() if key not in intents}
        return {**rest, "intents": intents} if intents else data


def patterns_of(path: Path, found: _Patterns, *, required: bool) -> tuple[str, ...]:
    """The one pattern list of a file that may spell it `patterns` or `trigger_patterns`, or
    key it by intent (every intent's patterns, in the file's order)."""
    if found.patterns is not None and found.trigger_patterns is not None:
        raise BotConfigError(
            path, "trigger_patterns", "give patterns or trigger_patterns, not both"
        )
    words = found.patterns if found.patterns is not None else found.trigger_patterns
    intents = found.intents if isinstance(found, TriggerWordsFile) else None
    if words is None and intents is not None:
        words = list(dict.fromkeys(word for intent in intents.values() for word in intent.patterns))
    if words is None and required:
        raise BotConfigError(path, "patterns", "a list of phrases is required "
                             "(as patterns or trigger_patterns)")  # fmt: skip
    return tuple(words or ())


_M = TypeVar("_M", bound=BaseModel)


class Reader:
    """Reads a bot's files, remembering each one's stamp as it was before the read."""

    def __init__(self) -> None:
        self.stamps: dict[str, Stamp] = {}

    def note(self, path: Path) -> bool:
        """Remember `path`'s stamp (absent too, so its creation is noticed); True if it exists."""
        found = stamp(str(path))
        self.stamps[str(path)] = found
        return found is not None

    def folders(self, folder: Path) -> list[tuple[int | None, str, Path]]:
        """Sub-folders (hidden ones skipped) as (prefix, name, path), sorted by prefix."""
        if not folder.is_dir():
            raise BotConfigError(folder, "folder", "missing folder")
        self.note(folder)
        found = [(*split_prefix(p.name), p) for p in folder.iterdir() if _is_folder(p)]
        return sorted(found, key=lambda item: (item[0] is None, item[0] or 0, item[1]))

    def model(self, path: Path, model: type[_M]) -> _M:
        self.note(path)
        data = _read_json(path)
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            error = exc.errors()[0]
            where = ".".join(str(part) for part in error["loc"]) or "(object)"
            more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
            raise BotConfigError(path, where, error["msg"] + more) from None

    def optional(self, path: Path, model: type[_M]) -> _M | None:
        """The file's model, or None when there is no such file (its absence is noted)."""
        return self.model(path, model) if self.note(path) else None


def _is_folder(path: Path) -> bool:
    return path.is_dir() and not path.name.startswith((".", "__"))


def _read_json(path: Path) -> Any:
    try:
        text = path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise BotConfigError(path, "file", "missing file") from None
    except UnicodeDecodeError as exc:
        raise BotConfigError(path, "file", f"not UTF-8: {exc.reason}") from None
    try:
        return json_loads(text)
    except json.JSONDecodeError as exc:
        raise BotConfigError(path, "json", f"bad JSON at line {exc.lineno}: {exc.msg}") from None
    except TooDeep as exc:
        raise BotConfigError(path, "json", f"JSON {exc}") from None
