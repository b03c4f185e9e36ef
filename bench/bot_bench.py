"""Latency of a bot tool call: the handler alone, an in-memory MCP client, and a stdio session.

Works on a throw-away copy of the bundled tree (`data/`, with `bots/story_bot` in our layout
and `bots/triage_bot` in the other layout: base_actions/, guardrails/content/rules folders), so no
state file lands in the repository. Prints p50/p99 in milliseconds; asserts nothing.

    continue   <bot>_tool at the first behavior's second step (reads the state, writes nothing)
    jump+close that step's own tool then <bot>_close_current_action, the pair and per call
               (each writes the state file: atomic, fsynced, under the lock)

The server watches its tree as `serve` does (inotify), so a call does not stat-walk it.

The handler lines are per bot; the client and stdio lines use story_bot.

Command line: ``python -m bench.bot_bench [--calls 500] [--no-stdio]``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tasks_server.bots.models import ActionInput, CloseInput, ProjectInput
from tasks_server.edge.server import TasksServer, create_server

__all__ = ["main"]

REPO = Path(__file__).resolve().parent.parent
BOT = "story_bot"
BOTS = ["story_bot", "triage_bot"]


def _report(label: str, seconds: list[float]) -> None:
    ms = sorted(s * 1000 for s in seconds)
    p99 = ms[min(len(ms) - 1, round(len(ms) * 0.99))]
    print(f"{label:<42} p50 {statistics.median(ms):7.3f} ms   p99 {p99:7.3f} ms   n={len(ms)}")


def _timed(run: Callable[[], object], calls: int) -> list[float]:
    times = []
    for _ in range(calls):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return times


async def _timed_async(run: Callable[[], Awaitable[object]], calls: int) -> list[float]:
    times = []
    for _ in range(calls):
        started = time.perf_counter()
        await run()
        times.append(time.perf_counter() - started)
    return times


def bench_direct(server: TasksServer, bot: str, calls: int) -> None:
    """The registry handlers, called as the server calls them (no MCP in between)."""
    context = server.context
    specs = {spec.name: spec for spec in context.bot_specs(only=bot)}
    step = context.bots.bot(bot).loaded.behaviors[0].steps[1].tool
    context.clock = lambda: datetime.now(UTC)
    specs[f"{bot}_tool"].handler(context, ProjectInput())  # initialize_project: the project task
    specs[f"{bot}_close_current_action"].handler(context, CloseInput())  # on to the next step
    _report(
        f"handler {bot}: continue",
        _timed(lambda: specs[f"{bot}_tool"].handler(context, ProjectInput()), calls),
    )

    def jump_and_close() -> None:
        specs[step].handler(context, ActionInput())
        specs[f"{bot}_close_current_action"].handler(context, CloseInput())

    pairs = _timed(jump_and_close, calls)
    _report(f"handler {bot}: jump+close (pair)", pairs)
    _report(f"handler {bot}: jump+close (per call)", [t / 2 for t in pairs])


async def bench_client(client: Client, label: str, calls: int) -> None:
    await client.call_tool(f"{BOT}_shape_gather_context", {})  # the first step is complete
    continued = await _timed_async(lambda: client.call_tool(f"{BOT}_tool", {}), calls)
    _report(f"{label}: continue", continued)

    async def jump_and_close() -> None:
        await client.call_tool(f"{BOT}_shape_gather_context", {})
        await client.call_tool(f"{BOT}_close_current_action", {})

    pairs = await _timed_async(jump_and_close, calls)
    _report(f"{label}: jump+close (pair)", pairs)
    _report(f"{label}: jump+close (per call)", [t / 2 for t in pairs])


async def bench_stdio(root: Path, calls: int) -> None:
    args = ["-m", "tasks_server", "serve", "--root", str(root), "--role", "bot"]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    params = StdioServerParameters(command=sys.executable, args=args, env=env, cwd=str(REPO))
    async with Client(params) as client:
        await bench_client(client, "stdio", calls)


async def run(root: Path, calls: int, stdio: bool) -> None:
    server = create_server(root, bot=BOT)  # the client sees story_bot_server
    try:
        for bot in BOTS:
            bench_direct(server, bot, calls)
        async with Client(server) as client:
            await bench_client(client, "in-memory client", calls)
    finally:
        server.context.close()
    if stdio:
        await bench_stdio(root, calls)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--no-stdio", action="store_true", help="skip the stdio session")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bot-bench-") as folder:
        root = Path(folder) / "tree"
        shutil.copytree(REPO / "data", root)
        anyio.run(run, root, args.calls, not args.no_stdio)
    return 0


if __name__ == "__main__":
    sys.exit(main())
