"""Whole-process time of human commands beside the floor (importing the MCP SDK's server
package with the same interpreter), alternated run by run; optionally another checkout too.

    python -m bench.cli_bench [--against DIR] [--runs 9]

Runs `python -c "import mcp.server"` (the floor: issue 35 asks `ready` on the bundled tree
for at most 0.5x of it), then `python -m tasks_server --help`, `ready`, `check`, `show` and
`tree` on a copy of the bundled tree (its warm-start cache made by one run first) from
each checkout in turn (the working directory decides which code runs), and prints each
median wall and CPU time with its ratio to the floor's, the fastest run, and the load
average. Figures only.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
FLOOR = "import mcp.server"
SHOWN_TASK = "grant-5e571eaa"  # a task of the bundled tree
_UNSET = {"PYTHONPATH", "PYTHONDONTWRITEBYTECODE"}  # the checkout's own code, compiled once


def once(checkout: Path, args: list[str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system) of one run: the CPU time is what
    a loaded machine changes least."""
    env = {k: v for k, v in os.environ.items() if k not in _UNSET}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    command = [sys.executable, *(args if args[0] == "-c" else ["-m", "tasks_server", *args])]
    subprocess.run(command, cwd=checkout, capture_output=True, env=env, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def commands(root: Path) -> dict[str, list[str]]:
    tree = ["--root", str(root)]
    return {
        "floor: import mcp.server": ["-c", FLOOR],
        "--help": ["--help"],
        "ready": ["ready", *tree],
        "check": ["check", *tree],
        "show": ["show", SHOWN_TASK, *tree],
        "tree": ["tree", *tree],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", type=Path, default=None)
    parser.add_argument("--runs", type=int, default=9)
    options = parser.parse_args()
    checkouts = {"this checkout": HERE}
    if options.against is not None:
        checkouts[str(options.against)] = options.against.resolve()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "tree"
        shutil.copytree(HERE / "data", root, ignore=shutil.ignore_patterns(".tasks-index"))
        runs = commands(root)
        for checkout in checkouts.values():  # compile and make the warm-start cache first
            for args in runs.values():
                once(checkout, args)
        samples: dict[tuple[str, str], list[tuple[float, float]]] = {}
        load = [os.getloadavg()[0]]
        for _ in range(options.runs):
            for label, checkout in checkouts.items():
                for name, args in runs.items():
                    samples.setdefault((label, name), []).append(once(checkout, args))
            load.append(os.getloadavg()[0])
    floor = samples["this checkout", "floor: import mcp.server"]
    floor_wall = statistics.median(wall for wall, _ in floor)
    floor_cpu = statistics.median(cpu for _, cpu in floor)
    for (label, name), found in samples.items():
        wall = statistics.median(w for w, _ in found)
        cpu = statistics.median(c for _, c in found)
        print(
            f"{label:<16}{name:<26} median {wall:.3f} s ({wall / floor_wall:.2f}x the floor), "
            f"CPU {cpu:.3f} s ({cpu / floor_cpu:.2f}x); fastest {min(w for w, _ in found):.3f} s"
        )
    print(f"load average (1 min) during the runs: {min(load):.2f}-{max(load):.2f}")


if __name__ == "__main__":
    main()
