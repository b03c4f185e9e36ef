"""One page window over several lists read one after another.

Tools that answer with several lists (a neighbourhood, a review's changes) page them as one
sequence: a window `[offset, offset + limit)` of the lists' concatenation, so a page holds at
most `limit` items in all, and each list reports its whole length beside its part.

>>> window_lists([["a", "b"], ["c", "d", "e"], ["f"]], offset=1, limit=3)
[Cut(ids=['b'], total=2), Cut(ids=['c', 'd'], total=3), Cut(ids=[], total=1)]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Generic, NamedTuple, TypeVar

__all__ = ["Cut", "window_lists"]

T = TypeVar("T")


class Cut(NamedTuple, Generic[T]):
    """A list's part of a window, and how many items the whole list has."""

    ids: list[T]
    total: int


def window_lists(lists: Iterable[Sequence[T]], offset: int, limit: int | None) -> list[Cut[T]]:
    """Each list's part of the window `[offset, offset + limit)` over `lists` read one after
    another (`limit=None`: to the end)."""
    cuts: list[Cut[T]] = []
    start, stop = offset, None if limit is None else offset + limit
    for ids in lists:
        end = None if stop is None else max(stop, 0)
        cuts.append(Cut(list(ids[max(start, 0) : end]), len(ids)))
        start -= len(ids)
        stop = None if stop is None else stop - len(ids)
    return cuts
