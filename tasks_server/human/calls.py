"""What every human command shares: the tools over its tree, one call, and printing.

A command names the tool modules it calls (`commands.COMMANDS`): only those are loaded,
with no bots, unless a role or an allowlist is given (guidance then names only the tools
the session may call, which takes every tool's tier: every tool is loaded then).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from tasks_server.consent import Consent
from tasks_server.human import terminal
from tasks_server.human.snapshot import CallFailed as Failed
from tasks_server.listing import MAX_PAGE
from tasks_server.roles import parse_patterns
from tasks_server.toolset import Toolset, open_toolset

if TYPE_CHECKING:
    from rich.console import RenderableType

__all__ = ["ALL", "Failed", "call", "emit", "open_tools", "require_project"]

ALL = MAX_PAGE  # the largest page a tool gives; the human commands show whole lists


def open_tools(args: argparse.Namespace, modules: Sequence[str] | None = None) -> Toolset:
    """The tools over the command's root, role and allowlist; no watcher thread. With
    `modules` (names in `tasks_server.tools`), only their tools and no bots, when neither
    a role nor an allowlist needs every tool's tier."""
    patterns = parse_patterns(getattr(args, "tools", None))
    narrow = modules is not None and getattr(args, "role", None) is None and not patterns
    with terminal.working(f"loading {args.root}"):
        toolset = open_toolset(
            args.root,
            role=getattr(args, "role", None),
            tools=patterns,
            bots=getattr(args, "bots", None),
            watch=False,
            modules=modules if narrow else None,
        )
    toolset.context.set_clock(getattr(args, "now", None))
    return toolset


def _typed_by_the_person(question: str) -> Consent:
    """A human command's question is answered: the person typed the command themselves."""
    return "accepted"


def call(toolset: Toolset, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A tool's result; its error message becomes `Failed`."""
    given = {k: v for k, v in arguments.items() if v is not None}
    outcome = toolset.run(tool, given, ask=_typed_by_the_person)
    if outcome.is_error:
        raise Failed(outcome.data["error"]["message"])
    return outcome.data


def emit(
    args: argparse.Namespace,
    data: Any,
    view: Callable[[], RenderableType],
    *,
    soft_wrap: bool = False,
) -> None:
    if args.json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        terminal.out(view(), soft_wrap=soft_wrap)


def require_project(toolset: Toolset, project: str | None) -> None:
    if project is None:
        return
    known = toolset.context.index.projects()
    if project not in known:
        raise Failed(f"unknown project: {project} (projects: {', '.join(known) or 'none'})")
