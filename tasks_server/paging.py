"""Pages over long lists: `limit` and an opaque `cursor`, stable while the tree is unchanged.

A cursor names the query it belongs to and the index generation it was cut from. When the
tree changed between two pages, the cursor is refused (INVALID_CURSOR) rather than
silently skipping or repeating items: the caller restarts from the first page.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from tasks_server.errors import InvalidCursor

__all__ = ["Page", "Window", "open_window", "paginate"]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Page(Generic[T]):
    items: list[T]
    total: int
    next_cursor: str | None


def _fingerprint(query: object) -> str:
    text = json.dumps(query, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def _encode(query: str, generation: int, offset: int) -> str:
    raw = json.dumps([query, generation, offset]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode(cursor: str) -> tuple[str, int, int]:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        query, generation, offset = json.loads(base64.urlsafe_b64decode(padded))
    except (ValueError, TypeError, RecursionError, binascii.Error) as exc:
        raise InvalidCursor("cursor is not one this server issued") from exc
    fits = isinstance(query, str) and isinstance(generation, int) and isinstance(offset, int)
    if not fits or offset < 0:
        raise InvalidCursor("cursor is not one this server issued")
    return query, generation, offset


@dataclass(frozen=True, slots=True)
class Window:
    """Where a page starts, checked against the query and the tree's state, and the cursor
    for what follows it (for results that page several lists with one cursor)."""

    offset: int
    limit: int
    fingerprint: str
    generation: int

    @property
    def stop(self) -> int:
        return self.offset + self.limit

    def next_cursor(self, total: int) -> str | None:
        """The cursor after this window over lists of at most `total` items (None: done)."""
        return _encode(self.fingerprint, self.generation, self.stop) if self.stop < total else None


def open_window(*, limit: int, cursor: str | None, query: object, generation: int) -> Window:
    """The window after `cursor` (or the first one); a cursor of another query or of an
    earlier state of the tree is refused with `InvalidCursor`."""
    fingerprint = _fingerprint(query)
    offset = 0
    if cursor:
        cursor_query, cursor_generation, offset = _decode(cursor)
        if cursor_query != fingerprint:
            raise InvalidCursor("cursor belongs to a different query; restart without it")
        if cursor_generation != generation:
            raise InvalidCursor("the task tree changed since this cursor; restart without it")
    return Window(offset, limit, fingerprint, generation)


def paginate(
    items: Sequence[T], *, limit: int, cursor: str | None, query: object, generation: int
) -> Page[T]:
    """The page of `items` after `cursor` (or the first page)."""
    window = open_window(limit=limit, cursor=cursor, query=query, generation=generation)
    return Page(
        list(items[window.offset : window.stop]), len(items), window.next_cursor(len(items))
    )
