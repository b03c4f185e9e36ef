"""The change feed: what one look since a token costs, and how soon a waiter hears of a save.

    python -m bench.feed_bench --size 100000 --changed 5 --runs 20

A seeded tree (`bench.generate`) is served by a watching toolset (in-process, `Toolset.run`,
planner role). Printed:

- `get_changes(since_token)` after `--changed` files were saved by hand (a priority edit):
  the answer's bytes (compact JSON, as the client receives it) and its median time over
  `--runs` calls (the first call, which also reads the saved files, apart);
- `wait_for_changes` woken by an editor's save: from the save's return to the waiter's
  answer, median and worst of `--runs` saves (each wait starts from the previous answer's
  token; the save comes after the waiter has been waiting a moment);
- `wait_for_changes` on an unchanged tree with a 1 s timeout: the time it took.

Figures only, no assertions.
"""

from __future__ import annotations

import argparse
import re
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from bench.generate import generate_tree
from bench.timing import median_ms
from tasks_server.toolset import Toolset, open_toolset

__all__ = ["main"]

PRIORITY = re.compile(r"^priority: (\d)$", re.MULTILINE)


def save_by_hand(path: Path) -> None:
    """An editor's save: the priority moved by one, the file rewritten in place."""
    text = path.read_text()
    found = PRIORITY.search(text)
    old = int(found.group(1)) if found else 2
    new = (old + 1) % 5
    path.write_text(PRIORITY.sub(f"priority: {new}", text, count=1) if found else text + "\n")


def run(toolset: Toolset, tool: str, **arguments: Any) -> tuple[dict[str, Any], int]:
    outcome = toolset.run(tool, arguments)
    assert not outcome.is_error, outcome.data
    return outcome.data, len(outcome.text or b"")


def token_now(toolset: Toolset) -> str:
    token: str = run(toolset, "get_index_stats")[0]["token"]
    return token


def look(toolset: Toolset, files: list[Path], runs: int) -> None:
    token = token_now(toolset)
    for path in files:
        save_by_hand(path)
    started = time.perf_counter()
    answer, size = run(toolset, "get_changes", since_token=token)
    first = (time.perf_counter() - started) * 1000
    again = median_ms(lambda: run(toolset, "get_changes", since_token=token), runs)
    print(
        f"get_changes(since_token), {len(files)} tasks saved by hand: {size:,} bytes, "
        f"{answer['summary']['changed']} changed; first call {first:.1f} ms, "
        f"then median {again:.2f} ms"
    )


def waited(toolset: Toolset, path: Path, token: str) -> tuple[float, str]:
    """Seconds from a save's return to the waiter's answer, and the answer's token."""
    found: dict[str, Any] = {}
    woke = threading.Event()

    def wait() -> None:
        found.update(run(toolset, "wait_for_changes", since_token=token, timeout_seconds=60)[0])
        found["at"] = time.perf_counter()
        woke.set()

    thread = threading.Thread(target=wait)
    thread.start()
    time.sleep(0.2)  # the waiter is waiting (a bench, not a test: it may sleep)
    save_by_hand(path)
    saved = time.perf_counter()
    woke.wait()
    thread.join()
    assert found["changed"], found
    return found["at"] - saved, found["token"]


def waiting(toolset: Toolset, path: Path, runs: int) -> None:
    token = token_now(toolset)
    delays = []
    for _ in range(runs):
        delay, token = waited(toolset, path, token)
        delays.append(delay * 1000)
    print(
        f"wait_for_changes woken by an editor's save ({runs} saves): median "
        f"{statistics.median(delays):.1f} ms, worst {max(delays):.1f} ms"
    )
    started = time.perf_counter()
    answer, _ = run(toolset, "wait_for_changes", since_token=token, timeout_seconds=1)
    took = time.perf_counter() - started
    print(f"wait_for_changes on an unchanged tree, timeout 1 s: {took:.3f} s, {answer['summary']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--changed", type=int, default=5)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "tree"
        generate_tree(root, args.size)
        started = time.perf_counter()
        toolset = open_toolset(root, role="planner")
        print(f"{args.size:,} tasks served in {time.perf_counter() - started:.1f} s "
              f"({toolset.context.live.mode} watch)")  # fmt: skip
        files = sorted(root.rglob("*.md"))
        step = max(1, len(files) // args.changed)
        look(toolset, files[::step][: args.changed], args.runs)
        waiting(toolset, files[len(files) // 2], args.runs)
        toolset.context.close()


if __name__ == "__main__":
    main()
