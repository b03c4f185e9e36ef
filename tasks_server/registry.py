"""The tool registry: one registration path for every tool, hand-written or generated.

A tool is a plain function `fn(ctx, args) -> Output` declared with `@tool(...)` next to its
input and output models; `discover()` imports every module of `tasks_server.tools`, so
there is no hand-kept list. Nothing here knows the MCP SDK: `tasks_server.edge.server` turns
specs into MCP tools, and the human CLI calls the same specs directly (`Toolset.run`).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeVar, get_args, get_origin

from pydantic import BaseModel

from tasks_server.listing import Listing

if TYPE_CHECKING:
    from tasks_server.context import ServerContext

__all__ = ["DuplicateTool", "Handler", "Hints", "Tier", "ToolSpec", "by_name", "discover", "tool"]

Tier = Literal["query", "mutation", "workflow", "admin"]

In = TypeVar("In", bound=BaseModel)
Out = TypeVar("Out", bound=BaseModel | Listing[Any])
Handler = Callable[["ServerContext", Any], BaseModel | Listing[Any]]
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
    """Arguments of a call that succeeds on the bundled tree: the reference shows it with its
    answer, and the meta-tests call every tool with it."""
    origin: str = ""
    """Where the tool comes from, for messages: a module, or a bot's config file."""

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


_DECLARED: dict[str, ToolSpec] = {}


def tool(
    tier: Tier,
    *,
    read_only: bool = False,
    destructive: bool = False,
    idempotent: bool = False,
    example: dict[str, Any] | None = None,
) -> Callable[[Callable[[ServerContext, In], Out]], Callable[[ServerContext, In], Out]]:
    """Declare a tool: its name is the function's, its description the docstring's, its input
    model the type of `args`, its output model the return type (for a paged tool returning
    `Listing[Output]`, that `Output`). mypy checks every handler against this signature."""

    def declare(fn: Callable[[ServerContext, In], Out]) -> Callable[[ServerContext, In], Out]:
        hints = inspect.get_annotations(fn, eval_str=True)
        returned = hints["return"]
        origin: object = get_origin(returned)
        spec = ToolSpec(
            name=fn.__name__,
            tier=tier,
            description=inspect.cleandoc(fn.__doc__ or ""),
            input_model=hints["args"],
            output_model=get_args(returned)[0] if origin is Listing else returned,
            handler=fn,
            hints=Hints(read_only, destructive, idempotent),
            example=example if example is not None else {},
            origin=f"{fn.__module__}.{fn.__qualname__}",
        )
        known = _DECLARED.get(spec.name)
        if known is not None and known.origin != spec.origin:  # a reloaded module is no twin
            raise DuplicateTool(known, spec)
        _DECLARED[spec.name] = spec
        return fn

    return declare


def discover() -> list[ToolSpec]:
    """Every tool declared in the modules of `tasks_server.tools`, sorted by name."""
    package = importlib.import_module("tasks_server.tools")
    for module in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{package.__name__}.{module.name}")
    return sorted(_DECLARED.values(), key=lambda s: s.name)
