"""Timestamps in every shape real task trees use, made timezone-aware; a file's
modification time as one, and the check of the time a writer expects a file to have.

>>> parse_timestamp("2026-02-04T16:37:39.524657-08:00").isoformat()
'2026-02-04T16:37:39.524657-08:00'
>>> parse_timestamp("2026-01-01").isoformat()
'2026-01-01T00:00:00+00:00'
>>> parse_timestamp("2026-02-04T16:37:39.123456789Z").isoformat()
'2026-02-04T16:37:39.123456+00:00'
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime

from storage.errors import Conflict
from storage.model import UTC_MAX, UTC_MIN, within_utc

__all__ = ["check_expected", "mtime_of", "parse_timestamp", "utc_now"]

# Python's parser keeps six fractional digits; longer fractions (beads writes nine) are cut.
_LONG_FRACTION = re.compile(r"(\.\d{6})\d+")


def parse_timestamp(value: object) -> datetime | None:
    """Read an ISO datetime or date (with or without offset); naive values are UTC; one whose
    UTC instant is past year 9999 or before year 1 is held at that end (`within_utc`).

    Returns None for None or an empty string; raises ValueError for anything unreadable.
    """
    if value is None or value == "":
        return None
    if type(value) is str and len(value) <= 32:  # the common shape: no long fraction
        parsed = datetime.fromisoformat(value.strip())
    elif isinstance(value, datetime):
        parsed = value
    elif isinstance(value, date):
        parsed = datetime(value.year, value.month, value.day)
    elif isinstance(value, str):
        parsed = datetime.fromisoformat(_LONG_FRACTION.sub(r"\1", value.strip()))
    else:
        raise ValueError(f"not a timestamp: {value!r}")
    if parsed.tzinfo is None:
        return parsed.replace(tzinfo=UTC)
    return parsed if 1 < parsed.year < 9999 else within_utc(parsed)  # only the ends can overflow


def utc_now() -> datetime:
    return datetime.now(UTC)


def mtime_of(stamp: tuple[int, int]) -> datetime:
    """A file's modification time (from its stamp) as an aware UTC datetime, to the µs (held
    at year 1 or 9999 when a file system keeps one outside them)."""
    try:
        return datetime.fromtimestamp(stamp[0] // 1000 / 1_000_000, UTC)
    except (OverflowError, OSError, ValueError):
        return UTC_MAX if stamp[0] > 0 else UTC_MIN


def check_expected(
    relative: str,
    stamp: tuple[int, int] | None,
    expected: datetime,
    modified: datetime | None = None,
) -> None:
    """Conflict unless the file (`stamp`; None: no file) has the `expected` time, the
    modification time a caller read it at, or the task it holds still has `expected` as its
    frontmatter `modified` (what a task view shows under that name: every write made through
    the server stamps it anew)."""
    actual = mtime_of(stamp) if stamp is not None else None
    if actual != expected and (modified is None or modified != expected):
        shown = actual.isoformat() if actual is not None else "deleted"
        raise Conflict(relative, expected.isoformat(), shown)
