"""The action folders of a bot, each read into an `ActionSource` before it is bound to a
behaviour: the bot's shared actions (read once per folder) and a behaviour's own.

An action folder holds action_config.json (name, workflow, order, next_action),
instructions.json (description, steps, outputs; or actionName, instructions, templates) and,
optionally, trigger_words.json (patterns or trigger_patterns); a folder holding any of them
is an action and needs action_config.json and instructions.json (an override of a base
action needs only the files it changes).

The first problem found is a `BotConfigError(path, field, detail)`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from tasks_server.bots.config import Instructions
from tasks_server.bots.errors import BotConfigError
from tasks_server.bots.files import (
    ActionFile,
    BotInstructions,
    InstructionsFile,
    Reader,
    TriggerWordsFile,
    check_name,
    check_unique,
    patterns_of,
    split_prefix,
)

__all__ = [
    "ACTION_FILES",
    "ActionSource",
    "SharedActions",
    "actions_in",
    "base_folder",
    "named_folder",
    "summary",
    "trigger_words",
    "triggers",
]

ACTION_FILES = ("action_config.json", "instructions.json", "trigger_words.json")


@dataclass(frozen=True, slots=True)
class ActionSource:
    """One action as read from its folder(s), before it is bound to a behavior."""

    name: str
    config: ActionFile
    config_path: Path
    order: int | None
    instructions: Instructions
    patterns: tuple[str, ...]


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
    check_name(config_path, "name", config.name)
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
    return Instructions(text.description or summary(name, steps), steps, outputs)


def summary(name: str, lines: tuple[str, ...]) -> str:
    return lines[0] if lines else f"The {name.replace('_', ' ')} action."


def trigger_words(reader: Reader, folder: Path) -> tuple[str, ...] | None:
    """The patterns of the folder's trigger_words.json; None when it has none."""
    return triggers(reader, folder)[0]


def triggers(reader: Reader, folder: Path) -> tuple[tuple[str, ...] | None, str | None]:
    """The patterns and the description of the folder's trigger_words.json (None, None
    when it has none)."""
    path = folder / ACTION_FILES[2]
    found = reader.optional(path, TriggerWordsFile)
    if found is None:
        return None, None
    return patterns_of(path, found, required=True), found.description


def _read_action(reader: Reader, folder: Path) -> ActionSource:
    config_path = folder / ACTION_FILES[0]
    config, order = _config(reader, folder, config_path)
    text_path = folder / ACTION_FILES[1]
    text = _text(text_path, config.name, reader.model(text_path, InstructionsFile))
    return ActionSource(
        config.name, config, config_path, order, text, trigger_words(reader, folder) or ()
    )


def _override(reader: Reader, folder: Path, base: ActionSource) -> ActionSource:
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
    words = trigger_words(reader, folder)
    return source if words is None else replace(source, patterns=words)


def actions_in(
    reader: Reader, folder: Path, base: dict[str, ActionSource] | None = None
) -> dict[str, ActionSource]:
    """The action folders directly under `folder`, by name (other folders are skipped)."""
    base = base or {}
    found: dict[str, ActionSource] = {}
    for _, name, path in reader.folders(folder):
        if not _is_action_folder(reader, path):
            continue
        check_unique(folder, "folder", [*found, name])
        found[name] = (
            _override(reader, path, base[name]) if name in base else _read_action(reader, path)
        )
    return found


def base_folder(
    reader: Reader, folder: Path, about: BotInstructions | None, root: Path | None = None
) -> Path | None:
    """The bot's shared actions: where its instructions.json's baseActionsPath points, else
    its own `base_actions/` folder when it has one."""
    if about is not None and about.base_actions_path is not None:
        return named_folder(folder / "instructions.json", about.base_actions_path, folder, root)
    local = folder / "base_actions"
    return local if reader.note(local) and local.is_dir() else None


def named_folder(about_path: Path, relative: str, bot: Path, root: Path | None) -> Path:
    """A `baseActionsPath`, in whichever file it is given: relative to the bot's folder,
    then to the task tree's root; the first that is a folder."""
    tried = [bot / relative, *([root / relative] if root is not None else [])]
    found = next((path for path in tried if path.is_dir()), None)
    if found is None:
        raise BotConfigError(
            about_path, "baseActionsPath", f"no folder at {' nor at '.join(map(str, tried))}"
        )
    return found


class SharedActions:
    """The shared actions of the bot, and of any other folder a behaviour names, each read
    once."""

    def __init__(
        self, reader: Reader, folder: Path | None, bot: Path, root: Path | None = None
    ) -> None:
        self.reader = reader
        self.default = folder
        self.bot = bot
        self.root = root
        self._read: dict[Path, dict[str, ActionSource]] = {}

    def actions(self, folder: Path | None = None) -> dict[str, ActionSource]:
        folder = folder or self.default
        if folder is None:
            return {}
        key = folder.resolve()
        if key not in self._read:
            self._read[key] = actions_in(self.reader, folder)
        return self._read[key]

    def named(self, about_path: Path, relative: str) -> dict[str, ActionSource]:
        """The shared actions of the folder a behaviour's baseActionsPath names."""
        return self.actions(named_folder(about_path, relative, self.bot, self.root))
