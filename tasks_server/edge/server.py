"""The MCP face: the one adapter between our tool specs and the MCP SDK.

The SDK's low-level `Server` is handed two handlers through its constructor, as its own
examples do: `tools/list` answers with the session's tools (schemas made once from the
pydantic models), and `tools/call` hands the call to `Toolset.run`. Successes carry their
data as structured content (valid against the published outputSchema) and as JSON text;
errors are `isError` results whose text is the JSON error object (`success`, `error.code`,
`message`, `guidance`) and carry no structured content, so strict clients, which check
structured content against the success schema, show the error instead of a schema failure.
"""

from __future__ import annotations

import signal
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from functools import lru_cache, partial
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel.server import NotificationOptions, Server
from mcp.server.models import InitializationOptions
from mcp.server.subscriptions import InMemorySubscriptionBus
from mcp.shared.subscriptions import ToolsListChanged
from mcp_types import (
    CallToolRequestParams,
    CallToolResult,
    InputRequiredResult,
    ListToolsResult,
    PaginatedRequestParams,
    TextContent,
    Tool,
    ToolAnnotations,
)
from pydantic import BaseModel
from pydantic_core import to_json

from tasks_server import version
from tasks_server.context import ServerContext
from tasks_server.edge.consent import consent_for
from tasks_server.edge.instructions import instructions, said_once
from tasks_server.edge.resources import TaskResources
from tasks_server.edge.schema_cache import SchemaCache, Schemas, declared_tools, schema_cache
from tasks_server.edge.schemas import input_schema, output_schema
from tasks_server.edge.stdio import serve_checked_stdio
from tasks_server.registry import ToolSpec
from tasks_server.toolset import Outcome, Toolset, open_toolset

__all__ = ["WAITERS", "TasksServer", "create_server", "serve_stdio", "to_result"]

WAITERS = 100
"""Waiting calls (`wait_for_changes`) served at once; more wait their turn."""


def published(spec: ToolSpec) -> Schemas:
    """The input and output schemas a tool publishes, made from its models."""
    return _published_models(spec.input_model, spec.output_model)


@lru_cache(maxsize=256)
def _published_models(input_model: type[BaseModel], output_model: type[BaseModel]) -> Schemas:
    """The schemas of one pair of models, made once a process: a bot's tools share four
    input models and one result model, so its 60 tools cost five schemas, not 120 (0.4 s
    of every start of a tree with a bot). The schemas follow from the models alone
    (`said_once` is one per process) and nothing changes a published schema."""
    return input_schema(input_model, said_once()), output_schema(output_model)


def to_tool(spec: ToolSpec, cache: SchemaCache | None = None) -> Tool:
    """The MCP tool for a spec: schemas from its models (kept in `cache` across starts),
    hints as annotations, its tier (`{"tier": "query"}`, seed 002's four) and a bot tool's
    trigger patterns in `_meta`. `openWorldHint: false` goes on the writers (they change
    only the task tree); a reader, like its implied idempotence, leaves it out (bytes the
    planner's listing gave back)."""
    hints = spec.hints
    inputs, outputs = published(spec) if cache is None else cache.schemas(spec, published)
    return Tool(
        name=spec.name,
        description=spec.description,
        input_schema=inputs,
        output_schema=outputs,
        annotations=ToolAnnotations(
            read_only_hint=hints.read_only,
            destructive_hint=None if hints.read_only else hints.destructive,
            idempotent_hint=None if hints.read_only else hints.idempotent,
            open_world_hint=None if hints.read_only else False,
        ),
        meta={"tier": spec.tier, **(spec.meta or {})},
    )


def to_result(outcome: Outcome) -> CallToolResult:
    # Compact JSON with non-ASCII characters as UTF-8, not \u escapes (json.dumps escapes
    # them unless told not to, and puts spaces after separators); 3x faster than json.dumps.
    text = (outcome.text if outcome.text is not None else to_json(outcome.data)).decode()
    content = [TextContent(type="text", text=text)]
    if outcome.is_error:
        return CallToolResult(content=content, is_error=True)
    return CallToolResult(content=content, structured_content=outcome.data)


class TasksServer(Server[Any]):
    """The SDK's server, constructed with our two tool handlers; `toolset` and `context`
    are ours (tests and the CLI reach the tree through them)."""

    def __init__(self, name: str, toolset: Toolset) -> None:
        self.toolset = toolset
        self.context: ServerContext = toolset.context
        self._schemas = schema_cache()
        self._tools = self._listed()
        self._changes = InMemorySubscriptionBus()  # tools and resources, for listen streams
        self._waiting: anyio.CapacityLimiter | None = None
        self.resources = TaskResources(self.context.live, self._changes)
        resources = self.resources
        super().__init__(
            name,
            version=version(),
            instructions=instructions(
                {t.name: list(t.input_schema.get("properties", {})) for t in self._tools}
            ),
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
            on_subscriptions_listen=resources.listen,
            on_list_resources=resources.listed,
            on_list_resource_templates=resources.templates,
            on_read_resource=resources.read,
            on_subscribe_resource=resources.subscribe,
            on_unsubscribe_resource=resources.unsubscribe,
            on_completion=resources.complete,
            lifespan=_watching_resources,
        )
        self._schemas.save()  # what this start made, for the next

    def _listed(self) -> list[Tool]:
        """The session's tools, their schemas from the cache."""
        return [to_tool(spec, self._schemas) for spec in self.toolset.visible()]

    async def _list_tools(
        self, ctx: ServerRequestContext[Any], params: PaginatedRequestParams | None
    ) -> ListToolsResult:
        return ListToolsResult(tools=self._tools)

    async def _call_tool(
        self, ctx: ServerRequestContext[Any], params: CallToolRequestParams
    ) -> CallToolResult | InputRequiredResult:
        """Ask the person first when the tool has a question (`edge.consent`), then run:
        the question is worked out once, and the call runs with its answer."""
        name, arguments = params.name, params.arguments or {}
        asked = None
        if self.toolset.may_ask(name):
            asked = await anyio.to_thread.run_sync(self.toolset.question, name, arguments)
        if asked is not None and asked.question is not None:
            consent = await consent_for(ctx, params, asked.question)
            if isinstance(consent, InputRequiredResult):
                return consent  # the client asks the person, then calls again with the answer
            asked = asked.answered(consent)
        run = partial(self.toolset.run, name, arguments, asked=asked)
        outcome = await anyio.to_thread.run_sync(run, limiter=self._limiter(name))
        if self.toolset.sync():  # a bot's restart_server changed its tools
            self._tools = self._listed()
            self._schemas.save()
            await self._tools_changed(ctx)
        return to_result(outcome)

    def _limiter(self, name: str) -> anyio.CapacityLimiter | None:
        """The threads a call runs on: a waiting tool's own (`WAITERS` at once), so that
        waiting calls never take the threads every other call runs on (the default)."""
        spec = self.toolset.specs.get(name)
        if spec is None or not spec.waits:
            return None
        if self._waiting is None:  # made in the event loop, at the first wait
            self._waiting = anyio.CapacityLimiter(WAITERS)
        return self._waiting

    async def _tools_changed(self, ctx: ServerRequestContext[Any]) -> None:
        """Tell the client the tool list changed: on its listen streams (2026-07-28 and
        later) and as a plain notification on a handshake-era session (each era drops the
        other's)."""
        await self._changes.publish(ToolsListChanged())
        await ctx.session.send_tool_list_changed()

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        """The SDK's options, advertising `tools.listChanged`: a bot's restart_server can
        change the tool list, and the client is told."""
        return super().create_initialization_options(
            notification_options or NotificationOptions(tools_changed=True),
            experimental_capabilities,
            extensions,
        )

    def close(self) -> None:
        """Stop watching and save the warm-start cache with what changed during the run."""
        self.context.close()


@asynccontextmanager
async def _watching_resources(server: Server[Any]) -> AsyncIterator[dict[str, Any]]:
    """While the server runs, its task resources' subscribers are told of changes."""
    assert isinstance(server, TasksServer)
    async with anyio.create_task_group() as group:
        group.start_soon(server.resources.watch)
        yield {}
        server.resources.close()
        group.cancel_scope.cancel()


def create_server(
    root: Path,
    *,
    role: str | None = None,
    tools: list[str] | None = None,
    bots: Path | None = None,
    bot: str | None = None,
    watch: bool = True,
    name: str = "tasks-server",
) -> TasksServer:
    """An MCP server over the task tree at `root`, exposing what `role`/`tools` allow."""
    toolset = open_toolset(
        root, role=role, tools=tools, bots=bots, bot=bot, watch=watch, declared=declared_tools
    )
    return TasksServer(f"{bot}_server" if bot is not None else name, toolset)


def serve_stdio(server: TasksServer, on_interrupt: Callable[[], object] | None = None) -> None:
    """Serve MCP over this process's stdin and stdout until the client hangs up.

    Ctrl-C calls `on_interrupt` at once (which ends the process): a cancelled session would
    wait for the thread blocked reading stdin, which only the client's hang-up frees, so an
    interrupt would otherwise hang while the client keeps stdin open. Every write is whole
    or not made (atomic renames; a batch's journal is finished by the next start)."""
    if on_interrupt is not None:
        signal.signal(signal.SIGINT, lambda *_: on_interrupt())

    async def session(read: Any, write: Any) -> None:
        await server.run(read, write, server.create_initialization_options())

    anyio.run(serve_checked_stdio, session)
