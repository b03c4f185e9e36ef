"""`tasks-server snapshot`: a tree's facts as deterministic JSON, for snapshot tests.

With a fixed clock (`--now` or `$TASKS_NOW`), the same tree gives byte-identical output:
metrics, readiness with reasons, topology and scoring factors (ages and `ready_days` against
the clock), structural signals, and the review's changes, staleness and velocity. Every list
is whole (all pages); cursors, counts of a page and guidance are left out, and nothing
depends on where the tree lives or when its files were written to disk.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tasks_server.toolset import Toolset

__all__ = ["CallFailed", "dumps", "load", "merge_pages", "pages", "tree_facts"]

REVIEW_DAYS = 7
PAGE = 1000
_NOT_FACTS = frozenset({"success", "guidance", "count", "total", "next_cursor"})


class CallFailed(Exception):
    """A tool call that returned an error; the message is the error's."""


def merge(first: Any, second: Any) -> Any:
    """Two pages as one: lists concatenated, dicts merged key by key, other values first's."""
    if isinstance(first, list) and isinstance(second, list):
        return first + second
    if isinstance(first, dict) and isinstance(second, dict):
        return {key: merge(value, second.get(key)) for key, value in first.items()}
    return first


def merge_pages(pages: list[dict[str, Any]]) -> dict[str, Any]:
    """Every page of a paged result as one result (its `next_cursor` None)."""
    merged = pages[0]
    for page in pages[1:]:
        merged = merge(merged, page)
    return {**merged, "next_cursor": None} if "next_cursor" in merged else merged


def pages(toolset: Toolset, tool: str, arguments: dict[str, Any]) -> list[dict[str, Any]]:
    """Every page of a tool's result (CallFailed on an error)."""
    found: list[dict[str, Any]] = []
    cursor = None
    while not found or cursor:
        outcome = toolset.run(tool, {**arguments, "limit": PAGE, "cursor": cursor})
        if outcome.is_error:
            raise CallFailed(outcome.data["error"]["message"])
        found.append(outcome.data)
        cursor = outcome.data.get("next_cursor")
    return found


def _facts(data: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in data.items() if key not in _NOT_FACTS}


def _whole(toolset: Toolset, tool: str, **arguments: Any) -> dict[str, Any]:
    return _facts(merge_pages(pages(toolset, tool, arguments)))


def tree_facts(toolset: Toolset) -> dict[str, Any]:
    """The tree's facts at the toolset's clock."""
    metrics = toolset.run("get_graph_metrics", {})
    review = _whole(toolset, "get_review_snapshot", since_days=REVIEW_DAYS)
    return {
        "now": toolset.context.clock().isoformat(),
        "metrics": _facts(metrics.data),
        "ready": _whole(toolset, "get_ready_tasks")["tasks"],
        "blocked": _whole(toolset, "get_blocked_tasks")["tasks"],
        "topology": _whole(toolset, "get_tasks_with_topology")["tasks"],
        "scoring_factors": _whole(
            toolset, "get_task_scoring_factors", ready_only=False, include_done=True
        )["tasks"],
        "signals": _whole(toolset, "get_structural_signals"),
        "review": {
            "since_days": REVIEW_DAYS,
            **{key: review[key] for key in ("changes_since", "staleness", "velocity")},
        },
    }


def dumps(facts: dict[str, Any]) -> str:
    """The facts as the JSON text `snapshot` prints (stable: keys in model order)."""
    return json.dumps(facts, indent=2, ensure_ascii=False) + "\n"


def load(root: Path, now: datetime, *, bots: Path | None = None) -> dict[str, Any]:
    """The facts of the tree at `root` with the clock fixed at `now` (no watcher thread)."""
    # Here, not at the top: the pytest plugin imports this module in every pytest session of
    # every project that installs us, and the tool runtime loads only if the fixture is used.
    from tasks_server.toolset import open_toolset  # noqa: PLC0415

    toolset = open_toolset(root, bots=bots, watch=False)
    toolset.context.set_clock(now)
    try:
        return tree_facts(toolset)
    finally:
        toolset.context.close()
