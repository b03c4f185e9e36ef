"""Claims over stdio: one claim's latency, and six agents draining a tree of ready tasks.

    python -m bench.claim_bench --tasks 1000 --agents 6 --calls 300

1. `claim_task` p50 / p99 over stdio (raw JSON-RPC client, one server): each call claims
   a different ready task, so every call writes a file; then `claim_next` the same way
   (each call finds and claims the next ready, unclaimed task), and their p50 ratio.
2. `--agents` server processes on one tree of `--tasks` ready tasks, each an agent looping
   `get_ready_tasks(unclaimed=true, limit=4)` then `claim_task` on one row chosen at random
   until none is left: tasks claimed per second (wall time, all agents) and the share of
   claim calls answered CONFLICT; then the same agents looping `claim_next` alone until it
   answers `claimed: null`. Figures only; every task is checked claimed once.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from bench.raw_client import RawClient
from bench.timing import run_all
from storage import codec
from storage.model import Task


def make_tree(root: Path, count: int) -> list[str]:
    folder = root / "work" / "tasks"
    folder.mkdir(parents=True)
    ids = [f"r{n:05d}" for n in range(count)]
    for task_id in ids:
        task = Task(id=task_id, title=f"Job {task_id}", path="", status="active", project="work")
        (folder / f"{task_id}.md").write_text(codec.dumps(task) + "Do the job.\n")
    return ids


def serve(root: Path) -> RawClient:
    return RawClient(["-m", "tasks_server", "serve", "--root", str(root)])


def latency(root: Path, ids: list[str], calls: int, tool: str) -> tuple[float, float]:
    """p50 and p99 of `calls` calls of `tool` (claim_task on each id in turn, or claim_next)."""
    client = serve(root)
    samples = []
    for task_id in ids[:calls]:
        args = {"agent": "solo", "lease_seconds": 60}
        if tool == "claim_task":
            args["task_id"] = task_id
        started = time.perf_counter()
        result = client.call(tool, args)
        samples.append((time.perf_counter() - started) * 1000)
        assert not result.get("isError"), result
    client.close()
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.99) - 1]


def agent(client: RawClient, name: str, seed: int, won: list[str], tally: Counter[str]) -> None:
    rng = random.Random(seed)
    while True:
        page = client.call("get_ready_tasks", {"unclaimed": True, "limit": 4})
        rows = page["structuredContent"]["tasks"]
        if not rows:
            return
        task_id = rng.choice(rows)["id"]
        args = {"task_id": task_id, "agent": name, "lease_seconds": 600}
        result = client.call("claim_task", args)
        if result.get("isError"):
            assert "CONFLICT" in result["content"][0]["text"], result
            tally["conflict"] += 1
        else:
            won.append(task_id)
            tally["won"] += 1


def next_agent(
    client: RawClient, name: str, seed: int, won: list[str], tally: Counter[str]
) -> None:
    """Loop claim_next until it answers claimed: null; any error counts as a conflict."""
    while True:
        result = client.call("claim_next", {"agent": name, "lease_seconds": 600})
        if result.get("isError"):
            tally["conflict"] += 1
            continue
        claimed = result["structuredContent"]["claimed"]
        if claimed is None:
            return
        won.append(claimed["id"])
        tally["won"] += 1


def drain(root: Path, ids: list[str], agents: int, loop: Any = agent) -> tuple[float, float]:
    clients = [serve(root) for _ in range(agents)]
    won: list[list[str]] = [[] for _ in range(agents)]
    tallies: list[Counter[str]] = [Counter() for _ in range(agents)]
    threads = [
        threading.Thread(target=loop, args=(clients[n], f"agent-{n}", n, won[n], tallies[n]))
        for n in range(agents)
    ]
    elapsed = run_all(threads)
    for client in clients:
        client.close()
    claimed = Counter(task_id for mine in won for task_id in mine)
    assert sorted(claimed) == ids and set(claimed.values()) == {1}, "a task claimed twice"
    total = sum(tallies, Counter())
    return len(ids) / elapsed, total["conflict"] / (total["conflict"] + total["won"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=1000)
    parser.add_argument("--agents", type=int, default=6)
    parser.add_argument("--calls", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        ids = make_tree(root, max(args.tasks, args.calls))
        p50, p99 = latency(root, ids, args.calls, "claim_task")
        print(f"claim_task over stdio, {args.calls} calls: p50 {p50:.2f} ms, p99 {p99:.2f} ms")
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        ids = make_tree(root, max(args.tasks, args.calls))
        n50, n99 = latency(root, ids, args.calls, "claim_next")
        print(f"claim_next over stdio, {args.calls} calls: p50 {n50:.2f} ms, p99 {n99:.2f} ms")
        print(f"claim_next p50 / claim_task p50: {n50 / p50:.2f}")
    for name, loop in (("get_ready_tasks + claim_task", agent), ("claim_next", next_agent)):
        with tempfile.TemporaryDirectory() as folder:
            root = Path(folder)
            ids = make_tree(root, args.tasks)
            rate, conflicts = drain(root, ids, args.agents, loop)
            print(
                f"{args.agents} agents drain {args.tasks} ready tasks with {name}:"
                f" {rate:.0f} claims/s, CONFLICT on {conflicts:.0%} of claim calls"
            )


if __name__ == "__main__":
    main()
