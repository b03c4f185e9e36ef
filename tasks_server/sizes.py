"""The sizes a write enforces, and the same sizes checked on what was read.

A tool refuses a title over 500 characters, but a file written by hand may hold one of
100,000. Such a task still loads (nothing in the file is lost or rewritten): `oversized`
names every value past its limit, for `tasks-server check` to report, and `clip` shortens
a value for display, with a marker that says how much is left out (brief rows and the
human commands use it).

>>> clip("abcdef", 4)
'abcd… (+2 characters)'
>>> clip("abc", 4)
'abc'
>>> clip(clip("abcdef", 4), 4)  # a value shortened once is left as it is
'abcd… (+2 characters)'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from storage.model import Task
from storage.repository import MAX_FILE_BYTES

__all__ = [
    "MAX_ID_CHARS",
    "MAX_LIST_ITEMS",
    "MAX_SHORT_CHARS",
    "MAX_TITLE_CHARS",
    "Oversize",
    "clip",
    "oversized",
]

MAX_ID_CHARS = 255  # ids and project names: one file-name component
MAX_SHORT_CHARS = 255  # status, type, tags, assignee, ...
MAX_TITLE_CHARS = 500
MAX_LIST_ITEMS = 500  # ids, tags, children in one call

TEXT_LIMITS = {
    "id": MAX_ID_CHARS,
    "title": MAX_TITLE_CHARS,
    "type": MAX_SHORT_CHARS,
    "status": MAX_SHORT_CHARS,
    "project": MAX_ID_CHARS,
    "parent": MAX_ID_CHARS,
    "assignee": MAX_SHORT_CHARS,
    "complexity": MAX_SHORT_CHARS,
    "effort": MAX_SHORT_CHARS,
    "body": MAX_FILE_BYTES,
}
LIST_LIMITS = {"depends_on": MAX_ID_CHARS, "soft_depends_on": MAX_ID_CHARS, "tags": MAX_SHORT_CHARS}


_MARKER = re.compile(r"… \(\+[\d,]+ characters\)")


@dataclass(frozen=True, slots=True)
class Oversize:
    """One value past the limit a write enforces: `size` and `limit` count `unit`s."""

    field: str
    size: int
    limit: int
    unit: str = "characters"

    def __str__(self) -> str:
        return f"{self.field} has {self.size:,} {self.unit}, over the {self.limit:,} a write allows"


def clip(text: str, limit: int) -> str:
    """`text` cut to `limit` characters with a marker saying how many were left out."""
    if len(text) <= limit or _MARKER.fullmatch(text, limit):
        return text
    return f"{text[:limit]}… (+{len(text) - limit:,} characters)"


def oversized(task: Task) -> list[Oversize]:
    """Every value of `task` that a write would refuse for its size."""
    found = []
    for name, limit in TEXT_LIMITS.items():
        value = getattr(task, name)
        if value is not None and len(value) > limit:
            found.append(Oversize(name, len(value), limit))
    for name, limit in LIST_LIMITS.items():
        items: tuple[str, ...] = getattr(task, name)
        if len(items) > MAX_LIST_ITEMS:
            found.append(Oversize(name, len(items), MAX_LIST_ITEMS, "items"))
        longest = max(map(len, items), default=0)
        if longest > limit:
            found.append(Oversize(f"{name} item", longest, limit))
    return found
