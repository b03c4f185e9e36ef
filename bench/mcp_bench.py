"""Tool latency over a real stdio MCP session, against the protocol floor.

    python -m bench.mcp_bench --n 10000 --calls 300 [--against DIR] [--formats-only]
    python -m bench.mcp_bench --root /tmp/trees/t1m --calls 100   # a tree made beforehand

Generates a synthetic tree, starts `python -m tasks_server serve` on it and two floors: a
null server (tools that do nothing, or return 1,000 plain rows as text) and a replay server
(our own `list_tasks` answer of 1,000 rows, typed as we publish it, made once and sent again
on every call: what the SDK, the pipe and the client cost with no work of ours). It prints
p50/p99 per tool:
- through the SDK's Python client, which validates every result against the tool's
  outputSchema (as agents' clients do); mutations run on the same tree; the neighbourhood
  at its default page (25 tasks) and at 50; `list_tasks` with 1,000 brief rows; and the
  whole tree paged by 1,000 rows, end to end;
- through a raw JSON-RPC client (no validation): the server's own cost, beside the floor;
- `list_tasks` 1,000 brief rows as objects and with `format: "columns"`, through the SDK
  client (p50, calls interleaved) and the bytes of each answer on the pipe (of them, the
  backslashes escaping the JSON text copy); the first 1,000 tasks, then 1,000 of one status.
`--formats-only` runs only the objects-versus-columns case. `--against DIR` also runs every
case with the server started from another checkout (e.g. the main branch), in the same run,
so the two compare under the same machine load. `--root DIR` runs on a tree made beforehand
by `python -m bench.generate` instead of generating one (the tasks the cases touch are picked
from the tree, but `create_task` writes into its project `proj03`); the mutations and the
warm-start cache are written into that tree.
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
from bench.raw_client import RawClient


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


async def replay_floor(root: Path, calls: int) -> tuple[float, float]:
    """`list_tasks` 1,000 through the SDK client, answered with our answer made once."""
    async with Client(stdio(["-m", "bench.replay_server", str(root)])) as client:
        await client.call_tool("list_tasks", {"limit": 1000})
        return await timed(calls, lambda n: client.call_tool("list_tasks", {"limit": 1000}))


def serve(root: Path) -> list[str]:
    return ["-m", "tasks_server", "serve", "--root", str(root)]


async def page_whole_tree(client: Client) -> int:
    """Every task, by pages of 1,000 brief rows; how many came back."""
    cursor, seen = None, 0
    while True:
        arguments: dict[str, Any] = {"limit": 1000, **({"cursor": cursor} if cursor else {})}
        page = (await client.call_tool("list_tasks", arguments)).structured_content or {}
        seen += len(page["tasks"])
        cursor = page["next_cursor"]
        if cursor is None:
            return seen


async def measure(root: Path, calls: int, cwd: Path | None) -> dict[str, tuple[float, float]]:
    results: dict[str, tuple[float, float]] = {}
    started = time.perf_counter()
    params = StdioServerParameters(command=sys.executable, args=serve(root), cwd=cwd)
    async with Client(params) as client:
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
            "list_tasks 1000": lambda n: client.call_tool("list_tasks", {"limit": 1000}),
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
        results["whole tree by 1000"] = await timed(
            max(3, calls // 30), lambda n: page_whole_tree(client)
        )
    return results


def timed_sync(calls: int, run: Callable[[], Any]) -> tuple[float, float]:
    samples = []
    for _ in range(calls):
        started = time.perf_counter()
        run()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples), percentile(samples, 0.99)


def raw_case(args: list[str], cwd: Path | None, tool: str, calls: int) -> tuple[float, float]:
    client = RawClient(args, cwd=cwd)
    arguments: dict[str, Any] = {"limit": 1000}
    if tool == "get_task":
        first = client.call("list_tasks", {"limit": 1})
        arguments = {"task_id": first["structuredContent"]["tasks"][0]["id"]}
    elif tool == "noop":
        arguments = {}
    client.call(tool, arguments)
    found = timed_sync(calls, lambda: client.call(tool, arguments))
    client.close()
    return found


def raw(root: Path, calls: int, cwd: Path | None) -> dict[str, tuple[float, float]]:
    """The server's own cost, through a client that validates nothing."""
    null = ["-m", "bench.null_server"]
    replay = ["-m", "bench.replay_server", str(root)]
    return {
        "(floor) noop": raw_case(null, None, "noop", calls),
        "(floor) 1000 plain rows": raw_case(null, None, "rows", calls),
        "(floor) our answer replayed": raw_case(replay, None, "list_tasks", calls),
        "get_task": raw_case(serve(root), cwd, "get_task", calls),
        "list_tasks 1000": raw_case(serve(root), cwd, "list_tasks", calls),
    }


async def sdk_formats(
    root: Path, calls: int, cwd: Path | None, page: dict[str, Any]
) -> dict[str, float]:
    """p50 ms of `list_tasks` 1,000 (with `page`'s filters) as objects and in columns, through
    the SDK client; the two formats alternate call by call, so both see the same load."""
    params = StdioServerParameters(command=sys.executable, args=serve(root), cwd=cwd)
    samples: dict[str, list[float]] = {fmt: [] for fmt in FORMATS}
    async with Client(params) as client:
        for n in range(calls + 1):
            for fmt, extra in FORMATS.items():
                started = time.perf_counter()
                await client.call_tool("list_tasks", {"limit": 1000, **page, **extra})
                if n:  # the first round warms both up
                    samples[fmt].append((time.perf_counter() - started) * 1000)
    return {fmt: statistics.median(found) for fmt, found in samples.items()}


def wire_bytes(root: Path, cwd: Path | None, page: dict[str, Any]) -> dict[str, tuple[int, int]]:
    """Bytes of the `list_tasks` 1,000 answer (with `page`'s filters) on the pipe, per
    format: each whole JSON-RPC message, as the server wrote it; and how many of them are
    the backslashes escaping quotes (and backslashes) in the JSON text copy."""
    client = RawClient(serve(root), cwd=cwd)
    found = {}
    for fmt, extra in FORMATS.items():
        text = client.call("list_tasks", {"limit": 1000, **page, **extra})["content"][0]["text"]
        found[fmt] = (client.last_bytes, text.count('"') + text.count("\\"))
    client.close()
    return found


FORMATS: dict[str, dict[str, Any]] = {"objects": {}, "columns": {"format": "columns"}}
PAGES: dict[str, dict[str, Any]] = {"list_tasks 1000": {}, "status=active": {"status": "active"}}
"""The pages compared: the first 1,000 tasks, and 1,000 of one status (in columns, a field
with one value on every row of a page is written once)."""


def formats_table(root: Path, calls: int, cwd: Path | None) -> None:
    for name, page in PAGES.items():
        times = anyio.run(sdk_formats, root, calls, cwd, page)
        sizes = wire_bytes(root, cwd, page)
        print(f"\n{name + ' (SDK client)':<28}{'p50 ms':>9}{'bytes':>11}{'escapes':>9}")
        for fmt in FORMATS:
            print(f"{fmt:<28}{times[fmt]:>9.2f}{sizes[fmt][0]:>11,}{sizes[fmt][1]:>9,}")
        time_ratio = times["columns"] / times["objects"]
        size_ratio = sizes["columns"][0] / sizes["objects"][0]
        print(f"columns / objects: {time_ratio:.2f}x time, {size_ratio:.2f}x bytes")


FLOORS = {
    "(floor) 1000 plain rows": "plain-rows floor",
    "(floor) our answer replayed": "same answer replayed",
}


def table(title: str, rows: dict[str, tuple[float, float]], base: float) -> None:
    print(f"\n{title}\n{'case':<28}{'p50 ms':>9}{'p99 ms':>9}{'p50/floor':>11}")
    for name, (p50, p99) in rows.items():
        print(f"{name:<28}{p50:>9.2f}{p99:>9.2f}{p50 / base:>11.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--against", type=Path, default=None, help="another checkout to compare")
    parser.add_argument("--formats-only", action="store_true", help="only objects vs columns")
    parser.add_argument(
        "--root",
        type=Path,
        default=None,
        help="a tree made by `python -m bench.generate` to run on instead of generating --n"
        " tasks (its project proj03 must exist; the bench writes to the tree)",
    )
    args = parser.parse_args()
    servers: dict[str, Path | None] = {"this checkout": None}
    if args.against is not None:
        servers[f"server from {args.against}"] = args.against.resolve()
    if args.root is not None:
        run_all(args.root.resolve(), args.calls, servers, args.formats_only)
        return
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "tree"
        generate_tree(root, args.n, seed=1)
        run_all(root, args.calls, servers, args.formats_only)


def run_all(root: Path, calls: int, servers: dict[str, Path | None], formats_only: bool) -> None:
    """Every case on the tree at `root`, against each server."""
    if formats_only:
        for label, cwd in servers.items():
            print(f"\nrows as objects and in columns, {label}")
            formats_table(root, calls, cwd)
        return
    # Raw cases first, on the untouched tree: the SDK cases write to it, and their
    # servers save a warm-start cache as they exit, which would share the CPU.
    for label, cwd in servers.items():
        found = raw(root, calls, cwd)
        table(f"raw client, {label}", found, found["(floor) noop"][0])
        ours = found["list_tasks 1000"][0]
        for floor_name, words in FLOORS.items():
            print(f"list_tasks 1000 / {words}: {ours / found[floor_name][0]:.2f}x")
    base = anyio.run(floor, calls)
    print(f"\nnull server floor (SDK client): p50 {base[0]:.2f} ms, p99 {base[1]:.2f} ms")
    replayed = anyio.run(replay_floor, root, calls)
    print(
        f"list_tasks 1000 answer made once, replayed (SDK client): p50 {replayed[0]:.2f} ms,"
        f" p99 {replayed[1]:.2f} ms"
    )
    for label, cwd in servers.items():
        print(f"\nrows as objects and in columns, {label}")
        formats_table(root, calls, cwd)
    for label, cwd in servers.items():
        table(f"SDK client, {label}", anyio.run(measure, root, calls, cwd), base[0])


if __name__ == "__main__":
    main()
