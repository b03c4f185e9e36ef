"""`serve --sync` over stdio: agents in separate clones of one bare remote.

    python -m bench.sync_bench --tasks 120 --calls 60 --rounds 3

1. `claim_next` p50 / p99 on one clone, `--calls` calls, without `--sync` and with it (each
   claim is a commit pushed to the remote before the answer), and their ratio.
2. Three clones, two `serve --sync` processes each (six agents), `--tasks` ready tasks:
   every agent loops `claim_next` then `complete_task` until nothing is left; claims per
   second (wall time) and how many calls were run again after losing at the remote.
3. A person's title edit pushed from a fourth clone: the time until every one of the six
   servers answers it (polled; the fetch period is the default 5 s), median of `--rounds`.
Figures only; every task is checked completed once.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

from bench.claim_bench import make_tree
from bench.gitrun import git
from bench.raw_client import RawClient
from bench.timing import run_all


def make_remote(base: Path, count: int) -> tuple[Path, list[str]]:
    """A bare remote `base/remote.git` holding `count` ready tasks (`claim_bench.make_tree`),
    pushed from `base/seed`; the remote and the task ids."""
    remote, seed = base / "remote.git", base / "seed"
    git(base, "init", "-q", "--bare", "-b", "main", str(remote))
    git(base, "clone", "-q", str(remote), str(seed))
    ids = make_tree(seed, count)
    (seed / ".gitignore").write_text(".tasks-index/\n")
    git(seed, "add", ".")
    git(seed, "commit", "-q", "-m", "tree")
    git(seed, "push", "-q", "origin", "HEAD:main")
    return remote, ids


def clone(base: Path, remote: Path, name: str) -> Path:
    git(base, "clone", "-q", str(remote), str(base / name))
    return base / name


def serve(root: Path, sync: bool, interval: float = 5.0) -> RawClient:
    extra = ["--sync", "--sync-interval", str(interval)] if sync else []
    return RawClient(["-m", "tasks_server", "serve", "--root", str(root), *extra])


def claim_next_p50(calls: int, sync: bool) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        remote, _ = make_remote(base, calls)
        client = serve(clone(base, remote, "a"), sync)
        samples = []
        for _ in range(calls):
            started = time.perf_counter()
            result = client.call("claim_next", {"agent": "solo", "lease_seconds": 60})
            samples.append((time.perf_counter() - started) * 1000)
            assert not result.get("isError"), result
        client.close()
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.99) - 1]


def work(client: RawClient, name: str, done: list[str]) -> None:
    while True:
        answer = client.call("claim_next", {"agent": name, "lease_seconds": 600})
        claimed = answer["structuredContent"]["claimed"]
        if claimed is None:
            return
        completed = client.call("complete_task", {"task_id": claimed["id"], "agent": name})
        assert not completed.get("isError"), completed
        done.append(claimed["id"])


def six_agents(base: Path, remote: Path, ids: list[str]) -> tuple[float, list[RawClient]]:
    roots = [clone(base, remote, name) for name in "abc"]
    clients = [serve(root, True) for root in roots for _ in range(2)]
    done: list[list[str]] = [[] for _ in clients]
    threads = [
        threading.Thread(target=work, args=(c, f"agent-{n}", done[n]))
        for n, c in enumerate(clients)
    ]
    elapsed = run_all(threads)
    counted = Counter(t for mine in done for t in mine)
    assert sorted(counted) == ids and set(counted.values()) == {1}, "a task done twice"
    return len(ids) / elapsed, clients


def reach(base: Path, remote: Path, clients: list[RawClient], task_id: str, n: int) -> float:
    """Seconds from a person's push of a new title to every server answering it."""
    person = base / "person"
    if not person.exists():
        clone(base, remote, "person")
    git(person, "pull", "-q", "origin", "main")
    path = person / "work" / "tasks" / f"{task_id}.md"
    title = f"Renamed {n}"
    text = path.read_text()
    path.write_text(text.replace(text.split("title: ", 1)[1].split("\n", 1)[0], title, 1))
    git(person, "commit", "-qam", title)
    git(person, "push", "-q", "origin", "HEAD:main")
    started = time.perf_counter()
    waiting = set(range(len(clients)))
    while waiting:
        for i in list(waiting):
            task = clients[i].call("get_task", {"task_id": task_id})["structuredContent"]["task"]
            if task["title"] == title:
                waiting.discard(i)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=120)
    parser.add_argument("--calls", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    plain = claim_next_p50(args.calls, sync=False)
    synced = claim_next_p50(args.calls, sync=True)
    print(f"claim_next, {args.calls} calls: p50 {plain[0]:.1f} ms (p99 {plain[1]:.1f}) alone,")
    print(f"  {synced[0]:.1f} ms (p99 {synced[1]:.1f}) with --sync: x{synced[0] / plain[0]:.1f}")
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        remote, ids = make_remote(base, args.tasks)
        rate, clients = six_agents(base, remote, ids)
        print(f"6 agents, 3 clones, {args.tasks} tasks: {rate:.1f} claim+complete per second")
        times = [reach(base, remote, clients, ids[0], n) for n in range(args.rounds)]
        print(
            f"a person's push reaches all 6 servers (--sync-interval 5): median "
            f"{statistics.median(times):.2f} s, max {max(times):.2f} s"
        )
        for client in clients:
            client.close()


if __name__ == "__main__":
    main()
