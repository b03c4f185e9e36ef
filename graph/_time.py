"""Time deltas against a caller's `now` (the graph layer never reads the clock).

>>> from datetime import UTC, datetime
>>> days_between(datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 1, 2, 12, tzinfo=UTC))
1.5
"""

from __future__ import annotations

from datetime import datetime, timedelta

from graph.errors import InvalidArgument

__all__ = ["check_now", "cutoff", "days_between", "days_since"]


def check_now(now: datetime) -> datetime:
    """`now` itself, refused when naive (task timestamps are all timezone-aware)."""
    if now.tzinfo is None or now.utcoffset() is None:
        raise InvalidArgument("now", "must be timezone-aware")
    return now


def days_since(earlier: datetime, now: datetime) -> float:
    """Days from `earlier` to `now` (negative when `earlier` is later)."""
    return (now - earlier).total_seconds() / 86_400


def days_between(earlier: datetime | None, now: datetime) -> float | None:
    """`days_since`, or None without `earlier`."""
    return None if earlier is None else days_since(earlier, now)


def cutoff(now: datetime, days: float, name: str) -> datetime:
    """`now` minus `days`; a negative `days` is an `InvalidArgument` named `name`."""
    if days < 0:
        raise InvalidArgument(name, f"must be >= 0, got {days}")
    try:
        return check_now(now) - timedelta(days=days)
    except OverflowError as exc:
        raise InvalidArgument(name, f"reaches before year 1, got {days}") from exc
