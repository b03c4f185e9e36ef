"""The one rule for an open checklist item: a list line whose box is unticked (`- [ ] x`).

`complete_task` refuses while a body has one, and the scoring factors count one as
acceptance criteria. The scan is one pass over the lines, linear in the body's length
whatever it holds (a regex with `^\\s*` over a multi-line body is quadratic in its blank
lines).

>>> open_checklist_items("Intro\\n- [x] done\\n  * [ ] write docs\\n1. [ ] ship\\n")
['write docs', 'ship']
>>> has_open_checklist_item("a [ ] in prose is not a checkbox")
False
"""

from __future__ import annotations

import re

__all__ = ["has_open_checklist_item", "open_checklist_items"]

_OPEN_BOX = "[ ]"
# On one line (never across lines): indent, a bullet or ordered-list marker, the open box,
# then the item's text (which may be empty).
_OPEN_LINE = re.compile(r"[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+\[ \](?:[ \t]+(.*))?")


def open_checklist_items(body: str) -> list[str]:
    """The text of every open checklist item of `body`, in order (empty text kept as '')."""
    if _OPEN_BOX not in body:
        return []
    items = []
    for line in body.split("\n"):
        found = _OPEN_LINE.fullmatch(line.rstrip("\r"))
        if found is not None:
            items.append((found.group(1) or "").strip())
    return items


def has_open_checklist_item(body: str) -> bool:
    """True when `body` has at least one open checklist item."""
    return bool(open_checklist_items(body))
