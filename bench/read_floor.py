"""The read floor: how long it takes just to find and read every task file's bytes.

No parsing, no index: the cost any loader pays at minimum, to compare real load times against.
It walks ``*.md`` below the root the way the repository does (hidden folders skipped) and reads each
file; the time is the median of a few runs, so after the first run the page cache is warm.

Command line: ``python -m bench.read_floor DIR [--runs 3]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["FloorResult", "iter_markdown", "main", "read_floor"]


@dataclass(frozen=True, slots=True)
class FloorResult:
    """Files and bytes read, and the median seconds of ``runs`` walks-and-reads."""

    files: int
    total_bytes: int
    seconds: float
    runs: int

    @property
    def files_per_second(self) -> float:
        return self.files / self.seconds if self.seconds else 0.0

    @property
    def megabytes_per_second(self) -> float:
        return self.total_bytes / 1e6 / self.seconds if self.seconds else 0.0


def iter_markdown(root: Path) -> Iterator[Path]:
    """Every ``*.md`` file below ``root``, skipping hidden folders, in walk order."""
    for folder, dirnames, filenames in os.walk(root):
        dirnames[:] = [name for name in dirnames if not name.startswith(".")]
        for name in filenames:
            if name.endswith(".md"):
                yield Path(folder, name)


def read_floor(root: Path, runs: int = 3) -> FloorResult:
    """Walk and read every task file under ``root`` ``runs`` times; keep the median time."""
    if runs < 1:
        raise ValueError(f"runs must be >= 1, got {runs}")
    timings: list[float] = []
    files = total = 0
    for _ in range(runs):
        started = time.perf_counter()
        files, total = _read_all(root)
        timings.append(time.perf_counter() - started)
    return FloorResult(files, total, statistics.median(timings), runs)


def _read_all(root: Path) -> tuple[int, int]:
    """One pass: (file count, total bytes)."""
    files = total = 0
    for path in iter_markdown(root):
        total += len(path.read_bytes())
        files += 1
    return files, total


def main(argv: Sequence[str] | None = None) -> int:
    """Print the read floor of a tree."""
    parser = argparse.ArgumentParser(prog="python -m bench.read_floor", description=__doc__)
    parser.add_argument("root", type=Path, help="task tree to read")
    parser.add_argument("--runs", type=int, default=3, help="runs to take the median of")
    args = parser.parse_args(argv)
    result = read_floor(args.root, args.runs)
    print(
        f"{result.files} files, {result.total_bytes / 1e6:.1f} MB, "
        f"{result.seconds:.3f} s (median of {result.runs}); "
        f"{result.files_per_second:,.0f} files/s, {result.megabytes_per_second:,.0f} MB/s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
