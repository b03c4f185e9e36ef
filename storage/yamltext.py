"""Writing YAML values as text, one key at a time, so that any YAML reader reads them back
as the same value: ours (YAML 1.2) and PyYAML (YAML 1.1, used by python-frontmatter).

Reading goes line by line too: `lines_of` cuts where YAML breaks lines (never at U+2028), and
`line_key` names the key of a top-level `key:` line, however it is quoted.

A string is written plain only when no reader could take it for anything else; otherwise it is
double-quoted, with every character a reader or a line splitter could trip on escaped
(controls, U+0085, U+2028, U+2029, a BOM, non-characters), so a written value is always on
one line and every written line is printable:

>>> scalar("no"), scalar("0123"), scalar("0b101"), scalar("2024-01-01"), scalar("plain title")
('"no"', '"0123"', '"0b101"', '"2024-01-01"', 'plain title')
>>> scalar("a\\u2028b"), scalar(1e20), scalar(float("inf"))
('"a\\\\Lb"', '1.0e+20', '.inf')
>>> flow_list(["a", "b c", "12:30"])
'[a, b c, "12:30"]'
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from datetime import date, datetime

import yaml_rs  # loaded with the module, on the importing thread: see storage/frontmatter.py

from storage.errors import StorageError

__all__ = [
    "Unrepresentable",
    "block_list",
    "check_encodable",
    "flow_list",
    "is_blank",
    "key_lines",
    "key_text",
    "line_key",
    "lines_of",
    "raw_values",
    "scalar",
]


class Unrepresentable(StorageError):
    """A value no UTF-8 task file can hold (a lone surrogate), or a task that would not read
    back as written: refused before anything is written."""


_PLAIN = re.compile(r"[A-Za-z0-9_/][A-Za-z0-9 _./()+'!?&@$%=-]*")
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")
_YAML_WORDS = frozenset(
    ["y", "n", "yes", "no", "on", "off", "true", "false", "null", "~", "nan", "inf"]
)
# A string starting with a digit may be a number or a date to some reader (0b101, 0x1F, 1e3,
# 1_000, 2024-01-01 10:00:00); it is plain only with a character no number or date holds.
_NEVER_IN_NUMBERS = re.compile(r"[g-np-su-wyG-NP-SU-WY/()!?&@$%=']")
_ESCAPED = re.compile('["\\\\\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]')
_NAMED_ESCAPES = {
    '"': '\\"', "\\": "\\\\", "\x00": "\\0", "\t": "\\t", "\n": "\\n", "\r": "\\r",
    "\x85": "\\N", "\u2028": "\\L", "\u2029": "\\P",
}  # fmt: skip
_SURROGATE = re.compile("[\ud800-\udfff]")


def scalar(value: object) -> str:
    """One YAML value as text on one line (nested data in flow style)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{scalar(k)}: {scalar(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return flow_list(value)
    return _string(str(value))


def _float(value: float) -> str:
    """YAML 1.1 wants a dot before an exponent (`1.0e+20`, not `1e+20`) and `.inf`."""
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    text = repr(value)
    mantissa, exponent = text.split("e") if "e" in text else (text, "")
    if "." not in mantissa:
        mantissa += ".0"
    return f"{mantissa}e{exponent}" if exponent else mantissa


def _string(text: str) -> str:
    return text if _is_plain(text) else _quoted(text)


def _is_plain(text: str) -> bool:
    if not _PLAIN.fullmatch(text) or text.endswith(" ") or text.lower() in _YAML_WORDS:
        return False
    return not text[0].isdigit() or _NEVER_IN_NUMBERS.search(text) is not None


def _quoted(text: str) -> str:
    return '"' + _ESCAPED.sub(_escape, text) + '"'


def _escape(found: re.Match[str]) -> str:
    char = found.group()
    named = _NAMED_ESCAPES.get(char)
    if named is not None:
        return named
    code = ord(char)
    if 0xD800 <= code <= 0xDFFF:
        raise Unrepresentable(f"a lone surrogate U+{code:04X} cannot be written as UTF-8")
    return f"\\x{code:02X}" if code < 0x100 else f"\\u{code:04X}"


def check_encodable(text: str, what: str) -> None:
    """Raise Unrepresentable when `text` holds a lone surrogate (UTF-8 cannot hold one)."""
    found = _SURROGATE.search(text)
    if found is not None:
        raise Unrepresentable(
            f"{what} holds a lone surrogate U+{ord(found.group()):04X} at character "
            f"{found.start()}, which UTF-8 cannot hold"
        )


def key_text(key: object) -> str:
    """A mapping key as YAML text: plain when safe, else double-quoted."""
    if isinstance(key, str) and _PLAIN_KEY.fullmatch(key) and key.lower() not in _YAML_WORDS:
        return key
    return scalar(key)


def flow_list(items: Sequence[object]) -> str:
    return "[" + ", ".join(scalar(item) for item in items) + "]"


def block_list(items: Sequence[object], indent: str, newline: str) -> str:
    return "".join(f"{indent}- {scalar(item)}{newline}" for item in items)


def key_lines(key: object, value: object, newline: str, *, block_indent: str | None = None) -> str:
    """The full text of `key: value`, ending with `newline`.

    Lists are written in flow style, or in block style with `block_indent` before each
    `- ` when the key was written that way before (so an edit keeps the file's style).
    Raises Unrepresentable, naming the key, for a value UTF-8 cannot hold.
    """
    try:
        name = key_text(key)
        if isinstance(value, list | tuple):
            if block_indent is not None and value:
                return f"{name}:{newline}{block_list(value, block_indent, newline)}"
            return f"{name}: {flow_list(value)}{newline}"
        return f"{name}: {scalar(value)}{newline}"
    except Unrepresentable as exc:
        raise Unrepresentable(f"{key!r}: {exc}") from None


# --- reading lines -----------------------------------------------------------------------

# A top-level `key:` line: a double-quoted, single-quoted or plain key, then the colon.
_KEY_LINE = re.compile(
    r"""(?:"((?:[^"\\\r\n]|\\.)*)"|'((?:[^'\r\n]|'')*)'|([^ \t\r\n"'#:-][^"':\r\n]*?))"""
    r"""[ \t]*:(?:[ \t]|\r?\n?$)"""
)
_RAW_VALUE = re.compile(r"[ \t]*(.*?)(?:[ \t]+#.*)?\r?\n?$")
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")


def lines_of(text: str) -> list[str]:
    """`text` cut into lines where YAML breaks them (\\n, \\r\\n, a lone \\r), each with its
    ending; unlike `str.splitlines`, a U+2028, U+0085 or form feed never cuts a line.

    >>> lines_of("a: x\\u2028b: y\\r\\nc: z")
    ['a: x\\u2028b: y\\r\\n', 'c: z']
    """
    return _LINE.findall(text)


def is_blank(line: str) -> bool:
    """Blank as YAML sees it: spaces and tabs only (a U+2028 or form feed is content)."""
    return not line.strip(" \t\r\n")


def line_key(line: str) -> str | None:
    """The key a top-level `key: ...` line names, its quoting undone; None for other lines.

    >>> line_key('"a\\\\u2028b": 1'), line_key("'it''s': 2"), line_key("- item")
    ('a\\u2028b', "it's", None)
    """
    found = _KEY_LINE.match(line)
    return None if found is None else _key_of(found)


def _key_of(found: re.Match[str]) -> str:
    double, single, plain = found.groups()
    if plain is not None:
        return plain
    if single is not None:
        return single.replace("''", "'")
    try:
        key = yaml_rs.loads(f'"{double}"')
    except yaml_rs.YAMLDecodeError:
        return double
    return key if isinstance(key, str) else double


def raw_values(front: str) -> dict[str, str]:
    """The text after `key:` on each top-level line (first one wins), comments left out:
    the value as written, for strings a YAML reader re-typed (`id: 0123`)."""
    values: dict[str, str] = {}
    for line in lines_of(front):
        found = _KEY_LINE.match(line)
        if found:
            value = _RAW_VALUE.match(line, found.end())
            values.setdefault(_key_of(found), value.group(1) if value else "")
    return values
