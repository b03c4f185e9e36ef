"""What one tool is, as the toolset serves it: `ToolSpec` and its parts.

A leaf of the runtime: it imports nothing of ours when it runs, so every module that makes
tools (`registry.tool` for the hand-written ones, `bots.catalog` for the generated ones) and
every one that serves them can import it without an import circle.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from pydantic import BaseModel

if TYPE_CHECKING:
    from tasks_server.consent import Question
    from tasks_server.context import ServerContext
    from tasks_server.listing import Listing

__all__ = ["DuplicateTool", "Handler", "Hints", "Tier", "ToolSpec", "by_name"]

Tier = Literal["query", "mutation", "workflow", "admin"]

Handler: TypeAlias = "Callable[[ServerContext, Any], BaseModel | Listing[Any]]"
"""What the registry keeps: any handler; `tool` checks each one's types where it is written."""


@dataclass(frozen=True, slots=True)
class Hints:
    """What a tool does to the world, as MCP's tool annotations say it."""

    read_only: bool = False
    destructive: bool = False
    idempotent: bool = False


@dataclass(frozen=True)
class ToolSpec:
    """Everything needed to serve one tool."""

    name: str
    tier: Tier
    description: str
    input_model: type[BaseModel]
    output_model: type[BaseModel]
    handler: Handler
    hints: Hints = field(default_factory=Hints)
    meta: dict[str, Any] | None = None
    example: dict[str, Any] | None = None
    """Arguments of a call that succeeds on a copy of the bundled tree: the reference shows
    it with its answer (docs/tools.md), and the meta-tests call every tool with it."""
    confirm: Question | None = None
    """What to ask the person before the call (`tasks_server.consent`); None: nothing."""
    project_arg: str | None = None
    """The argument naming a project some task must have (declared `models.ProjectArg`):
    the toolset refuses, before the handler, a reading call naming one no task has."""
    origin: str = ""
    """Where the tool comes from, for messages: a module, or a bot's config file."""
    waits: bool = False
    """The call may be held a long time (it waits for the tree to change): the MCP edge
    runs it on threads of its own, so waiting calls never hold back the others."""

    @property
    def where(self) -> str:
        return self.origin or getattr(self.handler, "__module__", "?")


class DuplicateTool(ValueError):
    """Two tools with one name: one line naming both, never a silent replacement."""

    def __init__(self, first: ToolSpec, second: ToolSpec) -> None:
        super().__init__(
            f"two tools are named {first.name!r}: one from {first.where}, one from "
            f"{second.where}; rename one of them"
        )
        self.name = first.name


def by_name(specs: Iterable[ToolSpec]) -> dict[str, ToolSpec]:
    """`specs` by name; DuplicateTool when two share one."""
    found: dict[str, ToolSpec] = {}
    for spec in specs:
        if spec.name in found:
            raise DuplicateTool(found[spec.name], spec)
        found[spec.name] = spec
    return found
