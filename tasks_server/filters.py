"""The filter arguments of the list tools, declared once (their meaning: `graph.filters`).

`get_ready_tasks`, `list_tasks` and `search_tasks` take `TaskFilterInput`'s fields with the
same names, types, bounds and descriptions; `apply_filters` runs them at the server's clock.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

from pydantic import Field

from graph.filters import TaskFilter, keep
from tasks_server.context import ServerContext
from tasks_server.models import (
    MAX_LIST_ITEMS,
    IdArg,
    Input,
    Priority,
    ProjectArg,
    ShortText,
    Unset,
)

__all__ = ["STATUS_FILTER", "TaskFilterInput", "apply_filters"]

STATUS_FILTER = "Only this status (aliases accepted)."
"""What `status` means on the tools that filter by it (`list_tasks`, `get_tasks_with_topology`)."""

Tags = Annotated[list[ShortText], Field(max_length=MAX_LIST_ITEMS)]


class TaskFilterInput(Input):
    """The filters every task list takes; each one given must hold."""

    project: ProjectArg | Unset = Field(None, description="Only this project.")
    type: ShortText | Unset = Field(None, description="Only this type.")
    priority_max: Priority | Unset = Field(None, description="Only priority <= this.")
    tags_any: Tags | Unset = Field(None, description="Only tasks with any of these tags.")
    tags_all: Tags | Unset = Field(None, description="Only tasks with all of these tags.")
    assignee: ShortText | Unset = Field(None, description="Only this assignee.")
    unassigned: bool = Field(False, description="Only tasks with no assignee.")
    under: IdArg | Unset = Field(None, description="Only descendants of this task, at any depth.")
    unclaimed: bool = Field(False, description="Only tasks no live claim holds.")

    def task_filter(self) -> TaskFilter:
        """The filters given, as the graph defines them."""
        return TaskFilter(
            project=self.project,
            type=self.type,
            priority_max=self.priority_max,
            tags_any=tuple(self.tags_any or ()),
            tags_all=tuple(self.tags_all or ()),
            assignee=self.assignee,
            unassigned=self.unassigned,
            under=self.under,
            unclaimed=self.unclaimed,
        )


def apply_filters(ctx: ServerContext, ids: Sequence[str], args: TaskFilterInput) -> Sequence[str]:
    """`ids` (in their order) that pass every filter in `args`, at the server's clock."""
    return keep(ctx.index, ids, args.task_filter(), ctx.clock())
