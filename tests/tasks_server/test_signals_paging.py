"""Structural signals through a real MCP client: every signal list is paged as one sequence
with one limit and cursor, `totals` counts each list, and the review snapshot carries the
first page."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tasks_server.findings import Problem, exit_status
from tasks_server.human.snapshot import merge_pages
from tests.conftest import write
from tests.tasks_server.conftest import call, make_server

pytestmark = pytest.mark.anyio


def broken_tree(root: Path) -> None:
    """6 dangling dependencies, 2 self-references (one a parent, so also a parent cycle), 1
    done parent with 3 open children (so 3 open tasks under a done parent), and one file
    that does not parse: 14 signals."""
    files = {f"d{i}": f"depends_on: [gone-{i}]" for i in range(6)}
    files |= {"s0": "parent: s0", "s1": "soft_depends_on: [s1]"}
    files |= {"done": "status: done"} | {f"k{i}": "parent: done" for i in range(3)}
    for task_id, extra in files.items():
        status = "" if "status" in extra else "status: active\n"
        write(
            root, f"{task_id}.md", f"---\nid: {task_id}\ntitle: T {task_id}\n{status}{extra}\n---\n"
        )
    write(root, "broken.md", "---\nid: [unclosed\n---\n")


@pytest.fixture
async def broken(tmp_path: Path) -> AsyncIterator[Client]:
    broken_tree(tmp_path)
    server = make_server(tmp_path)
    async with Client(server) as client:
        yield client
    server.context.close()


def signals_of(page: dict[str, Any]) -> list[str]:
    """Every signal on a page, as text, in field order."""
    found = [str(page[key]) for key in ("parent_cycles", "dependency_cycles") if page[key]]
    for field, entries in page["dangling_references"].items():
        found += [f"{field}: {entry}" for entry in entries]
    for key in ("self_references", "terminal_with_open_children", "open_under_terminal_parent"):
        found += [str(entry) for entry in page[key]]
    return found + [str(e) for e in page["duplicate_ids"] + page["unparseable_files"]]


async def test_paging_signals_returns_each_once_with_every_total(broken: Client) -> None:
    whole = await call(broken, "get_structural_signals", limit=1000)
    assert whole["next_cursor"] is None
    assert whole["totals"] == {
        "parent_cycles": 1,
        "dependency_cycles": 0,
        "dangling_parent": 0,
        "dangling_depends_on": 6,
        "dangling_soft_depends_on": 0,
        "self_references": 2,
        "terminal_with_open_children": 1,
        "open_under_terminal_parent": 3,
        "duplicate_ids": 0,
        "unparseable_files": 1,
    }
    pages = [await call(broken, "get_structural_signals", limit=4)]
    while pages[-1]["next_cursor"]:
        cursor = pages[-1]["next_cursor"]
        pages.append(await call(broken, "get_structural_signals", limit=4, cursor=cursor))
    assert [len(signals_of(page)) for page in pages] == [4, 4, 4, 2]
    assert [s for page in pages for s in signals_of(page)] == signals_of(whole)
    assert all(page["totals"] == whole["totals"] for page in pages)


async def test_the_review_snapshot_carries_the_first_page_of_signals(broken: Client) -> None:
    review = await call(broken, "get_review_snapshot", since_days=1, limit=4)
    first = await call(broken, "get_structural_signals", limit=4)
    assert signals_of(review["signals"]) == signals_of(first)
    assert sum(review["signals"]["totals"].values()) == 14


def test_check_reads_every_page_of_signals_as_one_result() -> None:
    first = {
        "parent_cycles": [["a", "b"]],
        "dangling_references": {"parent": [], "depends_on": [{"task_id": "x", "missing_id": "y"}]},
        "totals": {"parent_cycles": 2, "dangling_depends_on": 1},
        "next_cursor": "x",
    }
    second: dict[str, Any] = {
        "parent_cycles": [["c", "d"]],
        "dangling_references": {"parent": [], "depends_on": []},
        "totals": {"parent_cycles": 2, "dangling_depends_on": 1},
        "next_cursor": None,
    }
    merged = merge_pages([first, second])
    assert merged["parent_cycles"] == [["a", "b"], ["c", "d"]]
    assert merged["dangling_references"]["depends_on"] == [{"task_id": "x", "missing_id": "y"}]
    assert merged["next_cursor"] is None and merged["totals"] == first["totals"]


def test_check_fails_on_errors_but_not_on_warnings() -> None:
    def problem(kind: str) -> Problem:
        return Problem(kind, "a.md", None, "", ("a.md",))

    warnings = [problem("terminal_with_open_children"), problem("open_under_terminal_parent")]
    assert exit_status(warnings) == 0  # not an error of the tree
    assert exit_status([*warnings, problem("dependency_cycle")]) == 1
