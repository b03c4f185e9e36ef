"""Bot configuration: one bot's folder tree, read and validated whole.

    <bot>/config/bot_config.json                name, description, ordered behaviors
    <bot>/behaviors/<N>_<behavior>/behavior.json     description, optional patterns
    <bot>/behaviors/<N>_<behavior>/<N>_<action>/
        action_config.json                      name, workflow, order, next_action
        instructions.json                       description, steps, outputs
        trigger_words.json                      patterns

A number prefix (`2_gather_context`) orders folders and is stripped from names. Workflow
actions run in folder order and each names the next in `next_action` (null for the last);
actions with `workflow: false` (such as `correct_bot`) stand outside the sequence.

Every problem is one `BotConfigError(path, field, detail)` (see `errors.py`).

>>> split_prefix("2_gather_context"), split_prefix("correct_bot")
((2, 'gather_context'), (None, 'correct_bot'))
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tasks_server.bots.errors import BotConfigError

__all__ = [
    "Action",
    "Behavior",
    "BotConfig",
    "Instructions",
    "load_bot",
    "split_prefix",
]

NAME_PATTERN = re.compile(r"^[a-z][a-z0-9_]*$")
MAX_TOOL_NAME = 128
INITIALIZE = "initialize_project"
_PREFIX = re.compile(r"^(\d+)_(.+)$")

Stamp = tuple[int, int] | None


# --- the files, as written ----------------------------------------------------------------


class _File(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class BotFile(_File):
    name: str = Field(description="The bot's name; prefixes every tool name.")
    description: str = Field("", description="What the bot is for.")
    behaviors: list[str] = Field(description="Behavior names in workflow order.")


class BehaviorFile(_File):
    description: str = Field(description="What the behavior achieves.")
    patterns: list[str] = Field(default_factory=list, description="Trigger phrases.")


class ActionFile(_File):
    name: str = Field(description="The action's name (its folder name without prefix).")
    workflow: bool = Field(description="True when the action is a step of the workflow.")
    order: int | None = Field(None, description="Position in the workflow; the folder prefix.")
    next_action: str | None = Field(None, description="The following workflow action.")


class InstructionsFile(_File):
    description: str = Field(min_length=1, description="One-line summary of the action.")
    steps: list[str] = Field(description="What to do, in order.")
    outputs: list[str] = Field(description="What the action produces.")


class TriggerWordsFile(_File):
    patterns: list[str] = Field(description="Phrases a user might say to mean this action.")


# --- the loaded bot -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Instructions:
    description: str
    steps: tuple[str, ...]
    outputs: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Action:
    bot: str
    behavior: str
    name: str
    workflow: bool
    next_action: str | None
    instructions: Instructions
    patterns: tuple[str, ...]

    @property
    def key(self) -> str:
        """`bot.behavior.action`, as the state file writes it."""
        return f"{self.bot}.{self.behavior}.{self.name}"

    @property
    def tool(self) -> str:
        return f"{self.bot}_{self.behavior}_{self.name}"

    @property
    def auto_completes(self) -> bool:
        return self.name == INITIALIZE


@dataclass(frozen=True, slots=True)
class Behavior:
    bot: str
    name: str
    description: str
    patterns: tuple[str, ...]
    actions: tuple[Action, ...]

    @property
    def key(self) -> str:
        return f"{self.bot}.{self.name}"

    @property
    def tool(self) -> str:
        return f"{self.bot}_{self.name}_tool"

    @property
    def steps(self) -> tuple[Action, ...]:
        """The workflow actions, in order."""
        return tuple(a for a in self.actions if a.workflow)

    def action(self, name: str) -> Action | None:
        return next((a for a in self.actions if a.name == name), None)

    def after(self, action: Action) -> Action | None:
        """The workflow action that follows `action` in this behavior."""
        return self.action(action.next_action) if action.next_action else None


@dataclass(frozen=True)
class BotConfig:
    name: str
    description: str
    folder: Path
    behaviors: tuple[Behavior, ...]
    stamps: Mapping[str, Stamp] = field(repr=False, compare=False)

    @property
    def bot_tool(self) -> str:
        return f"{self.name}_tool"

    @property
    def close_tool(self) -> str:
        return f"{self.name}_close_current_action"

    @property
    def restart_tool(self) -> str:
        return f"{self.name}_restart_server"

    def actions(self) -> Iterator[Action]:
        for behavior in self.behaviors:
            yield from behavior.actions

    def behavior(self, name: str) -> Behavior | None:
        return next((b for b in self.behaviors if b.name == name), None)

    def find(self, key: str) -> Action | None:
        """The action named by `bot.behavior.action`, or None."""
        bot, _, rest = key.partition(".")
        behavior_name, _, action_name = rest.partition(".")
        behavior = self.behavior(behavior_name) if bot == self.name else None
        return behavior.action(action_name) if behavior else None

    def owner(self, action: Action) -> Behavior:
        behavior = self.behavior(action.behavior)
        assert behavior is not None, action.key
        return behavior

    @property
    def first(self) -> Action:
        return self.behaviors[0].steps[0]

    def next_behavior(self, behavior: Behavior) -> Behavior | None:
        position = self.behaviors.index(behavior)
        return self.behaviors[position + 1] if position + 1 < len(self.behaviors) else None

    def tool_names(self) -> list[str]:
        """Every tool this bot generates."""
        names = [self.bot_tool, self.close_tool, self.restart_tool]
        names += [behavior.tool for behavior in self.behaviors]
        return names + [action.tool for action in self.actions()]

    def surface(self) -> dict[str, tuple[str, ...]]:
        """What each tool's listed description is made of (to tell when it went stale)."""
        texts: dict[str, tuple[str, ...]] = {
            name: (self.description,) for name in self.tool_names()
        }
        for behavior in self.behaviors:
            texts[behavior.tool] = (behavior.description, *behavior.patterns)
            for action in behavior.actions:
                texts[action.tool] = (action.instructions.description, *action.patterns)
        return texts

    def is_stale(self) -> bool:
        """True when a file or folder read at load time has changed since (a few stats)."""
        return any(_stamp(path) != stamp for path, stamp in self.stamps.items())


# --- loading ---------------------------------------------------------------------------------


def split_prefix(folder_name: str) -> tuple[int | None, str]:
    """`3_build_knowledge` → (3, 'build_knowledge'); no prefix → (None, name)."""
    match = _PREFIX.match(folder_name)
    return (int(match[1]), match[2]) if match else (None, folder_name)


def _stamp(path: str) -> Stamp:
    try:
        stat = os.stat(path)
    except FileNotFoundError:
        return None
    return stat.st_mtime_ns, stat.st_size


_M = TypeVar("_M", bound=_File)


class _Reader:
    """Reads a bot's files, remembering each one's stamp as it was before the read."""

    def __init__(self) -> None:
        self.stamps: dict[str, Stamp] = {}

    def folders(self, folder: Path) -> list[tuple[int | None, str, Path]]:
        """Sub-folders (hidden ones skipped) as (prefix, name, path), sorted by prefix."""
        if not folder.is_dir():
            raise BotConfigError(folder, "folder", "missing folder")
        self.stamps[str(folder)] = _stamp(str(folder))
        found = [(*split_prefix(p.name), p) for p in folder.iterdir() if _is_folder(p)]
        return sorted(found, key=lambda item: (item[0] is None, item[0] or 0, item[1]))

    def model(self, path: Path, model: type[_M]) -> _M:
        self.stamps[str(path)] = _stamp(str(path))
        data = _read_json(path)
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            error = exc.errors()[0]
            where = ".".join(str(part) for part in error["loc"]) or "(object)"
            more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
            raise BotConfigError(path, where, error["msg"] + more) from None


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
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise BotConfigError(path, "json", f"bad JSON at line {exc.lineno}: {exc.msg}") from None


def _check_name(path: Path, field_name: str, name: str) -> None:
    if not NAME_PATTERN.match(name):
        raise BotConfigError(
            path, field_name, f"{name!r} cannot be part of a tool name: use [a-z][a-z0-9_]*"
        )


def load_bot(folder: Path) -> BotConfig:
    """Read and check a bot's whole folder; the first problem is a BotConfigError."""
    reader = _Reader()
    config_path = folder / "config" / "bot_config.json"
    bot = reader.model(config_path, BotFile)
    _check_name(config_path, "name", bot.name)
    if bot.name != folder.name:
        raise BotConfigError(
            config_path, "name", f"{bot.name!r} differs from folder {folder.name!r}"
        )
    behaviors = _load_behaviors(reader, folder / "behaviors", bot, config_path)
    config = BotConfig(bot.name, bot.description, folder, behaviors, reader.stamps)
    _check_tool_names(config, config_path)
    return config


def _load_behaviors(
    reader: _Reader, folder: Path, bot: BotFile, config_path: Path
) -> tuple[Behavior, ...]:
    for name in bot.behaviors:
        _check_name(config_path, "behaviors", name)
    _check_unique(config_path, "behaviors", bot.behaviors)
    folders = reader.folders(folder)
    named = {name: path for _, name, path in folders}
    _check_unique(folder, "folder", [name for _, name, _ in folders])
    for name in bot.behaviors:
        if name not in named:
            raise BotConfigError(config_path, "behaviors", f"{name!r} has no folder in {folder}")
    for _, name, path in folders:
        if name not in bot.behaviors:
            raise BotConfigError(
                path, "folder", f"behavior {name!r} is not listed in {config_path}"
            )
    if not bot.behaviors:
        raise BotConfigError(config_path, "behaviors", "a bot needs at least one behavior")
    if [name for _, name, _ in folders] != bot.behaviors:
        raise BotConfigError(config_path, "behaviors", "order differs from the folder prefixes")
    return tuple(_load_behavior(reader, path, bot.name, name) for _, name, path in folders)


def _check_unique(path: Path, field_name: str, names: list[str]) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise BotConfigError(path, field_name, f"duplicate name {name!r}")
        seen.add(name)


def _load_behavior(reader: _Reader, folder: Path, bot: str, name: str) -> Behavior:
    _check_name(folder, "folder", name)
    about = reader.model(folder / "behavior.json", BehaviorFile)
    folders = reader.folders(folder)
    _check_unique(folder, "folder", [action_name for _, action_name, _ in folders])
    actions = tuple(_load_action(reader, path, prefix, bot, name) for prefix, _, path in folders)
    behavior = Behavior(bot, name, about.description, tuple(about.patterns), actions)
    _check_sequence(folder, folders, behavior)
    return behavior


def _load_action(
    reader: _Reader, folder: Path, prefix: int | None, bot: str, behavior: str
) -> Action:
    config_path = folder / "action_config.json"
    config = reader.model(config_path, ActionFile)
    _check_name(config_path, "name", config.name)
    if config.name != split_prefix(folder.name)[1]:
        raise BotConfigError(config_path, "name", f"{config.name!r} differs from its folder name")
    if config.workflow and prefix is None:
        raise BotConfigError(folder, "folder", "a workflow action's folder needs a number prefix")
    if config.order is not None and config.order != prefix:
        raise BotConfigError(
            config_path, "order", f"{config.order} differs from the prefix {prefix}"
        )
    text = reader.model(folder / "instructions.json", InstructionsFile)
    triggers = reader.model(folder / "trigger_words.json", TriggerWordsFile)
    instructions = Instructions(text.description, tuple(text.steps), tuple(text.outputs))
    return Action(
        bot, behavior, config.name, config.workflow, config.next_action, instructions,
        tuple(triggers.patterns),
    )  # fmt: skip


def _check_sequence(
    folder: Path, folders: list[tuple[int | None, str, Path]], behavior: Behavior
) -> None:
    """Each workflow action's next_action is the next one in folder order (null at the end)."""
    paths = {name: path / "action_config.json" for _, name, path in folders}
    steps = behavior.steps
    if not steps:
        raise BotConfigError(folder, "folder", "a behavior needs at least one workflow action")
    for action in behavior.actions:
        path = paths[action.name]
        if action.next_action is not None and behavior.action(action.next_action) is None:
            raise BotConfigError(path, "next_action", f"unknown action {action.next_action!r}")
        if not action.workflow:
            if action.next_action is not None:
                raise BotConfigError(path, "next_action", "must be null for a non-workflow action")
            continue
        index = steps.index(action)
        expected = steps[index + 1].name if index + 1 < len(steps) else None
        if action.next_action != expected:
            wanted = repr(expected) if expected else "null (the last workflow action)"
            raise BotConfigError(path, "next_action", f"must be {wanted} by folder order")


def _check_tool_names(config: BotConfig, config_path: Path) -> None:
    seen: set[str] = set()
    for name in config.tool_names():
        if len(name) > MAX_TOOL_NAME:
            raise BotConfigError(config_path, "name", f"tool name {name!r} is over 128 characters")
        if name in seen:
            raise BotConfigError(config_path, "behaviors", f"two tools would be named {name!r}")
        seen.add(name)
