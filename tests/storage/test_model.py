"""The task record: a packed body reads back exactly as it was given."""

from __future__ import annotations

import zlib

from hypothesis import given, settings
from hypothesis import strategies as st

from storage.model import Task, pack_text, unpack_text
from tests.conftest import examples

ANY_TEXT = st.text(st.characters(codec=None, categories=None), max_size=3000)  # surrogates too


@given(ANY_TEXT)
@settings(max_examples=examples(1000))
def test_any_text_packed_unpacks_to_exactly_itself(text: str) -> None:
    assert unpack_text(pack_text(text)) == text


def test_a_tasks_body_reads_back_as_given_in_about_half_the_bytes() -> None:
    body = "## Acceptance criteria\r\n- [ ] the parser reads CRLF\r\n" * 20 + "é \udc80"
    task = Task(id="a", title="A", path="a.md", packed_body=pack_text(body))
    assert task.body == body
    assert len(task.packed_body) < len(body.encode("utf-8", "surrogatepass")) / 2


def test_an_empty_body_packs_to_no_bytes() -> None:
    assert pack_text("") == b"" and Task(id="a", title="A", path="a.md").body == ""


def test_bodies_packed_differently_but_reading_the_same_are_the_same_body() -> None:
    body = "notes " * 40
    other_level = zlib.compressobj(0, zlib.DEFLATED, -15)  # stored, not deflated
    repacked = other_level.compress(body.encode()) + other_level.flush()
    a = Task(id="a", title="A", path="a.md", packed_body=pack_text(body))
    b = Task(id="a", title="A", path="a.md", packed_body=repacked)
    assert a.packed_body != b.packed_body and a.same_body(b)
    assert not a.same_body(Task(id="a", title="A", path="a.md", packed_body=pack_text("x")))
