"""What a markdown text leaves open at its end: a fenced code block or an HTML comment.

Text appended after an open fence renders as code, and after an open comment not at all:
`add_note` closes what a body left open before its `## Notes` heading, and what a note
left open at the note's end, so a later note always renders as a note. The rules are
CommonMark's: a fence is three or more backticks or tildes, indented at most three spaces
(a backtick fence's info string holds no backtick), closed by a line of at least as many
of the same character and nothing else; a comment block is a line starting `<!--` (indented
at most three spaces), closed by the first line holding `-->`.

>>> closers("Plan.\\n\\n```python\\nx = 1\\n")
['```']
>>> closers("~~~~\\n~~~\\n"), closers("<!-- hidden\\n"), closers("```\\n```\\n")
(['~~~~'], ['-->'], [])
"""

from __future__ import annotations

import re

__all__ = ["closers"]

_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")
_COMMENT = re.compile(r" {0,3}<!--")
_IN_COMMENT = "<!--"


def _opening(line: str) -> str | None:
    """The block `line` opens: a fence's marker, `<!--` for a comment left open, or None."""
    fence = _FENCE.fullmatch(line)
    if fence is not None and not (fence[1][0] == "`" and "`" in fence[2]):
        return fence[1]
    if _COMMENT.match(line) and "-->" not in line.split("<!--", 1)[1]:
        return _IN_COMMENT
    return None


def _closes(line: str, state: str) -> bool:
    """True when `line` closes the open block `state`."""
    if state == _IN_COMMENT:
        return "-->" in line
    fence = _FENCE.fullmatch(line)
    return (
        fence is not None
        and fence[1][0] == state[0]
        and len(fence[1]) >= len(state)
        and not fence[2].strip()
    )


def closers(text: str) -> list[str]:
    """The lines that close what `text` leaves open at its end (none, or one)."""
    state: str | None = None
    for line in text.splitlines():
        if state is None:
            state = _opening(line)
        elif _closes(line, state):
            state = None
    if state is None:
        return []
    return ["-->"] if state == _IN_COMMENT else [state]
