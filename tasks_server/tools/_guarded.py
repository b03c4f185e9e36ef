"""Writes that decide on what the file holds now: claims, notes, a completion that respects
a claim. One server process may race another on the same file; exactly one wins.

A guarded write reads the task's file afresh, once, under the file's lock, lets a pure
`decide` check what it holds (a claim, its lease, the status) and say what to write, then
writes only if the file is still the one read (the repository's atomic exchange, checked
against the bytes read, that keeps a concurrent editor's save). Every such tool is a
mutation, so it runs under the tree-wide write lock (`Toolset.run`): another server waits
its turn, and what is left to race is an editor's save. A write that loses
the race reads again and decides again, a bounded number of times: a claim then meets the
winner's claim (CONFLICT with the holder), a note is appended after the winner's note.
"""

from __future__ import annotations

import random
import time
import unicodedata
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Annotated, NamedTuple

from pydantic import AfterValidator, Field

from graph.claims import CLAIM_EXPIRES, CLAIMED_BY, claim_of, iso
from graph.write_delta import WriteDelta
from storage.codec import DELETE
from storage.errors import Conflict, ParseError, TaskNotFound, TooLarge
from storage.model import Task
from storage.table import FileResult
from tasks_server.context import ServerContext
from tasks_server.errors import ClaimHeld

__all__ = [
    "ATTEMPTS",
    "END_CLAIM",
    "MAX_AGENT_CHARS",
    "AgentArg",
    "Decision",
    "Guarded",
    "check_claim",
    "guarded_write",
]

ATTEMPTS = 64
"""How often a guarded write reads again after losing a race before it answers CONFLICT."""
MAX_AGENT_CHARS = 128
END_CLAIM: Mapping[str, object] = {CLAIMED_BY: DELETE, CLAIM_EXPIRES: DELETE}
"""The changes that take a claim out of a file (nothing when it has none)."""

Decision = tuple[dict[str, object], str | None]
"""What to write: frontmatter changes, and the new body (None: the body stays)."""


def _printable_name(text: str) -> str:
    """An agent's name is one printable line: no control or line-separator characters."""
    if not text.strip() or text != text.strip():
        raise ValueError("must not be blank or start or end with spaces")
    if any(unicodedata.category(c) in {"Cc", "Cf", "Zl", "Zp"} for c in text):
        raise ValueError("must not hold control, format or line-separator characters")
    return text


AgentArg = Annotated[
    str, Field(min_length=1, max_length=MAX_AGENT_CHARS), AfterValidator(_printable_name)
]
"""The name an agent acts under (one printable line; compared exactly)."""


def check_claim(task: Task, agent: str | None, force: bool, now: datetime) -> None:
    """ClaimHeld when another agent's lease on `task` runs at `now` (`agent` None is not
    the holder); `force` writes through it."""
    claim = claim_of(task)
    if force or claim is None or not claim.is_live(now) or claim.agent == agent:
        return
    raise ClaimHeld(
        f"task {task.id!r} is claimed by {claim.agent!r} until {iso(claim.expires or now)};"
        " pass that agent, wait for the lease to end, or force=true",
        {"task_id": task.id, "claimed_by": claim.agent, "claim_expires": iso(claim.expires or now)},
    )


def _same_task(task_id: str, decide: Callable[[Task], Decision]) -> Callable[[Task], Decision]:
    """`decide`, given only the task `task_id` (TaskNotFound when the file holds another)."""

    def checked(task: Task) -> Decision:
        if task.id != task_id:
            raise TaskNotFound(task_id)
        return decide(task)

    return checked


class Guarded(NamedTuple):
    """A guarded write's file as written, and what it changed in readiness."""

    result: FileResult
    delta: WriteDelta


def guarded_write(ctx: ServerContext, task_id: str, decide: Callable[[Task], Decision]) -> Guarded:
    """Read the file once under its lock, `decide`, write only over what was read; on a
    lost race, again (bounded). A file that is gone, holds another task or no task at all
    is TaskNotFound. The written file is recorded in the index before returning."""
    path = ctx.index.require(task_id).path
    repo = ctx.live.repository
    for attempt in range(ATTEMPTS):
        try:
            result = repo.update_with(path, _same_task(task_id, decide))
        except Conflict:
            if attempt == ATTEMPTS - 1:
                raise
            time.sleep(random.uniform(0, 0.001 * min(attempt + 1, 8)))  # de-synchronise racers
            continue
        except (TaskNotFound, ParseError, TooLarge) as exc:
            raise TaskNotFound(task_id) from exc
        return Guarded(result, ctx.live.record([result]))
    raise AssertionError("unreachable")  # pragma: no cover
