"""Paging in one place (`tasks_server.listing`): what a cursor is tied to, how ids become the
rows a field holds, and the one declaration of limit and cursor."""

from __future__ import annotations

from dataclasses import replace

import pytest
from mcp import Client
from pydantic import Field

from graph.sections import Sections
from tasks_server.edge.server import TasksServer
from tasks_server.guidance import guide
from tasks_server.listing import MAX_PAGE, Listing, PageArgs, page
from tasks_server.models import Envelope, Input
from tasks_server.registry import discover
from tasks_server.views import TaskBrief
from tests.tasks_server.conftest import call, fail

pytestmark = pytest.mark.anyio


async def test_a_cursor_survives_a_change_of_how_rows_are_shown(client: Client) -> None:
    first = await call(client, "list_tasks", project="wx", limit=2)
    second = await call(
        client, "list_tasks", project="wx", limit=2, fields="full", cursor=first["next_cursor"]
    )
    assert second["tasks"] and "body" in second["tasks"][0]
    assert {t["id"] for t in first["tasks"]}.isdisjoint(t["id"] for t in second["tasks"])


async def test_a_cursor_is_refused_for_another_filter_or_another_tool(client: Client) -> None:
    first = await call(client, "list_tasks", project="wx", limit=2)
    other_filter = await fail(client, "list_tasks", project="pipe", cursor=first["next_cursor"])
    other_tool = await fail(client, "get_ready_tasks", cursor=first["next_cursor"])
    assert other_filter["error"]["code"] == other_tool["error"]["code"] == "INVALID_CURSOR"


def test_every_paged_tool_declares_limit_and_cursor_once_with_one_bound() -> None:
    paged = [spec for spec in discover() if issubclass(spec.input_model, PageArgs)]
    assert len(paged) >= 12
    for spec in paged:
        limit = spec.input_model.model_fields["limit"]
        assert limit.metadata == PageArgs.model_fields["limit"].metadata, spec.name
        cursor = spec.input_model.model_fields["cursor"]
        assert cursor.description == PageArgs.model_fields["cursor"].description, spec.name
    assert {spec.input_model.model_fields["limit"].default for spec in paged} == {25, 50, 100}
    assert any(getattr(m, "le", None) == MAX_PAGE for m in PageArgs.model_fields["limit"].metadata)


class Related(Envelope):
    parent: TaskBrief | None = Field(description="A brief from an id fact.")
    kids: list[TaskBrief] = Field(description="Briefs from ids.")
    kids_total: int = Field(description="All of them.")
    labels: list[str] = Field(description="Not task rows: passed as they are.")
    labels_total: int = Field(description="All of them.")
    next_cursor: str | None = Field(description="The next page.")


class RelatedArgs(PageArgs):
    pass


def related(server: TasksServer) -> tuple[Listing[Related], list[str]]:
    ids = server.context.index.ids()[:3]
    sections = Sections({"kids": ids, "labels": ["x", "y"]}, {"parent": ids[0]})
    return Listing(sections, guide("s", "n", [])), ids


def test_ids_become_briefs_and_other_lists_pass_through_in_one_window(
    server: TasksServer,
) -> None:
    listing, ids = related(server)
    with server.context.live.snapshot():
        first = page(server.context, "t", RelatedArgs(limit=4), listing, Related)
        rest = page(server.context, "t", RelatedArgs(cursor=first.next_cursor), listing, Related)
    assert [brief.id for brief in first.kids] == ids and first.labels == ["x"]
    assert first.parent is not None and first.parent.id == ids[0]
    assert (rest.kids, rest.labels, rest.next_cursor) == ([], ["y"], None)
    assert (first.kids_total, first.labels_total) == (3, 2)


def test_hidden_lists_are_not_paged_but_keep_their_totals(server: TasksServer) -> None:
    listing, _ = related(server)
    hidden = replace(listing, hidden=frozenset({"kids"}))
    with server.context.live.snapshot():
        found = page(server.context, "t", RelatedArgs(limit=1), hidden, Related)
    assert (found.kids, found.kids_total, found.labels) == ([], 3, ["x"])


def test_a_listing_from_a_tool_without_limit_and_cursor_is_refused(server: TasksServer) -> None:
    listing, _ = related(server)
    with pytest.raises(TypeError, match="no limit and cursor"):
        page(server.context, "t", Input(), listing, Related)


def test_the_guidance_asks_for_more_only_while_pages_remain(server: TasksServer) -> None:
    listing, _ = related(server)
    more = replace(listing, more="Call t with cursor=next_cursor")
    with server.context.live.snapshot():
        first = page(server.context, "t", RelatedArgs(limit=4), more, Related)
        last = page(server.context, "t", RelatedArgs(limit=5), more, Related)
    assert first.guidance.next_action == "Call t with cursor=next_cursor"
    assert last.guidance.next_action == "n"
