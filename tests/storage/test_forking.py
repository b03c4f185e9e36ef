"""A forked child answers with what it wrote, or nothing when its work failed; no fork is
made beside another thread (the child would inherit the locks that thread holds)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import BinaryIO

from bench.procs import children
from storage.forking import Child, fork_writing, may_fork


def forked(write: Callable[[BinaryIO], object]) -> Child:
    child = fork_writing(write)
    assert child is not None
    return child


def test_a_childs_answer_is_what_it_wrote_and_the_child_is_gone_after() -> None:
    before = children()
    with forked(lambda out: out.write(b"x" * 200_000)) as child:
        assert child.answer() == b"x" * 200_000  # more than a pipe holds
    assert children() == before


def test_a_child_whose_work_fails_answers_nothing() -> None:
    def fails(out: BinaryIO) -> None:
        out.write(b"half an answer")
        raise RuntimeError("the work fails")

    with forked(fails) as child:
        assert child.answer() is None


def test_no_fork_is_made_while_another_thread_runs() -> None:
    release = threading.Event()
    thread = threading.Thread(target=release.wait)
    thread.start()
    try:
        assert not may_fork() and not may_fork(core_of_its_own=True)
    finally:
        release.set()
        thread.join()
