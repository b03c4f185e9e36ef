"""Cold load of a whole tree against the floor of only reading its bytes.

    python -m bench.load_bench --sizes 10000,100000

For each size: generate a seeded tree, then report the median of 3 scans by
`TaskRepository.scan()` (read, split, YAML-parse, build models; the cyclic GC is paused
during the bulk load) beside the median of 3 plain reads of the same files. Figures only.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from bench.generate import generate_tree
from bench.read_floor import read_floor
from storage.repository import TaskRepository


def load_seconds(root: Path, runs: int = 3) -> tuple[float, int]:
    samples, count = [], 0
    for _ in range(runs):
        started = time.perf_counter()
        table = TaskRepository(root).scan()
        samples.append(time.perf_counter() - started)
        count = len(table.tasks())
    return statistics.median(samples), count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    args = parser.parse_args()
    print("YAML loader: yaml-rs (Rust, YAML 1.2, safe, alias-limited)")
    print(f"{'tasks':>8}{'load s':>9}{'files/s':>10}{'floor s':>9}{'ratio':>7}")
    for size in (int(part) for part in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as folder:
            root = Path(folder) / "tree"
            generate_tree(root, size, seed=1)
            floor = read_floor(root).seconds
            seconds, count = load_seconds(root)
        rate = count / seconds
        print(f"{count:>8}{seconds:>9.3f}{rate:>10.0f}{floor:>9.3f}{seconds / floor:>7.2f}")


if __name__ == "__main__":
    main()
