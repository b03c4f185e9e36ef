"""Reading a bot folder into a `BotConfig`, checked whole before any tool is made.

    <bot>/config/bot_config.json        name, description, behaviors (`shape` or `1_shape`)
    <bot>/instructions.json             optional: botName, description, goal, baseActionsPath
                                        (the shared actions), behaviors {folder: one line}
    <bot>/base_actions/<action>/        actions every behavior has (when there is no path)
    <bot>/behaviors/<N>_<behavior>/
        behavior.json                   optional: description, goal, trigger words, and
                                        actions_workflow {actions: [{name, order, ...}]}
        instructions.json               optional: the behaviour's own description, goal, ...
        trigger_words.json              optional: the behaviour's trigger words
        <N>_<action>/                   an action of this behavior alone or, named like a
                                        base action, this behavior's own copy of its files
        guardrails/ content/ rules/ ... folders with no action file: the behavior's material

An action folder holds action_config.json (name, workflow, order, next_action),
instructions.json (description, steps, outputs; or actionName, instructions, templates) and,
optionally, trigger_words.json (patterns or trigger_patterns); a folder holding any of them
is an action and needs action_config.json and instructions.json (an override of a base
action needs only the files it changes). Workflow actions run by `order` (else their
folder's number prefix); `next_action`, when given, must name the next one (null for the
last). A relative `baseActionsPath` is read from the folder of the file that gives it.

The first problem found is a `BotConfigError(path, field, detail)`.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, replace
from pathlib import Path

from tasks_server.bots.config import Action, Behavior, BotConfig, Instructions
from tasks_server.bots.errors import BotConfigError
from tasks_server.bots.files import (
    ActionFile,
    ActionsWorkflow,
    BehaviorFile,
    BotFile,
    BotInstructions,
    InstructionsFile,
    Reader,
    TriggerWordsFile,
    patterns_of,
    split_prefix,
)

__all__ = ["load_bot"]

NAME_PATTERN = re.compile(r"^[a-z][a-z0-9_]*$")
MAX_TOOL_NAME = 128
ACTION_FILES = ("action_config.json", "instructions.json", "trigger_words.json")


@dataclass(frozen=True, slots=True)
class _Source:
    """One action as read from its folder(s), before it is bound to a behavior."""

    name: str
    config: ActionFile
    config_path: Path
    order: int | None
    instructions: Instructions
    patterns: tuple[str, ...]


def load_bot(folder: Path) -> BotConfig:
    """Read and check a bot's whole folder; the first problem is a BotConfigError."""
    reader = Reader()
    config_path = folder / "config" / "bot_config.json"
    bot = reader.model(config_path, BotFile)
    _check_name(config_path, "name", bot.name)
    if bot.name != folder.name:
        raise BotConfigError(
            config_path, "name", f"{bot.name!r} differs from folder {folder.name!r}"
        )
    about_path = folder / "instructions.json"
    about = reader.optional(about_path, BotInstructions)
    if about is not None and about.bot_name not in (None, bot.name):
        raise BotConfigError(about_path, "botName", f"{about.bot_name!r} differs from {bot.name!r}")
    shared = _Shared(reader, _base_folder(reader, folder, about))
    lines = {
        split_prefix(key)[1]: line for key, line in ((about and about.behaviors) or {}).items()
    }
    behaviors = _load_behaviors(folder / "behaviors", bot, config_path, shared, lines)
    description = bot.description or (about and about.description) or ""
    goal = (about and about.goal) or ""
    config = BotConfig(bot.name, description, folder, behaviors, reader.stamps, goal)
    _check_tool_names(config, config_path)
    return config


def _check_name(path: Path, field_name: str, name: str) -> None:
    if not NAME_PATTERN.match(name):
        raise BotConfigError(
            path, field_name, f"{name!r} cannot be part of a tool name: use [a-z][a-z0-9_]*"
        )


def _check_unique(path: Path, field_name: str, names: list[str]) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise BotConfigError(path, field_name, f"duplicate name {name!r}")
        seen.add(name)


# --- actions -----------------------------------------------------------------------------------


def _is_action_folder(reader: Reader, folder: Path) -> bool:
    """True when the folder holds an action file (guardrails, content, rules hold none)."""
    if any((folder / name).is_file() for name in ACTION_FILES):
        return True  # its files are stamped as they are read
    reader.note(folder)  # an action file added later changes the folder's stamp
    return False


def _order(config_path: Path, config: ActionFile, prefix: int | None) -> int | None:
    if config.order is not None and prefix is not None and config.order != prefix:
        raise BotConfigError(
            config_path, "order", f"{config.order} differs from the prefix {prefix}"
        )
    order = config.order if config.order is not None else prefix
    if config.workflow and order is None:
        raise BotConfigError(
            config_path, "order", "a workflow action needs an order (or a numbered folder)"
        )
    return order


def _config(reader: Reader, folder: Path, config_path: Path) -> tuple[ActionFile, int | None]:
    config = reader.model(config_path, ActionFile)
    _check_name(config_path, "name", config.name)
    prefix, name = split_prefix(folder.name)
    if config.name != name:
        raise BotConfigError(config_path, "name", f"{config.name!r} differs from its folder name")
    return config, _order(config_path, config, prefix)


def _text(path: Path, name: str, text: InstructionsFile) -> Instructions:
    """Instructions from either shape of instructions.json: ours, or a base action's
    `{actionName, instructions, templates}` (its first line is its summary, its templates
    what it produces)."""
    if text.action_name is not None and text.action_name != name:
        raise BotConfigError(path, "actionName", f"{text.action_name!r} differs from {name!r}")
    if text.instructions is None and (text.description is None or text.steps is None):
        raise BotConfigError(path, "instructions", "give description and steps, or actionName "
                             "and instructions (a list of lines)")  # fmt: skip
    steps = tuple(text.steps if text.steps is not None else text.instructions or ())
    outputs = tuple(text.outputs or ()) + tuple(
        f"{key}: {t.description or t.template} (from {t.template}"
        + (f", into {t.location})" if t.location else ")")
        for key, t in (text.templates or {}).items()
    )
    return Instructions(text.description or _summary(name, steps), steps, outputs)


def _summary(name: str, lines: tuple[str, ...]) -> str:
    return lines[0] if lines else f"The {name.replace('_', ' ')} action."


def _words(reader: Reader, folder: Path) -> tuple[str, ...] | None:
    """The patterns of the folder's trigger_words.json; None when it has none."""
    path = folder / ACTION_FILES[2]
    found = reader.optional(path, TriggerWordsFile)
    return None if found is None else patterns_of(path, found, required=True)


def _read_action(reader: Reader, folder: Path) -> _Source:
    config_path = folder / ACTION_FILES[0]
    config, order = _config(reader, folder, config_path)
    text_path = folder / ACTION_FILES[1]
    text = _text(text_path, config.name, reader.model(text_path, InstructionsFile))
    return _Source(config.name, config, config_path, order, text, _words(reader, folder) or ())


def _override(reader: Reader, folder: Path, base: _Source) -> _Source:
    """A base action with the files this behavior's folder of the same name replaces."""
    config_path = folder / ACTION_FILES[0]
    source = base
    if reader.note(config_path):
        config, order = _config(reader, folder, config_path)
        source = replace(base, config=config, config_path=config_path, order=order)
    prefix = split_prefix(folder.name)[0]
    if prefix is not None and prefix != source.order:
        raise BotConfigError(
            folder, "folder", f"prefix {prefix} differs from {base.name}'s order {source.order}"
        )
    text_path = folder / ACTION_FILES[1]
    text = reader.optional(text_path, InstructionsFile)
    if text is not None:
        source = replace(source, instructions=_text(text_path, source.name, text))
    words = _words(reader, folder)
    return source if words is None else replace(source, patterns=words)


def _actions_in(
    reader: Reader, folder: Path, base: dict[str, _Source] | None = None
) -> dict[str, _Source]:
    """The action folders directly under `folder`, by name (other folders are skipped)."""
    base = base or {}
    found: dict[str, _Source] = {}
    for _, name, path in reader.folders(folder):
        if not _is_action_folder(reader, path):
            continue
        _check_unique(folder, "folder", [*found, name])
        found[name] = (
            _override(reader, path, base[name]) if name in base else _read_action(reader, path)
        )
    return found


def _base_folder(reader: Reader, folder: Path, about: BotInstructions | None) -> Path | None:
    if about is not None and about.base_actions_path is not None:
        return _named_folder(folder / "instructions.json", folder, about.base_actions_path)
    local = folder / "base_actions"
    return local if reader.note(local) and local.is_dir() else None


def _named_folder(about_path: Path, folder: Path, relative: str) -> Path:
    path = folder / relative
    if not path.is_dir():
        raise BotConfigError(about_path, "baseActionsPath", f"no folder at {path}")
    return path


class _Shared:
    """The shared actions of the bot, and of any other folder a behaviour names, each read
    once."""

    def __init__(self, reader: Reader, folder: Path | None) -> None:
        self.reader = reader
        self.default = folder
        self._read: dict[Path, dict[str, _Source]] = {}

    def actions(self, folder: Path | None = None) -> dict[str, _Source]:
        folder = folder or self.default
        if folder is None:
            return {}
        key = folder.resolve()
        if key not in self._read:
            self._read[key] = _actions_in(self.reader, folder)
        return self._read[key]


# --- behaviors ---------------------------------------------------------------------------------


def _listed(config_path: Path, entries: list[str]) -> list[tuple[int | None, str]]:
    listed = [split_prefix(entry) for entry in entries]
    for _, name in listed:
        _check_name(config_path, "behaviors", name)
    _check_unique(config_path, "behaviors", [name for _, name in listed])
    if not listed:
        raise BotConfigError(config_path, "behaviors", "a bot needs at least one behavior")
    return listed


def _behavior_folders(
    reader: Reader, folder: Path, listed: list[tuple[int | None, str]], config_path: Path
) -> dict[str, tuple[int | None, Path]]:
    folders = reader.folders(folder)
    _check_unique(folder, "folder", [name for _, name, _ in folders])
    named = {name: (prefix, path) for prefix, name, path in folders}
    names = [name for _, name in listed]
    for _, name, path in folders:
        if name not in names:
            raise BotConfigError(
                path, "folder", f"behavior {name!r} is not listed in {config_path}"
            )
    for prefix, name in listed:
        if name not in named:
            raise BotConfigError(config_path, "behaviors", f"{name!r} has no folder in {folder}")
        if prefix is not None and named[name][0] not in (None, prefix):
            raise BotConfigError(
                config_path, "behaviors", f"{prefix}_{name} names folder {named[name][1].name}"
            )
    numbered = [prefix for prefix, _ in (named[name] for name in names) if prefix is not None]
    if numbered != sorted(numbered):
        raise BotConfigError(config_path, "behaviors", "order differs from the folder prefixes")
    return named


def _load_behaviors(
    folder: Path, bot: BotFile, config_path: Path, shared: _Shared, lines: dict[str, str]
) -> tuple[Behavior, ...]:
    listed = _listed(config_path, bot.behaviors)
    named = _behavior_folders(shared.reader, folder, listed, config_path)
    return tuple(
        _load_behavior(named[name][1], bot.name, name, shared, lines.get(name))
        for _, name in listed
    )


def _load_behavior(
    folder: Path, bot: str, name: str, shared: _Shared, line: str | None
) -> Behavior:
    """A behaviour from its folder: what its behavior.json and its own instructions.json and
    trigger_words.json say about it (each optional), its shared actions (the bot's, or the
    folder its baseActionsPath names), a behavior.json's actions_workflow, then the action
    folders inside it."""
    _check_name(folder, "folder", name)
    reader = shared.reader
    files = [
        (path, found)
        for path in (folder / "behavior.json", folder / ACTION_FILES[1])
        if (found := reader.optional(path, BehaviorFile)) is not None
    ]
    description = next((f.description for _, f in files if f.description), None)
    goal = next((f.goal for _, f in files if f.goal), "")
    patterns = [word for path, f in files for word in patterns_of(path, f, required=False)]
    patterns += _words(reader, folder) or ()
    base = _behavior_base(folder, files, shared)
    sources = {**base, **_actions_in(reader, folder, base)}
    actions = _bind(folder, bot, name, sources)
    description = description or line or f"The {name} behavior of {bot}."
    return Behavior(bot, name, description, tuple(dict.fromkeys(patterns)), actions, goal)


def _behavior_base(
    folder: Path, files: list[tuple[Path, BehaviorFile]], shared: _Shared
) -> dict[str, _Source]:
    """The shared actions a behaviour starts from, with its actions_workflow applied."""
    base = shared.actions()
    for path, found in files:
        if found.base_actions_path is not None:
            base = shared.actions(_named_folder(path, folder, found.base_actions_path))
    for path, found in files:
        if found.actions_workflow is not None:
            base = _with_workflow(path, found.actions_workflow, base)
    return base


def _with_workflow(
    path: Path, workflow: ActionsWorkflow, base: dict[str, _Source]
) -> dict[str, _Source]:
    """The behaviour's actions when a behavior.json lists its workflow: exactly the listed
    workflow actions (a shared action of the same name lends them its trigger words), and
    the shared actions outside the workflow."""
    kept = {name: source for name, source in base.items() if not source.config.workflow}
    listed: dict[str, _Source] = {}
    for step in workflow.actions:
        _check_name(path, "actions_workflow", step.name)
        _check_unique(path, "actions_workflow", [*listed, step.name])
        fields = step.model_dump(include={"name", "order", "next_action"}, exclude_unset=True)
        config = ActionFile.model_validate({**fields, "workflow": True})
        lines = tuple(step.instructions)
        text = Instructions(step.description or _summary(step.name, lines), lines, ())
        known = base.get(step.name)
        patterns = known.patterns if known is not None else ()
        listed[step.name] = _Source(step.name, config, path, step.order, text, patterns)
    return {**kept, **listed}


def _steps(folder: Path, sources: dict[str, _Source]) -> list[_Source]:
    """The workflow actions by order; each order used once."""
    steps = sorted((s for s in sources.values() if s.config.workflow), key=lambda s: s.order or 0)
    if not steps:
        raise BotConfigError(folder, "folder", "a behavior needs at least one workflow action")
    for before, after in itertools.pairwise(steps):
        if before.order == after.order:
            raise BotConfigError(
                after.config_path, "order", f"{after.order} is also the order of {before.name}"
            )
    return steps


def _bind(folder: Path, bot: str, behavior: str, sources: dict[str, _Source]) -> tuple[Action, ...]:
    """The behavior's actions: workflow steps by order, then the others; next_action checked."""
    steps = _steps(folder, sources)
    others = sorted(
        (s for s in sources.values() if not s.config.workflow),
        key=lambda s: (s.order is None, s.order or 0, s.name),
    )
    following = dict(itertools.pairwise([*(s.name for s in steps), None]))
    return tuple(
        Action(
            bot, behavior, s.name, s.config.workflow,
            _next_action(s, following.get(s.name), sources), s.instructions, s.patterns,
        )
        for s in [*steps, *others]
    )  # fmt: skip


def _next_action(source: _Source, expected: str | None, sources: dict[str, _Source]) -> str | None:
    """The action after `source`: `expected` by order, which a given next_action must match."""
    config, path = source.config, source.config_path
    if "next_action" not in config.model_fields_set:
        return expected
    given = config.next_action
    if given is not None and given not in sources:
        raise BotConfigError(path, "next_action", f"unknown action {given!r}")
    if not config.workflow:
        if given is not None:
            raise BotConfigError(path, "next_action", "must be null for a non-workflow action")
        return None
    if given != expected:
        wanted = repr(expected) if expected else "null (the last workflow action)"
        raise BotConfigError(path, "next_action", f"must be {wanted} by order")
    return given


def _check_tool_names(config: BotConfig, config_path: Path) -> None:
    seen: set[str] = set()
    for name in config.tool_names():
        if len(name) > MAX_TOOL_NAME:
            raise BotConfigError(config_path, "name", f"tool name {name!r} is over 128 characters")
        if name in seen:
            raise BotConfigError(config_path, "behaviors", f"two tools would be named {name!r}")
        seen.add(name)
