"""The live tree: the repository's files, the file table and the graph index, kept fresh.

A watcher thread (inotify through `watchfiles`) collects the paths that change on disk; each
tool call first applies those changes (re-reading only the changed files), then reads the
index under its lock, so every query sees a consistent, current snapshot. Writes made by
tools are applied at once, without waiting for the watcher. When no watcher can run, a
stat-only walk finds changed files instead (slower, still no re-reading of unchanged files).
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import logging
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import watchfiles

from graph.index import TaskIndex
from storage import cache
from storage.repository import Survey, TaskRepository
from storage.table import Delta, FileResult, FileTable

__all__ = ["LiveTree", "RefreshStats", "StartStats"]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class RefreshStats:
    files_read: int
    seconds: float


@dataclass(frozen=True, slots=True)
class StartStats:
    """Where the initial load's time went, in seconds, and how many files it parsed or took
    from the warm-start cache."""

    cache_load: float
    walk: float  # listing folders and statting files
    parse: float  # reading and parsing the files the cache could not answer; the file table
    index: float
    cache_save: float  # zero when the cache was already current
    files_read: int
    files_cached: int

    @property
    def seconds(self) -> float:
        return self.cache_load + self.walk + self.parse + self.index + self.cache_save


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic GC: loading allocates heavily and makes no garbage cycles. One pause
    for the whole load, or each re-enable sweeps everything allocated so far."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _freeze_loaded_objects() -> None:
    """Move everything loaded so far out of the cyclic GC's view: the tasks and the index
    live as long as the server, and scanning them on every collection roughly doubled the
    cost of whole-tree queries at 100k tasks."""
    gc.freeze()


def _cache_is_current(
    cached: Mapping[str, FileResult], survey: Survey, results: list[FileResult]
) -> bool:
    """True when saving would write the same cache: every cached file is still current and
    no file read holds anything the cache could store."""
    if survey.current != len(cached):
        return False
    fresh = (r for r in results if cached.get(r.path) is not r) if survey.stale else ()
    return not any(cache.is_storable(result) for result in fresh)


def _load(repository: TaskRepository, use_cache: bool) -> tuple[FileTable, TaskIndex, StartStats]:
    """The first load: the cache, a walk that stats every file, a read of the files the
    cache does not answer, the index; then the cache is saved if it changed."""
    laps = [time.perf_counter()]
    with _gc_paused():
        cached = cache.load(repository.root) if use_cache else {}
        laps.append(time.perf_counter())
        survey = repository.survey(cached)
        laps.append(time.perf_counter())
        results = repository.read_stale(survey)
        table = FileTable.of(results)
        laps.append(time.perf_counter())
        index = TaskIndex.build(table.tasks())
        _freeze_loaded_objects()
        laps.append(time.perf_counter())
    if use_cache and not _cache_is_current(cached, survey, results):
        _save_cache(repository.root, results)
    laps.append(time.perf_counter())
    loading, walk, parse, build, saving = (b - a for a, b in itertools.pairwise(laps))
    stats = StartStats(loading, walk, parse, build, saving, len(survey.stale), survey.current)
    return table, index, stats


def _save_cache(root: Path, results: Iterable[FileResult]) -> None:
    """Write the warm-start cache (best effort: a read-only root just has none)."""
    try:
        cache.save(root, results)
    except OSError as exc:
        log.warning("could not write the index cache: %s", exc)


class LiveTree:
    """One task root, loaded once and then kept fresh file by file."""

    def __init__(
        self,
        root: Path,
        *,
        exclude: Iterable[str] = (),
        watch: bool = True,
        use_cache: bool = True,
    ) -> None:
        self.repository = TaskRepository(root, exclude=tuple(exclude))
        self.root = self.repository.root
        self.table, self.index, self.start_stats = _load(self.repository, use_cache)
        self.load_seconds = self.start_stats.seconds
        self.cache_hits = self.start_stats.files_cached
        self.loaded_at = time.time()
        self.generation = 0
        self.lock = threading.RLock()
        self.last_refresh = RefreshStats(0, 0.0)
        self._pending: set[str] = set()
        self._pending_lock = threading.Lock()
        self._changed = threading.Condition(self._pending_lock)
        self._stop = threading.Event()
        self._watcher: threading.Thread | None = None
        self._watch_ready = threading.Event()
        self._use_cache = use_cache
        if watch:
            self._start_watcher()

    # --- freshness ---------------------------------------------------------------------

    def _start_watcher(self) -> None:
        self._watcher = threading.Thread(target=self._watch, name="tasks-watch", daemon=True)
        self._watcher.start()  # not waited for: until it is up, `refresh` walks the tree

    def _watch(self) -> None:
        try:
            for changes in watchfiles.watch(
                self.root,
                stop_event=self._stop,
                debounce=0,
                step=5,
                yield_on_timeout=True,  # the first yield says the watcher is up
                rust_timeout=200,
                recursive=True,
                ignore_permission_denied=True,
            ):
                if not self._watch_ready.is_set():  # the first yield: the watcher is up
                    with self.lock:  # what changed before it was, not yet refreshed
                        self._note(self._stat_walk())
                        self._watch_ready.set()
                self._collect(path for _, path in changes)
        except Exception:  # pragma: no cover - the fallback walk takes over
            log.exception("file watcher stopped; falling back to stat walks")
        finally:
            self._watch_ready.set()

    def _collect(self, paths: Iterable[str]) -> None:
        prefix = str(self.root) + "/"
        self._note({p[len(prefix) :] for p in paths if p.startswith(prefix)})

    def _note(self, found: set[str]) -> None:
        """Queue changed paths (relative to the root) for the next refresh."""
        if found:
            with self._changed:
                self._pending |= found
                self._changed.notify_all()

    def wait_for_changes(self, timeout: float) -> bool:
        """Block until the watcher has reported a change not yet applied (or time runs out).

        For callers that must see an outside edit they just made (tests, scripts); tool
        calls never wait, they apply whatever has been reported.
        """
        with self._changed:
            return self._changed.wait_for(lambda: bool(self._pending), timeout=timeout)

    @property
    def watching(self) -> bool:
        return self._watcher is not None and self._watcher.is_alive()

    def refresh(self) -> RefreshStats:
        """Apply every change seen since the last call: re-read only changed files."""
        started = time.perf_counter()
        watched = self.watching and self._watch_ready.is_set()
        paths = self._take_pending() if watched else self._stat_walk()
        delta = Delta()
        for relative in sorted(paths):
            delta.extend(self._reread(relative))
        self._apply(delta)
        stats = RefreshStats(len(paths), time.perf_counter() - started)
        if paths:
            self.last_refresh = stats
        return stats

    def _take_pending(self) -> set[str]:
        with self._pending_lock:
            paths, self._pending = self._pending, set()
        found: set[str] = set()
        for relative in paths:
            found |= self._files_behind(relative)
        return found

    def _files_behind(self, relative: str) -> set[str]:
        """The task files a reported path stands for: itself, or a folder's contents."""
        if relative in self.table.files or self.repository.is_task_path(relative):
            return {relative}
        if any(part.startswith(".") for part in relative.split("/")):
            return set()  # temp files of atomic writes, the cache, .trash: never tasks
        if (self.root / relative).is_dir():  # a folder moved in: read what it holds
            prefix = relative + "/"
            return {p for p in self.repository.iter_paths() if p.startswith(prefix)}
        prefix = relative + "/"  # maybe a folder moved away: forget what it held
        return {p for p in self.table.files if p.startswith(prefix)}

    def _stat_walk(self) -> set[str]:
        survey = self.repository.survey(self.table.files)
        seen = {item if isinstance(item, str) else item.path for item in survey.found}
        return set(survey.stale) | (set(self.table.files) - seen)

    def _stamp_changed(self, relative: str) -> bool:
        known = self.table.files.get(relative)
        try:
            stat = (self.root / relative).stat()
        except FileNotFoundError:
            return known is not None
        return known is None or known.stamp != (stat.st_mtime_ns, stat.st_size)

    def _reread(self, relative: str) -> Delta:
        known = self.table.files.get(relative)
        if not self.repository.is_task_path(relative):
            return self.table.drop(relative) if known else Delta()
        if known is not None and not self._stamp_changed(relative):
            return Delta()  # our own write, already recorded, or a touch-free event
        result = self.repository.read(relative)
        if result is None:
            return self.table.drop(relative)
        return self.table.put(result)

    def _apply(self, delta: Delta) -> None:
        if delta:
            self.index.apply(delta.upserted, delta.removed)
            self.generation += 1

    def record(self, results: Iterable[FileResult], removed_paths: Iterable[str] = ()) -> None:
        """Apply files a tool just wrote (or moved away), without waiting for the watcher."""
        delta = Delta()
        for result in results:
            delta.extend(self.table.put(result))
        for relative in removed_paths:
            delta.extend(self.table.drop(relative))
        self._apply(delta)

    def rebuild(self) -> None:
        """Re-read everything (admin only; normal operation never needs it)."""
        with self.lock:
            table = self.repository.scan()
            self.table, self.index = table, TaskIndex.build(table.tasks())
            self.generation += 1

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[LiveTree]:
        """Bring the index up to date, then hold it still while the caller reads."""
        with self.lock:
            self.refresh()
            yield self

    def save_cache(self) -> None:
        """Write the warm-start cache (best effort: a read-only root just has none)."""
        _save_cache(self.root, list(self.table.files.values()))

    def close(self) -> None:
        if self._use_cache and self.generation:
            with self.lock:
                self.save_cache()
        self._stop.set()
        if self._watcher is not None:
            self._watcher.join(timeout=2)
