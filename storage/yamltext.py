"""Writing YAML values as text, one key at a time, so that any YAML reader reads them back
as the same value.

Strings that a YAML 1.1 reader (PyYAML, and so python-frontmatter) would re-type are quoted:

>>> scalar("no"), scalar("0123"), scalar("2024-01-01"), scalar("plain title")
('"no"', '"0123"', '"2024-01-01"', 'plain title')
>>> flow_list(["a", "b c"])
'[a, b c]'
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from datetime import date, datetime

__all__ = ["block_list", "flow_list", "key_lines", "scalar"]

_PLAIN = re.compile(r"[A-Za-z0-9_/][A-Za-z0-9 _./()+'!?&@$%=-]*")
_YAML_WORDS = frozenset(
    ["y", "n", "yes", "no", "on", "off", "true", "false", "null", "~", "nan", "inf"]
)
_RETYPED = re.compile(
    r"[-+]?(\.?\d[\d_.]*([eE][-+]?\d+)?|0x[0-9a-fA-F_]+|0o[0-7_]+|\.inf|\.nan)"
    r"|\d{4}-\d\d?-\d\d?.*"
)


def scalar(value: object) -> str:
    """One YAML scalar (or JSON-style flow value for nested data) as text."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, Mapping | list | tuple):
        return json.dumps(value, ensure_ascii=False, default=str)
    return _string(str(value))


def _string(text: str) -> str:
    if _is_plain(text):
        return text
    return json.dumps(text, ensure_ascii=False)


def _is_plain(text: str) -> bool:
    return (
        bool(_PLAIN.fullmatch(text))
        and not text.endswith(" ")
        and text.lower() not in _YAML_WORDS
        and not _RETYPED.fullmatch(text)
    )


def flow_list(items: Sequence[object]) -> str:
    return "[" + ", ".join(scalar(item) for item in items) + "]"


def block_list(items: Sequence[object], indent: str, newline: str) -> str:
    return "".join(f"{indent}- {scalar(item)}{newline}" for item in items)


def key_lines(key: str, value: object, newline: str, *, block_indent: str | None = None) -> str:
    """The full text of `key: value`, ending with `newline`.

    Lists are written in flow style, or in block style with `block_indent` before each
    `- ` when the key was written that way before (so an edit keeps the file's style).
    """
    if isinstance(value, list | tuple):
        if block_indent is not None and value:
            return f"{key}:{newline}{block_list(value, block_indent, newline)}"
        return f"{key}: {flow_list(value)}{newline}"
    return f"{key}: {scalar(value)}{newline}"
