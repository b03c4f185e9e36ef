"""A tree that is one big depends_on cycle against the same tree without it: start and answer.

    python -m bench.cycle_bench --sizes 10000,100000 --runs 3
    python -m bench.cycle_bench --sizes 1000000 --runs 1

For each size: generate the seeded tree twice (`bench.generate`), plain and with `cycle`
(every task also depends on the one made before it, the first on the last: one cycle of
every task), then report for each the median of `--runs` of

- cold: a start with no cache (`.tasks-index` deleted first), timed as `bench.start_bench` does;
- warm: a restart with the cache present and nothing changed;
- signals: `get_structural_signals` (first page, bounded as the tool pages it) on a started
  tree, after one untimed call;

and the ratio of the cycle tree to the plain one. The two trees are measured in turn, run
by run (plain, then cycle), so a machine shared with other work slows both alike. Figures
only, no assertions.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
from pathlib import Path

from bench.generate import generate_tree
from bench.start_bench import timed_start
from bench.timing import median_ms
from tasks_server.toolset import open_toolset

__all__ = ["main", "measure_once"]


def signals_ms(root: Path, calls: int = 3) -> float:
    """Median milliseconds of `get_structural_signals` on a started tree."""
    toolset = open_toolset(root, watch=False)
    try:
        return median_ms(lambda: toolset.run("get_structural_signals", {}), calls, warm=True)
    finally:
        toolset.context.close()


def measure_once(root: Path) -> tuple[float, float, float]:
    """(cold s, warm s, signals ms) of one run on the tree at `root`."""
    shutil.rmtree(root / ".tasks-index", ignore_errors=True)
    cold = timed_start(root, watch=False)[0]
    warm = timed_start(root, watch=False)[0]
    return cold, warm, signals_ms(root)


def bench_size(size: int, runs: int, seed: int) -> list[str]:
    with tempfile.TemporaryDirectory() as folder:
        roots = {name: Path(folder) / name for name in ("plain", "cycle")}
        for name, root in roots.items():
            generate_tree(root, size, seed=seed, cycle=name == "cycle")
        samples: dict[str, list[tuple[float, float, float]]] = {name: [] for name in roots}
        for _ in range(runs):
            for name, root in roots.items():
                samples[name].append(measure_once(root.resolve()))
    medians = {
        name: [statistics.median(column) for column in zip(*rows, strict=True)]
        for name, rows in samples.items()
    }
    lines = [
        f"{size:>8}{name:>7}{cold:>9.2f}{warm:>9.2f}{signals:>12.1f}"
        for name, (cold, warm, signals) in medians.items()
    ]
    ratios = [c / p for c, p in zip(medians["cycle"], medians["plain"], strict=True)]
    cells = "".join(f"{r:>{w}.2f}x" for r, w in zip(ratios, (8, 8, 11), strict=True))
    return [*lines, f"{'':>8}{'ratio':>7}{cells}"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"{'tasks':>8}{'tree':>7}{'cold s':>9}{'warm s':>9}{'signals ms':>12}")
    for size in (int(part) for part in args.sizes.split(",")):
        for line in bench_size(size, args.runs, args.seed):
            print(line, flush=True)


if __name__ == "__main__":
    main()
