"""What each call pays to be fresh (read-your-writes), against a full stat walk.

    python -m bench.fresh_bench --sizes 10000 --runs 300 --walk-runs 40

Every tool call passes once through `LiveTree.refresh()`, which applies whatever changed on
disk before it started. For each size, on a seeded tree (`bench.generate`), the p50 and p99
in ms of that refresh:

- kernel, no change: the tree's inotify queue drained (non-blocking), nothing in it;
- kernel, one edit: one task file rewritten just before (untimed), then the refresh that
  re-reads that file and updates the index;
- walk, no change / one edit: the same with `watch=False`, where each refresh stats every
  file of the tree (what a call would pay without the kernel's queue);

and, once per start, the time to open the queue (a watch on every folder, before the load)
and the number of folders watched. Figures only, no assertions.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from bench.generate import generate_tree
from storage.watch import TreeWatch
from tasks_server.live import LiveTree

__all__ = ["main"]

STATUSES = ("active", "waiting")  # different lengths: the walk sees each edit by its size


def percentiles_ms(samples: Sequence[float]) -> tuple[float, float]:
    cuts = statistics.quantiles(samples, n=100, method="inclusive")
    return cuts[49] * 1000, cuts[98] * 1000


def timed(action: Callable[[], object], before: Callable[[int], None], runs: int) -> list[float]:
    samples = []
    for run in range(runs):
        before(run)
        started = time.perf_counter()
        action()
        samples.append(time.perf_counter() - started)
    return samples


def editor(tree: LiveTree) -> Callable[[int], None]:
    """Before each run, rewrite one task file's status (a different file each time)."""
    paths = sorted(tree.table.files)[:50]

    def edit(run: int) -> None:
        path = tree.root / paths[run % len(paths)]
        old, new = STATUSES if (run // len(paths)) % 2 == 0 else STATUSES[::-1]
        path.write_text(path.read_text().replace(f"status: {old}", f"status: {new}", 1))

    return edit


def nothing(run: int) -> None:
    return None


def measure(root: Path, runs: int, walk_runs: int) -> dict[str, tuple[float, float]]:
    figures = {}
    for mode, watch in (("kernel", True), ("walk", False)):
        runs = runs if watch else walk_runs
        tree = LiveTree(root, watch=watch, use_cache=False)
        assert tree.mode == mode, tree.mode
        tree.refresh()
        try:
            figures[f"{mode}, no change"] = percentiles_ms(timed(tree.refresh, nothing, runs))
            figures[f"{mode}, one edit"] = percentiles_ms(timed(tree.refresh, editor(tree), runs))
        finally:
            tree.close()
    return figures


def open_cost(root: Path, runs: int) -> tuple[float, int]:
    """Median ms to open the queue over the whole tree, and the folders it watches."""
    samples, folders = [], 0
    for _ in range(max(runs // 20, 5)):
        started = time.perf_counter()
        watch = TreeWatch.open(root, descend=lambda folder: not folder.startswith("."))
        samples.append(time.perf_counter() - started)
        assert watch is not None, "no inotify here"
        folders = watch.folders
        watch.close()
    return statistics.median(samples) * 1000, folders


def bench_size(size: int, runs: int, walk_runs: int, seed: int) -> str:
    root = Path(tempfile.mkdtemp(prefix=f"fresh-{size}-"))
    try:
        generate_tree(root, size, seed)
        figures = measure(root, runs, walk_runs)
        opening, folders = open_cost(root, runs)
    finally:
        shutil.rmtree(root)
    lines = [f"{size} tasks, {runs} runs ({walk_runs} for the walk): refresh p50 / p99 (ms)"]
    lines += [f"  {name:<18} {p50:8.3f} {p99:8.3f}" for name, (p50, p99) in figures.items()]
    lines.append(f"  opening the queue at start: {opening:.2f} ms for {folders} folders")
    return "\n".join(lines)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench.fresh_bench", description=__doc__)
    parser.add_argument("--sizes", default="10000", help="comma-separated tree sizes")
    parser.add_argument("--runs", type=int, default=300, help="refreshes per measure")
    parser.add_argument("--walk-runs", type=int, default=40, help="stat-walk refreshes")
    parser.add_argument("--seed", type=int, default=1, help="tree seed")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    for size in (int(s) for s in args.sizes.split(",")):
        print(bench_size(size, args.runs, args.walk_runs, args.seed), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
