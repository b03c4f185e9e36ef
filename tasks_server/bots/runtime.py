"""One bot at run time: its cached config, its state file, and the operations behind its tools.

The config (with every instruction) is held in memory and re-read only when one of its files
or folders changes (a few dozen `stat` calls per tool call) or on `restart`. The state is
read from disk on every call and changed under the state file's lock.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from pathlib import Path

from tasks_server.bots import results
from tasks_server.bots.config import INITIALIZE, Action, Behavior, BotConfig
from tasks_server.bots.errors import ActionIncomplete, BotConfigError, BotError, UnknownAction
from tasks_server.bots.loader import load_bot
from tasks_server.bots.models import ActionInput, BotResult, CloseInput, ProjectInput
from tasks_server.bots.project import TaskTree, default_project, ensure_project, project_exists
from tasks_server.bots.state import (
    Resolution,
    WorkflowState,
    behavior_current,
    close,
    complete,
    completed,
    resolve_current,
    select,
    step_past_completed,
)
from tasks_server.bots.store import StateFile, state_path
from tasks_server.consent import require_agreement

__all__ = ["BotRuntime"]

Pick = Callable[[BotConfig, WorkflowState], Resolution]


def _drift(
    listed: dict[str, tuple[str, ...]], now: dict[str, tuple[str, ...]], restart: str
) -> list[str]:
    added, removed = sorted(now.keys() - listed.keys()), sorted(listed.keys() - now.keys())
    changed = sorted(name for name in now.keys() & listed.keys() if now[name] != listed[name])
    parts = [
        f"{label}: {', '.join(names)}"
        for label, names in (("added", added), ("removed", removed), ("described anew", changed))
        if names
    ]
    if not parts:
        return []
    return [
        f"tools/list still shows the tools as they were last loaded ({'; '.join(parts)}); "
        f"call {restart} to refresh it"
    ]


def _initializer(config: BotConfig, current: Action) -> Action | None:
    """The initialize_project that must complete before `current` closes: its own
    behaviour's, else the bot's first; None when the bot has none."""
    own = config.owner(current).action(INITIALIZE)
    return own or next((a for a in config.actions() if a.auto_completes), None)


def _initialized(config: BotConfig, state: WorkflowState) -> bool:
    """True when the state records an initialize_project of the bot as complete."""
    return any(completed(state, a.key) for a in config.actions() if a.auto_completes)


class BotRuntime:
    """A loaded bot bound to the task tree its state and project live in."""

    def __init__(self, folder: Path, tree: TaskTree) -> None:
        self.folder = folder
        self.tree = tree
        self._config = load_bot(folder, tree.root)
        self._reload_lock = threading.Lock()
        self.name = self._config.name
        self.registered = self._config.surface()
        self.reserved: frozenset[str] = frozenset()  # names of other tools, never to be taken
        self.version = 0  # counts the changes of the registered tool list
        self._drift: tuple[BotConfig, list[str]] | None = None
        self.store = StateFile(state_path(tree.root, self.name))

    # --- config ---------------------------------------------------------------------------

    @property
    def loaded(self) -> BotConfig:
        """The config as last loaded (no staleness check)."""
        return self._config

    def config(self) -> BotConfig:
        """The config, re-read first if any of its files changed since it was loaded."""
        if self._config.is_stale():
            with self._reload_lock:
                if self._config.is_stale():
                    self._config = load_bot(self.folder, self.tree.root)
        return self._config

    def reload(self) -> BotConfig:
        with self._reload_lock:
            self._config = load_bot(self.folder, self.tree.root)
        return self._config

    def drift(self, config: BotConfig) -> list[str]:
        """A warning when tools/list (made at start-up) no longer matches the config."""
        if self._drift is None or self._drift[0] is not config:
            self._drift = (config, _drift(self.registered, config.surface(), config.restart_tool))
        return self._drift[1]

    # --- operations -----------------------------------------------------------------------

    def forward(
        self, args: ProjectInput, now: datetime, behavior_name: str | None = None
    ) -> BotResult:
        """Run the current action of the bot, or of one behavior (which becomes current),
        stepping past completed actions."""
        if behavior_name is None:
            return self._run(self._forward, args, now, reopen=False)
        key = f"{self.name}.{behavior_name}"
        if self.config().behavior(behavior_name) is None:
            raise UnknownAction(key)

        def pick(config: BotConfig, state: WorkflowState) -> Resolution:
            behavior = config.behavior(behavior_name)
            if behavior is None:
                raise UnknownAction(key)
            found = behavior_current(config, state, behavior)
            return self._step(config, state, found, behavior)

        return self._run(pick, args, now, reopen=False)

    # --- what to ask the person first (tasks_server.consent), read before any lock ------------

    def forward_question(self, behavior_name: str | None = None) -> str | None:
        """The question before a forward that would run an initialize_project whose config
        requires the person's confirmation; None otherwise."""
        config, state = self.config(), self.store.read().state
        behavior = config.behavior(behavior_name) if behavior_name else None
        if behavior_name is not None and behavior is None:
            return None
        found = behavior_current(config, state, behavior) if behavior else None
        found = self._step(config, state, found or resolve_current(config, state), behavior)
        return self.init_question(config, found.action)

    def init_question(self, config: BotConfig, action: Action) -> str | None:
        if not (action.auto_completes and action.requires_confirmation):
            return None
        return f"Create the project task of the {config.name} workflow ({action.key})?"

    def close_question(self, args: CloseInput) -> str | None:
        """The question before a close: the action and what it asked for (None when the
        close would be refused anyway)."""
        config = self.config()
        state = self.store.read().state
        current = resolve_current(config, state).action
        if args.action and self._named(config, args.action) is not current:
            return None
        if not self._gate_open(config, state, current):
            return None  # refused (ACTION_INCOMPLETE) without a question
        asked = "; ".join(current.instructions.steps) or current.instructions.description
        return f"Is {current.key} done? Close it and move on. It asked for: {asked}"

    def _forward(self, config: BotConfig, state: WorkflowState) -> Resolution:
        return self._step(config, state, resolve_current(config, state))

    def _step(
        self,
        config: BotConfig,
        state: WorkflowState,
        found: Resolution,
        within: Behavior | None = None,
    ) -> Resolution:
        """Step past completed actions, but not past initialize_project while its project
        task is missing (running it again writes the project); a forward to a later action
        before then runs initialize_project instead, and says so."""
        if self._gate_open(config, state, found.action):
            return step_past_completed(config, state, found, within)
        init = _initializer(config, found.action)
        if init is None or init is found.action:
            return found
        said = (
            f"{init.key} has not completed (the workflow's project task is not written): "
            f"ran it instead of {found.action.key}"
        )
        return Resolution(init, "; ".join(filter(None, (found.warning, said))))

    def _gate_open(self, config: BotConfig, state: WorkflowState, current: Action) -> bool:
        """True when the workflow may move past initialize_project: its project task is in
        the tree (or a state file from before the project was kept records it complete)."""
        if self._has_project(state) or _initializer(config, current) is None:
            return True
        return not current.auto_completes and _initialized(config, state)

    def _has_project(self, state: WorkflowState) -> bool:
        return state.project is not None and project_exists(self.tree, state.project)

    def run(
        self, behavior_name: str, action_name: str, args: ActionInput, now: datetime
    ) -> BotResult:
        """Run one action directly: it becomes current and its own completion is cleared."""
        key = f"{self.name}.{behavior_name}.{action_name}"

        def pick(config: BotConfig, state: WorkflowState) -> Resolution:
            action = config.find(key)
            if action is None:
                raise UnknownAction(key)
            return Resolution(action)

        return self._run(pick, args, now, reopen=True)

    def _run(self, pick: Pick, args: ActionInput, now: datetime, *, reopen: bool) -> BotResult:
        config = self.config()
        with self.store.transaction() as transaction:
            resolution = pick(config, transaction.loaded.state)
            current = resolution.action
            project = self._project(config, current, args, now)
            state = select(transaction.loaded.state, current, now.isoformat(), reopen=reopen)
            if project is not None:  # initialize_project: done once its project is written
                state = complete(replace(state, project=project), current, now.isoformat())
            transaction.result = state
        warnings = self._warnings(config, transaction.loaded.warnings(self.store.path), resolution)
        return results.action_result(
            config, state, current, warnings, user_input=args.user_input, project=project
        )

    def _project(
        self, config: BotConfig, current: Action, args: ActionInput, now: datetime
    ) -> str | None:
        if not current.auto_completes:
            return None
        if current.requires_confirmation:
            require_agreement(f"Create the project task of {config.name}?")
        project = args.project if isinstance(args, ProjectInput) else None
        title = args.project_title if isinstance(args, ProjectInput) else None
        project_id = project or default_project(config.name)
        body = f"The project of the {config.name} workflow.\n\n{config.description}\n"
        ensure_project(
            self.tree, project_id, title=title or f"{config.name} project", body=body, now=now
        )
        return project_id

    def close(self, args: CloseInput, now: datetime) -> BotResult:
        """Mark the current action complete and move on (see `state.close`); not when the
        person declined (`close_question`)."""
        require_agreement(f"Close the current {self.name} action?")
        config = self.config()
        with self.store.transaction() as transaction:
            expected = self._named(config, args.action) if args.action else None
            self._check_closable(config, transaction.loaded.state, expected)
            state, outcome = close(
                config, transaction.loaded.state, now.isoformat(), expected=expected
            )
            transaction.result = state
        warnings = transaction.loaded.warnings(self.store.path) + self.drift(config)
        if outcome.warning:
            warnings.append(outcome.warning)
        return results.close_result(config, state, outcome, warnings)

    def _check_closable(
        self, config: BotConfig, state: WorkflowState, expected: Action | None
    ) -> None:
        """No close, of any action, before initialize_project has written the workflow's
        project task: the workflow never moves past it, nor finishes without it (a jump to
        a later action is allowed, closing it is not)."""
        current = resolve_current(config, state).action
        init = _initializer(config, current)
        if expected not in (None, current) or init is None:
            return
        if self._gate_open(config, state, current):
            return
        detail = (
            "the workflow's project task has not been written"
            if state.project is None
            else f"its project task {state.project!r} is not in the task tree"
        )
        if init is not current:
            detail += f" ({init.key} must complete first)"
        raise ActionIncomplete(current.key, detail, run=init.tool, close=config.close_tool)

    def _named(self, config: BotConfig, text: str) -> Action:
        """An action from 'behavior.action', 'bot.behavior.action' or its tool name."""
        key = text if text.startswith(f"{config.name}.") else f"{config.name}.{text}"
        found = config.find(key) or next((a for a in config.actions() if a.tool == text), None)
        if found is None:
            raise BotError(f"{text!r} names no action of {config.name}; use 'behavior.action'")
        return found

    def restart(self) -> BotResult:
        """Reload the config and instructions in this process (no process is stopped); when
        its tools changed, they become the registered ones (`version` counts it). A config
        whose tool would take another tool's name is refused, and the old one stays."""
        with self._reload_lock:
            config = load_bot(self.folder, self.tree.root)
            clash = next((name for name in config.tool_names() if name in self.reserved), None)
            if clash is not None:
                raise BotConfigError(
                    self.folder / "config" / "bot_config.json", "name",
                    f"generated tool {clash!r} is also the name of another tool; rename the "
                    "bot, behavior or action",
                )  # fmt: skip
            self._config = config
        if config.surface() != self.registered:
            self.registered, self.version = config.surface(), self.version + 1
        loaded = self.store.read()
        resolution = resolve_current(config, loaded.state)
        warnings = self._warnings(config, loaded.warnings(self.store.path), resolution)
        files = sum(1 for path in config.stamps if path.endswith(".json"))
        return results.restart_result(config, loaded.state, resolution.action, warnings, files)

    def _warnings(self, config: BotConfig, found: list[str], resolution: Resolution) -> list[str]:
        extra = [resolution.warning] if resolution.warning else []
        return found + extra + self.drift(config)
