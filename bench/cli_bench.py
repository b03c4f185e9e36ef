"""Whole-process time of human commands, this checkout against another, interleaved.

    python -m bench.cli_bench [--against DIR] [--runs 9]

Runs `python -m tasks_server --help` and `python -m tasks_server ready` on the bundled tree
from each checkout in turn (the working directory decides which code runs), and prints the
median and the fastest run. Figures only.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def once(checkout: Path, args: list[str]) -> float:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    started = time.perf_counter()
    command = [sys.executable, "-m", "tasks_server", *args]
    subprocess.run(command, cwd=checkout, capture_output=True, env=env, check=False)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", type=Path, default=None)
    parser.add_argument("--runs", type=int, default=9)
    options = parser.parse_args()
    checkouts = {"this checkout": HERE}
    if options.against is not None:
        checkouts[str(options.against)] = options.against.resolve()
    commands = {"--help": ["--help"], "ready": ["ready", "--root", str(HERE / "data")]}
    samples: dict[tuple[str, str], list[float]] = {}
    for _ in range(options.runs):
        for label, checkout in checkouts.items():
            for name, args in commands.items():
                samples.setdefault((label, name), []).append(once(checkout, args))
    for (label, name), times in samples.items():
        median, fastest = statistics.median(times), min(times)
        print(f"{label:<28}{name:<8} median {median:.3f} s  fastest {fastest:.3f} s")


if __name__ == "__main__":
    main()
