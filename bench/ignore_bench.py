"""What many ignore patterns cost a start: a cold scan of `--files` task files under a
`.tasksignore` of `--patterns` patterns (half globs, half literal names), and the same
scan without one. Prints medians in seconds and their ratio; asserts nothing.

Command line: ``python -m bench.ignore_bench [--files 2000] [--patterns 20000] [--runs 3]``.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from storage.repository import TaskRepository

__all__ = ["main"]

TASK = "---\nid: t{n}\ntitle: Task {n}\nstatus: active\n---\n"


def _scan_seconds(root: Path, runs: int) -> float:
    laps = []
    for _ in range(runs):
        started = time.perf_counter()
        TaskRepository(root).scan()
        laps.append(time.perf_counter() - started)
    return statistics.median(laps)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--patterns", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        for n in range(args.files):
            path = root / f"p{n % 20}" / f"t{n}.md"
            path.parent.mkdir(exist_ok=True)
            path.write_text(TASK.format(n=n))
        bare = _scan_seconds(root, args.runs)
        patterns = [f"gen-{n}/*.md" if n % 2 else f"lit-{n}.md" for n in range(args.patterns)]
        (root / ".tasksignore").write_text("\n".join(patterns) + "\n")
        ignoring = _scan_seconds(root, args.runs)
    print(f"{args.files} files, no .tasksignore: median {bare:.3f} s")
    print(f"{args.files} files, {args.patterns} patterns: median {ignoring:.3f} s")
    print(f"ratio {ignoring / bare:.1f}x")


if __name__ == "__main__":
    main()
