"""What one write costs: fsyncs per tool, and `complete_task` beside `update_task` (p50, ms)
in-process (`Toolset.run`, as every call runs) and over a real stdio MCP session (the SDK's
Python client). Works on a throw-away tree of `--tasks` tasks; each completion is of a task
not done yet (a completion of a done task writes nothing). Figures only; no assertions.

Command line: ``python -m bench.write_bench [--calls 200] [--tasks 2000]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tasks_server.toolset import Toolset, open_toolset

__all__ = ["main"]

TASK = "---\nid: t{n}\ntitle: Task {n}\nstatus: active\n{extra}---\nBody {n}.\n"
Call = Callable[[int], tuple[str, dict[str, Any]]]
CASES: dict[str, Call] = {
    "update_task": lambda n: ("update_task", {"task_id": f"t{n}", "priority": n % 5}),
    "complete_task": lambda n: ("complete_task", {"task_id": f"t{n}"}),
    "complete_tasks of one": lambda n: ("complete_tasks", {"task_ids": [f"t{n}"]}),
}
ONE_OFF: dict[str, tuple[str, dict[str, Any]]] = {
    "create_task": ("create_task", {"title": "New", "project": "p"}),
    "complete_tasks of two": ("complete_tasks", {"task_ids": ["t1", "t2"]}),
    "decompose_task (2 children)": (
        "decompose_task",
        {"task_id": "t3", "children": [{"title": "a"}, {"title": "b"}]},
    ),
    "reorder_children (2 move)": ("reorder_children", {"parent_id": "t0", "order": ["t4"]}),
    "claim_task": ("claim_task", {"task_id": "t6", "agent": "a", "lease_seconds": 60}),
    "add_note": ("add_note", {"task_id": "t7", "text": "seen", "author": "a"}),
    "delete_task": ("delete_task", {"task_id": "t8"}),
}


def make_tree(root: Path, tasks: int) -> None:
    (root / "p").mkdir(parents=True)
    for n in range(tasks):
        extra = f"parent: t0\norder: {n}\n" if n in (4, 5) else ""
        (root / "p" / f"t{n}.md").write_text(TASK.format(n=n, extra=extra))


def fsyncs(toolset: Toolset, name: str, arguments: dict[str, Any]) -> int:
    """How many fsyncs one call makes (os.fsync wrapped for the call)."""
    real, count = os.fsync, [0]

    def counted(fd: int) -> None:
        count[0] += 1
        real(fd)

    os.fsync = counted
    try:
        outcome = toolset.run(name, arguments)
    finally:
        os.fsync = real
    assert not outcome.is_error, outcome.data
    return count[0]


def in_process(root: Path, calls: int) -> dict[str, float]:
    """p50 ms per case, the cases alternated call by call (drift hits all alike)."""
    toolset = open_toolset(root)
    laps: dict[str, list[float]] = {case: [] for case in CASES}
    first = 100  # tasks below this are the one-off cases' and the fsync counts'
    for n in range(calls):
        for k, (case, make) in enumerate(CASES.items()):
            name, arguments = make(first + n * len(CASES) + k)
            started = time.perf_counter()
            outcome = toolset.run(name, arguments)
            laps[case].append((time.perf_counter() - started) * 1000)
            assert not outcome.is_error, outcome.data
    toolset.context.close()
    return {case: statistics.median(found) for case, found in laps.items()}


def fsync_table(root: Path) -> dict[str, int]:
    toolset = open_toolset(root)
    counts = {case: fsyncs(toolset, *make(50 + k)) for k, (case, make) in enumerate(CASES.items())}
    counts |= {case: fsyncs(toolset, *call) for case, call in ONE_OFF.items()}
    toolset.context.close()
    return counts


async def over_stdio(root: Path, calls: int, offset: int) -> dict[str, float]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "tasks_server", "serve", "--root", str(root)]
    )
    laps: dict[str, list[float]] = {case: [] for case in CASES}
    async with Client(params) as client:
        await client.call_tool("get_task", {"task_id": "t0"})
        for n in range(calls):
            for k, (case, make) in enumerate(CASES.items()):
                name, arguments = make(offset + n * len(CASES) + k)
                started = time.perf_counter()
                result: Awaitable[Any] = client.call_tool(name, arguments)
                if (await result).is_error:
                    raise AssertionError(f"{name} {arguments} failed")
                laps[case].append((time.perf_counter() - started) * 1000)
    return {case: statistics.median(found) for case, found in laps.items()}


def show(title: str, p50: dict[str, float]) -> None:
    base = p50["update_task"]
    print(f"\n{title}\n{'case':<24}{'p50 ms':>9}{'/ update_task':>15}")
    for case, value in p50.items():
        print(f"{case:<24}{value:>9.2f}{value / base:>15.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--tasks", type=int, default=2000)
    args = parser.parse_args()
    tasks = max(args.tasks, 100 + 2 * args.calls * len(CASES))
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "tree"
        make_tree(root, tasks)
        counts = fsync_table(root)
        print(f"fsyncs per call ({tasks} tasks):")
        for case, count in counts.items():
            print(f"  {case:<28}{count:>3}")
        show("in-process (Toolset.run)", in_process(root, args.calls))
        offset = 100 + args.calls * len(CASES)
        show("over stdio (SDK client)", anyio.run(over_stdio, root, args.calls, offset))


if __name__ == "__main__":
    main()
