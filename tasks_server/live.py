"""The live tree: the repository's files, the file table and the graph index, kept fresh.

Freshness is read-your-writes: a change to a file that completed before a call started (by
a tool, an editor, `git pull` or another server process on the same tree) is in that call's
answer. Every call first applies what changed (re-reading only the changed files), then
reads the index under its lock, so every query sees a consistent, current snapshot.

How changes are found, best first:
- "kernel" (Linux): the tree's own inotify queue (`storage.watch`), opened before the load
  and drained without blocking at the start of each call. The kernel queues an event before
  the writer's system call returns, so the drain sees every completed change; no thread, no
  stat walk. If the kernel drops events (queue overflow), that call surveys the whole tree.
- "thread" (no inotify): a `watchfiles` thread collects changes; they reach the calls that
  start after the watcher reported them (a few ms later).
- "walk" (`watch=False`): each call stats every file (no re-reading of unchanged files).

Writes made by tools are applied at once (`record`). A file that cannot be read (a symlink
loop, a folder we may not enter, a FIFO) is a load problem of that path; the rest of the
change batch is applied.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import logging
import operator
import os
import select
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from graph.index import TaskIndex
from storage import cache, early_read
from storage.bulk import gc_paused, give_back_free_memory
from storage.feed import ChangeFeed
from storage.model import ids_pooled
from storage.repository import Survey, TaskRepository
from storage.table import Delta, FileResult, FileTable, Problem
from storage.watch import Drained, ThreadWatch, TreeWatch
from tasks_server.later_save import CacheSave, LaterSave, facts_now
from tasks_server.tokens import FeedTokens

if TYPE_CHECKING:
    from graph.write_delta import WriteDelta

__all__ = ["LiveTree", "Loaded", "RefreshStats", "StartStats", "load_tree"]

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
    walk: float  # listing folders and statting files; with a forked walk (big warm trees,
    # `storage.forked_walk`), what was left of the child's walk once the cache was decoded,
    # waited for, and the compare of its marks with the cache's
    parse: float  # reading and parsing the files the cache could not answer; the file table
    index: float
    cache_save: float  # zero when the cache was already current
    files_read: int
    files_cached: int
    facts_taken: bool = False  # the index's records came from the facts saved with the cache
    walk_forked: bool = False  # a child walked while the cache was decoded (see `walk`)

    @property
    def seconds(self) -> float:
        return self.cache_load + self.walk + self.parse + self.index + self.cache_save


WAKE_SECONDS = 0.25
"""A waiter also looks at the feed this often: another call may have taken the change the
kernel reported (an integer compare, no disk read)."""

TRIM_AT = 10_000
"""Files loaded from which a load gives the C heap's free pages back (below, there are few)."""

FREEZE_STEP = 100_000
"""Ids newly kept in order between two freezes (a smaller tree never freezes again)."""


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


@dataclass(frozen=True, slots=True)
class Loaded:
    """A whole tree as one load left it: the file table, the index, where the time went,
    and the task files that are symlinks (their targets change without an event of theirs)."""

    table: FileTable
    index: TaskIndex
    stats: StartStats
    links: frozenset[str]
    save: CacheSave | None = None  # with `save_later`: the cache write left to the caller


def load_tree(repository: TaskRepository, *, use_cache: bool, save_later: bool = False) -> Loaded:
    """The one way a tree is loaded. Warm (`use_cache`): the cache answers the files whose
    stamp is unchanged, the others are read, and the cache is saved if it changed; when no
    file changed, the index takes the records saved beside the cache (`graph._facts`), and
    saves them when there were none that fit. A big tree's warm walk runs in a forked
    child while the cache is decoded (`TaskRepository.walking_ahead`). Cold:
    every file is read and no cache is touched (an installed example; the admin rebuild).
    `save_later` leaves the cache write in `Loaded.save` (`tasks_server.later_save`)."""
    laps = [time.perf_counter()]
    root = repository.root
    hint = cache.stored_bytes(root) if use_cache else 0
    with gc_paused(), ids_pooled(), repository.walking_ahead(hint) as ahead:
        cached, token = cache.load_tagged(root) if use_cache else ({}, "")
        read_early = early_read.take(root, repository.max_bytes)  # the child stopped either way
        if use_cache and not cached:
            cached = read_early  # checked file by file by the walk, as a cache is
        laps.append(time.perf_counter())
        read = repository.read_tree(cached, ahead)
        unchanged = _all_as_cached(cached, read.survey)
        saved = cache.load_facts(root, token) if unchanged else None
        index = TaskIndex.build(read.table.tasks(), saved)
        _freeze_loaded_objects()
        laps.append(time.perf_counter())
    untagged = bool(cached) and not token  # written before caches named themselves
    save = None
    if use_cache and (untagged or not _cache_is_current(cached, read.survey, read.results)):
        save = CacheSave(root, index, read.results)
    elif use_cache and unchanged and not index.restored:  # none for this cache, or stale
        save = CacheSave(root, index, token=token)
    if save is not None and not save_later:
        save.run(facts_now)
        save = None
    if len(read.table) >= TRIM_AT:
        give_back_free_memory()
    laps.append(time.perf_counter())
    loading, rest, saving = (b - a for a, b in itertools.pairwise(laps))
    walk, parse = read.walk_seconds, read.read_seconds
    survey = read.survey
    stats = StartStats(
        loading,
        walk,
        parse,
        rest - walk - parse,
        saving,
        len(survey.stale),
        survey.current,
        index.restored,
        survey.forked,
    )
    return Loaded(read.table, index, stats, survey.links, save)


_PATH = operator.attrgetter("path")


def _all_as_cached(cached: Mapping[str, FileResult], survey: Survey) -> bool:
    """True when the walk found every cached file as the cache has it, and no other: the
    tree holds what it held when the cache (and the index facts beside it) was saved."""
    if not cached or survey.stale:
        return False
    found: list[FileResult] = survey.found  # type: ignore[assignment]  # no path: none stale
    kept = map(operator.is_, map(cached.get, map(_PATH, found)), found)  # C-level passes
    return sum(kept) == len(cached)  # not `current`: a walk's problems count there


def _no_facts(_: TaskIndex) -> None:
    return None


def _unreadable(relative: str, exc: Exception) -> FileResult:
    """A path that could not be read at all: a load problem of its own, nothing more."""
    return FileResult.of(relative, (0, 0), problem=Problem(relative, "unreadable", str(exc)))


def _same_content(known: FileResult | None, result: FileResult) -> bool:
    return known is not None and known.task == result.task and known.problem == result.problem


def _target_stamp(path: Path) -> tuple[int, int]:
    """(mtime_ns, size) of what a link points to; (0, 0) when it cannot be followed."""
    try:
        stat = path.stat()
    except (OSError, RuntimeError):
        return (0, 0)
    return stat.st_mtime_ns, stat.st_size


class LiveTree:
    """One task root, loaded once and then kept fresh file by file."""

    def __init__(
        self,
        root: Path,
        *,
        exclude: Iterable[str] = (),
        watch: bool = True,
        use_cache: bool = True,
        inotify: bool = True,
        save_later: bool = False,
    ) -> None:
        """`watch=False` finds changes by a stat walk at each call; `inotify=False` makes
        a watching tree use the watcher thread (what platforms without inotify get);
        `save_later` writes the warm-start cache after the first call instead of before
        the constructor returns (`tasks_server.later_save`; `close` writes it at the latest)."""
        self.repository = TaskRepository(root, exclude=tuple(exclude))
        self.root = self.repository.root
        self._kernel = self._open_kernel_watch() if watch and inotify else None
        loaded = load_tree(self.repository, use_cache=use_cache, save_later=save_later)
        self.table, self.index, self.start_stats = loaded.table, loaded.index, loaded.stats
        links = loaded.links
        self.load_seconds = self.start_stats.seconds
        self.cache_hits = self.start_stats.files_cached
        self.loaded_at = time.time()
        self.generation = 0
        self.feed = ChangeFeed()  # what each change replaced: the states tokens name
        self.tokens = FeedTokens(self.root)
        self.lock = threading.RLock()
        self._later = self._save_later(loaded.save)
        self._frozen_kept = 0  # the index's kept ids at the last freeze
        self.last_refresh = RefreshStats(0, 0.0)
        self._links = set(links)
        self._thread: ThreadWatch | None = None
        self._use_cache = use_cache
        self.on_record: Callable[[str], None] | None = None
        """Told each path a tool records (a syncing server commits them); None: nothing syncs."""
        if watch and self._kernel is None:
            self._start_watcher()

    def _save_later(self, save: CacheSave | None) -> LaterSave | None:
        """The load's cache write, begun after the first call; its facts only while the
        index is still the one loaded (no change applied: `generation` 0)."""
        if save is None:
            return None
        return LaterSave(save, self.lock, lambda: self.generation == 0)

    # --- freshness ---------------------------------------------------------------------

    def _open_kernel_watch(self) -> TreeWatch | None:
        """The tree's inotify queue, opened before the load: what changes while the tree
        loads is queued, and the first call applies it."""
        return TreeWatch.open(self.root, descend=self.repository.walks_into)

    @property
    def mode(self) -> str:
        """How changes are found: "kernel", "thread" or "walk" (see the module's notes)."""
        if self._kernel is not None:
            return "kernel"
        return "thread" if self._thread is not None else "walk"

    def _start_watcher(self) -> None:
        self._thread = ThreadWatch(self.root)

    def wait_for_changes(self, timeout: float) -> bool:
        """Block until a change not yet applied has been reported (or time runs out).

        Calls never need to before reading: with the kernel's queue they need not, and with
        the watcher thread they apply whatever it has reported. `wait_past` waits for a
        change to arrive. Without a watcher, False at once.
        """
        if self._kernel is not None:
            return bool(select.select([self._kernel.fd], [], [], timeout)[0])
        return self._thread.wait(timeout) if self._thread is not None else False

    def wait_past(self, seen: int, timeout: float) -> None:
        """Wait, without holding the tree, until the feed has a step after `seen`, a change
        is reported (by the kernel's queue or the watcher), or `timeout` seconds pass; the
        caller then refreshes. Call while holding the tree's lock once (as a tool does)."""
        self.lock.release()
        try:
            if not self.watching:  # nothing reports changes: look again each second
                self.feed.wait(seen, min(timeout, 1.0))
            elif self.feed.seq == seen:
                self.wait_for_changes(min(timeout, WAKE_SECONDS))
        finally:
            self.lock.acquire()

    @property
    def watching(self) -> bool:
        return self._kernel is not None or (self._thread is not None and self._thread.alive)

    def refresh(self, *, thorough: bool = False) -> RefreshStats:
        """Apply every change completed so far: re-read only the changed files. The one
        freshness hook: every tool call passes through it once (`snapshot`). `thorough`
        does not trust the watcher thread (its reports come a few ms late) and stats the
        tree: for a writer that must see every other writer's finished write."""
        with self.lock:
            started = time.perf_counter()
            paths = self._changed_paths()
            if self.repository.reload_ignore():  # .tasksignore changed: rescope the tree
                paths |= self._rescoped()
            if thorough and self._kernel is None:
                paths |= self._stat_walk()
            if paths and self.repository.settle():  # a batch mid-apply: read it whole
                paths |= self._changed_paths()
            if paths:
                delta = Delta()
                for relative in sorted(paths):
                    delta.extend(self._reread(relative))
                self._apply(delta)
            self.feed.close_step(self.table.result)
            stats = RefreshStats(len(paths), time.perf_counter() - started)
            if paths:
                self.last_refresh = stats
            return stats

    def _changed_paths(self) -> set[str]:
        if self._kernel is not None:
            drained = self._kernel.drain()
            if not self._kernel.exhausted:
                return self._kernel_changes(drained)
            self._give_up_kernel_queue()
        reported = self._thread.take() if self._thread is not None else None
        if reported is None:
            return self._stat_walk()
        return set().union(*(self._files_behind(p) for p in reported))

    def _give_up_kernel_queue(self) -> None:
        """A new folder could not be watched (the kernel's watch limit): from now on each
        call walks the tree, which is slower but misses nothing."""
        log.warning(
            "inotify watch limit reached (fs.inotify.max_user_watches); "
            "every call now stats the whole tree"
        )
        if self._kernel is not None:
            self._kernel.close()
        self._kernel = None

    def _kernel_changes(self, drained: Drained) -> set[str]:
        """The task files behind one drain of the kernel's queue, and any linked file
        whose target changed (its events name the target, not the link)."""
        found = {p for p in drained.files if p in self.table.files or self._is_task(p)}
        for folder in drained.folders_gone:
            found |= self._known_below(folder)
        if drained.overflow:
            found |= self._stat_walk()
        return found | self._changed_links()

    def _is_task(self, relative: str) -> bool:
        return self.repository.is_task_path(relative)

    def _known_below(self, folder: str) -> set[str]:
        prefix = folder + "/"
        return {p for p in self.table.files if p.startswith(prefix)}

    def _changed_links(self) -> set[str]:
        changed = set()
        for relative in self._links:
            known = self.table.files.get(relative)
            if known is None or known.stamp != _target_stamp(self.root / relative):
                changed.add(relative)
        return changed

    def _files_behind(self, relative: str) -> set[str]:
        """The task files a reported path stands for: itself, or a folder's contents."""
        if relative in self.table.files or self._is_task(relative):
            return {relative}
        if any(part.startswith(".") for part in relative.split("/")):
            return set()  # temp files of atomic writes, the cache, .trash: never tasks
        if (self.root / relative).is_dir():  # a folder moved in: read what it holds
            prefix = relative + "/"
            return {p for p in self.repository.iter_paths() if p.startswith(prefix)}
        return self._known_below(relative)  # maybe a folder moved away: forget what it held

    def _rescoped(self) -> set[str]:
        """The paths to read again after the ignore patterns changed: folders no longer
        ignored get watched, and a walk finds the files that came in or went out."""
        if self._kernel is not None:
            self._kernel.watch_tree("", collect=False)
            if self._kernel.exhausted:
                self._give_up_kernel_queue()
        return self._stat_walk()

    def _stat_walk(self) -> set[str]:
        survey = self.repository.survey(self.table.files)
        self._links = set(survey.links)
        seen = {item if isinstance(item, str) else item.path for item in survey.found}
        return set(survey.stale) | (set(self.table.files) - seen)

    def _reread(self, relative: str) -> Delta:
        """Re-read one reported path. A file whose task and problem are unchanged (our own
        write, already recorded; a touch) gives no delta, so cursors stay valid."""
        known = self.table.files.get(relative)
        self.feed.note(relative, known)
        if not self._is_task(relative):
            return self.table.drop(relative)
        result = self._read(relative)
        if result is None:
            self._links.discard(relative)
            return self.table.drop(relative)
        delta = self.table.put(result)
        return Delta() if _same_content(known, result) else delta

    def _read(self, relative: str) -> FileResult | None:
        """The file as it is now (None when gone); a path that cannot be read at all is a
        problem of that path alone."""
        try:
            if os.path.islink(self.root / relative):
                self._links.add(relative)
            else:
                self._links.discard(relative)
            return self.repository.read(relative)
        except (OSError, RuntimeError) as exc:
            return _unreadable(relative, exc)

    def _apply(self, delta: Delta) -> WriteDelta:
        if not delta:
            from graph.write_delta import NO_CHANGE  # noqa: PLC0415 - a write's, not a start's

            return NO_CHANGE
        found = self.index.apply(delta.upserted, delta.removed)
        self.generation += 1
        return found

    def record(
        self, results: Iterable[FileResult], removed_paths: Iterable[str] = ()
    ) -> WriteDelta:
        """Apply files a tool just wrote (or moved away), without waiting for the watcher,
        and answer what that changed in readiness (the index's answer to the edit); each
        path is also told to `on_record` (a syncing server commits them)."""
        with self.lock:
            delta = Delta()
            told = self.on_record
            for result in results:
                self.feed.note(result.path, self.table.result(result.path))
                delta.extend(self.table.put(result))
                if told is not None:
                    told(result.path)
            for relative in removed_paths:
                self.feed.note(relative, self.table.result(relative))
                if told is not None:
                    told(relative)
                delta.extend(self.table.drop(relative))
            found = self._apply(delta)
            self.feed.close_step(self.table.result)
            return found

    def rebuild(self) -> None:
        """Re-read everything (admin only; normal operation never needs it)."""
        with self.lock:
            if self._kernel is not None:
                self._kernel.drain()  # what is queued now, the full read below includes
            loaded = load_tree(self.repository, use_cache=False)
            for relative in self.table.files.keys() | loaded.table.files.keys():
                self.feed.note(relative, self.table.result(relative))
            self.table, self.index = loaded.table, loaded.index
            self._links = set(loaded.links)
            self.generation += 1
            self.feed.close_step(self.table.result)

    @contextlib.contextmanager
    def snapshot(self, *, write: bool = False) -> Iterator[LiveTree]:
        """Bring the index up to date, then hold it still while the caller reads. With
        `write`, the tree-wide write lock is taken first (before the thread lock, always
        in that order), so what the caller checks on the index still holds when its write
        lands, whichever process writes next."""
        with self.repository.write_lock() if write else contextlib.nullcontext(), self.lock:
            self.refresh(thorough=write)
            yield self
            self._freeze_kept_orders()
            if self._later is not None:
                self._later.begin()

    def _freeze_kept_orders(self) -> None:
        """Once reads have sorted `FREEZE_STEP` more ids into the index's kept orders, collect
        and freeze again, as after the load: a full collection would walk each id of these
        long-lived lists (at 1M, every project read: 45-55 ms). Collecting first leaves no
        garbage cycle frozen; an order that dies later is freed by its count as before."""
        kept = self.index.orders.kept
        self._frozen_kept = min(self._frozen_kept, kept)  # a rebuilt index starts at none
        if kept - self._frozen_kept >= FREEZE_STEP:
            gc.collect()
            gc.freeze()
            self._frozen_kept = kept

    def save_cache(self) -> None:
        """Write the warm-start cache (best effort: a read-only root just has none)."""
        files = list(self.table.files.values())
        CacheSave(self.root, self.index, files).run(_no_facts)  # an edited index's do not fit

    def close(self) -> None:
        if self._later is not None:
            self._later.finish()
        if self._use_cache and self.generation:
            with self.lock:
                self.save_cache()
        if self._thread is not None:
            self._thread.close()
        if self._kernel is not None:
            with self.lock:
                self._kernel.close()
