"""The tools one session may call, and the one way every call runs.

`Toolset.run(name, arguments)` is the whole life of a call: the name is checked against our
own registry (UNKNOWN_TOOL, TOOL_NOT_ALLOWED), the arguments are validated once by the tool's
input model (unknown keys are refused by the model itself), the tree is brought up to date
(read-your-writes: `LiveTree.snapshot`), the handler runs on it, and the output
model is dumped to JSON-ready data whose guidance names only tools this session can call,
and cut to the size of one answer (`answer.py`).
Any exception becomes an error payload through `errors.classify`. The MCP face
(`tasks_server.server`) and the human CLI both call this; neither knows the other.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tasks_server.answer import bound_answer
from tasks_server.context import ServerContext
from tasks_server.errors import (
    RECOVERY,
    ErrorResult,
    ToolFailure,
    ToolNotAllowed,
    UnknownTool,
    classify,
    shorten,
)
from tasks_server.guidance import for_session, guide, nearest_tools
from tasks_server.registry import ToolSpec, discover
from tasks_server.roles import tool_filter

__all__ = ["MAX_ARGUMENT_CHARS", "Outcome", "Toolset", "open_toolset"]

MAX_ARGUMENT_CHARS = 1024 * 1024
"""The longest string an argument may hold (a task file is at most 1 MiB): longer ones are
refused before any work, so a request's cost stays bounded by what could ever be stored."""


def check_sizes(arguments: dict[str, Any]) -> None:
    """INVALID_ARGUMENT when any string in `arguments` (keys too, at any depth) is too long.
    Runs on every call: the path to a value is only spelled out for the error."""
    pending: list[tuple[tuple[str | int, ...], Any]] = [((), arguments)]
    while pending:
        path, value = pending.pop()
        if isinstance(value, dict):
            pending.extend(((*path, str(k)), k) for k in value)
            pending.extend(((*path, str(k)), v) for k, v in value.items())
        elif isinstance(value, list):
            pending.extend(((*path, i), item) for i, item in enumerate(value))
        elif isinstance(value, str) and len(value) > MAX_ARGUMENT_CHARS:
            raise ToolFailure(
                "INVALID_ARGUMENT",
                f"{_spelled(path)}: {len(value)} characters, over the {MAX_ARGUMENT_CHARS} limit",
            )


def _spelled(path: tuple[str | int, ...]) -> str:
    parts = (f"[{p}]" if isinstance(p, int) else f".{shorten(p, 40)}" for p in path)
    return "arguments" + "".join(parts)


@dataclass(frozen=True, slots=True)
class Outcome:
    """A call's result: the structured data of a success, or an error payload."""

    data: dict[str, Any]
    is_error: bool


class Toolset:
    """Every known tool, the ones this session may call, and the context they run on."""

    def __init__(
        self, specs: Sequence[ToolSpec], context: Any, allowed: Callable[[str, str], bool]
    ) -> None:
        self.specs = {spec.name: spec for spec in specs}
        self.context = context
        self.names = [name for name, spec in sorted(self.specs.items()) if allowed(name, spec.tier)]
        self.allowed = frozenset(self.names)
        self._hidden = frozenset(self.specs) - self.allowed  # once, not on every call

    def visible(self) -> list[ToolSpec]:
        """The specs this session lists, sorted by name."""
        return [self.specs[name] for name in self.names]

    def spec(self, name: str) -> ToolSpec:
        """The spec of a tool this session may call."""
        if name not in self.specs:
            raise UnknownTool(name)
        if name not in self.allowed:
            raise ToolNotAllowed(name)
        return self.specs[name]

    def run(self, name: str, arguments: dict[str, Any]) -> Outcome:
        """Run one call; never raises."""
        try:
            spec = self.spec(name)
            check_sizes(arguments)
            args = spec.input_model.model_validate(arguments)
            writes = not spec.hints.read_only  # checks and write under the tree's write lock
            with self.context.live.snapshot(write=writes):  # every finished change is in it
                output = spec.handler(self.context, args)
            data: dict[str, Any] = output.model_dump(mode="json")
            bound_answer(data)
        except Exception as exc:
            return Outcome(self._error(name, exc), True)
        self._limit_guidance(data)
        return Outcome(data, False)

    def _error(self, name: str, exc: Exception) -> dict[str, Any]:
        info = classify(exc)
        own: tuple[str, list[str]] | None = getattr(exc, "recovery", None)
        next_action, tools = own or RECOVERY.get(info.code, ("Read error.message", []))
        if isinstance(exc, ToolFailure) and info.code in {"TOOL_NOT_ALLOWED", "UNKNOWN_TOOL"}:
            tools = nearest_tools(name, self.names)
        guidance = guide(
            f"error_{info.code.lower()}", next_action, tools, blocked_reason=info.message
        )
        data = ErrorResult(success=False, error=info, guidance=guidance).model_dump(
            mode="json", exclude_none=True
        )
        bound_answer(data)
        self._limit_guidance(data)
        return data

    def _limit_guidance(self, data: dict[str, Any]) -> None:
        if self._hidden and "guidance" in data:
            for_session(data["guidance"], self._hidden)


def open_toolset(
    root: Path,
    *,
    role: str | None = None,
    tools: list[str] | None = None,
    bots: Path | None = None,
    bot: str | None = None,
    watch: bool = True,
) -> Toolset:
    """The tools over the tree at `root` that `role`/`tools` allow; with `bot`, only that
    bot's workflow tools (the others stay known, so guidance never names them)."""
    context = ServerContext.open(root, bots=bots, watch=watch)
    specs: list[ToolSpec] = [*discover(), *context.bot_specs()]
    check = tool_filter(role, tools or [])
    if bot is None:
        return Toolset(specs, context, check)
    only = {spec.name for spec in context.bot_specs(only=bot)}
    return Toolset(specs, context, lambda name, tier: name in only and check(name, tier))
