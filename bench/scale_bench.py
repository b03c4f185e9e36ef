"""Per-call latency in-process, tree beside tree: does a call at 1M cost what it costs at 10k?

    python -m bench.generate --n 10000 --out /tmp/trees/t10k
    python -m bench.generate --n 1000000 --out /tmp/trees/t1m
    python -m bench.scale_bench --root /tmp/trees/t10k --root /tmp/trees/t1m --calls 300

Opens each tree as `serve` does (`open_toolset`, file watcher on; the time to the open
toolset is printed, warm when the tree has a current `.tasks-index/`), all in this one
process, then times `get_task`, `list_tasks` 1,000 brief rows, `get_task_neighborhood` (its
default page) and `update_task` (a priority edit: one durable write) through `Toolset.run`,
the tools' own path without the MCP edge. The trees take turns call by call, so the shared
machine's load weighs on each alike. It prints p50/p99 in ms per tree and each tree's p50
over the first tree's. The ids come from the tree itself (tasks of status `active`), so any
tree works; `update_task` writes to it. Figures only; a call that fails stops the bench.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bench.mcp_bench import percentile
from tasks_server.toolset import Toolset, open_toolset

__all__ = ["main"]

CASES: dict[str, Callable[[str, int], tuple[str, dict[str, Any]]]] = {
    "get_task": lambda task, n: ("get_task", {"task_id": task}),
    "list_tasks 1000": lambda task, n: ("list_tasks", {"limit": 1000}),
    "get_task_neighborhood": lambda task, n: ("get_task_neighborhood", {"task_id": task}),
    "update_task": lambda task, n: ("update_task", {"task_id": task, "priority": n % 5}),
}


def call(toolset: Toolset, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """One call's data; a failed call stops the bench (its figures would mean nothing)."""
    outcome = toolset.run(tool, arguments)
    if outcome.is_error:
        raise SystemExit(f"{tool} {arguments} failed: {outcome.data}")
    return outcome.data


def active_ids(toolset: Toolset) -> list[str]:
    """Up to 1,000 ids of active tasks, the ones the cases pick from."""
    listed = call(toolset, "list_tasks", {"limit": 1000, "status": "active"})
    ids = [row["id"] for row in listed["tasks"]]
    if not ids:
        raise SystemExit("the tree has no active task to pick")
    return ids


def open_timed(root: Path) -> tuple[Toolset, float]:
    started = time.perf_counter()
    toolset = open_toolset(root.resolve())
    return toolset, time.perf_counter() - started


def in_turn(toolsets: list[Toolset], case: str, calls: int) -> list[list[float]]:
    """`calls` samples in ms of one case per toolset, the toolsets taking turns."""
    ids = [active_ids(toolset) for toolset in toolsets]
    samples: list[list[float]] = [[] for _ in toolsets]
    for n in range(calls + 1):
        for toolset, picks, found in zip(toolsets, ids, samples, strict=True):
            tool, arguments = CASES[case](picks[n % len(picks)], n)
            started = time.perf_counter()
            call(toolset, tool, arguments)
            if n:  # the first round warms each tree's caches
                found.append((time.perf_counter() - started) * 1000)
    return samples


def render(labels: list[str], case: str, samples: list[list[float]]) -> list[str]:
    base = statistics.median(samples[0])
    return [
        f"{case:<24}{label:<28}{statistics.median(found):>9.3f}"
        f"{percentile(found, 0.99):>9.3f}{statistics.median(found) / base:>9.2f}"
        for label, found in zip(labels, samples, strict=True)
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.scale_bench", description=__doc__)
    parser.add_argument(
        "--root", type=Path, action="append", required=True, help="a tree (repeat; first is base)"
    )
    parser.add_argument("--calls", type=int, default=300, help="timed calls per case and tree")
    args = parser.parse_args(argv)
    toolsets, labels = [], []
    for root in args.root:
        toolset, seconds = open_timed(root)
        count = len(toolset.context.live.index)
        labels.append(f"{root.name} ({count:,})")
        toolsets.append(toolset)
        print(f"{root}: {count:,} tasks, open in {seconds:.1f} s")
    try:
        print(f"\n{'case':<24}{'tree':<28}{'p50 ms':>9}{'p99 ms':>9}{'x first':>9}")
        for case in CASES:
            print("\n".join(render(labels, case, in_turn(toolsets, case, args.calls))))
    finally:
        for toolset in toolsets:
            toolset.context.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
