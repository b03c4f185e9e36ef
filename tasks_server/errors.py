"""Tool errors, and the one place exceptions become error results.

    ToolFailure(code, message)          a refusal the caller can act on
    ├── ToolNotAllowed(tool)            TOOL_NOT_ALLOWED
    ├── UnknownTool(tool)               UNKNOWN_TOOL
    ├── InvalidCursor(detail)           INVALID_CURSOR
    ├── OpenChecklist(task_id, items)   OPEN_CHECKLIST
    └── ReadOnlyRoot()                  READ_ONLY_ROOT
    └── ClaimHeld(message, details)     CONFLICT, with who holds the task and until when

Storage, graph and bot exceptions keep their own types. `classify` maps every one of them
through one table, walked along the exception's class hierarchy (the most specific entry
wins), to a stable `code`, a message and details; anything unexpected is INTERNAL_ERROR,
logged, and never shown as a stack trace.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from graph.errors import CycleError, GraphError, InvalidArgument, UnknownTask
from graph.facts import CYCLE_SHOWN
from storage.errors import (
    AlreadyExists,
    Conflict,
    ConflictedFile,
    GitMissing,
    InvalidId,
    ParseError,
    PathOutsideRoot,
    StorageError,
    TaskNotFound,
    UncommittedFile,
)
from tasks_server.guidance import Guidance

__all__ = [
    "RECOVERY",
    "ClaimHeld",
    "ErrorInfo",
    "ErrorResult",
    "InvalidCursor",
    "OpenChecklist",
    "ReadOnlyRoot",
    "ToolFailure",
    "ToolNotAllowed",
    "UnknownTool",
    "classify",
    "shorten",
]

log = logging.getLogger(__name__)

MESSAGE_CHARS = 500
"""The longest message a result carries: a caller's huge input is never echoed back whole."""


def shorten(text: str, limit: int = 80) -> str:
    """`text` cut to `limit` characters, marked when cut (for quoting callers' values).

    >>> shorten("x" * 100, 10)
    'xxxxxxxxx…'
    """
    return text if len(text) <= limit else text[: limit - 1] + "…"


class ToolFailure(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class ToolNotAllowed(ToolFailure):
    def __init__(self, tool: str) -> None:
        super().__init__("TOOL_NOT_ALLOWED", f"tool {tool!r} is not allowed for this session")
        self.tool = tool


class UnknownTool(ToolFailure):
    def __init__(self, tool: str) -> None:
        super().__init__("UNKNOWN_TOOL", f"no tool named {shorten(tool)!r}")


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


class ReadOnlyRoot(ToolFailure):
    def __init__(self) -> None:
        super().__init__(
            "READ_ONLY_ROOT",
            "the bundled example inside the installed package is read-only; "
            "`tasks-server init DIR` copies it to DIR, then pass --root DIR",
        )


class ClaimHeld(ToolFailure):
    """A claim stands in the way: another agent's live lease, or a task already closed."""

    recovery = (
        "Call claim_next to take another task",
        ["claim_next", "get_ready_tasks", "get_task"],
    )

    def __init__(self, message: str, details: dict[str, Any]) -> None:
        super().__init__("CONFLICT", message)
        self.details = details


class ErrorInfo(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)
    code: str = Field(description="Stable machine code, e.g. TASK_NOT_FOUND.")
    message: str = Field(description="What went wrong, for a human or an agent.")
    details: dict[str, Any] | None = Field(None, description="Facts about the error.")


class ErrorResult(BaseModel):
    """An error result: sent as the text of an `isError` result, with no structured content,
    so that no client validates it against the tool's (success) outputSchema."""

    model_config = ConfigDict(extra="forbid", defer_build=True)
    success: bool = Field(description="Always false for an error.")
    error: ErrorInfo
    guidance: Guidance


RECOVERY: dict[str, tuple[str, list[str]]] = {  # `{tool}` stands for the tool called
    "TASK_NOT_FOUND": ("Call search_tasks to find the right id", ["search_tasks", "list_tasks"]),
    "INVALID_ARGUMENT": ("Fix the argument error.message names, then call {tool} again",
                         ["{tool}", "list_tasks"]),
    "CONFLICT": ("Call get_task to re-read the task, then retry with its file_modified",
                 ["get_task", "{tool}"]),
    "CYCLE": ("Call get_task_neighborhood and choose a parent or dependency outside the cycle",
              ["get_task_neighborhood", "get_dependencies"]),
    "TOOL_NOT_ALLOWED": ("Use one of the tools listed here instead", []),
    "PARSE_ERROR": ("Fix the file error.message names, then call {tool} again",
                    ["get_structural_signals", "get_index_stats"]),
    "INVALID_CURSOR": ("Call {tool} again without a cursor to restart paging", ["{tool}"]),
    "ALREADY_EXISTS": ("Call get_task on the existing task, or retry with another id",
                       ["get_task", "update_task"]),
    "OPEN_CHECKLIST": ("Tick the items with update_task, or call complete_task with force=true",
                       ["get_task", "update_task", "complete_task"]),
    "PATH_OUTSIDE_ROOT": ("Call {tool} again with an id or path inside the task root",
                          ["{tool}", "get_index_stats"]),
    "UNKNOWN_TOOL": ("Use a name tools/list shows", []),
    "ACTION_INCOMPLETE": ("Finish the action error.message names, then close it", []),
    "DECLINED": ("The person declined: ask them what they want instead; nothing was changed",
                 []),
    "READ_ONLY_ROOT": ("Serve a writable copy: run tasks-server init DIR, then --root DIR",
                       ["get_index_stats"]),
    "GIT_NOT_INSTALLED": ("Install git (or put it on the server's PATH), then call {tool} again",
                          ["{tool}", "get_index_stats"]),
    "IO_ERROR": ("Check the tree can be read and written (disk, permissions), then call "
                 "{tool} again", ["{tool}", "get_index_stats"]),
    "SYNC_FAILED": ("The write is committed in this clone and pushed at the next sync; call "
                    "get_index_stats to see sync.error", ["get_index_stats"]),
    "INTERNAL_ERROR": ("Retry once; if it repeats, call rebuild_index",
                       ["{tool}", "rebuild_index", "get_index_stats"]),
}  # fmt: skip


def _info(code: str, exc: BaseException, details: dict[str, Any] | None = None) -> ErrorInfo:
    return ErrorInfo(code=code, message=shorten(str(exc), MESSAGE_CHARS), details=details)


def _cycle_details(exc: CycleError) -> dict[str, Any]:
    """The cycle's kind, its first members and its length (a cycle may hold every task)."""
    return {"kind": exc.kind, "cycle": exc.nodes[:CYCLE_SHOWN], "cycle_length": len(exc.nodes)}


def _own_code(exc: Any) -> ErrorInfo:
    return _info(exc.code, exc)


def _validation(exc: ValidationError) -> ErrorInfo:
    problems = [
        shorten(f"{'.'.join(str(p) for p in err['loc']) or 'arguments'}: {err['msg']}", 200)
        for err in exc.errors(include_url=False)[:20]
    ]
    return ErrorInfo(
        code="INVALID_ARGUMENT", message="; ".join(problems), details={"fields": problems}
    )


def _code(code: str) -> Callable[[Any], ErrorInfo]:
    return lambda exc: _info(code, exc)


_RULES: dict[type[BaseException], Callable[[Any], ErrorInfo]] = {
    ToolFailure: _own_code,
    ClaimHeld: lambda exc: _info("CONFLICT", exc, exc.details),
    ValidationError: _validation,
    UnknownTask: lambda exc: _info("TASK_NOT_FOUND", exc, {"task_id": shorten(exc.task_id)}),
    TaskNotFound: lambda exc: _info("TASK_NOT_FOUND", exc, {"task_id": shorten(exc.task_id)}),
    CycleError: lambda exc: _info("CYCLE", exc, _cycle_details(exc)),
    Conflict: lambda exc: _info("CONFLICT", exc, {"path": exc.path, "file_modified": exc.actual}),
    UncommittedFile: lambda exc: _info("CONFLICT", exc, {"path": exc.path, "uncommitted": True}),
    ParseError: lambda exc: _info("PARSE_ERROR", exc, {"path": exc.path}),
    ConflictedFile: lambda exc: _info(
        "PARSE_ERROR", exc, {"path": exc.path, "task_id": shorten(exc.task_id), "conflicted": True}
    ),
    GitMissing: _code("GIT_NOT_INSTALLED"),
    AlreadyExists: _code("ALREADY_EXISTS"),
    PathOutsideRoot: _code("PATH_OUTSIDE_ROOT"),
    InvalidArgument: _code("INVALID_ARGUMENT"),
    InvalidId: _code("INVALID_ARGUMENT"),
    StorageError: _code("INVALID_ARGUMENT"),
    GraphError: _code("INVALID_ARGUMENT"),
    OSError: lambda exc: ErrorInfo(
        code="IO_ERROR", message=f"the file system refused: {exc.strerror or type(exc).__name__}"
    ),
}  # fmt: skip


def classify(exc: BaseException) -> ErrorInfo:
    """The code, message and details of any exception: the first class along its method
    resolution order that the table names decides."""
    for kind in type(exc).__mro__:
        rule = _RULES.get(kind)
        if rule is not None:
            return rule(exc)
    log.error("unexpected error in a tool", exc_info=exc)
    return ErrorInfo(
        code="INTERNAL_ERROR", message=f"unexpected {type(exc).__name__}; the server logged it"
    )
