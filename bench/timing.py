"""The one timing helper the benches share."""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Callable, Sequence

__all__ = ["median_ms", "run_all"]


def median_ms(action: Callable[[], object], runs: int, *, warm: bool = False) -> float:
    """Median wall time of `action` over `runs` calls, in milliseconds; with `warm`, one
    untimed call first."""
    if warm:
        action()
    timings = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        timings.append(time.perf_counter() - started)
    return statistics.median(timings) * 1000


def run_all(threads: Sequence[threading.Thread]) -> float:
    """Start every thread, wait for all: the wall seconds they took together."""
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return time.perf_counter() - started
