"""The walk of one tool call through our code: how many times it changes module, and how
often it enters the index.

    python -m bench.call_walk [--root DIR] [--task ID] [--show]

Runs `get_task_neighborhood` and `create_task` on a copy of the tree (the bundled example by
default), watched as a server watches it (a call then reads the watcher's changes, not the
folders), through `Toolset.run`, with a profiler noting every call into `storage`, `graph` or
`tasks_server`; a "stop" is a call into another module than the one before it (calls within a
module are one stop). The MCP edge (`edge/server.py`, two stops) is outside this count.
`--show` prints the stops. Figures only.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path
from types import FrameType
from typing import Any

from tasks_server.roots import bundled_root
from tasks_server.toolset import Toolset, open_toolset

OURS = ("storage", "graph", "tasks_server")


def walk(toolset: Toolset, tool: str, arguments: dict[str, Any]) -> list[str]:
    """The modules of ours one call enters, in order, repeats in a row counted once."""
    stops: list[str] = []

    def note(frame: FrameType, event: str, arg: object) -> None:
        module = str(frame.f_globals.get("__name__", ""))
        if event == "call" and module.partition(".")[0] in OURS and stops[-1:] != [module]:
            stops.append(module)

    sys.setprofile(note)
    try:
        outcome = toolset.run(tool, arguments)
    finally:
        sys.setprofile(None)
    if outcome.is_error:
        raise SystemExit(f"{tool} failed: {outcome.data['error']}")
    return stops


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=bundled_root())
    parser.add_argument("--task", default="wx-6ca4a1a9", help="a task id of the tree")
    parser.add_argument("--show", action="store_true", help="print every stop")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "tree"
        shutil.copytree(args.root, root)
        toolset = open_toolset(root, watch=True)
        toolset.run("get_task_neighborhood", {"task_id": args.task})  # warm the caches
        calls = [
            ("get_task_neighborhood", {"task_id": args.task}),
            ("create_task", {"title": "A walked call", "parent": args.task}),
        ]
        for tool, arguments in calls:
            stops = walk(toolset, tool, arguments)
            index = stops.count("graph.index")
            print(f"{tool}: {len(stops)} stops, the index entered {index} times")
            if args.show:
                print("  " + " > ".join(stops))
        toolset.context.close()


if __name__ == "__main__":
    main()
