"""A size cap on any single answer, whatever the tool and the tree hold.

Paging bounds how many rows an answer has, but not how long each is: a page of full views
may carry a megabyte of body per task. An answer over `ANSWER_CHARS` (as JSON text) has its
longest strings shortened, all to one length, the longest that fits (never below
`KEPT_CHARS`, so ids and titles stay whole), then, if that is not enough, its longest lists
cut the same way (never below `KEPT_ITEMS`). What was cut is named in a guidance warning,
and a shortened body sets its row's `body_truncated`, in a row object or in a row in
columns (where a `body_truncated` that `same` held goes back among the columns first).
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass
from typing import Any, TypeGuard

from pydantic_core import to_json

__all__ = ["ANSWER_CHARS", "KEPT_CHARS", "KEPT_ITEMS", "bound_answer", "bounded_json"]

ANSWER_CHARS = 4 * 1024 * 1024
KEPT_CHARS = 1024
KEPT_ITEMS = 100
_NAMED = 5  # cut places named in the warning, at most


@dataclass(frozen=True, slots=True)
class _Place:
    """One string or list in the answer: where it sits and how long it is; for a cell of a
    row in columns, the page the row is on, and the cell's column."""

    holder: dict[str, Any] | list[Any]
    key: str | int
    path: str
    size: int
    page: dict[str, Any] | None = None
    column: str = ""


def bounded_json(data: dict[str, Any], limit: int = ANSWER_CHARS) -> bytes:
    """`data` cut in place as `bound_answer` cuts it, and its compact JSON (UTF-8): the
    check of its size writes the JSON anyway, so an answer's text is written once."""
    text = to_json(data)
    if len(text) <= limit:
        return text
    bound_answer(data, limit)
    return to_json(data)


def bound_answer(data: dict[str, Any], limit: int = ANSWER_CHARS) -> None:
    """Cut `data` (a JSON-ready answer) in place to about `limit` characters of JSON."""
    if _fits(data, limit):
        return
    size = _json_size(data)
    strings, lists = _places(data)
    level = _level([p.size for p in strings], size - limit, KEPT_CHARS)
    notes = _cut(strings, level, "strings")
    level = max((p.size for p in lists), default=0)
    while level > KEPT_ITEMS and _json_size(data) > limit:
        level = max(KEPT_ITEMS, level // 2)
        for place in lists:
            _shorten(place, level)
    notes += _cut(lists, level, "lists") if level < max((p.size for p in lists), default=0) else []
    _warn(data, size, limit, notes)


def _cut(places: list[_Place], level: int, kind: str) -> list[str]:
    """Shorten every place longer than `level`; a note naming them (none: no note)."""
    cut = [p for p in places if p.size > level]
    for place in cut:
        _shorten(place, level)
    if not cut:
        return []
    named = ", ".join(p.path for p in cut[:_NAMED])
    more = f" and {len(cut) - _NAMED} more" if len(cut) > _NAMED else ""
    return [f"{len(cut)} {kind} cut to {level:,} ({named}{more})"]


def _json_size(data: object) -> int:
    """Characters of `data` as compact JSON."""
    return len(json.dumps(data, ensure_ascii=False, separators=(",", ":")))


def _fits(data: object, limit: int) -> bool:
    """Whether `data` is at most `limit` characters of JSON, asked on every answer: its UTF-8
    bytes (pydantic-core, several times faster than `json`) are never fewer than its
    characters, so only an answer over `limit` bytes needs counting exactly."""
    return len(to_json(data)) <= limit or _json_size(data) <= limit


def _places(data: dict[str, Any]) -> tuple[list[_Place], list[_Place]]:
    """Every string and every list in `data`, with its path."""
    strings: list[_Place] = []
    lists: list[_Place] = []
    pages: dict[int, dict[str, Any]] = {}  # the rows of a page in columns, by id: their page
    pending: deque[tuple[Any, str, dict[str, Any] | None]] = deque([(data, "", None)])
    while pending:
        holder, path, page = pending.popleft()  # `page`: the one `holder` is a row of
        items = holder.items() if isinstance(holder, dict) else enumerate(holder)
        for key, value in items:
            where = f"{path}[{key}]" if isinstance(key, int) else f"{path}.{key}".lstrip(".")
            column = page["columns"][key] if page is not None else ""
            if isinstance(value, str):
                strings.append(_Place(holder, key, where, len(value), page, column))
            elif isinstance(value, dict | list):
                if isinstance(value, list):
                    lists.append(_Place(holder, key, where, len(value), page, column))
                pending.append((value, where, pages.get(id(holder))))
                if _in_columns(value):
                    pages[id(value["rows"])] = value
    return strings, lists


def _in_columns(value: object) -> TypeGuard[dict[str, Any]]:
    """Whether `value` is a page of rows in columns."""
    return isinstance(value, dict) and {"columns", "rows"} <= value.keys()


def _level(sizes: list[int], over: int, floor: int) -> int:
    """The largest length L (at least `floor`) such that cutting every size above L down to
    L removes at least `over`; `floor` when nothing less does."""
    ordered = sorted((s for s in sizes if s > floor), reverse=True)
    removed = 0
    for n, size in enumerate(ordered):
        following = ordered[n + 1] if n + 1 < len(ordered) else floor
        step = (size - following) * (n + 1)  # the top n+1 lowered from `size` to `following`
        if removed + step >= over:
            return size - -(-(over - removed) // (n + 1))
        removed += step
    return floor


def _shorten(place: _Place, level: int) -> None:
    holder, page = place.holder, place.page
    key = place.key if page is None else page["columns"].index(place.column)
    value = holder[key]  # type: ignore[index]
    if len(value) > level:
        holder[key] = value[:level]  # type: ignore[index]
    if key == "body" and isinstance(holder, dict) and "body_truncated" in holder:
        holder["body_truncated"] = True
    elif page is not None and place.column == "body":
        _cut_body_in_columns(page, holder)


def _cut_body_in_columns(page: dict[str, Any], row: Any) -> None:
    """A body cut in `row` of a page in columns: the row's `body_truncated` set; a value
    that `same` held for every row goes back among the columns first, after `body`."""
    columns: list[str] = page["columns"]
    same: dict[str, Any] = page.get("same", {})
    if "body_truncated" in same:
        value = same.pop("body_truncated")
        if not same:
            del page["same"]
        at = columns.index("body") + 1
        columns.insert(at, "body_truncated")
        for cells in page["rows"]:
            cells.insert(at, value)
    if "body_truncated" in columns:
        row[columns.index("body_truncated")] = True


def _warn(data: dict[str, Any], size: int, limit: int, notes: list[str]) -> None:
    warning = (
        f"this answer was {size:,} characters, over the {limit:,} limit of one answer: "
        + "; ".join(notes)
        + ". Ask for less (a smaller limit, fields=brief, max_body_chars) to see it whole."
    )
    guidance = data.get("guidance")
    if isinstance(guidance, dict):
        guidance["warnings"] = [*guidance.get("warnings", []), warning]
