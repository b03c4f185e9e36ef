"""The bot catalog: every bot in a folder, and the tool specs generated from their configs
(`bots.generated`).

Per bot `b` with behaviors `h` and actions `a` (all tier `workflow`):

    b_tool                      run the current action (continue where you left off)
    b_h_tool                    run behavior h's current action; h becomes current
    b_h_a                       run action a of h directly; it becomes current
    b_close_current_action      mark the current action complete and move on
    b_restart_server            reload config and instructions in this process

A config edited on disk is re-read on the next call; its tool list changes only on
`b_restart_server` (until then a config that adds or removes actions is reported in
`warnings`), and then the server tells the client (notifications/tools/list_changed).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from tasks_server.bots.errors import BotConfigError, UnknownBot
from tasks_server.spec import ToolSpec

if TYPE_CHECKING:
    from tasks_server.bots.project import TaskTree
    from tasks_server.bots.runtime import BotRuntime

__all__ = ["CONFIG_FILE", "BotCatalog"]

CONFIG_FILE = Path("config") / "bot_config.json"


class BotCatalog:
    """The bots found in one folder, each bound to the task tree."""

    def __init__(self, bots: dict[str, BotRuntime]) -> None:
        self.bots = bots

    @classmethod
    def load(cls, bots_dir: Path | None, live: TaskTree) -> BotCatalog:
        """Every sub-folder of `bots_dir` holding `config/bot_config.json` is a bot; no folder
        means no bots. A broken config raises BotConfigError naming the file and field."""
        if bots_dir is None or not bots_dir.is_dir():
            return cls({})  # and the bots' code is never imported (a start's time)
        from tasks_server.bots.runtime import BotRuntime  # noqa: PLC0415 - see above

        folders = sorted(p for p in bots_dir.iterdir() if (p / CONFIG_FILE).is_file())
        bots = {runtime.name: runtime for runtime in (BotRuntime(f, live) for f in folders)}
        _check_unique_tools(list(bots.values()))
        return cls(bots)

    def check_names(self, taken: dict[str, ToolSpec]) -> None:
        """BotConfigError when a generated tool would take the name of one in `taken`
        (a built-in, say): one line naming both, never a replacement."""
        for runtime in self.bots.values():
            others = (n for r in self.bots.values() if r is not runtime for n in r.registered)
            runtime.reserved = frozenset(taken).union(others)
            clash = next((name for name in runtime.registered if name in taken), None)
            if clash is not None:
                raise BotConfigError(
                    runtime.folder / CONFIG_FILE, "name", f"generated tool {clash!r} is also "
                    f"the name of the tool from {taken[clash].where}; rename the bot, "
                    "behavior or action",
                )  # fmt: skip

    def names(self) -> list[str]:
        return sorted(self.bots)

    @property
    def version(self) -> int:
        """Grows whenever a bot's registered tools change (a restart_server that found new,
        removed or re-described tools)."""
        return sum(runtime.version for runtime in self.bots.values())

    def bot(self, name: str) -> BotRuntime:
        if name not in self.bots:
            raise UnknownBot(name, self.names())
        return self.bots[name]

    def specs(self, only: str | None = None) -> list[ToolSpec]:
        """The tool specs of every bot (or of bot `only`)."""
        names = [only] if only is not None else self.names()
        if not names:
            return []
        from tasks_server.bots.generated import bot_specs  # noqa: PLC0415 - as in `load`

        runtimes = [self.bot(name) for name in names]
        return [
            spec
            for runtime in runtimes
            for spec in bot_specs(runtime, str(runtime.folder / CONFIG_FILE))
        ]

    def catalog_json(self, only: str | None = None) -> list[dict[str, Any]]:
        """Name, description, trigger patterns and parameter schema of every bot tool."""
        return [
            {
                "name": spec.name,
                "description": spec.description,
                "trigger_patterns": list((spec.meta or {}).get("trigger_patterns", [])),
                "parameters": spec.input_model.model_json_schema(),
            }
            for spec in self.specs(only)
        ]


def _check_unique_tools(bots: list[BotRuntime]) -> None:
    seen: dict[str, str] = {}
    for runtime in bots:
        for name in runtime.registered:
            if name in seen:
                path = runtime.folder / CONFIG_FILE
                raise BotConfigError(path, "name", f"tool {name!r} is also made by {seen[name]}")
            seen[name] = runtime.name
