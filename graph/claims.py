"""Claims and deferral as a task's file holds them, judged against a caller's `now`.

A claim is two frontmatter keys, `claimed_by` (the agent) and `claim_expires` (when its
lease ends, ISO 8601); a deferral is `defer_until` (a date or a date-time). The model keeps
them among a task's other keys (`Task.extra`, as written); this module reads them. A
value that cannot be read as a time counts as absent for a deferral and as an expired
lease for a claim (a claim nobody can date never holds a task forever).

>>> from datetime import UTC, datetime
>>> from storage.model import Task, within_utc
>>> t = Task(id="a", title="A", path="a.md",
...          extra={"claimed_by": "w1", "claim_expires": "2026-01-01T00:10:00Z"})
>>> claim = claim_of(t)
>>> claim.agent, claim.is_live(datetime(2026, 1, 1, tzinfo=UTC))
('w1', True)
>>> claim.is_live(datetime(2026, 1, 1, 0, 10, tzinfo=UTC))
False
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from storage.model import Task, within_utc

__all__ = [
    "CLAIMED_BY",
    "CLAIM_EXPIRES",
    "DEFER_UNTIL",
    "MAX_LEASE_SECONDS",
    "Claim",
    "claim_of",
    "deferred_until",
    "holds_live_claim",
    "iso",
    "read_time",
]

MAX_LEASE_SECONDS = 86_400
"""The longest lease one claim takes (a day); renew to hold a task longer. A lease whose end
lies further ahead than this was not written by a server with a clock in step (a clock
ahead, or a hand edit): `Claim.beyond_max` says so."""
CLAIMED_BY = "claimed_by"
CLAIM_EXPIRES = "claim_expires"
DEFER_UNTIL = "defer_until"
_MAX_LEASE = timedelta(seconds=MAX_LEASE_SECONDS)


@dataclass(frozen=True, slots=True)
class Claim:
    """Who holds a task and until when (None: the end cannot be read, so it is over)."""

    agent: str
    expires: datetime | None

    def is_live(self, now: datetime) -> bool:
        """True while the lease runs: `now` is before its end."""
        return self.expires is not None and now < self.expires

    def beyond_max(self, now: datetime) -> bool:
        """True when the lease ends more than `MAX_LEASE_SECONDS` after `now`: no claim this
        server takes can (another server's clock runs ahead, or the file was edited)."""
        return self.expires is not None and self.expires - now > _MAX_LEASE


def read_time(value: object) -> datetime | None:
    """A date or date-time as written (text, or a value a YAML reader typed), as an aware
    datetime (naive means UTC, a date its midnight, an instant past year 9999 or before
    year 1 held at that end); None when it is not one.

    >>> read_time("2026-03-01").isoformat(), read_time("soon")
    ('2026-03-01T00:00:00+00:00', None)
    """
    if isinstance(value, datetime):
        found = value
    elif isinstance(value, date):
        found = datetime(value.year, value.month, value.day)
    elif isinstance(value, str):
        try:
            found = datetime.fromisoformat(value.strip())
        except ValueError:
            return None
    else:
        return None
    return within_utc(found) if found.tzinfo is not None else found.replace(tzinfo=UTC)


def iso(moment: datetime) -> str:
    """`moment` in UTC as ISO 8601 text ending in `Z`, as a claim's end is written.

    >>> iso(datetime(2026, 1, 1, 12, tzinfo=UTC))
    '2026-01-01T12:00:00Z'
    """
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def claim_of(task: Task) -> Claim | None:
    """The claim written in `task`'s file, live or not; None when it has none."""
    agent = task.extra.get(CLAIMED_BY)
    if not isinstance(agent, str) or not agent:
        return None
    return Claim(agent, read_time(task.extra.get(CLAIM_EXPIRES)))


def holds_live_claim(task: Task, now: datetime) -> bool:
    """True when someone's lease on `task` still runs at `now`."""
    claim = claim_of(task)
    return claim is not None and claim.is_live(now)


def deferred_until(task: Task, now: datetime) -> datetime | None:
    """When `task`'s deferral ends, while it is still in the future at `now`; else None.

    >>> from storage.model import Task, within_utc
    >>> t = Task(id="a", title="A", path="a.md", extra={"defer_until": "2026-02-01"})
    >>> deferred_until(t, datetime(2026, 1, 1, tzinfo=UTC)).isoformat()
    '2026-02-01T00:00:00+00:00'
    >>> deferred_until(t, datetime(2026, 2, 1, tzinfo=UTC)) is None
    True
    """
    if DEFER_UNTIL not in task.extra:
        return None
    until = read_time(task.extra[DEFER_UNTIL])
    return until if until is not None and now < until else None
