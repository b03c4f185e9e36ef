"""Per-call latency in-process, tree beside tree: does a call at 1M cost what it costs at 10k?

    python -m bench.generate --n 10000 --out /tmp/trees/t10k
    python -m bench.generate --n 1000000 --out /tmp/trees/t1m
    python -m bench.scale_bench --root /tmp/trees/t10k --root /tmp/trees/t1m --calls 300

Opens each tree as `serve` does (`open_toolset`, file watcher on; the time to the open
toolset is printed, warm when the tree has a current `.tasks-index/`), all in this one
process, then times `get_task`, `list_tasks` 1,000 brief rows, `get_task_neighborhood` (its
default page) and `update_task` (a priority edit: one durable write) through `Toolset.run`,
the tools' own path without the MCP edge; with `--stdio`, through the SDK's client, each tree
served by its own `tasks-server serve` process (the time to the first answer is printed). The
trees take turns call by call, so the shared machine's load weighs on each alike. It prints
p50/p99 in ms per tree and each tree's p50 over the first tree's, and in-process how many
full collections the cyclic GC made during each case and the longest. The ids come from the tree
itself (tasks of status `active`), so any tree works; `update_task` writes to it. Figures
only; a call that fails stops the bench.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from bench.mcp_bench import percentile
from tasks_server.toolset import Toolset, open_toolset

__all__ = ["main"]

CASES: dict[str, Callable[[str, int], tuple[str, dict[str, Any]]]] = {
    "get_task": lambda task, n: ("get_task", {"task_id": task}),
    "list_tasks 1000": lambda task, n: ("list_tasks", {"limit": 1000}),
    "get_task_neighborhood": lambda task, n: ("get_task_neighborhood", {"task_id": task}),
    "update_task": lambda task, n: ("update_task", {"task_id": task, "priority": n % 5}),
}


Caller = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]
"""One call's structured answer, in-process or over stdio; a failed call stops the bench."""


def in_process(toolset: Toolset) -> Caller:
    async def call(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        outcome = toolset.run(tool, arguments)
        if outcome.is_error:
            raise SystemExit(f"{tool} {arguments} failed: {outcome.data}")
        return outcome.data

    return call


def over_stdio(client: Client) -> Caller:
    async def call(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = await client.call_tool(tool, arguments)
        if result.is_error or result.structured_content is None:
            raise SystemExit(f"{tool} {arguments} failed: {result.content}")
        found: dict[str, Any] = result.structured_content
        return found

    return call


async def active_ids(call: Caller) -> list[str]:
    """Up to 1,000 ids of active tasks, the ones the cases pick from."""
    listed = await call("list_tasks", {"limit": 1000, "status": "active"})
    ids = [row["id"] for row in listed["tasks"]]
    if not ids:
        raise SystemExit("the tree has no active task to pick")
    return ids


async def in_turn(callers: list[Caller], case: str, calls: int) -> list[list[float]]:
    """`calls` samples in ms of one case per tree, the trees taking turns."""
    ids = [await active_ids(call) for call in callers]
    samples: list[list[float]] = [[] for _ in callers]
    for n in range(calls + 1):
        for call, picks, found in zip(callers, ids, samples, strict=True):
            tool, arguments = CASES[case](picks[n % len(picks)], n)
            started = time.perf_counter()
            await call(tool, arguments)
            if n:  # the first round warms each tree's caches
                found.append((time.perf_counter() - started) * 1000)
    return samples


async def open_callers(roots: list[Path], stdio: bool, stack: AsyncExitStack) -> list[Caller]:
    """A caller per tree, opened one after another (the time to each printed)."""
    callers = []
    for root in roots:
        started = time.perf_counter()
        if stdio:
            args = ["-m", "tasks_server", "serve", "--root", str(root.resolve())]
            params = StdioServerParameters(command=sys.executable, args=args)
            caller = over_stdio(await stack.enter_async_context(Client(params)))
            count = (await caller("get_graph_metrics", {}))["total_tasks"]
        else:
            toolset = open_toolset(root.resolve())
            stack.callback(toolset.context.close)
            caller, count = in_process(toolset), len(toolset.context.live.index)
        print(f"{root}: {count:,} tasks, first answer in {time.perf_counter() - started:.1f} s")
        callers.append(caller)
    return callers


async def run(roots: list[Path], calls: int, stdio: bool) -> None:
    labels = [root.name for root in roots]
    async with AsyncExitStack() as stack:
        callers = await open_callers(roots, stdio, stack)
        print(f"\n{'case':<24}{'tree':<28}{'p50 ms':>9}{'p99 ms':>9}{'x first':>9}")
        for case in CASES:
            with FullCollections() as collections:
                samples = await in_turn(callers, case, calls)
            print("\n".join(render(labels, case, samples)))
            if not stdio:  # the servers' own collections are out of sight over stdio
                print(f"{'':<24}{collections}")


class FullCollections:
    """The cyclic GC's full collections in this process while open: how many, the longest.
    A tree's objects are frozen after its load, so these scan what calls made since."""

    def __init__(self) -> None:
        self.pauses: list[float] = []
        self._started = 0.0

    def __enter__(self) -> FullCollections:
        gc.callbacks.append(self._note)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self._note)

    def _note(self, phase: str, info: dict[str, int]) -> None:
        if info["generation"] != 2:
            return
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.pauses.append((time.perf_counter() - self._started) * 1000)

    def __str__(self) -> str:
        longest = max(self.pauses, default=0.0)
        return f"full GC collections: {len(self.pauses)}, longest {longest:.1f} ms"


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
    parser.add_argument("--stdio", action="store_true", help="through the SDK client over stdio")
    args = parser.parse_args(argv)
    anyio.run(run, args.root, args.calls, args.stdio)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
