"""What the toolset does for a tool is declared with the tool, never read from argument
names: a project argument is checked when declared `ProjectArg` (a reading tool with an
undeclared one is refused where it is registered), a paged output's totals each count a
list of the model (checked at registration), and a list no output field holds is an error,
never dropped."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import Field

from graph.sections import Sections
from tasks_server.context import ServerContext
from tasks_server.guidance import guide
from tasks_server.listing import Listing, PageArgs, page
from tasks_server.models import Envelope, IdArg, ProjectArg, Unset
from tasks_server.registry import project_arg, tool
from tasks_server.toolset import open_toolset
from tests.conftest import write


class Declared(PageArgs):
    project: ProjectArg | Unset = Field(None, description="Only this project.")


class Undeclared(PageArgs):
    project: IdArg | Unset = Field(None, description="Only this project.")


class Named(PageArgs):
    where: ProjectArg = Field(description="A project.")


def test_the_project_argument_is_the_one_declared_whatever_its_name() -> None:
    assert project_arg(Declared, read_only=True) == "project"
    assert project_arg(Named, read_only=True) == "where"
    assert project_arg(Undeclared, read_only=False) is None  # a writer may name a new one


def test_a_reading_tool_with_an_undeclared_project_is_refused_at_registration() -> None:
    with pytest.raises(TypeError, match=r"Undeclared\.project is not declared ProjectArg"):
        project_arg(Undeclared, read_only=True)


class Counted(Envelope):
    items: list[str] = Field(description="Items.")
    items_total: int = Field(description="All items.")
    ghosts_total: int = Field(description="Counts no list.")
    next_cursor: str | None = Field(description="Next page.")


def test_a_paged_output_whose_total_counts_no_list_is_refused_at_registration() -> None:
    def counted(ctx: ServerContext, args: Declared) -> Listing[Counted]:
        raise AssertionError("never called")

    with pytest.raises(TypeError, match=r"Counted\.ghosts_total counts no list"):
        tool("query", read_only=True)(counted)


class Shown(Envelope):
    items: list[str] = Field(description="Items.")
    items_total: int = Field(description="All items.")
    next_cursor: str | None = Field(description="Next page.")


def test_a_list_no_output_field_holds_is_an_error_not_dropped(tmp_path: Path) -> None:
    write(tmp_path, "a.md", "---\nid: a\ntitle: A\n---\n")
    toolset = open_toolset(tmp_path, watch=False)
    sections = Sections({"items": ["x"], "strays": ["y"]})
    listing: Listing[Shown] = Listing(sections, guide("shown", "Read it", []))
    with pytest.raises(TypeError, match=r"no field of Shown holds \['strays'\]"):
        page(toolset.context, "shown_tool", Declared(), listing, Shown)
    toolset.context.close()


class Counting(Envelope):
    count: int = Field(description="How many.")


def test_a_new_tool_is_named_in_guidance_by_its_descriptions_first_sentence() -> None:
    from tasks_server import registry  # noqa: PLC0415 - its table of declared tools
    from tasks_server.guidance import ACTION_HELP  # noqa: PLC0415

    def count_things_for_this_test(ctx: ServerContext, args: Declared) -> Counting:
        """Count the things of a project. Nothing else."""
        raise AssertionError("never called")

    try:
        tool("query", read_only=True)(count_things_for_this_test)
        step = guide("s", "Call it", ["count_things_for_this_test"]).available_actions[0]
        assert step.purpose == "count the things of a project"
    finally:
        registry._DECLARED.pop("count_things_for_this_test", None)
        ACTION_HELP.pop("count_things_for_this_test", None)
