"""The one rule for an open checklist item: a list line whose box is unticked (`- [ ] x`).

`complete_task` refuses while a body has one, and the scoring factors count one as
acceptance criteria. The scan reads only the lines that hold an open box, each once: linear
in the body's length whatever it holds (a regex with `^\\s*` over a multi-line body is
quadratic in its blank lines).

>>> open_checklist_items("Intro\\n- [x] done\\n  * [ ] write docs\\n1. [ ] ship\\n")
['write docs', 'ship']
>>> has_open_checklist_item("a [ ] in prose is not a checkbox")
False
"""

from __future__ import annotations

import re

__all__ = ["has_open_checklist_item", "open_checklist_items"]

_OPEN_BOX = "[ ]"
# One line (never across lines): indent, a bullet or ordered-list marker, the open box, then
# the item's text (which may be empty).
_OPEN_LINE = re.compile(r"[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+\[ \](?:[ \t]+(.*?))?\r?")


def open_checklist_items(body: str) -> list[str]:
    """The text of every open checklist item of `body`, in order (empty text kept as '').

    Only the lines holding an open box are looked at; each character is visited a bounded
    number of times.
    """
    items = []
    at = body.find(_OPEN_BOX)
    while at != -1:
        start = body.rfind("\n", 0, at) + 1
        end = body.find("\n", at)
        end = len(body) if end == -1 else end
        found = _OPEN_LINE.fullmatch(body, start, end)
        if found is not None:
            items.append((found.group(1) or "").strip())
        at = body.find(_OPEN_BOX, end)
    return items


def has_open_checklist_item(body: str) -> bool:
    """True when `body` has at least one open checklist item."""
    return bool(open_checklist_items(body))
