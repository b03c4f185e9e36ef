"""Tool errors, and the one place exceptions become error results.

    ToolFailure(code, message)          a refusal the caller can act on
    ├── ToolNotAllowed(tool)            TOOL_NOT_ALLOWED
    ├── InvalidCursor(detail)           INVALID_CURSOR
    └── OpenChecklist(task_id, items)   OPEN_CHECKLIST

Storage and graph exceptions keep their own types; `error_result` maps every one of them
(and anything unexpected, without a stack trace) to an `isError` result with a stable
`code`, a message, and recovery guidance.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from graph.errors import CycleError, GraphError, InvalidArgument, UnknownTask
from storage.errors import (
    AlreadyExists,
    Conflict,
    InvalidId,
    ParseError,
    PathOutsideRoot,
    StorageError,
    TaskNotFound,
)
from tasks_server.guidance import Guidance, guide

__all__ = [
    "ErrorInfo",
    "InvalidCursor",
    "OpenChecklist",
    "ToolFailure",
    "ToolNotAllowed",
    "error_result",
    "guarded",
]

log = logging.getLogger(__name__)


class ToolFailure(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class ToolNotAllowed(ToolFailure):
    def __init__(self, tool: str) -> None:
        super().__init__("TOOL_NOT_ALLOWED", f"tool {tool!r} is not allowed for this server's role")


class InvalidCursor(ToolFailure):
    def __init__(self, detail: str) -> None:
        super().__init__("INVALID_CURSOR", detail)


class OpenChecklist(ToolFailure):
    def __init__(self, task_id: str, items: list[str]) -> None:
        super().__init__(
            "OPEN_CHECKLIST",
            f"task {task_id!r} has {len(items)} open checklist item(s): {'; '.join(items[:5])}",
        )
        self.items = items


class ErrorInfo(BaseModel):
    model_config = ConfigDict(extra="forbid")
    code: str = Field(description="Stable machine code, e.g. TASK_NOT_FOUND.")
    message: str = Field(description="What went wrong, for a human or an agent.")
    details: dict[str, Any] | None = Field(None, description="Facts about the error.")


class ErrorResult(BaseModel):
    success: bool = Field(description="Always false for an error.")
    error: ErrorInfo
    guidance: Guidance


_RECOVERY: dict[str, tuple[str, list[str]]] = {
    "TASK_NOT_FOUND": (
        "Check the id with search_tasks or list_tasks",
        ["search_tasks", "list_tasks"],
    ),
    "INVALID_ARGUMENT": ("Fix the argument named in the message and retry", ["get_index_stats"]),
    "CONFLICT": ("Re-read the task with get_task, then retry with its file_modified", ["get_task"]),
    "CYCLE": ("Choose a parent or dependency outside the cycle", ["get_task_neighborhood"]),
    "TOOL_NOT_ALLOWED": ("Use a tool from tools/list; this role cannot call that one", []),
    "PARSE_ERROR": ("Fix the file named in the message, then retry", ["get_structural_signals"]),
    "INVALID_CURSOR": ("Restart paging without a cursor", []),
    "ALREADY_EXISTS": ("Use update_task on the existing task, or another id", ["get_task"]),
    "OPEN_CHECKLIST": (
        "Tick the checklist items, or call complete_task with force=true",
        ["get_task"],
    ),
    "PATH_OUTSIDE_ROOT": ("Use an id or path inside the task root", []),
    "UNKNOWN_TOOL": ("Call tools/list and use a listed name", []),
    "INTERNAL_ERROR": ("Retry once; if it repeats, call rebuild_index", ["rebuild_index"]),
}


def classify(exc: BaseException) -> tuple[str, str, dict[str, Any] | None]:
    """(code, message, details) for any exception."""
    if isinstance(exc, ToolFailure):
        return exc.code, exc.message, None
    if isinstance(exc, ToolError):
        return _classify_tool_error(exc)
    if isinstance(exc, ValidationError):
        return _classify_validation(exc)
    if isinstance(exc, UnknownTask | TaskNotFound):
        return "TASK_NOT_FOUND", str(exc), {"task_id": exc.task_id}
    if isinstance(exc, CycleError):
        return "CYCLE", str(exc), {"kind": exc.kind, "cycle": list(exc.nodes)}
    if isinstance(exc, InvalidArgument | InvalidId):
        return "INVALID_ARGUMENT", str(exc), None
    return _classify_storage(exc)


def _classify_storage(exc: BaseException) -> tuple[str, str, dict[str, Any] | None]:
    if isinstance(exc, Conflict):
        return "CONFLICT", str(exc), {"path": exc.path, "file_modified": exc.actual}
    if isinstance(exc, AlreadyExists):
        return "ALREADY_EXISTS", str(exc), None
    if isinstance(exc, PathOutsideRoot):
        return "PATH_OUTSIDE_ROOT", str(exc), None
    if isinstance(exc, ParseError):
        return "PARSE_ERROR", str(exc), {"path": exc.path}
    if isinstance(exc, StorageError | GraphError):
        return "INVALID_ARGUMENT", str(exc), None
    log.error("unexpected error in a tool", exc_info=exc)
    return "INTERNAL_ERROR", f"unexpected {type(exc).__name__}; the server logged it", None


def _classify_tool_error(exc: ToolError) -> tuple[str, str, dict[str, Any] | None]:
    cause = exc.__cause__
    if isinstance(cause, ValidationError):
        return _classify_validation(cause)
    if cause is None and str(exc).startswith("Unknown tool"):
        return "UNKNOWN_TOOL", str(exc), None
    if cause is not None:
        return classify(cause)
    return "INVALID_ARGUMENT", str(exc), None


def _classify_validation(exc: ValidationError) -> tuple[str, str, dict[str, Any] | None]:
    problems = [
        f"{'.'.join(str(p) for p in err['loc']) or 'arguments'}: {err['msg']}"
        for err in exc.errors()
    ]
    return "INVALID_ARGUMENT", "; ".join(problems), {"fields": problems}


def error_result(exc: BaseException) -> CallToolResult:
    """The one mapping from an exception to an `isError` tool result with guidance."""
    code, message, details = classify(exc)
    next_action, tools = _RECOVERY.get(code, _RECOVERY["INTERNAL_ERROR"])
    result = ErrorResult(
        success=False,
        error=ErrorInfo(code=code, message=message, details=details),
        guidance=guide(f"error_{code.lower()}", next_action, tools, blocked_reason=message),
    )
    data = result.model_dump(mode="json", exclude_none=True)
    return CallToolResult(
        content=[TextContent(type="text", text=json.dumps(data, ensure_ascii=False))],
        structured_content=data,
        is_error=True,
    )


def guarded(run: Callable[[], CallToolResult]) -> CallToolResult:
    """Run a tool; any exception becomes an error result (the only broad except)."""
    try:
        return run()
    except Exception as exc:
        return error_result(exc)
