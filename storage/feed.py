"""The change feed: what each file held before each change the file table took, kept for a
while, so any recent state of the tree can be put back from the table as it is now.

Every change of the table (a refresh, a tool's own write, a rebuild) is one step: the paths
whose content (task or problem) changed, each with what it held before the step (None: no
file). Steps are numbered from 0 (the load); `seq` is the newest. The state at step `s` is
the table with the paths changed after `s` put back as they were (`since(s)`): its cost is
the change, never the tree or the history.

The feed keeps at most `max_steps` steps and `max_paths` remembered paths in all; older steps
are forgotten (`oldest` moves on) and a state before them can no longer be put back. A new
step wakes every thread in `wait` (a tool waiting for changes).

>>> from storage.model import Task
>>> from storage.table import FileResult
>>> feed = ChangeFeed()
>>> feed.note("a.md", None)  # a new file, about to be put in the table
>>> feed.close_step(lambda path: FileResult.of(path, (1, 1), Task(id="a", title="A", path=path)))
1
>>> feed.since(0), feed.since(1)
({'a.md': None}, {})
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable

from storage.table import FileResult

__all__ = ["MAX_PATHS", "MAX_STEPS", "ChangeFeed", "Step"]

Step = dict[str, FileResult | None]
"""The paths one step changed, each with what it held before the step (None: no file)."""

MAX_STEPS = 100_000
MAX_PATHS = 200_000


class ChangeFeed:
    """The recent steps of one file table, newest last."""

    def __init__(self, *, max_steps: int = MAX_STEPS, max_paths: int = MAX_PATHS) -> None:
        self._steps: deque[Step] = deque()
        self._oldest = 0
        self._pending: Step = {}
        self._kept_paths = 0
        self._max = (max_steps, max_paths)
        self._changed = threading.Condition()

    @property
    def seq(self) -> int:
        """The newest step's number (0: the state the tree was loaded in)."""
        return self._oldest + len(self._steps)

    @property
    def oldest(self) -> int:
        """The oldest step whose state can still be put back."""
        return self._oldest

    def note(self, path: str, prior: FileResult | None) -> None:
        """`path` is about to change; `prior` is what it holds now (kept: the first word)."""
        self._pending.setdefault(path, prior)

    def close_step(self, now: Callable[[str], FileResult | None]) -> int:
        """End the step of the paths noted since the last one: those whose content differs
        from `now` (what each path holds after the step) become a new step. The new `seq`."""
        if not self._pending:
            return self.seq
        # At the first change, not at start: the states pull in git's history and blobs.
        from storage.states import same_content  # noqa: PLC0415

        step = {p: r for p, r in self._pending.items() if not same_content(r, now(p))}
        self._pending = {}
        if step:
            with self._changed:
                self._steps.append(step)
                self._kept_paths += len(step)
                self._forget_old()
                self._changed.notify_all()
        return self.seq

    def _forget_old(self) -> None:
        max_steps, max_paths = self._max
        while len(self._steps) > 1 and (
            len(self._steps) > max_steps or self._kept_paths > max_paths
        ):
            self._kept_paths -= len(self._steps.popleft())
            self._oldest += 1

    def between(self, start: int, stop: int) -> Step | None:
        """What the paths changed after step `start` up to step `stop` held at `start`
        (None: `start` is forgotten, or the steps are not in order)."""
        if not self._oldest <= start <= stop <= self.seq:
            return None
        found: Step = {}
        for index in range(start - self._oldest, stop - self._oldest):
            for path, prior in self._steps[index].items():
                found.setdefault(path, prior)
        return found

    def since(self, start: int) -> Step | None:
        """`between(start, seq)`: how to put back the state at `start` from the table now."""
        return self.between(start, self.seq)

    def wait(self, seen: int, timeout: float) -> bool:
        """Block until a step after `seen` exists (True) or `timeout` seconds pass."""
        with self._changed:
            return self._changed.wait_for(lambda: self.seq > seen, timeout)
