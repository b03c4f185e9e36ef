"""The tool registry: one registration path for every tool, hand-written or generated.

A tool is a plain function `fn(ctx, args) -> Output` declared with `@tool(...)` next to its
input and output models; `discover()` imports every module of `tasks_server.tools`, so
there is no hand-kept list. `build_tools()` turns each spec into an MCP tool whose arguments
and output schema come from the pydantic models.
"""

from __future__ import annotations

import copy
import importlib
import inspect
import json
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, cast

from mcp.server.mcpserver.tools import Tool
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from tasks_server.errors import guarded

__all__ = ["Tier", "ToolSpec", "build_tools", "discover", "tool"]

Tier = Literal["query", "mutation", "workflow", "admin"]


@dataclass(frozen=True)
class ToolSpec:
    """Everything needed to serve one tool."""

    name: str
    tier: Tier
    description: str
    input_model: type[BaseModel]
    output_model: type[BaseModel]
    handler: Callable[[Any, Any], BaseModel]
    annotations: ToolAnnotations = field(default_factory=ToolAnnotations)
    meta: dict[str, Any] | None = None


_DECLARED: list[ToolSpec] = []


def tool(
    tier: Tier,
    *,
    read_only: bool = False,
    destructive: bool = False,
    idempotent: bool = False,
) -> Callable[[Callable[[Any, Any], BaseModel]], Callable[[Any, Any], BaseModel]]:
    """Declare a tool: its name is the function's, its description the docstring's."""

    def declare(fn: Callable[[Any, Any], BaseModel]) -> Callable[[Any, Any], BaseModel]:
        hints = inspect.get_annotations(fn, eval_str=True)
        annotations = ToolAnnotations(
            read_only_hint=read_only,
            destructive_hint=None if read_only else destructive,
            idempotent_hint=idempotent,
            open_world_hint=False,
        )
        _DECLARED.append(
            ToolSpec(
                name=fn.__name__,
                tier=tier,
                description=inspect.cleandoc(fn.__doc__ or ""),
                input_model=hints["args"],
                output_model=hints["return"],
                handler=fn,
                annotations=annotations,
            )
        )
        return fn

    return declare


def discover() -> list[ToolSpec]:
    """Every tool declared in the modules of `tasks_server.tools`, sorted by name."""
    package = importlib.import_module("tasks_server.tools")
    for module in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{package.__name__}.{module.name}")
    return sorted({spec.name: spec for spec in _DECLARED}.values(), key=lambda s: s.name)


def _signature(spec: ToolSpec) -> inspect.Signature:
    """Keyword parameters mirroring the input model, so the SDK derives the same schema."""
    params = []
    for name, info in spec.input_model.model_fields.items():
        described = copy.copy(info)  # the default moves to the parameter itself
        described.default, described.default_factory = PydanticUndefined, None
        default = (
            inspect.Parameter.empty
            if info.is_required()
            else info.get_default(call_default_factory=True)
        )
        annotation = cast(Any, Annotated)[info.annotation, described]
        params.append(
            inspect.Parameter(
                name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation, default=default
            )
        )
    return inspect.Signature(params, return_annotation=Annotated[CallToolResult, spec.output_model])


def to_result(output: BaseModel) -> CallToolResult:
    data = output.model_dump(mode="json", exclude_none=False)
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


def build_tools(specs: list[ToolSpec], context: Any) -> list[Tool]:
    """An SDK tool per spec, calling its handler with `context`.

    Outputs are pydantic models already, so the SDK's re-validation of each result against
    the output model is switched off (the schema is still published as outputSchema).
    """
    tools = []
    for spec in specs:
        built = Tool.from_function(
            _bind(spec, context),
            name=spec.name,
            description=spec.description,
            annotations=spec.annotations,
            meta=spec.meta,
        )
        built.fn_metadata.output_model = None
        tools.append(built)
    return tools


def _bind(spec: ToolSpec, context: Any) -> Callable[..., CallToolResult]:
    def call(**arguments: Any) -> CallToolResult:
        return guarded(lambda: to_result(spec.handler(context, spec.input_model(**arguments))))

    call.__signature__ = _signature(spec)  # type: ignore[attr-defined]
    call.__name__ = spec.name
    return call
