"""`tasks-server snapshot`: a tree's facts as deterministic JSON, for snapshot tests.

With a fixed clock (`--now` or `$TASKS_NOW`), the same tree gives byte-identical output:
metrics, readiness with reasons, topology and scoring factors (ages and `ready_days` against
the clock), structural signals, and the review's changes, staleness and velocity. Every list
is whole (all pages); cursors, counts of a page and guidance are left out, and nothing
depends on where the tree lives or when its files were written to disk.

Every per-task section is keyed by task id (ids sorted) and every float rounded to 4
places, so an edit changes the lines of the tasks it touched and not the order of the
rest: one priority edit is a handful of lines naming the task, never a reordered list.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tasks_server.toolset import Toolset

__all__ = [
    "CallFailed",
    "by_id",
    "describe_changes",
    "dumps",
    "load",
    "merge_pages",
    "pages",
    "rounded",
    "run_snapshot",
    "tree_facts",
]

REVIEW_DAYS = 7
DIGITS = 4
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


def _row_id(row: dict[str, Any]) -> str:
    return str(row["id"] if "id" in row else row["task"]["id"])


def by_id(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Task rows keyed by id, ids sorted (a row's own `id` key left out).

    >>> by_id([{"id": "b", "p": 1}, {"id": "a", "p": 2}])
    {'a': {'p': 2}, 'b': {'p': 1}}
    """
    keyed = {_row_id(row): {k: v for k, v in row.items() if k != "id"} for row in rows}
    return dict(sorted(keyed.items()))


def rounded(value: Any) -> Any:
    """`value` with every float rounded to `DIGITS` places, at any depth."""
    if isinstance(value, float):
        return round(value, DIGITS)
    if isinstance(value, dict):
        return {key: rounded(item) for key, item in value.items()}
    if isinstance(value, list):
        return [rounded(item) for item in value]
    return value


def _metrics(data: dict[str, Any]) -> dict[str, Any]:
    facts = _facts(data)
    stats = facts["dependency_stats"]
    rows = stats["tasks_with_high_out_degree"]
    return {**facts, "dependency_stats": {**stats, "tasks_with_high_out_degree": by_id(rows)}}


def _stale_ids(staleness: dict[str, Any]) -> dict[str, Any]:
    """The longest waits with each task named by its id (its row is in `topology`)."""
    return {
        key: entry and {**entry, "task": entry["task"]["id"]} for key, entry in staleness.items()
    }


def tree_facts(toolset: Toolset) -> dict[str, Any]:
    """The tree's facts at the toolset's clock, per-task sections keyed by id."""
    metrics = toolset.run("get_graph_metrics", {})
    review = _whole(toolset, "get_review_snapshot", since_days=REVIEW_DAYS)
    changes = review["changes_since"]
    factors = _whole(toolset, "get_task_scoring_factors", ready_only=False, include_done=True)
    facts = {
        "now": toolset.context.clock().isoformat(),
        "metrics": _metrics(metrics.data),
        "ready": by_id(_whole(toolset, "get_ready_tasks")["tasks"]),
        "blocked": by_id(_whole(toolset, "get_blocked_tasks")["tasks"]),
        "topology": by_id(_whole(toolset, "get_tasks_with_topology")["tasks"]),
        "scoring_factors": by_id(factors["tasks"]),
        "signals": _whole(toolset, "get_structural_signals"),
        "review": {
            "since_days": REVIEW_DAYS,
            "changes_since": {
                k: by_id(v) if isinstance(v, list) else v for k, v in changes.items()
            },
            "staleness": _stale_ids(review["staleness"]),
            "velocity": review["velocity"],
        },
    }
    return dict(rounded(facts))


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= 80 else text[:79] + "…"


def describe_changes(old: Any, new: Any, path: str = "") -> list[str]:
    """What differs between two facts, one line per changed value, named by its path (per-task
    sections are keyed by id, so a path names the task): `ready.wx-1.priority: 2 → 3`.

    >>> describe_changes({"ready": {"a": {"p": 2}, "b": {}}}, {"ready": {"a": {"p": 3}}})
    ['ready.a.p: 2 → 3', 'ready.b: gone (was {})']
    """
    if isinstance(old, dict) and isinstance(new, dict):
        lines: list[str] = []
        for key in [*old, *(k for k in new if k not in old)]:
            where = f"{path}.{key}" if path else str(key)
            if key not in new:
                lines.append(f"{where}: gone (was {_shown(old[key])})")
            elif key not in old:
                lines.append(f"{where}: new ({_shown(new[key])})")
            else:
                lines.extend(describe_changes(old[key], new[key], where))
        return lines
    return [] if old == new else [f"{path}: {_shown(old)} → {_shown(new)}"]


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


def run_snapshot(args: argparse.Namespace, toolset: Toolset) -> None:
    """`tasks-server snapshot`: the tree's facts as deterministic JSON on stdout."""
    sys.stdout.write(dumps(tree_facts(toolset)))
