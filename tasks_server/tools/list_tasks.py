"""Query tier: `list_tasks`, the call most sessions make first, in a module of its own.

Its two models are all a first `list_tasks` builds: the rest of the query tier (`query`)
defines seventeen more, imported only when one of its tools is called."""

from __future__ import annotations

from pydantic import Field

from graph import selection
from graph.sections import Sections
from tasks_server.context import ServerContext
from tasks_server.filters import STATUS_FILTER, TaskFilterInput, apply_filters
from tasks_server.guidance import guide
from tasks_server.listing import Listing, TaskListArgs
from tasks_server.models import IdArg, Priority, TaskPage, Unset
from tasks_server.registry import tool


class ListTasksInput(TaskFilterInput, TaskListArgs):
    status: str | Unset = Field(None, description=STATUS_FILTER)
    priority: Priority | Unset = Field(None, description="Only this priority.")
    tag: str | Unset = Field(None, description="Only tasks with this tag.")
    parent: IdArg | Unset = Field(None, description="Only children of this task.")


class ListTasksOutput(TaskPage):
    pass


@tool("query", read_only=True, idempotent=True)
def list_tasks(ctx: ServerContext, args: ListTasksInput) -> Listing[ListTasksOutput]:
    """Tasks matching every given filter, ordered by priority, order, id."""
    own = {"status", "priority", "tag", "parent", "project"}
    ids = selection.list_tasks(ctx.index, **args.model_dump(include=own))
    ids = apply_filters(ctx, ids, args)
    return Listing(
        Sections({"tasks": ids}),
        guide(
            "tasks_listed" if ids else "no_tasks_match",
            "Call get_task for details"
            if ids
            else "Call list_tasks again with fewer or looser filters",
            ["get_task", "get_task_neighborhood", "search_tasks"],
        ),
    )
