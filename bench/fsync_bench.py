"""fsyncs of a real `tasks-server serve` process, counted by strace, call by call.

    python -m bench.fsync_bench [--rounds 5]

Starts the server under `strace -f` on a throw-away tree, makes `--rounds` rounds of eight
one-task writes through the SDK's stdio client (create, update, claim, add_note, release,
complete, delete, update), then stops it; prints, per tool, the fsyncs of each call (by the
strace clock against the client's), the total, and the fsyncs outside any call (start and
exit), naming every call that made other than two. Needs `strace` on PATH. Figures only.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

HERE = Path(__file__).resolve().parent.parent
TASK = "---\nid: t{n}\ntitle: Task {n}\nstatus: active\n---\nBody {n}.\n"
TRACED = "trace=fsync,fdatasync,sync_file_range,syncfs,sync,msync"
LINE = re.compile(r"\d+\s+(\d+\.\d+) (\w+)\(\d+<([^>]*)>")


def writes(rounds: int) -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = []
    for n in range(rounds):
        task = {"task_id": f"t{n}"}
        out += [
            ("create_task", {"title": f"New {n}", "project": "p"}),
            ("update_task", {**task, "priority": 2}),
            ("claim_task", {**task, "agent": "a", "lease_seconds": 60}),
            ("add_note", {**task, "text": "seen", "author": "a"}),
            ("release_task", {**task, "agent": "a"}),
            ("complete_task", task),
            ("delete_task", {"task_id": f"t{100 + n}"}),
            ("update_task", {"task_id": f"t{200 + n}", "title": "Renamed"}),
        ]
    return out


async def serve_and_write(
    root: Path, log: Path, calls: list[tuple[str, dict[str, Any]]]
) -> list[float]:
    """The client's clock after its first read and after each write."""
    server = [sys.executable, "-m", "tasks_server", "serve", "--root", str(root)]
    params = StdioServerParameters(
        command="strace",
        args=["-f", "-ttt", "-y", "-e", TRACED, "-o", str(log), *server],
        env={**os.environ, "PYTHONPATH": str(HERE)},
        cwd=str(HERE),
    )
    marks = []
    async with Client(params) as client:
        await client.call_tool("get_task", {"task_id": "t0"})
        marks.append(time.time())
        for name, arguments in calls:
            if (await client.call_tool(name, arguments)).is_error:
                raise AssertionError(f"{name} {arguments} failed")
            marks.append(time.time())
    return marks


def fsyncs(log: Path, root: Path) -> list[tuple[float, str]]:
    found = []
    for line in log.read_text().splitlines():
        if match := LINE.match(line):
            found.append((float(match.group(1)), match.group(3).replace(str(root), "<root>")))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    if shutil.which("strace") is None:
        print("strace is not on PATH: nothing measured")
        return
    calls = writes(options.rounds)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "tree"
        (root / "p").mkdir(parents=True)
        for n in range(300):
            (root / "p" / f"t{n}.md").write_text(TASK.format(n=n))
        log = Path(folder) / "strace.log"
        marks = anyio.run(serve_and_write, root, log, calls)
        events = fsyncs(log, root)
    per: dict[str, list[int]] = defaultdict(list)
    for (name, _), start, end in zip(calls, marks[:-1], marks[1:], strict=True):
        inside = [path for at, path in events if start <= at < end]
        per[name].append(len(inside))
        if len(inside) != 2:
            print(f"  {name}: {len(inside)} fsyncs: {', '.join(inside)}")
    for name, counts in per.items():
        print(f"{name:<16} fsyncs per call {counts}")
    outside = [path for at, path in events if not marks[0] <= at < marks[-1]]
    total = sum(sum(counts) for counts in per.values())
    print(f"{len(calls)} writes: {total} fsyncs in the calls ({total / len(calls):.2f} each)")
    print(f"outside the calls (start, exit): {len(outside)} {outside}")


if __name__ == "__main__":
    main()
