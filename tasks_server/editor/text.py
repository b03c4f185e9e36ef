"""Where things are in a task file's text: the frontmatter's lines, its keys, the ids it names.

Positions here are (line, column) counted in characters (code points) from 0; the server
converts them to the editor's units. The reading is by line, as a person writes the keys
(`key: value`, `key: [a, b]`, a block list of `- a` lines): it never needs the YAML to parse,
so a half-typed buffer still has its ids and keys.

>>> text = "---\\nid: t1\\ndepends_on: [a, 'b']\\nparent:\\n---\\nbody\\n"
>>> [(t.key, t.value, t.line, t.start) for t in id_tokens(text)]
[('id', 't1', 1, 4), ('depends_on', 'a', 2, 13), ('depends_on', 'b', 2, 17)]
>>> place_at(text, 3, 8)
Place(key='parent', prefix='', in_value=True)
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = [
    "ID_KEYS",
    "REFERENCE_KEYS",
    "Place",
    "Token",
    "front_end",
    "id_tokens",
    "line_of_key",
    "place_at",
    "token_at",
]

REFERENCE_KEYS = ("parent", "depends_on", "soft_depends_on")
ID_KEYS = ("id", *REFERENCE_KEYS)
_KEY = re.compile(r"([A-Za-z_][\w-]*)\s*:")
_WORD = re.compile(r"[^\s,\[\]{}'\"#]+")
_ITEM = re.compile(r"\s*-\s+")
MAX_LINES = 2000  # a frontmatter longer than this is not read for positions


@dataclass(frozen=True, slots=True)
class Token:
    """One value in the frontmatter: the key it belongs to, its text and where it is."""

    key: str
    value: str
    line: int
    start: int

    @property
    def end(self) -> int:
        return self.start + len(self.value)


@dataclass(frozen=True, slots=True)
class Place:
    """What the cursor is in: a key's value (`in_value`) or a key being typed, and the part
    of the word typed before the cursor."""

    key: str | None
    prefix: str
    in_value: bool


def _lines(text: str) -> list[str]:
    return text.split("\n", MAX_LINES + 1)[: MAX_LINES + 1]


def front_end(text: str) -> int | None:
    """The line of the closing `---` (the frontmatter is lines 1 to it); None when the text
    does not open with `---` or never closes it."""
    lines = _lines(text)
    if not lines or lines[0].rstrip("\r").lstrip("\ufeff") != "---":
        return None
    for number, line in enumerate(lines[1:], 1):
        if line.rstrip("\r") in ("---", "..."):
            return number
    return None


def _front(text: str) -> Iterator[tuple[int, str, str | None, int]]:
    """(line, text, the key it holds or continues, where its value starts) per front line."""
    end = front_end(text)
    lines = _lines(text)
    last = end if end is not None else len(lines)
    key: str | None = None
    for number in range(1, last):
        line = lines[number].rstrip("\r")
        found = _KEY.match(line)
        if found is not None:
            key = found.group(1)
            yield number, line, key, found.end()
        elif (item := _ITEM.match(line)) is not None and line[:1] in " -":
            yield number, line, key, item.end()
        else:
            yield number, line, None, len(line)


def id_tokens(text: str) -> list[Token]:
    """Every id the frontmatter names under `id`, `parent`, `depends_on`, `soft_depends_on`."""
    found: list[Token] = []
    for number, line, key, start in _front(text):
        if key not in ID_KEYS:
            continue
        value = line[start:].split(" #", 1)[0]
        found.extend(
            Token(key, m.group(), number, start + m.start()) for m in _WORD.finditer(value)
        )
    return found


def token_at(text: str, line: int, column: int) -> Token | None:
    """The id under the cursor (its end counts as on it)."""
    for token in id_tokens(text):
        if token.line == line and token.start <= column <= token.end:
            return token
    return None


def line_of_key(text: str, key: str) -> int | None:
    """The line where `key` is written in the frontmatter."""
    return next((n for n, line, k, _ in _front(text) if k == key and _KEY.match(line)), None)


def place_at(text: str, line: int, column: int) -> Place | None:
    """What is being typed at the cursor, in the frontmatter; None outside it."""
    for number, content, key, start in _front(text):
        if number != line:
            continue
        before = content[:column]
        word = re.search(r"[^\s,\[\]{}'\":]*$", before)
        prefix = word.group() if word else ""
        if key is None or column < start:
            return Place(None, prefix, in_value=False)
        return Place(key, prefix, in_value=True)
    end = front_end(text)
    if end is not None and 0 < line < end:  # a blank line inside the frontmatter
        return Place(None, "", in_value=False)
    return None
