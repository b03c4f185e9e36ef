"""A loaded bot: behaviors, actions and their instructions, as frozen values.

Names are folder names without their number prefix (`2_gather_context` → `gather_context`).
A behavior's workflow actions (`steps`) run in `order`, each naming the next in `next_action`
(None for the last); actions with `workflow: false` (such as `correct_bot`) stand outside the
sequence: callable, never stepped into. `loader.py` reads a bot folder into these values.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tasks_server.bots.files import Stamp, stamp

__all__ = [
    "INITIALIZE",
    "Action",
    "Behavior",
    "BotConfig",
    "Instructions",
]

INITIALIZE = "initialize_project"


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
    requires_confirmation: bool = False  # initialize_project: the person confirms first

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
    goal: str = ""

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
    goal: str = ""
    patterns: tuple[str, ...] = ()  # the bot-level trigger_words.json's, for its bot tool

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
            name: (self.description, self.goal) for name in self.tool_names()
        }
        texts[self.bot_tool] = (self.description, self.goal, *self.patterns)
        for behavior in self.behaviors:
            texts[behavior.tool] = (behavior.description, behavior.goal, *behavior.patterns)
            for action in behavior.actions:
                texts[action.tool] = (action.instructions.description, *action.patterns)
        return texts

    def is_stale(self) -> bool:
        """True when a file or folder read at load time has changed since (a few stats)."""
        return any(stamp(path) != known for path, known in self.stamps.items())
