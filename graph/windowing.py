"""One page window over several named lists read one after another.

Results made of several lists (a neighbourhood, a review's changes, the structural signals)
page them as one sequence: the window `[offset, offset + limit)` of the lists'
concatenation, so a page holds at most `limit` items in all, and each list reports its whole
length beside its part. The one model of such a page is `Windowed`: the named parts, their
totals, and the total over all of them (for the next cursor).

>>> w = window_named({"a": ["a1", "a2"], "b": ["b1", "b2", "b3"], "c": ["c1"]}, 1, 3)
>>> w.parts, w.totals, w.total
({'a': ['a2'], 'b': ['b1', 'b2'], 'c': []}, {'a': 2, 'b': 3, 'c': 1}, 6)
>>> w.fields(totals={"c": "c_count"})
{'a': ['a2'], 'a_total': 2, 'b': ['b1', 'b2'], 'b_total': 3, 'c': [], 'c_count': 1}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

__all__ = ["Windowed", "window_named"]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Windowed(Generic[T]):
    """Each named list's part of a window, each list's whole length, and their sum."""

    parts: dict[str, list[T]]
    totals: dict[str, int]

    @property
    def total(self) -> int:
        """Items in every list, over all windows."""
        return sum(self.totals.values())

    def fields(self, totals: Mapping[str, str] | None = None) -> dict[str, Any]:
        """`{name: part, name_total: total}` for every list, as a result model's fields are
        named (`totals` renames a total where the model says it otherwise)."""
        names = totals or {}
        out: dict[str, Any] = {}
        for name, part in self.parts.items():
            out[name] = part
            out[names.get(name, f"{name}_total")] = self.totals[name]
        return out


def window_named(lists: Mapping[str, Sequence[T]], offset: int, limit: int | None) -> Windowed[T]:
    """Each list's part of the window `[offset, offset + limit)` over `lists` read in order
    (`limit=None`: to the end)."""
    parts: dict[str, list[T]] = {}
    totals: dict[str, int] = {}
    start, stop = offset, None if limit is None else offset + limit
    for name, ids in lists.items():
        end = None if stop is None else max(stop, 0)
        parts[name] = list(ids[max(start, 0) : end])
        size = totals[name] = len(ids)
        start -= size
        stop = None if stop is None else stop - size
    return Windowed(parts, totals)
