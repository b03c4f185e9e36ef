"""`serve --sync`: the server keeps its clone in step with the branch's upstream.

Each write a call makes becomes one commit of the paths it touched (`storage.gitsync`),
authored by the call's `agent` (else the server), its message the tool and the task ids.
Claims, releases, `claim_next` and completions are pushed before the call answers; a push
the remote refused is fetched and replayed, and when the replay had to drop this call's own
change (the remote changed that task file too: another agent's claim), `WriteLost` asks the
toolset to run the call again on the tree as it now is (`claim_task` then answers CONFLICT
with the winner, `claim_next` takes the next task). Every `interval` seconds a thread
fetches, brings the clone up to the upstream and pushes what is left. A write to a file with
uncommitted changes is refused (`UncommittedFile`, CONFLICT). Every git step runs under the
tree-wide write lock, so the servers of one clone take turns.
"""

from __future__ import annotations

import itertools
import random
import threading
import time
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, Field

from storage.diskblobs import blob_id
from storage.errors import HistoryError, UncommittedFile
from storage.gitsync import Dropped, SyncRepo, Upstream
from tasks_server.errors import ToolFailure
from tasks_server.live import LiveTree

__all__ = ["DEFAULT_INTERVAL", "PUSHED_AT_ONCE", "SyncStatus", "Syncer", "WriteLost"]

DEFAULT_INTERVAL = 5.0
"""Seconds between fetches (`--sync-interval`)."""

PUSHED_AT_ONCE = frozenset(
    {"claim_task", "release_task", "claim_next", "complete_task", "complete_tasks"}
)
"""Tools whose writes reach the remote before the call answers; others at the next sync."""

PUSH_ATTEMPTS = 20
"""How many times a call whose change the remote took first runs again."""

PUSH_SECONDS = 30.0
"""How long a call keeps pushing against a remote that moves each time."""


class WriteLost(Exception):
    """The remote changed a file this call wrote: the call's change was dropped."""

    def __init__(self, paths: list[str]) -> None:
        super().__init__(f"the remote changed {', '.join(paths)} first")
        self.paths = paths


class SyncStatus(BaseModel):
    """Where the clone stands against its upstream."""

    upstream: str | None = Field(description="The upstream branch, e.g. origin/main.")
    last_fetch: str | None = Field(description="When the last fetch ended (UTC, ISO).")
    last_push: str | None = Field(description="When the last push landed (UTC, ISO).")
    ahead: int = Field(description="Commits here that the upstream does not have.")
    behind: int = Field(description="Commits of the upstream not here yet.")
    dropped: list[str] = Field(
        description="Changes dropped on replay, the remote's kept: 'path (commit)'."
    )
    kept_uncommitted: list[str] = Field(
        description="Files with uncommitted changes a sync left as they were."
    )
    error: str | None = Field(description="The last sync's failure, if it failed.")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _message(tool: str, arguments: dict[str, Any], paths: list[str]) -> str:
    ids = [arguments[k] for k in ("task_id", "parent_id") if isinstance(arguments.get(k), str)]
    ids += [i for i in arguments.get("task_ids") or [] if isinstance(i, str)]
    named = ids or [path.rsplit("/", 1)[-1].removesuffix(".md") for path in paths]
    return f"{tool}: {', '.join(named[:8])}"[:200] + "\n"


class Syncer:
    """The sync of one server's clone: commits after writes, pushes, the fetch loop."""

    def __init__(self, live: LiveTree, interval: float = DEFAULT_INTERVAL) -> None:
        self.live = live
        self.repo = SyncRepo(live.root)
        self.upstream: Upstream | None = self.repo.upstream()
        self.interval = interval
        self.touched: list[str] = []
        self.dropped: list[Dropped] = []
        self.kept: list[str] = []
        self.warnings: list[str] = []
        self.last_fetch: str | None = None
        self.last_push: str | None = None
        self.error: str | None = None
        self._moved = False
        live.on_record = self._touch
        live.repository.guard = self._guard
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="tasks-sync", daemon=True)

    def start(self, *, loop: bool = True) -> None:
        """One round now (the clone up to the upstream before the first call), then one
        every `interval` seconds on a thread (`loop`)."""
        self.round()
        if loop:
            self._thread.start()

    def round(self) -> None:
        """One round under the tree's write lock."""
        with self.live.repository.write_lock():
            self.sync()

    def close(self) -> None:
        self._stop.set()

    def _touch(self, relative: str) -> None:
        self.touched.append(self.repo.prefix + relative)

    def _guard(self, relative: str, data: bytes | None) -> None:
        """Before the server writes `relative` (read as `data`; None: a new file): a file
        whose content is not its last commit's is the person's work, CONFLICT; else the
        write is noted (`intend`), so a kill before its commit loses nothing."""
        relative = self.repo.prefix + relative
        if data is not None:
            head = self.repo.ref("HEAD")
            known = self.repo.entries(head, [relative]).get(relative) if head else None
            if known is None or known[1] != blob_id(data, self.repo.algorithm):
                raise UncommittedFile(relative)
        self.repo.intend(relative)

    def before(self, tool: str) -> bool:
        """Before a call whose write is pushed at once (the caller holds the write lock):
        fetch and catch up, so the call decides on the remote as it is now, and a clone
        whose own agents push one after another gets no head start over the others. True
        when files changed (the caller refreshes its tree)."""
        if tool not in PUSHED_AT_ONCE or self.upstream is None:
            return False
        try:
            with self.repo.operation():
                self._catch_up(self.upstream)
                return self._moved
        except (HistoryError, OSError) as exc:
            self.error = str(exc)  # the push after the write says it failed
            return False

    def committed(self, tool: str, arguments: dict[str, Any]) -> None:
        """Commit what the call wrote (the caller holds the write lock), and push it now
        when the tool's writes are pushed before it answers."""
        paths = sorted({*self.touched, *self.repo.intended()})
        self.touched[:] = []
        if not paths:
            return
        agent = arguments.get("agent")
        with self.repo.operation():
            made = self.repo.commit_paths(
                paths, _message(tool, arguments, paths), agent if isinstance(agent, str) else None
            )
            if made is not None and tool in PUSHED_AT_ONCE and self.upstream is not None:
                try:
                    self._push_until_landed(self.upstream, set(paths))
                except HistoryError as exc:
                    self.error = str(exc)
                    raise ToolFailure("SYNC_FAILED", f"{tool}: not pushed: {exc}") from exc

    def _push_until_landed(self, upstream: Upstream, mine: set[str]) -> None:
        """Push; when refused, catch up and push again (a short random pause, longer each
        time, so pushers that keep meeting take turns) until `PUSH_SECONDS` have passed."""
        deadline = time.monotonic() + PUSH_SECONDS
        head = self.repo.ref("HEAD")
        for attempt in itertools.count():
            if head is None or self.repo.push(upstream, head):
                self.last_push = _now()
                return
            lost = [d.path for d in self._catch_up(upstream) if d.path in mine]
            if lost:
                raise WriteLost(lost)
            head = self.repo.ref("HEAD")
            if time.monotonic() > deadline:
                break
            time.sleep(random.uniform(0, 0.005 * min(attempt + 1, 10)))
        raise HistoryError(
            "git push: the remote kept moving; the commit is pushed at the next sync"
        )

    def _catch_up(self, upstream: Upstream) -> list[Dropped]:
        self.repo.fetch(upstream)
        self.last_fetch = _now()
        done = self.repo.integrate(upstream)
        self._moved = done.moved
        self.dropped = [*self.dropped, *done.dropped][-20:]
        self.kept = done.kept if done.moved else self.kept
        self.warnings += [f"sync dropped a change to {d.path} ({d.commit})" for d in done.dropped]
        return done.dropped

    def sync(self) -> None:
        """One round (under the write lock): fetch, catch up, push what is left."""
        if self.upstream is None:
            return
        try:
            with self.repo.operation():
                if noted := self.repo.intended():  # a write a killed server did not commit
                    self.repo.commit_paths(noted, "recover: a write left uncommitted\n", None)
                self._catch_up(self.upstream)
                ahead, _ = self.repo.counts(self.upstream)
                head = self.repo.ref("HEAD")
                if ahead and head is not None and self.repo.push(self.upstream, head):
                    self.last_push = _now()
            self.error = None
        except (HistoryError, OSError) as exc:
            self.error = str(exc)

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            self.round()

    def take_warnings(self) -> list[str]:
        """What the sync dropped since the last answer (told once)."""
        taken, self.warnings = self.warnings, []
        return taken

    def status(self) -> SyncStatus:
        up = self.upstream
        ahead, behind = self.repo.counts(up) if up else (0, 0)
        return SyncStatus(
            upstream=up.name if up else None,
            last_fetch=self.last_fetch,
            last_push=self.last_push,
            ahead=ahead,
            behind=behind,
            dropped=[f"{d.path} ({d.commit})" for d in self.dropped],
            kept_uncommitted=self.kept,
            error=self.error,
        )
