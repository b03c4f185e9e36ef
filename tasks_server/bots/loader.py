"""Reading a bot folder into a `BotConfig`, checked whole before any tool is made.

    <bot>/config/bot_config.json        name, description, behaviors (`shape` or `1_shape`)
    <bot>/instructions.json             optional: botName, description, goal, baseActionsPath
                                        (the shared actions), behaviors {folder: one line}
    <bot>/trigger_words.json            optional: the bot tool's trigger words
    <bot>/base_actions/<action>/        actions every behavior has (when there is no path)
    <bot>/behaviors/<N>_<behavior>/
        behavior.json                   optional: description, goal, trigger words, and
                                        actions_workflow {actions: [{name, order, ...}]}
        instructions.json               optional: the behaviour's own description, goal, ...
        trigger_words.json              optional: the behaviour's trigger words (and a line
                                        describing it when nothing else does)
        <N>_<action>/                   an action of this behavior alone or, named like a
                                        base action, this behavior's own copy of its files
        guardrails/ content/ rules/ ... folders with no action file: the behavior's material

This module reads the bot and its behaviours and binds each behaviour's actions (read from
their folders by `actions.py`) in order. Workflow actions run by `order` (else their
folder's number prefix); `next_action`, when given, must name the next one (null for the
last). A `baseActionsPath`, in the bot's or a behaviour's file, is read relative to the bot's
folder, then to the task tree's root (`actions.named_folder`).

The first problem found is a `BotConfigError(path, field, detail)`.
"""

from __future__ import annotations

import itertools
from pathlib import Path

from tasks_server.bots.actions import (
    ACTION_FILES,
    ActionSource,
    SharedActions,
    actions_in,
    base_folder,
    summary,
    triggers,
)
from tasks_server.bots.config import Action, Behavior, BotConfig, Instructions
from tasks_server.bots.errors import BotConfigError
from tasks_server.bots.files import (
    ActionFile,
    ActionsWorkflow,
    BehaviorFile,
    BotFile,
    BotInstructions,
    Reader,
    check_name,
    check_unique,
    patterns_of,
    split_prefix,
)

__all__ = ["load_bot"]

MAX_TOOL_NAME = 128


def load_bot(folder: Path, root: Path | None = None) -> BotConfig:
    """Read and check a bot's whole folder; the first problem is a BotConfigError. `root`,
    the task tree's, is the second place a `baseActionsPath` is looked for."""
    reader = Reader()
    config_path = folder / "config" / "bot_config.json"
    bot = reader.model(config_path, BotFile)
    check_name(config_path, "name", bot.name)
    if bot.name != folder.name:
        raise BotConfigError(
            config_path, "name", f"{bot.name!r} differs from folder {folder.name!r}"
        )
    about_path = folder / "instructions.json"
    about = reader.optional(about_path, BotInstructions)
    if about is not None and about.bot_name not in (None, bot.name):
        raise BotConfigError(about_path, "botName", f"{about.bot_name!r} differs from {bot.name!r}")
    shared = SharedActions(reader, base_folder(reader, folder, about, root), folder, root)
    lines = {
        split_prefix(key)[1]: line for key, line in ((about and about.behaviors) or {}).items()
    }
    behaviors = _load_behaviors(folder / "behaviors", bot, config_path, shared, lines)
    words, said = triggers(reader, folder)
    description = bot.description or (about and about.description) or said or ""
    goal = (about and about.goal) or ""
    config = BotConfig(
        bot.name, description, folder, behaviors, reader.stamps, goal, tuple(words or ())
    )
    _check_tool_names(config, config_path)
    return config


def _listed(config_path: Path, entries: list[str]) -> list[tuple[int | None, str]]:
    listed = [split_prefix(entry) for entry in entries]
    for _, name in listed:
        check_name(config_path, "behaviors", name)
    check_unique(config_path, "behaviors", [name for _, name in listed])
    if not listed:
        raise BotConfigError(config_path, "behaviors", "a bot needs at least one behavior")
    return listed


def _behavior_folders(
    reader: Reader, folder: Path, listed: list[tuple[int | None, str]], config_path: Path
) -> dict[str, tuple[int | None, Path]]:
    folders = reader.folders(folder)
    check_unique(folder, "folder", [name for _, name, _ in folders])
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
    folder: Path, bot: BotFile, config_path: Path, shared: SharedActions, lines: dict[str, str]
) -> tuple[Behavior, ...]:
    listed = _listed(config_path, bot.behaviors)
    named = _behavior_folders(shared.reader, folder, listed, config_path)
    return tuple(
        _load_behavior(named[name][1], bot.name, name, shared, lines.get(name))
        for _, name in listed
    )


def _load_behavior(
    folder: Path, bot: str, name: str, shared: SharedActions, line: str | None
) -> Behavior:
    """A behaviour from its folder: what its behavior.json and its own instructions.json and
    trigger_words.json say about it (each optional), its shared actions (the bot's, or the
    folder its baseActionsPath names), a behavior.json's actions_workflow, then the action
    folders inside it."""
    check_name(folder, "folder", name)
    reader = shared.reader
    files = [
        (path, found)
        for path in (folder / "behavior.json", folder / ACTION_FILES[1])
        if (found := reader.optional(path, BehaviorFile)) is not None
    ]
    words, said = triggers(reader, folder)
    description = next((f.description for _, f in files if f.description), None)
    goal = next((f.goal for _, f in files if f.goal), "")
    patterns = [word for path, f in files for word in patterns_of(path, f, required=False)]
    patterns += words or ()
    base = _behavior_base(folder, files, shared)
    sources = {**base, **actions_in(reader, folder, base)}
    actions = _bind(folder, bot, name, sources)
    description = description or line or said or f"The {name} behavior of {bot}."
    return Behavior(bot, name, description, tuple(dict.fromkeys(patterns)), actions, goal)


def _behavior_base(
    folder: Path, files: list[tuple[Path, BehaviorFile]], shared: SharedActions
) -> dict[str, ActionSource]:
    """The shared actions a behaviour starts from, with its actions_workflow applied."""
    base = shared.actions()
    for path, found in files:
        if found.base_actions_path is not None:
            base = shared.named(path, found.base_actions_path)
    for path, found in files:
        if found.actions_workflow is not None:
            base = _with_workflow(path, found.actions_workflow, base)
    return base


def _with_workflow(
    path: Path, workflow: ActionsWorkflow, base: dict[str, ActionSource]
) -> dict[str, ActionSource]:
    """The behaviour's actions when a behavior.json lists its workflow: exactly the listed
    workflow actions (a shared action of the same name lends them its trigger words), and
    the shared actions outside the workflow."""
    kept = {name: source for name, source in base.items() if not source.config.workflow}
    listed: dict[str, ActionSource] = {}
    for step in workflow.actions:
        check_name(path, "actions_workflow", step.name)
        check_unique(path, "actions_workflow", [*listed, step.name])
        fields = step.model_dump(include={"name", "order", "next_action"}, exclude_unset=True)
        config = ActionFile.model_validate({**fields, "workflow": True})
        lines = tuple(step.instructions)
        text = Instructions(step.description or summary(step.name, lines), lines, ())
        known = base.get(step.name)
        patterns = known.patterns if known is not None else ()
        listed[step.name] = ActionSource(step.name, config, path, step.order, text, patterns)
    return {**kept, **listed}


def _steps(folder: Path, sources: dict[str, ActionSource]) -> list[ActionSource]:
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


def _bind(
    folder: Path, bot: str, behavior: str, sources: dict[str, ActionSource]
) -> tuple[Action, ...]:
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
            s.config.requires_confirmation,
        )
        for s in [*steps, *others]
    )  # fmt: skip


def _next_action(
    source: ActionSource, expected: str | None, sources: dict[str, ActionSource]
) -> str | None:
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
