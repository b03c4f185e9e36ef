"""Query tier, `get_structural_signals`: what looks broken, as raw paged lists.

The signal lists are paged as one sequence, in field order (cycles, dangling references by
field, self-references, terminal/open mismatches, duplicate ids, unparseable files): a page
holds at most `limit` signals in all, and `totals` gives every list's whole length.
`get_review_snapshot` carries the first page under its `signals` key.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from graph import signals
from graph.sections import Sections
from graph.signals import DanglingReferences, StructuralSignals
from tasks_server.context import ServerContext
from tasks_server.findings import with_load_problems
from tasks_server.guidance import guide
from tasks_server.listing import Listing, PageArgs
from tasks_server.models import Envelope
from tasks_server.registry import tool

TOTALS = (
    "Each list's length over all pages: parent_cycles, dependency_cycles, dangling_parent, "
    "dangling_depends_on, dangling_soft_depends_on, self_references, "
    "terminal_with_open_children, open_under_terminal_parent, duplicate_ids, unparseable_files."
)


class SignalsPage(StructuralSignals):
    totals: dict[str, int] = Field(description=TOTALS)


def _lists(found: StructuralSignals) -> dict[str, list[Any]]:
    """Every signal list by its name in `totals`, in field order."""
    dangling = found.dangling_references
    return {
        "parent_cycles": found.parent_cycles,
        "dependency_cycles": found.dependency_cycles,
        "dangling_parent": dangling.parent,
        "dangling_depends_on": dangling.depends_on,
        "dangling_soft_depends_on": dangling.soft_depends_on,
        "self_references": found.self_references,
        "terminal_with_open_children": found.terminal_with_open_children,
        "open_under_terminal_parent": found.open_under_terminal_parent,
        "duplicate_ids": found.duplicate_ids,
        "unparseable_files": found.unparseable_files,
    }


def _nest(values: dict[str, Any]) -> dict[str, Any]:
    """The three dangling lists of a page under `dangling_references`, as the result has them."""
    dangling = DanglingReferences(
        parent=values["dangling_parent"],
        depends_on=values["dangling_depends_on"],
        soft_depends_on=values["dangling_soft_depends_on"],
    )
    return {**values, "dangling_references": dangling}


def signals_listing(ctx: ServerContext, found: StructuralSignals) -> Listing[Any]:
    """Every signal (load problems included) as lists paged one after another."""
    lists = _lists(with_load_problems(found, ctx.live.table))
    total = sum(len(items) for items in lists.values())
    more = "Call get_structural_signals with cursor=next_cursor for the rest"
    fix = "Fix what you judge worth fixing with update_task"
    return Listing(
        Sections(lists),
        guide(
            "signals_found" if total else "no_signals",
            fix if total else "Call get_ready_tasks to pick work",
            ["update_task", "get_task", "delete_task", "get_ready_tasks"],
        ),
        more=more,
        shape=_nest,
    )


class GetStructuralSignalsInput(PageArgs):
    pass


class GetStructuralSignalsOutput(Envelope, SignalsPage):
    next_cursor: str | None = Field(
        description="Pass as cursor for the next page of signals; null when done."
    )


@tool("query", read_only=True, idempotent=True)
def get_structural_signals(
    ctx: ServerContext, args: GetStructuralSignalsInput
) -> Listing[GetStructuralSignalsOutput]:
    """Cycles, bad references, duplicate ids and files, status clashes."""
    return signals_listing(ctx, signals.structural_signals(ctx.index))
