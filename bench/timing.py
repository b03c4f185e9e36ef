"""The one timing helper the benches share."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

__all__ = ["median_ms"]


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
