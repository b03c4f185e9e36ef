"""A tree that is one big depends_on cycle against the same tree without it: start and answer.

    python -m bench.cycle_bench --sizes 10000,100000 --runs 3
    python -m bench.cycle_bench --sizes 1000000 --runs 1

For each size: generate the seeded tree twice (`bench.generate`), plain and with `cycle`
(every task also depends on the one made before it, the first on the last: one cycle of
every task), then report for each the median of `--runs` of

- cold: a start with no cache (`.tasks-index` deleted first), as `bench.start_bench` times it;
- warm: a restart with the cache present and nothing changed;
- signals: `get_structural_signals` (first page, bounded as the tool pages it) on a started
  tree, after one untimed call;

and the ratio of the cycle tree to the plain one. Figures only, no assertions.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from bench.generate import generate_tree
from bench.start_bench import measure_starts
from bench.timing import median_ms
from tasks_server.toolset import open_toolset

__all__ = ["main", "measure"]


def signals_ms(root: Path, runs: int) -> float:
    """Median milliseconds of `get_structural_signals` on a started tree."""
    toolset = open_toolset(root, watch=False)
    try:
        return median_ms(lambda: toolset.run("get_structural_signals", {}), runs, warm=True)
    finally:
        toolset.context.close()


def measure(root: Path, runs: int) -> tuple[float, float, float]:
    """(cold s, warm s, signals ms) of the tree at `root`."""
    starts = measure_starts(root.resolve(), runs, kinds=("cold", "warm"))
    return starts["cold"].seconds, starts["warm"].seconds, signals_ms(root, runs)


def bench_size(size: int, runs: int, seed: int) -> list[str]:
    figures = {}
    for cycle in (False, True):
        with tempfile.TemporaryDirectory() as folder:
            root = Path(folder) / "tree"
            generate_tree(root, size, seed=seed, cycle=cycle)
            figures[cycle] = measure(root, runs)
    lines = []
    for cycle, (cold, warm, signals) in figures.items():
        name = "cycle" if cycle else "plain"
        lines.append(f"{size:>8}{name:>7}{cold:>9.2f}{warm:>9.2f}{signals:>12.1f}")
    ratios = [
        with_cycle / plain for with_cycle, plain in zip(figures[True], figures[False], strict=True)
    ]
    lines.append(
        f"{'':>8}{'ratio':>7}"
        + "".join(f"{r:>{w}.2f}x" for r, w in zip(ratios, (8, 8, 11), strict=True))
    )
    return lines


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
