"""`complete_task` on a body of 40,000 blank lines (39 KB), through an in-process MCP client.

The open-checklist scan once used a multi-line regex with `^\\s*`, quadratic in the blank
lines of a body; this times the call that exposed it, with and without `force`, on a fresh
tree each run. Run it against another checkout by pointing PYTHONPATH there.

Command line: ``python -m bench.checklist_bench [--lines 40000] [--runs 3]``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from mcp import Client

from tasks_server.edge.server import create_server

__all__ = ["main", "time_completion"]


async def _one_run(root: Path, body: str, force: bool) -> float:
    """Seconds of one `complete_task` on a new task whose body is `body`."""
    server = create_server(root, watch=False)
    try:
        async with Client(server) as client:
            made = await client.call_tool("create_task", {"title": "Long", "body": body})
            task_id = (made.structured_content or {})["task"]["id"]
            start = time.perf_counter()
            await client.call_tool("complete_task", {"task_id": task_id, "force": force})
            return time.perf_counter() - start
    finally:
        server.context.close()


def time_completion(lines: int, runs: int, *, force: bool, open_item: bool) -> float:
    """Median seconds of `complete_task` on `lines` blank lines (then an open item, if asked)."""
    body = "\n" * lines + ("- [ ] last step\n" if open_item else "")
    seconds = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as folder:
            seconds.append(asyncio.run(_one_run(Path(folder), body, force)))
    return statistics.median(seconds)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=40_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    for force, open_item in [(False, False), (True, False), (False, True)]:
        seconds = time_completion(args.lines, args.runs, force=force, open_item=open_item)
        print(
            f"complete_task lines={args.lines} force={force} open_item={open_item}: "
            f"median {seconds * 1000:.1f} ms over {args.runs} runs"
        )


if __name__ == "__main__":
    main()
