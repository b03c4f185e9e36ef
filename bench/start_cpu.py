"""The CPU of each step of a `serve` start, and the cyclic GC's share of it.

    python -m bench.start_cpu --root DIR [--runs 5] [--tool get_task --args '{"task_id": "..."}']

Each run is a fresh interpreter that builds the server the way `serve` builds it and times
each step with `time.process_time` (CPU: other jobs on a shared machine move it far less
than wall time), the collector's pauses with `gc.callbacks`: the SDK's import (what the
no-op server pays too), our imports (the edge and the CLI), the tree (cache, walk, index,
the inotify watch, the bots), the tools (`schema_cache.declared_tools`: a tool's module is
imported at its first call, the first start excepted), the listing (tool schemas and the
instructions: `TasksServer`) and the first call (`list_tasks` limit 1
unless told). `--pause` pauses the collector as `serve` does. Prints the median of each
step over `--runs`, and the load average. Compile first (`python -m compileall -q storage
graph tasks_server`) where `PYTHONDONTWRITEBYTECODE` is set: else every run compiles our
modules. Figures only.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["main"]

HERE = Path(__file__).resolve().parent.parent


class Steps:
    """CPU and GC milliseconds of each step, in order."""

    def __init__(self) -> None:
        self.rows: dict[str, tuple[float, float]] = {}
        self._gc = 0.0
        self._began = 0.0
        self._last = (time.process_time(), 0.0)
        gc.callbacks.append(self._collected)

    def _collected(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._began = time.process_time()
        else:
            self._gc += time.process_time() - self._began

    def lap(self, name: str) -> None:
        now = (time.process_time(), self._gc)
        cpu, collected = (b - a for a, b in zip(self._last, now, strict=True))
        self.rows[name] = (round(cpu * 1000, 1), round(collected * 1000, 1))
        self._last = now


def one_start(root: Path, tool: str, arguments: dict[str, Any]) -> dict[str, tuple[float, float]]:
    """The steps of one start in this process (run it in a fresh one)."""
    steps = Steps()
    import mcp.server  # noqa: F401, PLC0415 - the step timed

    steps.lap("the SDK's import (the no-op's too)")
    import tasks_server.cli  # noqa: F401, PLC0415
    from tasks_server.context import ServerContext  # noqa: PLC0415
    from tasks_server.edge import commands  # noqa: F401, PLC0415
    from tasks_server.edge.schema_cache import declared_tools  # noqa: PLC0415
    from tasks_server.edge.server import TasksServer  # noqa: PLC0415
    from tasks_server.roles import tool_filter  # noqa: PLC0415
    from tasks_server.toolset import Toolset  # noqa: PLC0415

    steps.lap("our imports")
    context = ServerContext.open(root)
    steps.lap("the tree (cache, walk, index, watch, bots)")
    specs = [*declared_tools(), *context.bot_specs()]
    steps.lap("the tools (modules at first call)")
    server = TasksServer("tasks-server", Toolset(specs, context, tool_filter(None, [])))
    steps.lap("the listing: schemas, instructions")
    outcome = server.toolset.run(tool, arguments)
    steps.lap(f"the first {tool}{' (an error)' if outcome.is_error else ''}")
    server.close()
    return steps.rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.start_cpu", description=__doc__)
    parser.add_argument("--root", type=Path, required=True, help="a tree (bench.generate)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--tool", default="list_tasks")
    parser.add_argument("--args", default='{"limit": 1}', help="the first call's arguments")
    parser.add_argument("--pause", action="store_true", help="no cyclic GC, as serve starts")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        if args.pause:
            gc.disable()
        print(json.dumps(one_start(args.root, args.tool, json.loads(args.args))))
        return 0
    command = [sys.executable, "-m", "bench.start_cpu", "--one", *(argv or sys.argv[1:])]
    env = {**os.environ, "PYTHONPATH": str(HERE)}
    runs = [
        json.loads(subprocess.run(command, env=env, check=True, capture_output=True).stdout)
        for _ in range(args.runs)
    ]
    print(f"CPU ms of each step of a serve start, median of {args.runs} (GC: the collector's)")
    for name in runs[0]:
        cpu, collected = (statistics.median(run[name][i] for run in runs) for i in (0, 1))
        print(f"  {name:<44} {cpu:8.1f}   GC {collected:6.1f}")
    ours = statistics.median(sum(row[0] for row in list(run.values())[1:]) for run in runs)
    print(f"  {'ours, past the SDK import':<44} {ours:8.1f}")
    print(f"load average {' '.join(Path('/proc/loadavg').read_text().split()[:3])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
