"""Shared pieces of tool inputs and outputs: the envelope, the paging fields, and the
argument types that bound what one call may ask for (so an oversized argument is an
INVALID_ARGUMENT before any work, never an internal error or a stall)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, AwareDatetime, BaseModel, BeforeValidator, ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema, WithJsonSchema

from storage.model import ID_PATTERN
from storage.repository import MAX_FILE_BYTES
from tasks_server.guidance import Guidance
from tasks_server.sizes import MAX_ID_CHARS, MAX_LIST_ITEMS, MAX_SHORT_CHARS, MAX_TITLE_CHARS
from tasks_server.views import TaskRow

__all__ = [
    "MAX_ID_CHARS",
    "MAX_LIST_ITEMS",
    "MAX_SINCE_DAYS",
    "SINCE_TOKEN",
    "AwareMoment",
    "Body",
    "Columns",
    "Count",
    "Envelope",
    "IdArg",
    "Input",
    "Moment",
    "NewIdArg",
    "PageInfo",
    "Part",
    "Priority",
    "RowFormat",
    "ShortText",
    "TaskPage",
    "Title",
    "Token",
    "Unset",
]

MAX_SINCE_DAYS = 36_500.0  # a century: any longer window is every change there is


def _not_blank(text: str) -> str:
    if not text.strip():
        raise ValueError("must not be blank")
    return text.strip()


def _iso_text(value: object) -> object:
    """A date-time argument is ISO 8601 text, as its schema says: a number is refused (the
    model's lax mode would read it as seconds since 1970)."""
    if not isinstance(value, str | datetime):
        raise ValueError("must be an ISO 8601 date-time string")
    return value


Moment = Annotated[datetime, BeforeValidator(_iso_text)]
"""A date-time argument (ISO 8601 text)."""
AwareMoment = Annotated[AwareDatetime, BeforeValidator(_iso_text)]
"""A date-time argument with its UTC offset (ISO 8601 text)."""

IdArg = Annotated[str, Field(min_length=1, max_length=MAX_ID_CHARS)]
"""A task id or project name the call names (matched exactly)."""


class KnownProject:
    """Marks an argument naming a project some task must have: a reading tool given one no
    task has answers INVALID_ARGUMENT before its handler runs (`Toolset.run`), never an
    empty success. The registry finds the mark where the argument is declared."""


ProjectArg = Annotated[IdArg, KnownProject()]
"""A project a reading tool filters by (a writer's project may be new: `NewIdArg`)."""
NewIdArg = Annotated[str, Field(max_length=MAX_ID_CHARS, pattern=ID_PATTERN.pattern)]
"""An id or project name a new file will carry (letters, digits, '.', '_', '-')."""
ShortText = Annotated[str, Field(max_length=MAX_SHORT_CHARS)]
Title = Annotated[str, Field(min_length=1, max_length=MAX_TITLE_CHARS), AfterValidator(_not_blank)]
"""A title: not blank; surrounding spaces are dropped (the reader drops them too)."""
Priority = Annotated[int, Field(ge=0, le=4)]
Count = Annotated[int, Field(ge=0)]
Token = Annotated[str, Field(min_length=1, max_length=100)]
"""A feed token (`tasks_server.tokens`): one state of the live tree."""
SINCE_TOKEN = "The token of an earlier answer (get_changes, wait_for_changes, get_index_stats)."
"""What `since_token` means wherever a tool takes it (said once, in the instructions)."""
Unset = SkipJsonSchema[None]
"""The type of an optional reading argument whose absence means 'not given': `X | Unset =
None` publishes plain X, without a null branch (send the key or leave it out; a null sent
is still read as not given). X carries its own bounds (`Priority`, not `Field(le=4)` on the
union, which pydantic cannot publish)."""
Body = Annotated[str, Field(max_length=MAX_FILE_BYTES)]
"""A markdown body; the file it makes must still fit the file size limit (checked on write)."""


class Input(BaseModel):
    """A tool's arguments. Like every model of a tool (`Envelope`, `Part`), built at its
    first use (pydantic's `defer_build`): a start builds none its first answer does not
    use (docs/performance.md, "Start")."""

    model_config = ConfigDict(extra="forbid", defer_build=True)


class Envelope(BaseModel):
    """A tool's result: whether it did what it was asked, and the guidance."""

    model_config = ConfigDict(extra="forbid", defer_build=True)
    success: bool = Field(True, description="True when the call did what it was asked.")
    guidance: Guidance


class Part(BaseModel):
    """A piece of a tool's result (a row, a group of facts), built at its first use."""

    model_config = ConfigDict(defer_build=True)


class PageInfo(Envelope):
    """The paging fields every list result carries (`tasks_server.listing` fills them)."""

    count: int = Field(description="Items on this page.")
    total: int = Field(description="Items matching, over all pages.")
    next_cursor: str | None = Field(
        description="Pass as cursor for the next page; null at the end."
    )


RowFormat = Literal["objects", "columns"]
"""How a page's rows are written: one object per row, or one list of names and a list of
cells per row (`Columns`)."""

Cells = Annotated[list[Any], WithJsonSchema({"type": "array"})]
"""One row's cells, untyped: a client checking a typed cell per column checks 8x slower."""


Same = Annotated[dict[str, Any], WithJsonSchema({"type": "object"})]
"""Fields with one value on every row of a page, by name."""


def _empty(value: dict[str, Any]) -> bool:
    return not value


class Columns(BaseModel):
    """A page's rows in columns: the field names once, then each row's values in that order;
    null where a row has no value (a field its object would leave out). On a page of two
    rows or more, a field whose value is the same on every row is written once, in `same`,
    and not among `columns`: a row is its cells by `columns`, plus `same`."""

    model_config = ConfigDict(extra="forbid", defer_build=True)
    columns: list[str] = Field(description="Field names, in cell order.")
    rows: list[Cells] = Field(description="One list of cells per row, in row order.")
    same: Same = Field(
        default_factory=dict,
        description="Fields every row has with one value; absent when none.",
        exclude_if=_empty,
    )


class TaskPage(PageInfo):
    tasks: list[TaskRow] | Columns = Field(
        description="This page of tasks, in a stable order (Columns with format 'columns')."
    )
