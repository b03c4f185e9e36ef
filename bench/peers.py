"""Backlog.md and Task Master as MCP servers, for the first-answer bench (`--peers`).

Both are installed with npm into a cache folder outside the repository
(`~/.cache/tasks-server-bench/peers`, or `$TASKS_BENCH_PEERS`), never into it:

    npm install --prefix ~/.cache/tasks-server-bench/peers backlog.md@1.52.0 task-master-ai@0.43.1

`prepare` does that when the folder lacks them (or says why it cannot), writes our tree in
each peer's format (`bench.peer_trees`), starts each peer once through the SDK client and
checks that it lists every task before any timing. Each peer is asked its cheapest read
first: Backlog.md `task_list` with `limit: 1` (it reads every task file to answer),
Task Master `get_task` of task 1 (it reads the whole `tasks.json`). Backlog.md is started
as `backlog mcp start` in the board's folder, Task Master as `task-master-ai` (its default
tool set, `core`) with `projectRoot` given on each call.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from bench.peer_trees import peer_tasks, write_backlog, write_taskmaster

__all__ = ["PACKAGES", "Server", "install", "prepare"]

PACKAGES = {"backlog.md": "1.52.0", "task-master-ai": "0.43.1"}
HOME = Path(os.environ.get("TASKS_BENCH_PEERS", Path.home() / ".cache/tasks-server-bench/peers"))
_BACKLOG_ROW = re.compile(r"^\s+(\[\w+\] )?TASK-\d+ - ", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Server:
    """One MCP server to start over stdio, and the first call to ask it (a peer over one
    tree; the first-answer bench describes ours and the no-op server the same way)."""

    label: str
    params: StdioServerParameters
    tool: str
    arguments: dict[str, Any]


def install() -> str | None:
    """Install the peers into `HOME` unless they are there; None when ready, else why not."""
    if all(_installed(name) == version for name, version in PACKAGES.items()):
        return None
    if shutil.which("npm") is None:
        return "npm is not on PATH"
    specs = [f"{name}@{version}" for name, version in PACKAGES.items()]
    command = ["npm", "install", "--prefix", str(HOME), "--no-audit", "--no-fund", *specs]
    HOME.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        return f"npm install failed: {done.stderr.strip().splitlines()[-1:]}"
    return None


def _installed(name: str) -> str | None:
    """The installed version of the npm package `name` in `HOME`, if any."""
    manifest = HOME / "node_modules" / name / "package.json"
    if not manifest.is_file():
        return None
    version: str | None = json.loads(manifest.read_text()).get("version")
    return version


def _bin(name: str) -> str:
    return str(HOME / "node_modules" / ".bin" / name)


def _quiet(command: list[str], cwd: Path) -> StdioServerParameters:
    """`command` with its stderr (its start-up log lines) dropped, through `sh -c 'exec ...'`
    (the shell is replaced by the command: one process, a millisecond more)."""
    shell = ["-c", 'exec "$0" "$@" 2>/dev/null', *command]
    return StdioServerParameters(command="/bin/sh", args=shell, cwd=cwd)


def backlog(board: Path, label: str) -> Server:
    params = _quiet([_bin("backlog"), "mcp", "start"], board)
    return Server(label, params, "task_list", {"limit": 1})


def taskmaster(project: Path, label: str) -> Server:
    params = _quiet([_bin("task-master-ai")], project)
    return Server(label, params, "get_task", {"id": "1", "projectRoot": str(project)})


def _text(result: Any) -> str:
    return "\n".join(part.text for part in result.content if hasattr(part, "text"))


async def _count_backlog(client: Client, root: Path) -> int:
    return len(_BACKLOG_ROW.findall(_text(await client.call_tool("task_list", {}))))


async def _count_taskmaster(client: Client, root: Path) -> int:
    answer = await client.call_tool("get_tasks", {"projectRoot": str(root)})
    total: int = json.loads(_text(answer))["data"]["stats"]["total"]
    return total


Counter = Callable[[Client, Path], Any]


async def _loaded(peer: Server, count: Counter) -> int:
    """How many tasks `peer` lists, asked once through the SDK client."""
    async with Client(peer.params, mode="legacy") as client:
        root = Path(peer.params.cwd or ".")
        found: int = await count(client, root)
        return found


def prepare(source: Path, work: Path, size_label: str) -> tuple[list[Server], list[str]]:
    """Both peers over the tree at `source` (written under `work`), each checked to list
    every task; the peers that passed, and a line for each that did not."""
    tasks = peer_tasks(source)
    board, project = work / "backlog", work / "taskmaster"
    for folder in (board, project):
        shutil.rmtree(folder, ignore_errors=True)
    write_backlog(tasks, board)
    write_taskmaster(tasks, project)
    candidates: list[tuple[Server, Counter]] = [
        (backlog(board, f"Backlog.md {size_label}"), _count_backlog),
        (taskmaster(project, f"Task Master {size_label}"), _count_taskmaster),
    ]
    ready, problems = [], []
    for peer, count in candidates:
        found = anyio.run(_loaded, peer, count)
        if found == len(tasks):
            ready.append(peer)
        else:
            problems.append(f"{peer.label}: lists {found} tasks of {len(tasks)}; not timed")
    return ready, problems
