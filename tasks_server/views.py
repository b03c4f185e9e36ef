"""How tasks appear in tool results: `brief` (a few fields) or `full` (everything, body too).

`TaskBrief` is a brief row: seven fields, `project` and `parent` left out when the task has
none (a nullable field costs a validating client an `anyOf` on every row), built straight
from the loaded tasks and kept per task record (`BriefCache`).
`TaskView` is a task in full; it also serves a single task asked for in brief, leaving the
full-only fields out. A list row is a `TaskRow`, a brief or a full view; both publish one
schema, the brief fields typed in an object open to the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import fields
from datetime import datetime
from operator import attrgetter
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetJsonSchemaHandler,
    SerializerFunctionWrapHandler,
    TypeAdapter,
    model_serializer,
)
from pydantic.json_schema import JsonSchemaValue, SkipJsonSchema
from pydantic_core import CoreSchema

from graph.about import TaskAbout
from graph.claims import CLAIM_EXPIRES, CLAIMED_BY, MAX_LEASE_SECONDS, claim_of
from storage.model import Task
from tasks_server.sizes import MAX_ID_CHARS, MAX_TITLE_CHARS, clip

__all__ = [
    "BLOCKS_SHOWN",
    "BRIEF_FIELDS",
    "CLAIM_FIELDS",
    "NOT_IN_VIEW",
    "BriefCache",
    "Fields",
    "TaskBrief",
    "TaskRow",
    "TaskView",
    "claim_fields",
    "to_briefs",
    "to_view",
]

Fields = Literal["brief", "full"]
CLAIM_FIELDS = frozenset({"claimed_by", "claim_expires", "claim_live", "claim_beyond_max_lease"})
BRIEF_FIELDS = frozenset(
    {"id", "title", "type", "status", "priority", "project", "parent", *CLAIM_FIELDS}
)
FIELDS_DESCRIPTION = "'full': all fields, body too."


BLOCKS_SHOWN = 50
"""How many dependents a full view lists by id (a hub can have thousands)."""


def _absent(value: object) -> bool:
    return value is None


class TaskBrief(BaseModel):
    """A task in brief: for lists that never need more (call get_task for the rest)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    id: str = Field(description="Task id.")
    title: str = Field(description="Title.")
    type: str = Field(description="goal, project, epic, task, action, bug, feature, learn, ...")
    status: str = Field(description="Normalised status, e.g. active, in_progress, done.")
    priority: int = Field(description="0 (most urgent) to 4.")
    project: str | SkipJsonSchema[None] = Field(
        None, description="Project name; absent when the task has none.", exclude_if=_absent
    )
    parent: str | SkipJsonSchema[None] = Field(
        None, description="Parent task id; absent when the task has none.", exclude_if=_absent
    )
    claimed_by: str | SkipJsonSchema[None] = Field(
        None,
        description="The agent whose claim the file holds, live or expired; absent when none.",
        exclude_if=_absent,
    )
    claim_expires: datetime | SkipJsonSchema[None] = Field(
        None, description="When that claim's lease ends; absent when none.", exclude_if=_absent
    )
    claim_live: bool | SkipJsonSchema[None] = Field(
        None,
        description="True while the lease runs by the server's clock, false once it has expired"
        " (an expired claim holds nothing); absent when none.",
        exclude_if=_absent,
    )
    claim_beyond_max_lease: bool | SkipJsonSchema[None] = Field(
        None,
        description="True when the lease ends further ahead than the longest lease a claim"
        f" takes ({MAX_LEASE_SECONDS} s) by the server's clock: the claim was written by a"
        " server whose clock runs ahead of this one, or by hand. It holds the task until it"
        " ends all the same; absent otherwise.",
        exclude_if=_absent,
    )


class TaskView(TaskBrief):
    """A task. Brief views carry the first seven fields; full views carry all."""

    @classmethod
    def __get_pydantic_json_schema__(
        cls, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return handler(TaskBrief.__pydantic_core_schema__)  # see _RowSchema

    order: int | None = Field(None, description="Order among siblings.")
    depends_on: list[str] | None = Field(None, description="Hard dependencies (ids).")
    soft_depends_on: list[str] | None = Field(None, description="Soft, non-blocking links.")
    tags: list[str] | None = Field(None, description="Tags.")
    assignee: str | None = Field(None, description="Assignee.")
    complexity: str | None = Field(None, description="Complexity as written.")
    effort: str | None = Field(None, description="Effort as written.")
    context: str | None = Field(None, description="Context as written.")
    due: datetime | None = Field(None, description="Due date.")
    created: datetime | None = Field(None, description="Created (frontmatter).")
    modified: datetime | None = Field(None, description="Modified (frontmatter).")
    completed: datetime | None = Field(None, description="Completed (frontmatter).")
    path: str | None = Field(None, description="File path under the root.")
    file_modified: datetime | None = Field(
        None,
        description="File modification time; pass it as expected_modified to update_task or"
        " delete_task.",
    )
    depth: int | None = Field(None, description="Parent hops to a root (null on a parent cycle).")
    child_count: int | None = Field(None, description="Number of children (all statuses).")
    is_leaf: bool | None = Field(None, description="True when no child is still open.")
    is_ready: bool | None = Field(None, description="Ready to start now (see get_ready_tasks).")
    is_blocked: bool | None = Field(None, description="Blocked (see get_blocked_tasks).")
    blocks: list[str] | None = Field(
        None,
        description=f"Ids of tasks that depend on this one, the first {BLOCKS_SHOWN} in task "
        "order (blocking_count counts all; get_task_neighborhood pages them).",
    )
    blocking_count: int | None = Field(None, description="Tasks that depend on this one.")
    dependency_chain_length: int | None = Field(
        None,
        description="Most depends_on edges on a path leaving the task (a dependency cycle "
        "counts as one node, dangling ids left out); 0 when it depends on nothing.",
    )
    unblocks_count: int | None = Field(None, description="Tasks whose depends_on names it.")
    unblocks_transitive_count: int | None = Field(
        None, description="Distinct tasks that reach it by following depends_on (not itself)."
    )
    extra: dict[str, Any] | None = Field(None, description="Other frontmatter keys, as written.")
    body: str | None = Field(None, description="Markdown body.")
    body_truncated: bool | None = Field(None, description="True when the body was shortened.")
    deferred_until: datetime | None = Field(
        None,
        description="When its defer_until ends, while still ahead: not ready until then.",
        exclude_if=_absent,
    )

    @model_serializer(mode="wrap")
    def _only_set_fields(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        keep = self.model_fields_set | BRIEF_FIELDS
        return {key: value for key, value in data.items() if key in keep}


class _RowSchema:
    """A task row or view has one schema, the brief fields in an object open to the others
    (the MCP edge publishes it as their required keys): the full view's 26 other fields
    would cost every tool that lists tasks, and a client that checks rows would check each
    of them on every full row. One schema for both kinds: an `anyOf` of brief and full cost
    a validating client one more check on every row (`python -m bench.validation_bench`).
    Rows repeated in one schema refer to the view's definition (TaskView's own hook), so
    lists of rows in one tool (get_changes' six) share one."""

    def __get_pydantic_json_schema__(
        self, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        view = core_schema["choices"][-1] if core_schema["type"] == "union" else None
        if isinstance(view, dict) and view["type"] == "definition-ref":  # a repeated row
            return handler(view)  # a $ref to TaskView's definition, the brief fields
        return handler(TaskBrief.__pydantic_core_schema__)


TaskRow = Annotated[TaskBrief | TaskView, _RowSchema()]
"""A row of a task list: brief by default, in full when `fields='full'` is asked for."""


_BRIEFS: TypeAdapter[list[TaskBrief]] = TypeAdapter(list[TaskBrief])


BRIEF_LIMITS = (("title", MAX_TITLE_CHARS), ("project", MAX_ID_CHARS), ("parent", MAX_ID_CHARS))
"""A brief row shows these shortened (`sizes.clip`) when a hand-written file holds more than
a write allows: a row stays a row, never 100 KB (the file and the full view keep it all)."""


def _clip_brief(row: TaskBrief | TaskView) -> None:
    for name, limit in BRIEF_LIMITS:
        value = getattr(row, name)
        if value is not None and len(value) > limit:
            setattr(row, name, clip(value, limit))


def to_briefs(tasks: Iterable[Task]) -> list[TaskBrief]:
    """`tasks` in brief, validated in one call that reads the tasks' attributes directly
    (a thousand rows in about a millisecond), oversized values shortened."""
    rows = _BRIEFS.validate_python(list(tasks), from_attributes=True)
    for row in rows:
        _clip_brief(row)
    return rows


class BriefCache:
    """Brief rows kept per task record. A record is frozen and an edit makes a new one, so
    a kept brief is right for as long as its record is the one the index holds: a page of
    1,000 rows is looked up, not built again."""

    def __init__(self, most: int = 200_000) -> None:
        self._kept: dict[str, tuple[Task, TaskBrief]] = {}
        self._most = most  # ids of deleted tasks linger; forget all past this many

    def of(self, tasks: Sequence[Task]) -> list[TaskBrief]:
        """The briefs of `tasks`, in order, building only those not kept for their record.
        Called under the live tree's lock, one call at a time."""
        kept = self._kept
        stale = [task for task in tasks if kept.get(task.id, _NONE)[0] is not task]
        if len(kept) + len(stale) > self._most:
            kept.clear()
            stale = list(tasks)
        rows = zip(stale, to_briefs(stale), strict=True)
        kept.update((task.id, (task, row)) for task, row in rows)
        return [kept[task.id][1] for task in tasks]


_NONE: tuple[None, None] = (None, None)


def claim_fields(task: Task, now: datetime) -> dict[str, Any]:
    """The claim fields of a row: who, until when, and whether the lease runs at `now`
    (empty when the file holds no claim)."""
    claim = claim_of(task)
    if claim is None:
        return {}
    return {
        "claimed_by": claim.agent,
        "claim_expires": claim.expires,
        "claim_live": claim.is_live(now),
        "claim_beyond_max_lease": True if claim.beyond_max(now) else None,
    }


NOT_IN_VIEW = frozenset({"packed_body", "reasons", "open_child_count"})
"""The task's fields and the graph's answer's that a full view does not show under their own
name: the packed body (shown unpacked as `body`), why it is blocked (the result's guidance
says it, `blocked_reason`), how many children are open (`is_leaf` says whether any is; the
guidance and the editor's hover read the count). Every other one shows (a test holds it)."""


def _extra_of(task: Task, claim: dict[str, Any]) -> dict[str, Any] | None:
    """The frontmatter keys no typed field shows: a claim key the claim fields show (who,
    until when) is left out, so each fact appears once; one they cannot show (a lease end
    that is not a time) stays, as written."""
    shown = {key for key in (CLAIMED_BY, CLAIM_EXPIRES) if claim.get(key) is not None}
    return {key: value for key, value in task.extra.items() if key not in shown} or None


def _named(names: tuple[str, ...]) -> Callable[[object], dict[str, Any]]:
    """A reader of the attributes `names` of an object, as a dict (one C-level read)."""
    read = attrgetter(*names)
    if len(names) == 1:
        return lambda source: {names[0]: read(source)}
    return lambda source: dict(zip(names, read(source), strict=True))


_SHOWN = TaskView.model_fields.keys()
_of_task = _named(tuple(f.name for f in fields(Task) if f.name in _SHOWN))
_of_answer = _named(tuple(f.name for f in fields(TaskAbout) if f.name in _SHOWN))
"""A full view is validated from these, by field name: every field of the task and of the
graph's answer that the view has (`NOT_IN_VIEW` names the others), no list kept by hand."""


_BRIEF_OWN = tuple(name for name in TaskBrief.model_fields if name not in CLAIM_FIELDS)


def _claim(task: Task, about: TaskAbout | None, now: datetime | None) -> dict[str, Any]:
    """The claim fields: the graph's answer's, or read from the task against `now`."""
    if about is not None:
        return {name: getattr(about, name) for name in sorted(CLAIM_FIELDS)}
    return claim_fields(task, now) if now is not None else {}


def to_view(
    task: Task,
    fields: Fields = "brief",
    *,
    about: TaskAbout | None = None,
    file_modified: datetime | None = None,
    max_body_chars: int | None = None,
    now: datetime | None = None,
) -> TaskView:
    """A view of `task`; `full` adds every field, the graph's answer about it and the body.
    Given `now` (or the answer), a claim shows whether its lease still runs."""
    claim = _claim(task, about, now)
    if fields == "brief":
        view = TaskView.model_validate({name: getattr(task, name) for name in _BRIEF_OWN} | claim)
        _clip_brief(view)
        return view
    body = task.body
    truncated = max_body_chars is not None and len(body) > max_body_chars
    own: dict[str, Any] = {
        **claim,
        "file_modified": file_modified,
        "extra": _extra_of(task, claim),
        "body": body[:max_body_chars] if truncated else body,
        "body_truncated": truncated,
    }
    if about is None:
        own["blocks"] = None  # outside the index: who it blocks is not known, and said so
    answer = _of_answer(about) if about is not None else {}
    return TaskView.model_validate(_of_task(task) | answer | own)
