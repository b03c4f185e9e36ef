"""Where a loaded server's memory goes: resident memory over an empty server, and its parts.

    python -m bench.memory_bench --sizes 100000
    python -m bench.memory_bench --root /tmp/trees/t1m     # a tree generated beforehand

Each size runs in a fresh interpreter (`--one`): it opens a server's state on an empty tree
(the baseline: interpreter, imports, an empty index), then on the tree, as `serve` does
(`ServerContext.open`, warm cache made first, file watcher on), and prints

- resident memory (VmRSS) of the empty server, after the load, and the difference per task;
- the deep size (`sys.getsizeof` over everything reachable, each object counted once, in
  the order listed: a string shared by two parts counts in the first) of each part: the
  task records, the file table, the edges of each field, the records of derived facts,
  the tally, the kept orders; and, within the task records, each field.

Figures only, no assertions. A deep size counts Python objects, not the allocator's free
lists or the interpreter's own tables, so the parts add up to less than the difference.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from bench.generate import generate_tree

__all__ = ["deep_size", "main"]

_OURS = ("graph", "storage", "tasks_server", "networkx")


def rss_mb() -> float:
    """Resident memory of this process now, in MB (Linux)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _inside(value: object) -> Iterator[object]:
    """The objects `value` holds that a deep size follows."""
    if isinstance(value, dict):
        yield from value.keys()
        yield from value.values()
    elif isinstance(value, (list, tuple, set, frozenset)):
        yield from value
    elif type(value).__name__ == "mappingproxy":
        yield from dict(value).items()  # type: ignore[call-overload]
    elif not isinstance(value, type):
        for cls in type(value).__mro__:
            for name in getattr(cls, "__slots__", ()):
                if hasattr(value, name):
                    yield getattr(value, name)
        if type(value).__module__.split(".")[0] in _OURS and hasattr(value, "__dict__"):
            yield value.__dict__


def deep_size(root: object, seen: set[int]) -> int:
    """Bytes of `root` and everything it reaches that is not in `seen` (which it extends)."""
    total, stack = 0, [root]
    while stack:
        value = stack.pop()
        if id(value) in seen or value is None:
            continue
        seen.add(id(value))
        total += sys.getsizeof(value)
        stack.extend(_inside(value))
    return total


def field_sizes(tasks: Iterable[object], fields: Sequence[str], seen: set[int]) -> dict[str, int]:
    """Deep bytes of each field over `tasks` (the record objects under "(record)")."""
    tasks = list(tasks)
    sizes = {"(record)": sum(sys.getsizeof(t) for t in tasks)}
    seen.update(id(t) for t in tasks)
    for name in fields:
        sizes[name] = sum(deep_size(getattr(t, name), seen) for t in tasks)
    return sizes


def measure(root: Path) -> list[str]:
    """The report for one tree, in this process (imports here: the baseline counts them)."""
    from tasks_server.context import ServerContext  # noqa: PLC0415

    with tempfile.TemporaryDirectory() as empty:
        ctx = ServerContext.open(Path(empty), watch=True)
        base = rss_mb()
        ctx = ServerContext.open(root.resolve(), watch=True)
    loaded, live = rss_mb(), ctx.live
    store, index, count = live.index._store, live.index, len(live.index)
    lines = [
        f"{count:,} tasks: empty server {base:.0f} MB, loaded {loaded:.0f} MB, "
        f"{(loaded - base) / count * 1024:.2f} KB per task over empty"
    ]
    seen: set[int] = set()
    tasks = list(store.tasks.values())
    fields = field_sizes(tasks, type(tasks[0]).__slots__, seen) if tasks else {}
    parts = {
        "task records": sum(fields.values()),
        "file table": deep_size((live.table.files, live.table._paths_by_id), seen),
        "graph parent": deep_size(store.referrers["parent"], seen),
        "graph depends_on": deep_size(store.dependencies, seen),
        "graph soft_depends_on": deep_size(store.referrers["soft_depends_on"], seen),
        "missing, projects, cycles": deep_size(
            (store.missing, store.by_project, store.dep_cycle, store.parent_cycle), seen
        ),
        "derived records": deep_size(index._records, seen),
        "tally": deep_size(index._tally, seen),
        "kept orders": deep_size((index.orders, index._sorted), seen),
    }
    lines += _table("part", parts, count)
    lines += _table("task record field", fields, count)
    return lines


def _table(title: str, sizes: dict[str, int], count: int) -> list[str]:
    rows = sorted(sizes.items(), key=lambda item: -item[1])
    head = f"  {title:<28}{'MB':>9}{'B/task':>9}"
    return [head] + [f"  {name:<28}{size / 1e6:>9.1f}{size / count:>9.0f}" for name, size in rows]


def run_one(root: Path) -> None:
    """Measure `root` in a fresh interpreter, its warm-start cache made by another one
    first, and print the report."""
    warm = "import pathlib, tasks_server.live as t; t.LiveTree(pathlib.Path(%r)).close()"
    subprocess.run([sys.executable, "-c", warm % str(root.resolve())], check=True)
    command = [sys.executable, "-m", "bench.memory_bench", "--one", str(root)]
    print(subprocess.run(command, check=True, capture_output=True, text=True).stdout, end="")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.memory_bench", description=__doc__)
    parser.add_argument("--sizes", default="", help="generate trees of these sizes (comma list)")
    parser.add_argument("--root", type=Path, action="append", default=[], help="a tree to load")
    parser.add_argument("--one", type=Path, help=argparse.SUPPRESS)  # the child's own run
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.one is not None:
        print("\n".join(measure(args.one)))
        return 0
    for root in args.root:
        run_one(root)
    for size in (int(part) for part in args.sizes.split(",") if part.strip()):
        with tempfile.TemporaryDirectory() as folder:
            generate_tree(Path(folder) / "tree", size, seed=args.seed)
            run_one(Path(folder) / "tree")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
