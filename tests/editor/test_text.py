"""Reading a task file's frontmatter by line: its ids, keys and what the cursor is in."""

from __future__ import annotations

from tasks_server.editor.text import Place, front_end, id_tokens, line_of_key, place_at

BLOCK = "---\nid: t\ndepends_on:\n  - a\n  - 'b'  # why\nstatus: active\n---\nparent: not-front\n"


def test_ids_in_a_block_list_are_found_with_their_places_and_comments_left_out() -> None:
    found = [(t.key, t.value, t.line, t.start) for t in id_tokens(BLOCK)]
    assert found == [("id", "t", 1, 4), ("depends_on", "a", 3, 4), ("depends_on", "b", 4, 5)]


def test_a_half_typed_frontmatter_still_has_its_ids() -> None:
    assert [t.value for t in id_tokens("---\nid: x\nparent: p\ndepends_on: [q, ")] == [
        "x",
        "p",
        "q",
    ]


def test_the_cursor_in_a_block_item_is_in_that_keys_value() -> None:
    assert place_at(BLOCK, 3, 5) == Place("depends_on", "a", in_value=True)
    assert place_at(BLOCK, 5, 3) == Place(None, "sta", in_value=False)
    assert place_at(BLOCK, 7, 3) is None  # the body


def test_text_without_frontmatter_has_no_places() -> None:
    assert front_end("# Title\n") is None
    assert place_at("# Title\n", 0, 1) is None and id_tokens("# Title\n") == []
    assert line_of_key(BLOCK, "status") == 5 and line_of_key(BLOCK, "nope") is None
