"""The change feed alone: steps, putting a state back, forgetting old steps, waking waiters."""

from __future__ import annotations

import threading

from storage.feed import ChangeFeed
from storage.model import Task
from storage.table import FileResult


def held(path: str, title: str) -> FileResult:
    return FileResult.of(path, (1, 1), Task(id=path[0], title=title, path=path))


def test_the_earliest_prior_of_a_path_puts_back_the_state_at_a_step() -> None:
    feed, now = ChangeFeed(), {"a.md": held("a.md", "two")}
    feed.note("a.md", held("a.md", "one"))
    feed.close_step(now.get)
    feed.note("a.md", now["a.md"])
    now["a.md"] = held("a.md", "three")
    feed.close_step(now.get)
    assert feed.seq == 2
    assert feed.since(0) == {"a.md": held("a.md", "one")}
    assert feed.between(1, 2) == {"a.md": held("a.md", "two")}
    assert feed.since(2) == {}


def test_a_step_that_changes_no_content_is_no_step() -> None:
    feed = ChangeFeed()
    feed.note("a.md", held("a.md", "same"))
    assert feed.close_step(lambda path: held(path, "same")) == 0


def test_old_steps_are_forgotten_and_cannot_be_put_back() -> None:
    feed = ChangeFeed(max_steps=2)
    for n in range(4):
        feed.note("a.md", held("a.md", str(n)))
        feed.close_step({"a.md": held("a.md", str(n + 1))}.get)
    assert (feed.oldest, feed.seq) == (2, 4)
    assert feed.since(1) is None and feed.since(2) is not None
    assert feed.between(3, 2) is None


def test_a_waiter_wakes_on_a_new_step() -> None:
    feed = ChangeFeed()
    woke: list[bool] = []
    waiter = threading.Thread(target=lambda: woke.append(feed.wait(0, 60)))
    waiter.start()
    feed.note("a.md", None)
    feed.close_step(lambda path: held(path, "new"))
    waiter.join()
    assert woke == [True]
    assert feed.wait(feed.seq, 0) is False
