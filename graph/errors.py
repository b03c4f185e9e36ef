"""Exceptions of the graph layer.

    GraphError
    ├── UnknownTask(task_id)          no task in the index has this id
    ├── InvalidArgument(name, detail) a query argument out of its domain (unknown scope, ...)
    └── CycleError(kind, nodes)       a parent or depends_on cycle (sorted member ids)

`would_create_cycle` returns a `CycleError` instead of raising it, so that a writer can refuse
with the members in hand.

>>> str(CycleError("depends_on", ["a", "b"]))
'depends_on cycle: a, b'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

__all__ = ["CycleError", "CycleKind", "GraphError", "InvalidArgument", "UnknownTask"]

CycleKind = Literal["parent", "depends_on"]


class GraphError(Exception):
    """Base of every graph failure."""


class UnknownTask(GraphError):
    """No task in the index has `task_id`."""

    def __init__(self, task_id: str) -> None:
        super().__init__(f"unknown task: {task_id}")
        self.task_id = task_id


class InvalidArgument(GraphError):
    """The argument `name` is out of its domain; `detail` says how."""

    def __init__(self, name: str, detail: str) -> None:
        super().__init__(f"{name}: {detail}")
        self.name = name
        self.detail = detail


class CycleError(GraphError):
    """A cycle of `kind` edges through `nodes` (sorted member ids)."""

    def __init__(self, kind: CycleKind, nodes: Sequence[str]) -> None:
        super().__init__(f"{kind} cycle: {', '.join(nodes)}")
        self.kind: CycleKind = kind
        self.nodes = list(nodes)
