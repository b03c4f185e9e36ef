"""Mutation tier for many agents on one tree: claims with leases, and handoff notes.

A claim is two frontmatter keys in the task's file, `claimed_by` and `claim_expires`, where
a person sees it too. Every claim, release and note is a guarded write (`_guarded.py`):
across server processes on one tree exactly one racer wins, the others get CONFLICT (a
claim) or go after the winner (a note). Leases are judged by the server's clock.
"""

from __future__ import annotations

import random
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Annotated

from pydantic import AfterValidator, Field

from graph import readiness
from graph.claims import CLAIM_EXPIRES, CLAIMED_BY, MAX_LEASE_SECONDS, claim_of, iso
from graph.filters import kept
from storage.errors import TaskNotFound
from storage.model import READY_STATUSES, Task, plus_clamped
from tasks_server.context import ServerContext
from tasks_server.errors import ClaimHeld
from tasks_server.filters import TaskFilterInput
from tasks_server.guidance import guide
from tasks_server.models import Envelope, IdArg, Input
from tasks_server.registry import tool
from tasks_server.task_guidance import held_by_you
from tasks_server.tools._blocks import closers
from tasks_server.tools._guarded import (
    END_CLAIM,
    AgentArg,
    Decision,
    check_claim,
    guarded_write,
)
from tasks_server.tools._writes import written, written_view
from tasks_server.views import TaskView

__all__ = ["MAX_LEASE_SECONDS", "MAX_NOTE_CHARS", "note_entry", "with_note"]

MAX_NOTE_CHARS = 4_000
"""The longest note: a handoff, not a document (the body holds those)."""
NOTES_HEADING = "## Notes"
TASK_ID = "Exact task id."


class ClaimTaskInput(Input):
    task_id: IdArg = Field(description=TASK_ID)
    agent: AgentArg = Field(description="Who claims it (one printable line, compared exactly).")
    lease_seconds: int = Field(
        ge=1,
        le=MAX_LEASE_SECONDS,
        description=f"How long the claim holds unless renewed, 1 to {MAX_LEASE_SECONDS} seconds.",
    )


class ClaimTaskOutput(Envelope):
    task: TaskView = Field(description="The task as written, with its claim.")
    renewed: bool = Field(description="True when this agent already held the live claim.")
    claim_expires: datetime = Field(description="When the lease now ends (server's clock).")


def _claim(task: Task, agent: str, lease: int, now: datetime) -> Decision:
    if task.is_terminal:
        raise ClaimHeld(
            f"task {task.id!r} is {task.status}; a closed task cannot be claimed",
            {"task_id": task.id, "status": task.status},
        )
    check_claim(task, agent, False, now)
    expires = plus_clamped(now, timedelta(seconds=lease))
    return {CLAIMED_BY: agent, CLAIM_EXPIRES: iso(expires)}, None


@tool(
    "mutation",
    destructive=False,
    idempotent=False,
    example={"task_id": "vol-169a73bf", "agent": "meta", "lease_seconds": 60},
)
def claim_task(ctx: ServerContext, args: ClaimTaskInput) -> ClaimTaskOutput:
    """Claim a task for an agent for lease_seconds: succeeds when no one holds it, the lease
    has expired, or the same agent renews it; else CONFLICT naming the holder and the lease
    end. Atomic across server processes on one tree; a closed task cannot be claimed."""
    now = ctx.clock()
    before = claim_of(ctx.index.require(args.task_id))
    result, _ = guarded_write(
        ctx, args.task_id, lambda task: _claim(task, args.agent, args.lease_seconds, now)
    )
    renewed = before is not None and before.agent == args.agent and before.is_live(now)
    expires = plus_clamped(now, timedelta(seconds=args.lease_seconds))
    return ClaimTaskOutput(
        task=written_view(ctx, args.task_id),
        renewed=renewed,
        claim_expires=expires,
        guidance=held_by_you(args.task_id, args.agent, expires, context={"path": result.path}),
    )


class ClaimNextInput(TaskFilterInput):
    agent: AgentArg = Field(description="Who claims it (one printable line, compared exactly).")
    lease_seconds: int = Field(
        ge=1,
        le=MAX_LEASE_SECONDS,
        description=f"How long the claim holds unless renewed, 1 to {MAX_LEASE_SECONDS} seconds.",
    )
    start: bool = Field(False, description="Also set the claimed task's status to in_progress.")


class ClaimNextOutput(Envelope):
    claimed: TaskView | None = Field(
        description="The task now claimed, in full; null when no ready, unclaimed task matches."
    )
    claim_expires: datetime | None = Field(description="When the lease ends; null with no task.")


def _claim_ready(task: Task, args: ClaimNextInput, now: datetime) -> Decision:
    """Claim `task` as its file holds it now, only while it is still open to start (a task
    someone started, closed or claimed since the index was read is ClaimHeld: skip it)."""
    if task.status not in READY_STATUSES:
        raise ClaimHeld(f"task {task.id!r} is {task.status} now", {"task_id": task.id})
    check_claim(task, args.agent, False, now)
    changes, body = _claim(task, args.agent, args.lease_seconds, now)
    if args.start:
        changes |= {"status": "in_progress", "modified": now}
    return changes, body


def next_candidates(ctx: ServerContext, args: ClaimNextInput, now: datetime) -> Iterator[str]:
    """The ready, unclaimed tasks passing `args`' filters, in get_ready_tasks' order, found
    one at a time (the call stops at the first it claims)."""
    ready = readiness.ready_tasks(ctx.index, project=args.project, now=now)
    return kept(ctx.index, ready, replace(args.task_filter(), unclaimed=True), now)


@tool(
    "mutation", destructive=False, idempotent=False, example={"agent": "meta", "lease_seconds": 60}
)
def claim_next(ctx: ServerContext, args: ClaimNextInput) -> ClaimNextOutput:
    """Claim the first ready task no live claim holds that passes the filters, in
    get_ready_tasks' order, and return it in full (claimed: null when none is left). A task
    another writer takes first is skipped for the next one: never CONFLICT for a race."""
    now = ctx.clock()
    for task_id in _after_lost_races(next_candidates(ctx, args, now), ctx.lost_races):
        try:
            guarded_write(ctx, task_id, lambda task: _claim_ready(task, args, now))
        except (ClaimHeld, TaskNotFound):
            continue  # lost to another writer between the read and the write: take the next
        expires = now + timedelta(seconds=args.lease_seconds)
        return ClaimNextOutput(
            claimed=written_view(ctx, task_id),
            claim_expires=expires,
            guidance=held_by_you(task_id, args.agent, expires),
        )
    return ClaimNextOutput(
        claimed=None,
        claim_expires=None,
        guidance=guide(
            "nothing_to_claim",
            "Call get_blocked_tasks to see what holds work back",
            ["get_blocked_tasks", "get_ready_tasks", "claim_next"],
        ),
    )


class ReleaseTaskInput(Input):
    task_id: IdArg = Field(description=TASK_ID)
    agent: AgentArg = Field(description="The agent that holds the claim.")


class ReleaseTaskOutput(Envelope):
    task_id: str = Field(description="The task.")
    released: bool = Field(description="True when a claim was taken out of the file.")


def _release(task: Task, agent: str, now: datetime) -> Decision:
    check_claim(task, agent, False, now)
    return dict(END_CLAIM), None


def _after_lost_races(candidates: Iterable[str], lost: int) -> Iterator[str]:
    """The candidates, the first few moved to the end when this call runs again after its
    claim lost at the remote (`serve --sync`): between `lost` and three times as many, drawn
    at random, so agents in other clones, who take tasks in the same order and lost the
    same race, spread out instead of meeting on the next task again."""
    skip = random.randint(lost, 3 * lost)
    held: list[str] = []
    for task_id in candidates:
        if len(held) < skip:
            held.append(task_id)
        else:
            yield task_id
    yield from held


@tool(
    "mutation",
    destructive=False,
    idempotent=True,
    example={"task_id": "vol-169a73bf", "agent": "meta"},
)
def release_task(ctx: ServerContext, args: ReleaseTaskInput) -> ReleaseTaskOutput:
    """Give up an agent's claim on a task (an expired claim anyone may clear); CONFLICT
    while another agent's lease runs. Releasing a task no one holds changes nothing."""
    now = ctx.clock()
    task = ctx.index.require(args.task_id)
    held = claim_of(task) is not None
    if held:
        guarded_write(ctx, args.task_id, lambda fresh: _release(fresh, args.agent, now))
    return ReleaseTaskOutput(
        task_id=args.task_id,
        released=held,
        guidance=guide(
            "task_released" if held else "task_not_claimed",
            "Call claim_next to take the next ready task",
            ["claim_next", "get_ready_tasks", "claim_task"],
        ),
    )


BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""Embeddings, overrides and isolates: they reorder the text after them when rendered."""
COMMENT_OPENER = "<!--"
"""Opens an HTML comment: rendered, it can hide every later note."""


def _note_text(text: str) -> str:
    """A note's text, line endings made `\\n`; refused when blank, holding control
    characters other than tab and newline, bidi controls, or an HTML comment opener."""
    text = text.replace("\r\n", "\n")
    if not text.strip():
        raise ValueError("must not be blank")
    bad = [c for c in text if c not in "\t\n" and unicodedata.category(c) in {"Cc", "Zl", "Zp"}]
    if bad:
        raise ValueError(f"holds a control or line-separator character ({bad[0]!r})")
    bidi = [c for c in text if c in BIDI_CONTROLS]
    if bidi:
        raise ValueError(f"holds a bidi control ({bidi[0]!r}) that reorders later notes")
    if COMMENT_OPENER in text:
        raise ValueError(f"holds {COMMENT_OPENER!r}, which would hide later notes")
    return text.strip("\n")


NoteText = Annotated[
    str, Field(min_length=1, max_length=MAX_NOTE_CHARS), AfterValidator(_note_text)
]


class AddNoteInput(Input):
    task_id: IdArg = Field(description=TASK_ID)
    text: NoteText = Field(
        description=f"The note, markdown, at most {MAX_NOTE_CHARS} characters (lines kept)."
        f" Refused (INVALID_ARGUMENT) when it holds {COMMENT_OPENER!r} or a bidi control"
        " (U+202A-U+202E, U+2066-U+2069), which would hide or reorder later notes; a code"
        " fence it leaves open is closed at its end."
    )
    author: AgentArg = Field(description="Who writes it (one printable line).")


class AddNoteOutput(Envelope):
    task_id: str = Field(description="The task.")
    entry: str = Field(description="The entry as appended to the body's Notes section.")
    file_modified: datetime = Field(description="The file's modification time after the note.")


def note_entry(text: str, author: str, now: datetime) -> list[str]:
    """The lines of one note: a list item with the time and the author, its text's further
    lines indented under it.

    >>> from datetime import UTC
    >>> note_entry("Parser done.\\nTests next.", "w1", datetime(2026, 1, 1, tzinfo=UTC))
    ['- 2026-01-01T00:00:00Z — w1: Parser done.', '  Tests next.']
    """
    first, *rest = [*text.split("\n"), *closers(text)]
    return [f"- {iso(now)} — {author}: {first}", *(f"  {line}" if line else "" for line in rest)]


def _last_heading(body: str) -> str | None:
    headings = [line.rstrip() for line in body.splitlines() if line.startswith("## ")]
    return headings[-1] if headings else None


def with_note(body: str, entry: list[str]) -> str:
    """`body` with `entry` appended to its `## Notes` section, which is made at the end when
    the last `##` section is another one. A code fence or comment the body leaves open is
    closed first (else the heading and the note would render inside it). The body's text
    before stays as it was, and its line endings (`\\r\\n` or `\\n`) are used.

    >>> with_note("Plan.\\n", ["- a"])
    'Plan.\\n\\n## Notes\\n\\n- a\\n'
    >>> with_note("Plan.\\n\\n## Notes\\n\\n- a\\n", ["- b"])
    'Plan.\\n\\n## Notes\\n\\n- a\\n- b\\n'
    """
    newline = "\r\n" if "\r\n" in body else "\n"
    text = body if not body or body.endswith("\n") else body + newline
    text += "".join(line + newline for line in closers(text))
    if _last_heading(text) != NOTES_HEADING:
        text += (newline if text else "") + NOTES_HEADING + newline + newline
    return text + "".join(line + newline for line in entry)


def _note(task: Task, entry: list[str], now: datetime) -> Decision:
    return {"modified": now}, with_note(task.body, entry)


@tool(
    "mutation",
    destructive=False,
    idempotent=False,
    example={"task_id": "vol-169a73bf", "text": "Meta note", "author": "meta"},
)
def add_note(ctx: ServerContext, args: AddNoteInput) -> AddNoteOutput:
    """Append a timestamped, attributed note to the task body's '## Notes' section (made at
    the end when missing); nothing else in the file changes but 'modified'. Notes written
    by many processes at once are all kept."""
    now = ctx.clock()
    entry = note_entry(args.text, args.author, now)
    result, _ = guarded_write(ctx, args.task_id, lambda task: _note(task, entry, now))
    view, guidance = written(ctx, args.task_id, first=["get_task"])
    return AddNoteOutput(
        task_id=args.task_id,
        entry="\n".join(entry),
        file_modified=view.file_modified or now,
        guidance=guidance.model_copy(
            update={
                "current_state": "note_added",
                "next_action": f"Call get_task on {args.task_id} to read every note",
                "context": {"path": result.path},
            }
        ),
    )
