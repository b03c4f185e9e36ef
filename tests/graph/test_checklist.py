"""The open-checklist scan finds exactly the items a line-by-line reading finds."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from graph.checklist import open_checklist_items
from tests.conftest import examples

PIECES = ["\n", "\r\n", " ", "\t", "-", "*", "+", "1", "12.", ")", "[", "]", "[ ]", "[x]", "a"]
bodies = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)
LINE = re.compile(r"[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+\[ \](?:[ \t]+(.*))?")


def by_lines(body: str) -> list[str]:
    """The reference reading: every line on its own, its line ending dropped."""
    items = []
    for line in body.split("\n"):
        found = LINE.fullmatch(line.removesuffix("\r"))
        if found is not None:
            items.append((found.group(1) or "").strip())
    return items


@settings(max_examples=examples(500))
@given(bodies)
def test_the_scan_finds_what_reading_line_by_line_finds(body: str) -> None:
    assert open_checklist_items(body) == by_lines(body)


def test_an_item_after_forty_thousand_blank_lines_is_found() -> None:
    assert open_checklist_items("\n" * 40_000 + "  - [ ] last\n") == ["last"]
