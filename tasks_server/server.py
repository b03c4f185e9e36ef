"""The MCP server: every discovered tool registered once, filtered by role, errors mapped.

`TasksServer` is the SDK's `MCPServer` with two additions: `tools/list` shows only allowed
tools (with schema titles stripped, to keep the listing lean), and any call that fails
before reaching a tool (a bad argument, an unknown or disallowed tool) still comes back as
a result with an error code and guidance.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp_types import CallToolResult, InputRequiredResult
from mcp_types import Tool as MCPTool

from tasks_server.context import ServerContext
from tasks_server.errors import ToolFailure, ToolNotAllowed, error_result
from tasks_server.registry import ToolSpec, build_tools, discover
from tasks_server.roles import tool_filter

__all__ = ["TasksServer", "create_server"]

INSTRUCTIONS = (
    "Facts about a task graph kept as markdown files. The server counts and lists; you judge. "
    "Start with get_graph_metrics or get_ready_tasks; every result carries guidance."
)


class TasksServer(MCPServer):
    def __init__(
        self,
        name: str,
        *,
        tools: list[Tool],
        known: Callable[[str], bool],
        allowed: Callable[[str], bool],
    ) -> None:
        super().__init__(name, instructions=INSTRUCTIONS, tools=tools)
        self.known = known
        self.allowed = allowed
        self._listing: list[MCPTool] | None = None
        self.context: ServerContext | None = None
        self.arguments: dict[str, frozenset[str]] = {}

    async def list_tools(self) -> list[MCPTool]:
        if self._listing is None:
            tools = [t for t in await super().list_tools() if self.allowed(t.name)]
            self._listing = [_lean(t) for t in tools]
        return self._listing

    def reset_listing(self) -> None:
        self._listing = None

    def close(self) -> None:
        """Stop watching and save the warm-start cache with what changed during the run."""
        if self.context is not None:
            self.context.close()

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Any = None
    ) -> CallToolResult | InputRequiredResult:
        if self.known(name) and not self.allowed(name):
            return error_result(ToolNotAllowed(name))
        unknown = sorted(set(arguments) - self.arguments.get(name, frozenset(arguments)))
        if unknown:
            return error_result(
                ToolFailure("INVALID_ARGUMENT", f"unknown argument(s): {', '.join(unknown)}")
            )
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            return error_result(exc)


def _lean(tool: MCPTool) -> MCPTool:
    """The same tool with schemas made compact: no `title` keys, `X | None` written as a
    type list, and in the output schema descriptions kept only on the top-level keys."""
    update: dict[str, Any] = {"input_schema": _compact(tool.input_schema, keep_descriptions=True)}
    if tool.output_schema is not None:
        output = _compact(_inline_refs(tool.output_schema), keep_descriptions=False)
        described = tool.output_schema.get("properties", {})
        for key, prop in output.get("properties", {}).items():
            if "description" in described.get(key, {}):
                prop["description"] = described[key]["description"]
        update["output_schema"] = output
    return tool.model_copy(update=update)


def _inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """Replace `$ref`s to non-recursive `$defs` with the definitions themselves: clients
    validate every result against this schema, and resolving references was most of the
    time that validation took."""
    defs: dict[str, Any] = schema.get("$defs", {})

    def inline(node: Any, stack: tuple[str, ...]) -> Any:
        if isinstance(node, list):
            return [inline(item, stack) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref", "")
        name = ref.removeprefix("#/$defs/")
        if ref.startswith("#/$defs/") and name in defs and name not in stack:
            return inline(
                {**defs[name], **{k: v for k, v in node.items() if k != "$ref"}}, (*stack, name)
            )
        return {k: inline(v, stack) for k, v in node.items() if k != "$defs"}

    inlined: dict[str, Any] = inline(schema, ())
    still = _refs_in(inlined)
    if still:  # recursive models keep their definitions
        inlined["$defs"] = {name: inline(defs[name], (name,)) for name in still}
    return inlined


def _refs_in(node: Any) -> set[str]:
    if isinstance(node, list):
        return set().union(*(_refs_in(item) for item in node)) if node else set()
    if not isinstance(node, dict):
        return set()
    found = {node["$ref"].removeprefix("#/$defs/")} if isinstance(node.get("$ref"), str) else set()
    return found.union(*(_refs_in(v) for v in node.values())) if node else found


def _compact(schema: Any, *, keep_descriptions: bool) -> Any:
    if isinstance(schema, list):
        return [_compact(item, keep_descriptions=keep_descriptions) for item in schema]
    if not isinstance(schema, dict):
        return schema
    drop = {"title"} if keep_descriptions else {"title", "description"}
    out = {
        k: _compact(v, keep_descriptions=keep_descriptions)
        for k, v in schema.items()
        if not (k in drop and isinstance(v, str)) and not (k == "default" and v is None)
    }
    return _nullable(out)


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """`anyOf: [{type: T, ...}, {type: null}]` → `type: [T, null], ...` when T is one type.

    The same constraint: every other keyword (`items`, `format`, `properties`, `required`,
    ...) applies to instances of its own type only, so null passes them; `enum` and `const`
    do not, and are left as they are. Validators check a type list in one step, where an
    `anyOf` tries each branch: for a task view that is a third of a client's validation.
    """
    options = schema.get("anyOf")
    if not (isinstance(options, list) and len(options) == 2 and {"type": "null"} in options):
        return schema
    other = next(o for o in options if o != {"type": "null"})
    if not isinstance(other.get("type"), str) or "enum" in other or "const" in other:
        return schema
    rest = {k: v for k, v in schema.items() if k != "anyOf"}
    return {**other, **rest, "type": [other["type"], "null"]}


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
    """A server over the task tree at `root`, exposing what `role`/`tools` allow."""
    context = ServerContext.open(root, bots=bots, watch=watch)
    specs: list[ToolSpec] = [*discover(), *context.bot_specs(only=bot)]
    if bot is not None:
        specs = [s for s in specs if s.tier == "workflow"]
        name = f"{bot}_server"
    by_name = {spec.name: spec.tier for spec in specs}
    check = tool_filter(role, tools or [])

    def allowed(tool_name: str) -> bool:
        return tool_name in by_name and check(tool_name, by_name[tool_name])

    context.allowed = allowed
    built = build_tools(specs, context)
    server = TasksServer(name, tools=built, known=by_name.__contains__, allowed=allowed)
    server.arguments = {spec.name: frozenset(spec.input_model.model_fields) for spec in specs}
    context.server = server
    server.context = context
    return server
