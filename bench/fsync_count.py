"""fsyncs per one-task write, counted on a real `serve` process through the SDK client.

    python -m bench.fsync_count --writes 10

The server runs under `strace -f -ttt -e trace=fsync,fdatasync,sync_file_range` (every
thread, wall-clock stamps). The client asks `--writes` one-task writes of each tool in turn
(`create_task`, `update_task`, `complete_task`, `add_note`, `claim_task`, `release_task`,
`delete_task`: the first delete from a folder also makes its trash folders durable, one
fsync each) on a fresh generated tree of 200 tasks (warm cache), noting the wall-clock window from
sending each call to its answer; every sync call is put in the window of the write it fell
in. Calls outside every window (the start, between writes, the exit) are counted apart.
Target (issue 35): exactly 2 per write. A count, so the machine's load does not move it.
Needs strace (`apt-get install -y strace`); without it the report says so.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from bench.generate import generate_tree

__all__ = ["Window", "count_syncs", "report"]

SYNCS = ("fsync", "fdatasync", "sync_file_range")
Window = tuple[str, float, float]  # tool, sent, answered (time.time())


def _writes(ids: list[str], n: int) -> dict[str, Callable[[int], dict[str, Any]]]:
    """Each tool's arguments for its `i`-th write; each writes one task file."""
    return {
        "create_task": lambda i: {"title": f"Fsync bench task {i}", "project": "proj03"},
        "update_task": lambda i: {"task_id": ids[i], "title": f"Retitled by the bench {i}"},
        "complete_task": lambda i: {"task_id": ids[n + i], "force": True},
        "add_note": lambda i: {"task_id": ids[i], "text": f"bench note {i}", "author": "bench"},
        "claim_task": lambda i: {"task_id": ids[2 * n + i], "agent": "bench", "lease_seconds": 600},
        "release_task": lambda i: {"task_id": ids[2 * n + i], "agent": "bench"},
        "delete_task": lambda i: {"task_id": ids[2 * n + i]},
    }


async def _session(params: StdioServerParameters, n: int) -> tuple[list[Window], list[str]]:
    windows: list[Window] = []
    errors: list[str] = []
    async with Client(params, mode="legacy") as client:
        if n == 0:
            await client.call_tool("get_index_stats", {})
            return windows, errors
        listed = await client.call_tool("list_tasks", {"status": "active", "limit": 3 * n})
        ids = [row["id"] for row in (listed.structured_content or {})["tasks"]]
        for tool, arguments in _writes(ids, n).items():
            for i in range(n):
                sent = time.time()
                result = await client.call_tool(tool, arguments(i))
                windows.append((tool, sent, time.time()))
                if result.is_error:
                    errors.append(f"{tool} #{i}: {str(result.content)[:160]}")
    return windows, errors


def count_syncs(log: str, windows: Sequence[Window]) -> tuple[Counter[str], Counter[str]]:
    """Sync calls per tool (by the window each fell in) and outside any window (before the
    first, between writes, after the last)."""
    per_tool: Counter[str] = Counter()
    outside: Counter[str] = Counter()
    first, last = windows[0][1], windows[-1][2]
    for line in log.splitlines():
        parts = line.split(None, 2)
        if len(parts) < 3 or "resumed>" in parts[2] or not parts[2].startswith(SYNCS):
            continue
        stamp = float(parts[1])
        tool = next((w[0] for w in windows if w[1] <= stamp <= w[2]), None)
        if tool is not None:
            per_tool[tool] += 1
        else:
            outside["start" if stamp < first else "exit" if stamp > last else "between"] += 1
    return per_tool, outside


def traced(params: StdioServerParameters, log: Path) -> StdioServerParameters:
    trace = ["-f", "-y", "-ttt", "-qq", "-o", str(log), "-e", "trace=" + ",".join(SYNCS), "--"]
    return params.model_copy(
        update={"command": "strace", "args": [*trace, params.command, *params.args]}
    )


def report(work: Path, n: int, serve_params: Callable[[Path], StdioServerParameters]) -> list[str]:
    """The lines of the fsync report, on a fresh tree under `work`."""
    if shutil.which("strace") is None:
        return ["fsyncs per write: skipped, strace is not installed (apt-get install -y strace)"]
    shutil.rmtree(work, ignore_errors=True)
    root, log = work / "tree", work / "strace.log"
    generate_tree(root, 200, seed=1)
    anyio.run(_session, serve_params(root), 0)  # the warm-start cache
    windows, errors = anyio.run(_session, traced(serve_params(root), log), n)
    per_tool, outside = count_syncs(log.read_text(), windows)
    lines = [f"fsyncs per one-task write (strace, {n} writes per tool; target exactly 2)"]
    for tool in dict.fromkeys(w[0] for w in windows):
        lines.append(f"  {tool:<16}{per_tool[tool] / n:>6.2f} ({per_tool[tool]} for {n})")
    total = sum(per_tool.values())
    lines.append(f"  all writes      {total / len(windows):>6.2f} ({total} for {len(windows)})")
    lines.append(f"  outside the writes: {dict(outside) or 'none'}")
    return lines + [f"  ERROR {line}" for line in errors]


def main(argv: Sequence[str] | None = None) -> int:
    from bench.first_answer import serve_params  # noqa: PLC0415 - one way to start ours

    parser = argparse.ArgumentParser(prog="python -m bench.fsync_count", description=__doc__)
    parser.add_argument("--writes", type=int, default=10, help="writes per tool")
    parser.add_argument("--work", type=Path, default=Path("/tmp/fsync-bench"))
    args = parser.parse_args(argv)
    print("\n".join(report(args.work, args.writes, serve_params)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
