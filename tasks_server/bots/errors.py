"""What can go wrong with a workflow bot, as one small tree of tool failures.

    ToolFailure(code, message)                    tasks_server.errors: the one mapping to results
    └── BotError                                  anything wrong with a workflow bot
        ├── BotConfigError(path, field, detail)   a config file or folder that cannot be used
        ├── UnknownBot(name, known)               no bot of that name is loaded
        ├── UnknownAction(key)                    a tool names an action the config no longer has
        ├── NotCurrent(key, current)              a close names an open action that is not current
        ├── ActionIncomplete(key, detail)         a close of an action whose work is not done
        └── ProjectError                          the project id is invalid or taken by another type

Each class carries the `code` of the tool error it is; the handlers let them propagate and
`tasks_server.errors` (the one mapping) turns them into error results. `str()` of each is one
line, so a command line can print it as is.
"""

from __future__ import annotations

from pathlib import Path

from tasks_server.errors import ToolFailure

__all__ = [
    "ActionIncomplete",
    "BotConfigError",
    "BotError",
    "NotCurrent",
    "ProjectError",
    "UnknownAction",
    "UnknownBot",
]


class BotError(ToolFailure):
    """Anything wrong with a workflow bot; the class's `code` is its tool error code."""

    code = "INVALID_ARGUMENT"

    def __init__(self, message: str, recovery: tuple[str, list[str]] | None = None) -> None:
        super().__init__(type(self).code, message)
        #: (next_action, tools) for the error's guidance when the generic recovery of the
        #: code would not fit (e.g. name the bot tool to call); None keeps the code's own
        self.recovery = recovery


class BotConfigError(BotError):
    """`<path>: <field>: <detail>`, on one line."""

    code = "PARSE_ERROR"

    def __init__(self, path: Path, field: str, detail: str) -> None:
        super().__init__(f"{path}: {field}: {' '.join(detail.split())}")
        self.path = path
        self.field = field
        self.detail = detail


class UnknownBot(BotError):
    def __init__(self, name: str, known: list[str]) -> None:
        super().__init__(f"no bot named {name!r}; loaded: {', '.join(known) or 'none'}")
        self.name = name


class UnknownAction(BotError):
    code = "UNKNOWN_TOOL"

    def __init__(self, key: str) -> None:
        super().__init__(
            f"{key} is no longer in the bot's config; call its restart_server tool to "
            "refresh tools/list"
        )
        self.key = key


class NotCurrent(BotError):
    def __init__(self, key: str, current: str) -> None:
        super().__init__(f"{key} is not the current action ({current}) and is not complete")
        self.key = key
        self.current = current


class ActionIncomplete(BotError):
    """A close refused because the action's own work is not done (its message says what to
    call instead)."""

    code = "ACTION_INCOMPLETE"

    def __init__(self, key: str, detail: str, *, run: str, close: str) -> None:
        super().__init__(
            f"{key} cannot be closed yet: {detail}; call {run} (optionally with "
            f"project=<id>) to write it, then call {close}",
            (f"Call {run}, then {close}", [run, close]),
        )
        self.key = key


class ProjectError(BotError):
    """The project id cannot be used (invalid, or held by a task of another type)."""
