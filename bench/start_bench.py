"""Server start-up against the floor of only reading the files' bytes: cold, warm, warm after edits.

    python -m bench.start_bench --sizes 1000,10000 --runs 5
    python -m bench.start_bench --sizes 100000 --runs 3
    python -m bench.start_bench --root /tmp/trees/t1m --runs 1 --kinds warm

For each size: generate a seeded tree (`bench.generate`), then report the median of `--runs` of

- floor: walk the tree and read every file's bytes (`bench.read_floor`);
- cold: a start with no cache (`.tasks-index` deleted before each run): walk, read and parse
  every file, build the index, write the cache;
- warm: a restart with the cache present and nothing changed;
- warm 1%: a restart after 1% of the files were touched (new mtime, same bytes), so they are
  parsed again and the cache is written again;

each as seconds and as a ratio to the floor, then the phases of each start (cache load,
walk and stat, parse of the files the cache did not answer, index build, cache save).
`--root DIR` (repeatable) measures a tree made beforehand with `python -m bench.generate`
instead of generating one: in place, so it deletes and rewrites that tree's `.tasks-index/`
and gives 1% of its files a new mtime. `--kinds` picks the kinds of start (a million-task
tree takes minutes per cold start). A start is `LiveTree(root, watch=False)`, the server's
own start-up path, timed around the constructor in this process (interpreter and imports
not counted); `--watch` starts the file watcher too, as the server does. Figures only, no
assertions.
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.generate import generate_tree
from bench.read_floor import iter_markdown, read_floor
from tasks_server.live import LiveTree, StartStats

__all__ = ["Start", "main", "measure_starts"]

KINDS = ("cold", "warm", "warm 1%")
PHASES = ("cache_load", "walk", "parse", "index", "cache_save")


@dataclass(frozen=True, slots=True)
class Start:
    """The median wall time of a kind of start, and the median of each of its phases."""

    seconds: float
    phases: dict[str, float]
    files_read: int


def timed_start(root: Path, watch: bool) -> tuple[float, StartStats]:
    """One start: wall seconds around the constructor, and the tree's own phase times."""
    started = time.perf_counter()
    tree = LiveTree(root, watch=watch)
    seconds = time.perf_counter() - started
    stats = tree.start_stats
    tree.close()
    del tree
    gc.unfreeze()  # the start froze the tree's objects; let this run's go
    gc.collect()
    return seconds, stats


def median_start(root: Path, runs: int, watch: bool, before: Callable[[int], None]) -> Start:
    samples = []
    for run in range(runs):
        before(run)
        samples.append(timed_start(root, watch))
    phases = {
        name: statistics.median(getattr(stats, name) for _, stats in samples) for name in PHASES
    }
    seconds = statistics.median(seconds for seconds, _ in samples)
    return Start(seconds, phases, samples[-1][1].files_read)


def toucher(root: Path, share: float) -> Callable[[int], None]:
    """Before each run, give every `1/share`-th file a new mtime (its bytes unchanged)."""
    paths = sorted(iter_markdown(root))[:: max(round(1 / share), 1)]
    base = time.time_ns()

    def touch(run: int) -> None:
        stamp = base + (run + 1) * 1_000_000_000
        for path in paths:
            os.utime(path, ns=(stamp, stamp))

    return touch


def measure_starts(
    root: Path, runs: int, watch: bool = False, kinds: Sequence[str] = KINDS
) -> dict[str, Start]:
    """The `kinds` of start of the tree at `root`, the median of `runs` each."""
    index_dir = root / ".tasks-index"
    starts = {}
    if "cold" in kinds:
        starts["cold"] = median_start(
            root, runs, watch, lambda _: shutil.rmtree(index_dir, ignore_errors=True)
        )
    if "warm" in kinds or "warm 1%" in kinds:
        LiveTree(root, watch=False).close()  # a current cache for the warm starts
    if "warm" in kinds:
        starts["warm"] = median_start(root, runs, watch, lambda _: None)
    if "warm 1%" in kinds:
        starts["warm 1%"] = median_start(root, runs, watch, toucher(root, 0.01))
    return starts


def render_size(size: int, floor: float, starts: dict[str, Start]) -> list[str]:
    head = f"{size:>8} tasks: floor {floor:.3f} s; " + "; ".join(
        f"{kind} {start.seconds:.3f} s ({start.seconds / floor:.1f}x)"
        for kind, start in starts.items()
    )
    lines = [head, f"{'':>10}{'phase s':<9}" + "".join(f"{name:>12}" for name in PHASES)]
    for kind, start in starts.items():
        cells = "".join(f"{start.phases[name]:>12.4f}" for name in PHASES)
        lines.append(f"{'':>10}{kind:<9}{cells}   ({start.files_read} files parsed)")
    return lines


def bench_tree(root: Path, runs: int, watch: bool, kinds: Sequence[str]) -> list[str]:
    """The floor and the starts of the tree at `root`, rendered."""
    floor = read_floor(root, runs).seconds
    starts = measure_starts(root.resolve(), runs, watch, kinds)
    return render_size(len(list(iter_markdown(root))), floor, starts)


def bench_size(size: int, runs: int, seed: int, watch: bool, kinds: Sequence[str]) -> list[str]:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "tree"
        generate_tree(root, size, seed=seed)
        return bench_tree(root, runs, watch, kinds)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.start_bench", description=__doc__)
    parser.add_argument("--sizes", default="1000,10000", help="tree sizes, comma-separated")
    parser.add_argument("--runs", type=int, default=5, help="runs to take the median of")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--watch", action="store_true", help="start the file watcher too")
    parser.add_argument(
        "--root",
        type=Path,
        action="append",
        default=[],
        help="a tree made by `python -m bench.generate` to measure in place instead of --sizes"
        " (repeatable; its .tasks-index/ is rewritten and 1%% of its files touched)",
    )
    parser.add_argument(
        "--kinds",
        default=",".join(KINDS),
        help="kinds of start, comma-separated: " + ", ".join(KINDS).replace("%", "%%"),
    )
    args = parser.parse_args(argv)
    kinds = args.kinds.split(",")
    if unknown := set(kinds) - set(KINDS):
        parser.error(f"unknown kinds {sorted(unknown)}; known: {KINDS}")
    print(f"start-up, median of {args.runs} runs{' (with the file watcher)' if args.watch else ''}")
    for root in args.root:
        print("\n".join(bench_tree(root, args.runs, args.watch, kinds)))
    sizes = [] if args.root else [int(part) for part in args.sizes.split(",")]
    for size in sizes:
        print("\n".join(bench_size(size, args.runs, args.seed, args.watch, kinds)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
