"""What every tool handler receives: the live tree, the bots, and shared helpers."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from graph.about import TaskAbout
from graph.claims import CLAIMED_BY
from graph.index import TaskIndex
from storage.conflicts import conflicted_file
from storage.model import Task
from storage.repository import mtime_of
from tasks_server.live import LiveTree
from tasks_server.roots import is_installed_example
from tasks_server.views import (
    BLOCKS_SHOWN,
    BriefCache,
    Fields,
    TaskBrief,
    TaskRow,
    TaskView,
    claim_fields,
    to_view,
)

if TYPE_CHECKING:
    from tasks_server.bots.catalog import BotCatalog
    from tasks_server.spec import ToolSpec
    from tasks_server.sync import Syncer

__all__ = ["ServerContext"]


@dataclass
class ServerContext:
    """The state behind one server: a live tree and (optionally) workflow bots."""

    live: LiveTree
    bots_dir: Path | None = None
    bots: BotCatalog | None = None
    clock: Callable[[], datetime] = field(default=partial(datetime.now, UTC))  # no frame of ours
    read_only: bool = False
    brief_cache: BriefCache = field(default_factory=BriefCache, repr=False)
    sync: Syncer | None = None
    lost_races: int = 0
    """How many times this call's write was taken first at the remote (`serve --sync`)."""
    """With `serve --sync`: commits, pushes and fetches (`tasks_server.sync`)."""

    @classmethod
    def open(
        cls, root: Path, *, bots: Path | None = None, watch: bool = True, with_bots: bool = True
    ) -> ServerContext:
        """The context over `root`; `with_bots=False` loads no bot (a command that calls
        no bot tool: the bots are neither imported nor their configs read)."""
        # Nothing, not even a cache, is written into the example inside an installed package.
        read_only = is_installed_example(root)
        # A watching tree serves: its cache is written after the first answer, not before.
        live = LiveTree(root, watch=watch, use_cache=not read_only, save_later=watch)
        bots_dir = bots if bots is not None else live.root / "bots"
        context = cls(live=live, bots_dir=bots_dir if with_bots else None, read_only=read_only)
        context.load_bots()
        return context

    def load_bots(self) -> None:
        """Load and validate every bot config (a broken one fails start-up, by name)."""
        if not self.bots_dir:
            self.bots = None
            return
        from tasks_server.bots.catalog import BotCatalog  # noqa: PLC0415 - only with bots

        self.bots = BotCatalog.load(self.bots_dir, self.live)

    def set_clock(self, now: datetime | None) -> None:
        """Fix the clock at `now` (every time-relative output then repeats); None keeps it."""
        if now is not None:
            self.clock = lambda: now

    def bot_specs(self, only: str | None = None) -> list[ToolSpec]:
        return self.bots.specs(only=only) if self.bots is not None else []

    @property
    def index(self) -> TaskIndex:
        return self.live.index

    def file_modified(self, task: Task) -> datetime | None:
        result = self.live.table.files.get(task.path)
        return mtime_of(result.stamp) if result is not None else None

    def view(self, task: Task, fields: Fields, *, max_body_chars: int | None = None) -> TaskView:
        now = self.clock()
        if fields == "brief":
            return to_view(task, now=now)
        answer = self.index.about(task.id, now, shown=BLOCKS_SHOWN)
        return self.full_view(task, answer, max_body_chars=max_body_chars)

    def full_view(
        self, task: Task, answer: TaskAbout, *, max_body_chars: int | None = None
    ) -> TaskView:
        """The full view of `task` from the graph's answer about it (`TaskIndex.about`, with
        `BLOCKS_SHOWN`), for a caller that reads that answer for more than the view."""
        return to_view(
            task,
            "full",
            about=answer,
            file_modified=self.file_modified(task),
            max_body_chars=max_body_chars,
        )

    def views(
        self, ids: Iterable[str], fields: Fields = "brief", *, max_body_chars: int | None = None
    ) -> list[TaskRow]:
        """The rows of a task list: briefs, or full views."""
        if fields == "brief":
            return list(self.briefs(ids))
        index = self.index
        return [self.view(index.require(i), fields, max_body_chars=max_body_chars) for i in ids]

    def briefs(self, ids: Iterable[str]) -> list[TaskBrief]:
        require = self.index.require
        return self.task_briefs([require(i) for i in ids])

    def task_briefs(self, tasks: list[Task]) -> list[TaskBrief]:
        """The briefs of `tasks` (of the index or of another state of the tree), claims
        shown against the clock."""
        claimed = any(CLAIMED_BY in task.extra for task in tasks)
        rows = self.brief_cache.of(tasks)
        if claimed:  # a lease runs out by the clock
            now = self.clock()
            rows = [
                row.model_copy(update=claim_fields(task, now)) if CLAIMED_BY in task.extra else row
                for task, row in zip(tasks, rows, strict=True)
            ]
        return rows

    def conflicted(self, task_id: str) -> str | None:
        """The path of the file with merge-conflict markers that holds `task_id` (None: none
        does): the reader could not load it, but a person naming its task needs to know."""
        files = self.live.table.files.values()
        problems = [r.problem for r in files if r.problem is not None]
        return conflicted_file(self.live.root, problems, task_id, self.live.repository.max_bytes)

    def start_sync(self, interval: float, *, loop: bool = True) -> None:
        """Keep the clone in step with its upstream from now on (`serve --sync`; without
        `loop`, only at the start and when asked: `call --sync`)."""
        from tasks_server.sync import Syncer  # noqa: PLC0415 - git plumbing only when syncing

        self.sync = Syncer(self.live, interval)
        self.sync.start(loop=loop)

    def close(self) -> None:
        if self.sync is not None:
            self.sync.close()
        self.live.close()
