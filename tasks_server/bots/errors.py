"""What can go wrong with a workflow bot, as one small tree.

    BotError                                  anything wrong with a workflow bot
    ├── BotConfigError(path, field, detail)   a config file or folder that cannot be used
    ├── UnknownBot(name, known)               no bot of that name is loaded
    ├── UnknownAction(key)                    a tool names an action the config no longer has
    ├── NotCurrent(key, current)              a close names an open action that is not current
    └── ProjectError                          the project id is invalid or taken by another type

Each carries the `code` of the tool error it becomes (the catalog's handlers raise
`ToolFailure(code, message)`; `tasks_server.errors` turns that into the result).
"""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "BotConfigError",
    "BotError",
    "NotCurrent",
    "ProjectError",
    "UnknownAction",
    "UnknownBot",
]


class BotError(Exception):
    """Anything wrong with a workflow bot; `code` is the tool error code it maps to."""

    code = "INVALID_ARGUMENT"


class BotConfigError(BotError):
    code = "PARSE_ERROR"

    def __init__(self, path: Path, field: str, detail: str) -> None:
        super().__init__(f"{path}: {field}: {detail}")
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
            f"{key} is no longer in the bot's config; restart the process to refresh tools/list"
        )
        self.key = key


class NotCurrent(BotError):
    def __init__(self, key: str, current: str) -> None:
        super().__init__(f"{key} is not the current action ({current}) and is not complete")
        self.key = key
        self.current = current


class ProjectError(BotError):
    """The project id cannot be used (invalid, or held by a task of another type)."""
