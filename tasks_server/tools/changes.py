"""Query tier: what changed between two states of the tree, and one task's history, from git.

The states come from `storage.states` (the tree at a commit is the tree on disk with the
files that differ put back), the delta from `graph.delta`; this module resolves the
arguments and turns ids into task rows of the state that holds them; the toolset pages the
sections as one sequence.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Annotated, Any

from pydantic import Field, model_validator

from graph._time import cutoff
from graph.delta import (
    ChangedTask,
    FieldChange,
    PathMove,
    ProblemRow,
    Side,
    TreeDelta,
    field_changes,
    tree_delta,
)
from graph.review import ChangesSince, changes_by_time, changes_from_delta
from graph.sections import Sections
from storage.errors import HistoryError
from storage.history import EMPTY_TREE, GitTree, TaskCommit, task_commits
from storage.model import Task
from storage.reading import parse_result
from storage.states import TreeState, TreeView, disk_tree_at, tree_at
from tasks_server.context import ServerContext
from tasks_server.errors import InvalidCursor
from tasks_server.guidance import Guidance, guide
from tasks_server.listing import Listing, PageArgs, Rows
from tasks_server.models import (
    MAX_SINCE_DAYS,
    SINCE_TOKEN,
    Envelope,
    IdArg,
    PageInfo,
    Part,
    Token,
    Unset,
)
from tasks_server.paging import cursor_state
from tasks_server.registry import tool
from tasks_server.sizes import MAX_SHORT_CHARS
from tasks_server.tokens import stale_token
from tasks_server.views import FIELDS_DESCRIPTION, Fields, TaskRow, to_view

__all__ = [
    "Delta",
    "base_at",
    "delta_between",
    "feed_delta",
    "get_changes",
    "get_task_history",
    "open_git",
    "review_changes",
]

Revision = Annotated[str, Field(min_length=1, max_length=MAX_SHORT_CHARS)]
"""Any git revision: a sha, tag, branch, HEAD~3."""
Days = Annotated[float, Field(ge=0, le=MAX_SINCE_DAYS)]
PAGED = "This page's part (see limit, cursor)."
BEFORE_HISTORY = "since_days reaches before the first commit: compared with the empty tree"


class GetChangesInput(PageArgs):
    since_token: Token | Unset = Field(None, description=SINCE_TOKEN)
    since_ref: Revision | Unset = Field(None, description="Or: a git revision.")
    since_days: Days | Unset = Field(None, description="Or: the last commit this many days old.")
    until_ref: Revision | Unset = Field(
        None, description="Up to this git revision; absent: the files."
    )
    fields: Fields = Field("brief", description=FIELDS_DESCRIPTION)

    @model_validator(mode="after")
    def _one_start(self) -> GetChangesInput:
        starts = (self.since_token, self.since_ref, self.since_days)
        if sum(start is not None for start in starts) != 1:
            raise ValueError("give exactly one of since_token, since_ref and since_days")
        if self.since_token is not None and self.until_ref is not None:
            raise ValueError("since_token reads up to now: leave out until_ref")
        return self


class ChangesSummary(Part):
    """Each section's length, over all pages."""

    added: int = Field(description="Tasks added.")
    removed: int = Field(description="Tasks removed.")
    changed: int = Field(description="Tasks changed.")
    became_ready: int = Field(description="Tasks that became ready.")
    became_blocked: int = Field(description="Tasks that became blocked.")
    completed: int = Field(description="Tasks whose status became done.")
    reopened: int = Field(description="Done or cancelled tasks open again.")
    problems_appeared: int = Field(description="Structural problems that appeared.")
    problems_went_away: int = Field(description="Structural problems that went away.")


class GetChangesOutput(Envelope):
    since: str = Field(
        description="The earlier state: since_token, or a commit (git's empty tree when"
        " since_days reaches before the first commit)."
    )
    until: str | None = Field(description="The later state's commit; null: the files on disk.")
    token: str | None = Field(
        description="Names the later state (null with until_ref): since_token of your next look."
    )
    added: list[TaskRow] = Field(description=f"Tasks only in the later state. {PAGED}")
    removed: list[TaskRow] = Field(
        description=f"Tasks only in the earlier state, as they were. {PAGED}"
    )
    changed: list[ChangedTask] = Field(description=f"Tasks whose file changed. {PAGED}")
    became_ready: list[TaskRow] = Field(description=f"Ready now, not before. {PAGED}")
    became_blocked: list[TaskRow] = Field(description=f"Blocked now, not before. {PAGED}")
    completed: list[TaskRow] = Field(description=f"Status became done. {PAGED}")
    reopened: list[TaskRow] = Field(description=f"Were done or cancelled, open now. {PAGED}")
    problems_appeared: list[ProblemRow] = Field(description=f"New problems. {PAGED}")
    problems_went_away: list[ProblemRow] = Field(description=f"Problems gone. {PAGED}")
    summary: ChangesSummary
    next_cursor: str | None = Field(
        description="Pass as cursor for the next page of the sections; null when done."
    )


class Delta:
    """A delta and the two states it was read from (to turn its ids into task rows)."""

    def __init__(self, delta: TreeDelta, earlier: TreeView, later: TreeView) -> None:
        self.delta = delta
        self.earlier = earlier
        self.later = later

    def task(self, task_id: str) -> Task:
        """The task as the later state holds it, or as the earlier one did (a removed task)."""
        found = self.later.winner(task_id) or self.earlier.winner(task_id)
        assert found is not None, task_id
        return found


def open_git(ctx: ServerContext) -> GitTree:
    return GitTree.open(ctx.live.root)


def _side(state: TreeState, tasks: dict[str, Task | None], ids: set[str], paths: set[str]) -> Side:
    """The state's tasks that differ from the index, and its file problems among the ids and
    paths that differ between the two states (no other file problem can differ)."""
    return Side(
        tasks=tasks,
        duplicates=state.duplicates_among(ids),
        unparseable=state.problems_among(paths),
    )


def _differing(state: TreeState) -> dict[str, Task | None]:
    return {task_id: state.winner(task_id) for task_id in state.touched_ids()}


def _delta_of(ctx: ServerContext, earlier: TreeState, later: TreeState) -> Delta:
    """The delta from `earlier` (a state over `later`) to `later` (a state over the table)."""
    touched, paths = earlier.touched_ids(), set(earlier.replaced)
    found = tree_delta(
        ctx.index,
        touched,
        since=_side(earlier, _differing(earlier), touched, paths),
        until=_side(later, _differing(later), touched, paths),
    )
    return Delta(found, earlier, later)


def feed_delta(ctx: ServerContext, start: int, stop: int) -> Delta:
    """The delta from the feed's state `start` to its state `stop` (`storage.feed`): only
    the files changed in between are read, from memory."""
    feed = ctx.live.feed
    after, between = feed.since(stop), feed.between(start, stop)
    if after is None or between is None:
        raise stale_token()
    later = TreeState(ctx.live.table, after)
    return _delta_of(ctx, TreeState(later, between), later)


def delta_between(ctx: ServerContext, git: GitTree, since: str, until: str | None) -> Delta:
    """The delta from commit `since` to commit `until` (None: the files on disk)."""
    repository = ctx.live.repository
    check, most = repository.is_task_path, repository.max_bytes
    table = ctx.live.table
    later = TreeState(table, {})
    if until is not None:
        later = disk_tree_at(git, table, until, is_task_path=check, max_bytes=most)
        earlier = tree_at(git, later, until, since, is_task_path=check, max_bytes=most)
    else:
        earlier = disk_tree_at(git, table, since, is_task_path=check, max_bytes=most)
    return _delta_of(ctx, earlier, later)


def review_changes(ctx: ServerContext, since_days: float) -> tuple[ChangesSince, str | None]:
    """The review's changes_since: from the delta since the last commit at or before the
    cutoff when the tree is in git (the empty tree when the history is younger), else
    from frontmatter and file times (a file time after the clock's now is not in the
    window: a fixed clock gives the same answer after a checkout). Also the base commit
    (None without git)."""
    start = cutoff(ctx.clock(), since_days, "since_days")
    try:
        git = open_git(ctx)
        base = base_at(git, start)
        found = delta_between(ctx, git, base, None)
    except HistoryError:  # not in git, or no commit yet: the files' own times
        now = ctx.clock()
        times = {t.id: ctx.file_modified(t) for t in ctx.index.tasks()}
        known = {i: when for i, when in times.items() if when is not None and when <= now}
        return changes_by_time(ctx.index, start, known), None
    return changes_from_delta(ctx.index, found.delta), base


def base_at(git: GitTree, moment: datetime) -> str:
    """The state of the tree at `moment`: the last commit at or before it, or git's empty
    tree when the history starts later (every task then reads as added since)."""
    return git.commit_at(moment) or EMPTY_TREE


def resolve_since(ctx: ServerContext, git: GitTree, args: GetChangesInput) -> str:
    if args.since_ref is not None:
        return git.resolve(args.since_ref)
    assert args.since_days is not None
    return base_at(git, cutoff(ctx.clock(), args.since_days, "since_days"))


def _task_rows(ctx: ServerContext, found: Delta, fields: Fields) -> Rows:
    """A page's rows: task rows of the state that holds each id (a removed task is in no
    index); the rows of `changed` and of the problems are rows already."""

    def rows(items: Sequence[Any]) -> list[Any]:
        if not items or not isinstance(items[0], str):
            return list(items)
        tasks = [found.task(task_id) for task_id in items]
        if fields == "brief":
            return list(ctx.task_briefs(tasks))
        return [to_view(task, "full", now=ctx.clock()) for task in tasks]

    return rows


def _feed_changes(ctx: ServerContext, args: GetChangesInput) -> Listing[GetChangesOutput]:
    """Since a token: up to the state now, or, paging on, the state the first page named."""
    assert args.since_token is not None
    live = ctx.live
    start = live.tokens.step(args.since_token, oldest=live.feed.oldest, newest=live.feed.seq)
    stop = live.feed.seq if not args.cursor else _cursor_step(args.cursor)
    found = feed_delta(ctx, start, stop)
    token = live.tokens.issue(stop)
    return _listing(ctx, args, found, (args.since_token, None, token), state=stop)


def _cursor_step(cursor: str) -> int:
    """The feed state a feed answer's cursor was cut at (see `listing.Listing.state`)."""
    step = -1 - cursor_state(cursor)
    if step < 0:
        raise InvalidCursor("cursor belongs to a different query; restart without it")
    return step


@tool("query", read_only=True, idempotent=True, example={"since_ref": "HEAD"})
def get_changes(ctx: ServerContext, args: GetChangesInput) -> Listing[GetChangesOutput]:
    """Changes since a token or a git state: added, removed, changed, readiness, problems."""
    if args.since_token is not None:
        return _feed_changes(ctx, args)
    git = open_git(ctx)
    since = resolve_since(ctx, git, args)
    until = None if args.until_ref is None else git.resolve(args.until_ref)
    found = delta_between(ctx, git, since, until)
    token = ctx.live.tokens.issue(ctx.live.feed.seq) if until is None else None
    return _listing(ctx, args, found, (since, until, token))


def _listing(
    ctx: ServerContext,
    args: GetChangesInput,
    found: Delta,
    states: tuple[str, str | None, str | None],
    state: int | None = None,
) -> Listing[GetChangesOutput]:
    since, until, token = states
    summary = ChangesSummary(**found.delta.summary())
    facts = {"since": since, "until": until, "token": token, "summary": summary}
    return Listing(
        found.delta.sections().with_facts(**facts),
        _advice(feed=state is not None, warn=since == EMPTY_TREE),
        more="Call get_changes with cursor=next_cursor for the rest of the sections",
        rows=_task_rows(ctx, found, args.fields),
        key=(since, until) if state is None else (since, state),
        state=state,
    )


def _advice(*, feed: bool, warn: bool) -> Guidance:
    """A feed answer leads to the next wait; a git answer to one task's history."""
    if feed:
        return guide(
            "changes_listed",
            "Read the sections; call wait_for_changes with since_token=token for the next",
            ["wait_for_changes", "get_task", "get_structural_signals"],
        )
    return guide(
        "changes_listed",
        "Read the sections; call get_task_history for one task",
        ["get_task_history", "get_task", "get_structural_signals"],
        warnings=[BEFORE_HISTORY] if warn else None,
    )


class GetTaskHistoryInput(PageArgs):
    task_id: IdArg = Field(description="Exact task id.")


class HistoryEntry(Part):
    """One commit that changed the task's file."""

    commit: str = Field(description="The commit (full sha).")
    time: datetime = Field(description="Committer time (UTC).")
    author: str = Field(description="Author name.")
    message: str = Field(description="The commit message's first line.")
    created: bool = Field(description="True for the commit that added the task.")
    fields: dict[str, FieldChange] = Field(
        description="Frontmatter fields this commit changed, by name (from is null on creation)."
    )
    body_changed: bool = Field(description="True when the commit changed the markdown body.")
    path: PathMove | None = Field(description="The file's move in this commit; else null.")


class GetTaskHistoryOutput(PageInfo):
    task_id: str = Field(description="The task.")
    commits: list[HistoryEntry] = Field(description="Newest first. This page's part.")


def _entry(found: TaskCommit, old: Task | None, new: Task | None) -> HistoryEntry:
    blank = Task(id="", title="", path="")
    before, after = old or blank, new or blank
    moved = None
    if found.old is not None and found.old != found.new:
        moved = PathMove.model_validate({"from": found.old, "to": found.new})
    return HistoryEntry(
        commit=found.commit.sha,
        time=found.commit.time,
        author=found.commit.author,
        message=found.commit.message,
        created=found.old is None,
        fields=field_changes(before, after) if old is not None else {},
        body_changed=old is not None and not before.same_body(after),
        path=moved,
    )


def _entries(git: GitTree, commits: list[TaskCommit]) -> list[HistoryEntry]:
    """The rows of `commits`: both versions of the file read in one batch."""
    names = [(c.commit.sha, c.new) for c in commits] + [
        (f"{c.commit.sha}^", c.old) for c in commits if c.old is not None
    ]
    contents = dict(zip(names, git.read(names), strict=True))

    def task(name: tuple[str, str]) -> Task | None:
        data = contents.get(name)
        return None if data is None else parse_result(name[1], data, (0, 0)).task

    return [
        _entry(c, task((f"{c.commit.sha}^", c.old)) if c.old else None, task((c.commit.sha, c.new)))
        for c in commits
    ]


def history_file(ctx: ServerContext, task_id: str) -> tuple[str, str]:
    """The task's id and the path of its file: a loaded task's, or the conflicted file that
    holds the id (its history still reads: the commits before the conflict)."""
    task = ctx.index.get(task_id)
    if task is not None:
        return task.id, task.path
    path = ctx.conflicted(task_id)
    if path is None:
        ctx.index.require(task_id)  # raises: no such task
    assert path is not None
    return task_id, path


@tool("query", read_only=True, idempotent=True, example={"task_id": "wx-6ca4a1a9"})
def get_task_history(
    ctx: ServerContext, args: GetTaskHistoryInput
) -> Listing[GetTaskHistoryOutput]:
    """Git commits that changed a task, newest first, with fields changed."""
    task_id, path = history_file(ctx, args.task_id)
    git = open_git(ctx)
    check = ctx.live.repository.is_task_path
    commits = task_commits(git, path, task_id, check)
    by_sha = {c.commit.sha: c for c in commits}
    head = git.resolve("HEAD") if commits else ""

    def rows(shas: Sequence[str]) -> list[HistoryEntry]:
        return _entries(git, [by_sha[sha] for sha in shas])

    return Listing(
        Sections({"commits": list(by_sha)}, {"task_id": task_id}),
        guide(
            "history_listed",
            "Call get_changes to compare whole states",
            ["get_changes", "get_task"],
        ),
        more="Call get_task_history with cursor=next_cursor for older commits",
        rows=rows,
        key=head,
    )
