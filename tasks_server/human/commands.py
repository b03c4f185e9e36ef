"""The human commands: the same tools agents call (`Toolset.run`), printed for people.

Every command takes `--json` and then prints the structured result the tool returns. An
unknown id or project is one line on stderr and exit 1.

The table below names, for each command, the module that runs it and the tool modules it
calls: a command loads only those (its runner's module when it runs, the tools' when the
toolset opens), so `ready` never loads the importers, the findings of `check`, the git
readers of `diff`, the bots or the other tools' models. rich is imported only by the
modules that draw, after the arguments are parsed.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tasks_server.toolset import Toolset

__all__ = ["COMMANDS", "Command", "run"]

Runner = Callable[[argparse.Namespace, "Toolset"], int | None]


@dataclass(frozen=True, slots=True)
class Command:
    """Where a human command's code is: `module:function`, and the modules of
    `tasks_server.tools` it calls (None: every tool, and the bots)."""

    runner: str
    tools: tuple[str, ...] | None

    def load(self) -> Runner:
        module, _, function = self.runner.partition(":")
        found: Runner = getattr(importlib.import_module(module), function)
        return found


_ONE_CALL = "tasks_server.human.one_call"
COMMANDS: dict[str, Command] = {
    "ready": Command(f"{_ONE_CALL}:run_ready", ("query",)),
    "blocked": Command(f"{_ONE_CALL}:run_blocked", ("query",)),
    "metrics": Command(f"{_ONE_CALL}:run_metrics", ("analysis",)),
    "show": Command(f"{_ONE_CALL}:run_show", ("query",)),
    "tree": Command(f"{_ONE_CALL}:run_tree", ("query",)),
    "new": Command(f"{_ONE_CALL}:run_new", ("mutation",)),
    "tools": Command(f"{_ONE_CALL}:run_tools", None),
    "bots": Command(f"{_ONE_CALL}:run_bots", None),
    "check": Command("tasks_server.human.checking:run_check", None),  # checks the bots too
    "diff": Command("tasks_server.human.changes:run_diff", ("changes",)),
    "log": Command("tasks_server.human.changes:run_log", ("changes",)),
    "snapshot": Command("tasks_server.human.snapshot:run_snapshot", None),
}
"""Every human command that runs over a toolset (import and export read and write the
tree themselves)."""


def run(args: argparse.Namespace) -> int:
    """Run the human command `args.command`; 1 on a tool error or unknown name."""
    if args.command == "import":
        from tasks_server.human.importing import run_import  # noqa: PLC0415 - see above

        return run_import(args.kind, args.source, args.root, args.project, as_json=args.json)
    if args.command == "export":
        from tasks_server.human.interop import run_export  # noqa: PLC0415 - see above

        return run_export(args)
    from tasks_server.human.calls import Failed, open_tools  # noqa: PLC0415 - see above

    command = COMMANDS[args.command]
    runner = command.load()
    toolset = open_tools(args, command.tools)
    try:
        status = runner(args, toolset)
    except Failed as exc:
        print(f"tasks-server {args.command}: {exc}", file=sys.stderr)
        return 1
    finally:
        toolset.context.close()
    return status or 0
