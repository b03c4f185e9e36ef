"""The warm-start cache a load writes, put off until the first answer is out.

A start that read files writes the cache (and the index's facts beside it) for the next
start: at 10k files about 0.1 s, all of it after the tree is ready to answer. A serving
tree (`LiveTree(save_later=True)`) hands that write to a thread that begins a moment after
the first call has finished, so the first answer does not wait for it. The cache is best
effort and never fsynced (`storage.cache`): a process that ends before the write only
means the next start reads every file, as one without a cache does. Task files are never
touched here.

The facts are taken from the index only while no change has been applied to it
(`still_as_loaded`), under the tree's lock: an edited index keeps its records in another
order, and a change applied meanwhile would make them another tree's. The cache itself is
the files as the load read them, each under its own stamp, so it stays right whatever
happened since: the next start re-reads what changed.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from graph.index import TaskIndex
from storage import cache
from storage.bulk import give_back_free_memory, one_c_heap
from storage.table import FileResult

__all__ = ["AFTER_SECONDS", "CacheSave", "LaterSave"]

log = logging.getLogger(__name__)

AFTER_SECONDS = 0.1
"""How long after the first call finishes the write begins: the first answer is then
serialised and sent without sharing the interpreter with it."""


@dataclass(frozen=True, slots=True)
class CacheSave:
    """What a load leaves to write: the cache of `results` (when `results` is not None) and
    the facts of `index` beside it, or only the facts beside the cache named `token`."""

    root: Path
    index: TaskIndex
    results: Sequence[FileResult] | None = None
    token: str = ""

    def run(self, facts_of: Callable[[TaskIndex], bytes | None]) -> None:
        """Write it; `facts_of` gives the index's facts, or None when they no longer fit."""
        token = self.token
        if self.results is not None:
            token = cache.new_token()
            try:
                cache.save(self.root, self.results, token)
            except OSError as exc:
                log.warning("could not write the index cache: %s", exc)
                return
        facts = facts_of(self.index)
        if facts is None:
            return
        try:
            cache.save_facts(self.root, token, facts)
        except OSError as exc:
            log.warning("could not write the index facts: %s", exc)


def facts_now(index: TaskIndex) -> bytes | None:
    """The facts of an index just built (none for a tree with a cycle)."""
    return index.saved_facts()


class LaterSave:
    """A `CacheSave` begun by a thread after the first call, or at close if none came."""

    def __init__(
        self,
        save: CacheSave,
        lock: threading.RLock,
        still_as_loaded: Callable[[], bool],
        after: float = AFTER_SECONDS,
    ) -> None:
        self._save: CacheSave | None = save
        self._lock = lock
        self._as_loaded = still_as_loaded
        self._after = after
        self._thread: threading.Thread | None = None
        self._now = threading.Event()  # set by `finish`: no more waiting
        one_c_heap()  # threads started from now on (this write's too) keep no heap of their own

    def _facts(self, index: TaskIndex) -> bytes | None:
        with self._lock:
            return index.saved_facts() if self._as_loaded() else None

    def _write(self, save: CacheSave) -> None:
        self._now.wait(self._after)
        save.run(self._facts)
        give_back_free_memory()  # the lines' buffers

    def begin(self) -> None:
        """Start the write in a thread, `after` seconds from now (once; later calls do
        nothing)."""
        save, self._save = self._save, None
        if save is not None:
            self._thread = threading.Thread(
                target=self._write, args=(save,), name="cache-save", daemon=True
            )
            self._thread.start()

    def finish(self) -> None:
        """Return once the write is done: at once if it has not begun, else the thread's."""
        self._now.set()
        save, self._save = self._save, None
        if save is not None:
            save.run(self._facts)
        elif self._thread is not None:
            self._thread.join()
