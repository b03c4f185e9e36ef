"""Pages over long lists: `limit` and an opaque `cursor`, stable while the tree is unchanged.

A cursor names the query it belongs to (the tool and its other arguments) and the index
generation it was cut from. When the tree changed between two pages, the cursor is refused
(INVALID_CURSOR) rather than silently skipping or repeating items: the caller restarts from
the first page. The one page step every paged tool goes through is `tasks_server.listing`.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from dataclasses import dataclass

from tasks_server.errors import InvalidCursor

__all__ = ["Window", "cursor_state", "open_window"]


def _fingerprint(query: object) -> str:
    text = json.dumps(query, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def _encode(query: str, generation: int, offset: int) -> str:
    raw = json.dumps([query, generation, offset]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


_MAX_CURSOR_CHARS = 200  # ours are under 60: anything longer is not one we issued


def _decode(cursor: str) -> tuple[str, int, int]:
    """(query fingerprint, generation, offset) of a cursor we issued; anything else, however
    long, nested or mistyped, is `InvalidCursor`."""
    if len(cursor) > _MAX_CURSOR_CHARS:
        raise InvalidCursor("cursor is not one this server issued")
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        decoded = json.loads(base64.urlsafe_b64decode(padded))
    except (ValueError, TypeError, RecursionError, binascii.Error) as exc:
        raise InvalidCursor("cursor is not one this server issued") from exc
    if not (isinstance(decoded, list) and len(decoded) == 3):
        raise InvalidCursor("cursor is not one this server issued")
    query, generation, offset = decoded
    fits = isinstance(query, str) and all(type(n) is int for n in (generation, offset))
    if not fits or offset < 0:
        raise InvalidCursor("cursor is not one this server issued")
    return query, generation, offset


def cursor_state(cursor: str) -> int:
    """The state (generation) a cursor we issued was cut from; else `InvalidCursor`."""
    return _decode(cursor)[1]


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
