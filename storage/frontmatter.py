"""A task file's frontmatter: the text cut into its pieces, and the YAML read as a mapping.

`split` cuts a file's text into a BOM, the opening `---` line, the frontmatter's YAML, the
closing line (`---` or `...`) and the body, keeping every byte (`Parts.join` gives the text
back). `parse_front` reads the YAML as a mapping: YAML 1.2, safe, aliases and nesting
limited, no duplicate keys, a NUL refused. What the keys mean as a task is `codec.py`'s job.

>>> parts = split("---\\nid: t-1\\ntags: [a, b]\\n---\\nBody\\n")
>>> parts.front, parts.body
('id: t-1\\ntags: [a, b]\\n', 'Body\\n')
>>> parse_front(parts)
{'id': 't-1', 'tags': ['a', 'b']}
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

# Loaded here, with this module, on the thread that imports it (every entry point's main
# thread), never lazily on a worker. yaml_rs 0.1.6 is built with mimalloc, which takes the
# thread that loads it for the process's main thread: once that thread ends, the next parse
# on any other thread segfaults. A warm start parses no file, so its first parse was a
# re-read on an anyio worker thread, and the worker threads expire after 10 s idle.
import yaml_rs

from storage.errors import NotATask, ParseError
from storage.nesting import check_indicators, check_nesting

__all__ = ["BOM", "Parts", "parse_front", "split"]

BOM = "\ufeff"

_CLOSING = re.compile(r"(?:---|\.\.\.)[ \t]*\r?$", re.MULTILINE)  # matched at a line start


@dataclass(frozen=True, slots=True)
class Parts:
    """A task file cut into its pieces; joining them gives the text back unchanged."""

    bom: str
    opening: str  # the first `---` line with its line ending
    front: str  # the YAML text, every line with its line ending
    closing: str  # the closing `---` line with its line ending ('' at end of file)
    body: str
    newline: str

    def join(self) -> str:
        return self.bom + self.opening + self.front + self.closing + self.body


def split(text: str, path: str = "") -> Parts:
    """Cut a file's text into BOM, frontmatter and body; ParseError when there is none."""
    bom = BOM if text.startswith(BOM) else ""
    rest = text[len(bom) :]
    first_end = rest.find("\n") + 1 or len(rest)
    if rest[:first_end].rstrip() != "---":
        raise NotATask(path, "no frontmatter (file does not start with '---')")
    closing = _find_closing(rest, first_end)
    if closing is None:
        raise ParseError(path, "frontmatter is not closed (no second '---' line)")
    close_end = (
        closing.end() + 1 if rest[closing.end() : closing.end() + 1] == "\n" else closing.end()
    )
    newline = "\r\n" if rest[:first_end].endswith("\r\n") else "\n"
    return Parts(
        bom, rest[:first_end], rest[first_end : closing.start()],
        rest[closing.start() : close_end], rest[close_end:], newline,
    )  # fmt: skip


def _find_closing(rest: str, start: int) -> re.Match[str] | None:
    """The first closing line (`---` or `...`) at or after the line starting at `start`:
    `str.find` proposes lines, the pattern only confirms (4x faster than a regex search)."""
    at = start
    while True:
        found = _CLOSING.match(rest, at)
        if found is not None:
            return found
        dashes = rest.find("\n---", at)
        dots = rest.find("\n...", at, len(rest) if dashes < 0 else dashes)
        if dashes < 0 and dots < 0:
            return None
        at = (dots if dots >= 0 else dashes) + 1


_ALIAS_LIMITS = yaml_rs.AliasLimits(max_total_replayed_events=10_000, max_replay_stack_depth=16)
"""How far the YAML library replays aliases (a billion laughs stops here)."""


def parse_front(parts: Parts, path: str = "") -> dict[str, Any]:
    """The frontmatter as a mapping (YAML 1.2, safe, alias-limited, no duplicate keys).
    A NUL is refused: the YAML library would take it for the end of the text."""
    if "\x00" in parts.front:
        line = parts.front.count("\n", 0, parts.front.index("\x00")) + 2
        raise ParseError(path, f"a NUL character in the frontmatter (line {line})")
    check_indicators(parts.front, path)
    try:
        data = yaml_rs.loads(parts.front, parse_datetime=False, alias_limits=_ALIAS_LIMITS)
    except yaml_rs.YAMLDecodeError as exc:
        raise ParseError(path, f"invalid YAML in frontmatter: {_first_line(str(exc))}") from exc
    except TypeError as exc:  # a complex key (`? {a: 1}`) cannot key a Python dict
        raise ParseError(path, f"frontmatter has a key that is not a scalar: {exc}") from exc
    except RecursionError as exc:
        raise ParseError(path, "frontmatter nested too deep to read") from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ParseError(path, f"frontmatter is a YAML {type(data).__name__}, not a mapping")
    check_nesting(data, parts.front, path)
    return data


def _first_line(message: str) -> str:
    return message.strip().splitlines()[0] if message.strip() else "unknown error"
