"""Limits on how deep anything read from disk may nest, so no file can make a reader (or
anything that later walks what it read: the cache, the YAML writer, a JSON answer) recurse
without bound. Each check is iterative and raises the caller's own error kind.
"""

from __future__ import annotations

import json
from typing import Any

from storage.errors import ParseError
from storage.yamltext import line_key, lines_of

__all__ = [
    "JSON_NESTING",
    "MAX_NESTING",
    "TooDeep",
    "check_indicators",
    "check_nesting",
    "json_loads",
]

JSON_NESTING = 64
"""How deep a JSON file of ours (a bot's instructions, a workflow state, an import line)
may nest."""


class TooDeep(ValueError):
    """JSON nested deeper than allowed."""


def depth_over(value: object, limit: int) -> bool:
    """True when `value` (lists and dicts) nests deeper than `limit` levels."""
    pending: list[tuple[object, int]] = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        pending.extend((child, depth + 1) for child in children)
    return False


def json_loads(text: str | bytes, limit: int = JSON_NESTING) -> Any:
    """`json.loads`, but TooDeep (never RecursionError) past `limit` levels; a bad text is
    json.JSONDecodeError as usual."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise TooDeep(f"nested deeper than {limit} levels") from None
    if depth_over(value, limit):
        raise TooDeep(f"nested deeper than {limit} levels")
    return value


MAX_NESTING = 32
"""How deep a frontmatter value may nest (lists in lists, maps in maps): deeper, the file is
a load problem, so nothing that walks the value (the cache, the writer, a JSON answer)
can recurse without bound."""


_INDICATOR_LIMIT = 1000
_INDICATORS = ("- ", "? ", ": ")
_SHORT_LINE = _INDICATOR_LIMIT * 2 // 3 - 2
"""A line this long or shorter (its ending left out) cannot open `_INDICATOR_LIMIT` levels:
its indent and marks are at most its length, and the check adds half of that again."""
_NESTED = (list, dict)
_NOT_NESTED = frozenset((str, int, float, bool, type(None)))


def check_indicators(front: str, path: str) -> None:
    """ParseError for a line that could open more than _INDICATOR_LIMIT levels (its indent
    and its `- `, `? `, `: ` marks): the YAML library's parser recurses once a level and
    ends the process (not an exception) past about 20,000 of them."""
    if _all_lines_short(front):
        return  # nearly every front: one split in C instead of a look at each line
    for number, line in enumerate(lines_of(front), 1):
        bound = len(line) - len(line.lstrip(" "))
        if bound + len(line) // 2 <= _INDICATOR_LIMIT:
            continue  # too short to hold that many
        bound += sum(line.count(mark) for mark in _INDICATORS)
        if bound > _INDICATOR_LIMIT:
            raise ParseError(
                path,
                f"a line opens over {_INDICATOR_LIMIT} levels of nesting"
                f" (YAML parse error at line {number})",
            )


def _all_lines_short(front: str) -> bool:
    """True when no line of `front` (cut where YAML cuts: \\n, \\r\\n, a lone \\r) is
    longer than `_SHORT_LINE`."""
    if len(front) <= _SHORT_LINE:
        return True
    return max(map(len, front.replace("\r", "\n").split("\n"))) <= _SHORT_LINE


def _is_flat(value: object) -> bool:
    """True for a list of scalars (tags, ids): one level, told by the items' types in C."""
    return type(value) is list and _NOT_NESTED.issuperset(map(type, value))


def check_nesting(data: dict[str, Any], front: str, path: str) -> None:
    """ParseError naming the key (and its line) whose value nests past MAX_NESTING."""
    for key, value in data.items():
        if isinstance(value, _NESTED) and not _is_flat(value) and depth_over(value, MAX_NESTING):
            lines = lines_of(front)
            line = next((n for n, t in enumerate(lines, 1) if line_key(t) == key), 1)
            raise ParseError(
                path,
                f"the value of {str(key)[:40]!r} nests deeper than {MAX_NESTING} levels"
                f" (YAML parse error at line {line})",
            )
