"""Shared pieces of tool inputs and outputs: the envelope and the paging fields."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Self

from pydantic import BaseModel, ConfigDict, Field

from tasks_server.guidance import Guidance
from tasks_server.paging import Page
from tasks_server.views import FIELDS_DESCRIPTION, Fields, TaskRow

__all__ = ["Envelope", "Input", "PageInfo", "PagedInput", "TaskPage"]


class Input(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PagedInput(Input):
    limit: int = Field(50, ge=1, le=1000, description="Page size.")
    cursor: str | None = Field(None, description="next_cursor from the previous page.")
    fields: Fields = Field("brief", description=FIELDS_DESCRIPTION)
    max_body_chars: int | None = Field(
        2000, ge=0, description="With fields='full': bodies longer than this are cut and flagged."
    )


class Envelope(BaseModel):
    model_config = ConfigDict(extra="forbid")
    success: bool = Field(True, description="True when the call did what it was asked.")
    guidance: Guidance


class PageInfo(Envelope):
    """The paging fields every list result carries; `of` fills them from a page."""

    count: int = Field(description="Items on this page.")
    total: int = Field(description="Items matching, over all pages.")
    next_cursor: str | None = Field(
        description="Pass as cursor for the next page; null at the end."
    )

    @classmethod
    def of(
        cls, tasks: Sequence[object], page: Page[str], guidance: Guidance, **extra: object
    ) -> Self:
        """This page's rows (under `tasks`) with their count, the total and the cursor."""
        fields = {"count": len(tasks), "total": page.total, "next_cursor": page.next_cursor}
        return cls.model_validate({"tasks": tasks, **fields, "guidance": guidance, **extra})


class TaskPage(PageInfo):
    tasks: list[TaskRow] = Field(description="This page of tasks, in a stable order.")
