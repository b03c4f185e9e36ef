"""The task record: a packed body reads back exactly as it was given."""

from __future__ import annotations

import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import zstandard
from hypothesis import given, settings
from hypothesis import strategies as st

from storage.model import Task, ids_pooled, pack_text, share_strings, unpack_text
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
    repacked = zstandard.ZstdCompressor(level=19, write_checksum=True).compress(body.encode())
    a = Task(id="a", title="A", path="a.md", packed_body=pack_text(body))
    b = Task(id="a", title="A", path="a.md", packed_body=repacked)
    assert a.packed_body != b.packed_body and a.same_body(b)
    assert not a.same_body(Task(id="a", title="A", path="a.md", packed_body=pack_text("x")))


def test_bodies_packed_and_unpacked_on_many_threads_at_once_read_back_exactly() -> None:
    """Each thread has its own zstd contexts; a body packed on one unpacks on another."""
    bodies = [f"- [ ] step {n} of thread work\n" * (n % 7 + 1) for n in range(400)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        packed = list(pool.map(pack_text, bodies))
        unpacked = list(pool.map(unpack_text, reversed(packed)))
    assert unpacked == bodies[::-1]


def test_ids_are_pooled_only_inside_a_load_and_only_in_its_thread() -> None:
    def fresh(task_id: str) -> Task:
        return share_strings(Task("".join(task_id), "T", "t.md"))

    seen: list[str] = []
    with ids_pooled():
        first = fresh("pooled-1")
        worker = threading.Thread(target=lambda: seen.append(fresh("pooled-1").id))
        worker.start()
        worker.join()
        assert fresh("pooled-1").id is first.id
    assert seen[0] is sys.intern("pooled-1")  # the other thread had no pool: interned
    assert first.id is not sys.intern("pooled-1")  # the pool's own object, not the table's
    assert fresh("pooled-2").id is sys.intern("pooled-2")
