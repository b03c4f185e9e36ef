"""The live tree as an editor sees it: the files on disk, except those open in the editor,
which its buffers stand for while they are open.

`EditorTree` is the same `LiveTree` `serve` runs (one load, then kept fresh file by file by
the watcher), with one difference: a path open in the editor is read from its buffer, so a
change on disk to an open file (a `git checkout`, an agent's write) does not undo the typing,
and every other file changed on disk comes in as it does for `serve`. It also keeps what
completion needs at each keystroke without a pass over the tree: the ids in sorted order
and the tags with their counts, updated with every change the index takes.
"""

from __future__ import annotations

import bisect
from collections import Counter
from pathlib import Path

from graph.write_delta import WriteDelta
from storage.model import Task
from storage.reading import bytes_result
from storage.table import Delta, FileResult
from tasks_server.live import LiveTree
from tasks_server.roots import is_installed_example

__all__ = ["EditorTree"]


class EditorTree(LiveTree):
    """A live tree whose open files are their editor buffers."""

    def __init__(self, root: Path, *, watch: bool = True) -> None:
        self.buffers: dict[str, str] = {}
        self.sorted_ids: list[str] = []
        self.tags: Counter[str] = Counter()
        # Nothing, not even a cache, is written into the example inside an installed package.
        super().__init__(root, watch=watch, use_cache=not is_installed_example(root))
        self.sorted_ids = sorted(self.index.ids())
        for task in self.index.unordered_tasks():
            self.tags.update(task.tags)

    # --- the buffers ---------------------------------------------------------------------

    def relative(self, path: Path) -> str | None:
        """`path` under the root as the tree names it, when it is a task file; else None."""
        try:
            relative = path.resolve().relative_to(self.root).as_posix()
        except (ValueError, OSError, RuntimeError):
            return None
        return relative if self.repository.is_task_path(relative) else None

    def hold(self, relative: str, text: str) -> None:
        """The editor's buffer stands for the file at `relative` from now on; a buffer
        that shows the file as it is on disk is the file (an editor shows bytes that are
        not UTF-8 as U+FFFD: the file is still not UTF-8, as `check` says)."""
        with self.lock:
            self.refresh()
            if text == self._disk_text(relative):
                self.release(relative)
                return
            self.buffers[relative] = text
            self.record([self._buffer_result(relative, text)])

    def release(self, relative: str) -> None:
        """The editor closed the file: the disk's version stands for it again."""
        with self.lock:
            if self.buffers.pop(relative, None) is None:
                return
            result = self._read(relative)
            if result is None:
                self.record([], [relative])
            else:
                self.record([result])

    def close(self) -> None:
        """The files on disk back in place of every buffer (the warm-start cache saved on
        close holds files, never unsaved text), then close as any live tree."""
        for relative in list(self.buffers):
            self.release(relative)
        super().close()

    def text_of(self, relative: str) -> str | None:
        """A file's text: the buffer when it is open, else the file on disk."""
        held = self.buffers.get(relative)
        return held if held is not None else self._disk_text(relative)

    def _disk_text(self, relative: str) -> str | None:
        try:
            return (self.root / relative).read_bytes().decode("utf-8", errors="replace")
        except (OSError, ValueError):
            return None

    def _buffer_result(self, relative: str, text: str) -> FileResult:
        data = text.encode("utf-8", errors="surrogatepass")
        return bytes_result(relative, data, (0, len(data)), self.repository.max_bytes)

    def _read(self, relative: str) -> FileResult | None:
        held = self.buffers.get(relative)
        if held is not None:
            return self._buffer_result(relative, held)
        return super()._read(relative)

    # --- what completion keeps -----------------------------------------------------------

    def _apply(self, delta: Delta) -> WriteDelta:
        for task_id in [*delta.removed, *(t.id for t in delta.upserted)]:
            old = self.index.get(task_id)
            if old is not None:
                self._forget(old)
        found = super()._apply(delta)
        for task in delta.upserted:
            self._learn(task)
        return found

    def _forget(self, task: Task) -> None:
        at = bisect.bisect_left(self.sorted_ids, task.id)
        if at < len(self.sorted_ids) and self.sorted_ids[at] == task.id:
            del self.sorted_ids[at]
        self.tags.subtract(task.tags)
        for tag in task.tags:
            if self.tags[tag] <= 0:
                del self.tags[tag]

    def _learn(self, task: Task) -> None:
        at = bisect.bisect_left(self.sorted_ids, task.id)
        if at == len(self.sorted_ids) or self.sorted_ids[at] != task.id:
            self.sorted_ids.insert(at, task.id)
        self.tags.update(task.tags)

    def ids_from(self, prefix: str, limit: int) -> list[str]:
        """At most `limit` ids starting with `prefix`, in sorted order (a bisection)."""
        at = bisect.bisect_left(self.sorted_ids, prefix)
        found: list[str] = []
        for task_id in self.sorted_ids[at : at + limit]:
            if not task_id.startswith(prefix):
                break
            found.append(task_id)
        return found
