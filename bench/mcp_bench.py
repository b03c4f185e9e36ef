"""Tool latency over a real stdio MCP session, against the protocol floor.

    python -m bench.mcp_bench --n 10000 --calls 300

Generates a synthetic tree, starts `python -m tasks_server serve` on it and a null server
(one tool that does nothing), and prints p50/p99 per tool. Mutations run on the same tree.
The neighbourhood is timed at its default page (25 tasks) and at 50 ("... 50").
Figures only; no assertions.
"""

from __future__ import annotations

import argparse
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

from bench.generate import generate_tree


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def timed(calls: int, run: Callable[[int], Awaitable[Any]]) -> tuple[float, float]:
    samples = []
    for n in range(calls):
        started = time.perf_counter()
        await run(n)
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples), percentile(samples, 0.99)


def stdio(args: list[str]) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=args)


async def floor(calls: int) -> tuple[float, float]:
    async with Client(stdio(["-m", "bench.null_server"])) as client:
        await client.call_tool("noop", {})
        return await timed(calls, lambda n: client.call_tool("noop", {"task_id": "x"}))


async def measure(root: Path, calls: int) -> dict[str, tuple[float, float]]:
    results: dict[str, tuple[float, float]] = {}
    started = time.perf_counter()
    async with Client(stdio(["-m", "tasks_server", "serve", "--root", str(root)])) as client:
        listed = await client.call_tool("list_tasks", {"limit": 1000, "status": "active"})
        print(f"server ready in {time.perf_counter() - started:.2f} s", file=sys.stderr)
        ids = [t["id"] for t in (listed.structured_content or {})["tasks"]]
        project = "proj03"

        def pick(n: int) -> str:
            return ids[n % len(ids)]

        cases: dict[str, Callable[[int], Awaitable[Any]]] = {
            "get_task": lambda n: client.call_tool("get_task", {"task_id": pick(n)}),
            "get_graph_metrics": lambda n: client.call_tool("get_graph_metrics", {}),
            "get_task_neighborhood": lambda n: client.call_tool(
                "get_task_neighborhood", {"task_id": pick(n)}
            ),
            "get_task_neighborhood 50": lambda n: client.call_tool(
                "get_task_neighborhood", {"task_id": pick(n), "limit": 50}
            ),
            "get_ready_tasks": lambda n: client.call_tool("get_ready_tasks", {"limit": 50}),
            "create_task": lambda n: client.call_tool(
                "create_task", {"title": f"Bench task {n}", "project": project}
            ),
            "update_task": lambda n: client.call_tool(
                "update_task", {"task_id": pick(n), "priority": n % 5}
            ),
            "complete_task": lambda n: client.call_tool(
                "complete_task", {"task_id": pick(n + calls), "force": True}
            ),
        }
        for name, run in cases.items():
            results[name] = await timed(calls, run)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--calls", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "tree"
        generate_tree(root, args.n, seed=1)
        base = anyio.run(floor, args.calls)
        print(f"{'tool':<24}{'p50 ms':>9}{'p99 ms':>9}{'p50/floor':>11}")
        print(f"{'(null server floor)':<24}{base[0]:>9.2f}{base[1]:>9.2f}{1:>11.2f}")
        for name, (p50, p99) in anyio.run(measure, root, args.calls).items():
            print(f"{name:<24}{p50:>9.2f}{p99:>9.2f}{p50 / base[0]:>11.2f}")


if __name__ == "__main__":
    main()
