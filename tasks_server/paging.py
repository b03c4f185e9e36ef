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

__all__ = ["Page", "paginate"]

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
    except (ValueError, TypeError, binascii.Error) as exc:
        raise InvalidCursor("cursor is not one this server issued") from exc
    if not (isinstance(query, str) and isinstance(generation, int) and isinstance(offset, int)):
        raise InvalidCursor("cursor is not one this server issued")
    return query, generation, offset


def paginate(
    items: Sequence[T], *, limit: int, cursor: str | None, query: object, generation: int
) -> Page[T]:
    """The page of `items` after `cursor` (or the first page)."""
    fingerprint = _fingerprint(query)
    offset = 0
    if cursor:
        cursor_query, cursor_generation, offset = _decode(cursor)
        if cursor_query != fingerprint:
            raise InvalidCursor("cursor belongs to a different query; restart without it")
        if cursor_generation != generation:
            raise InvalidCursor("the task tree changed since this cursor; restart without it")
    end = offset + limit
    more = end < len(items)
    return Page(
        list(items[offset:end]), len(items), _encode(fingerprint, generation, end) if more else None
    )
