"""Query tier: wait for the tree to change, instead of asking again and again.

`wait_for_changes` holds the call (not the tree: other calls run meanwhile) until the tree
differs from a token's state, by any writer: this server, another process, an editor, a
checkout. It wakes on the kernel's report of a change (`LiveTree.wait_past`), never by
reading the disk in a loop, and answers with the new token and one line of what changed;
`get_changes(since_token=...)` then gives the changes themselves.
"""

from __future__ import annotations

import time
from typing import Annotated

from pydantic import AfterValidator, Field

from graph.delta import SECTIONS, TreeDelta
from tasks_server.context import ServerContext
from tasks_server.guidance import guide
from tasks_server.models import SINCE_TOKEN, Envelope, Input, Token
from tasks_server.registry import tool
from tasks_server.tools.changes import feed_delta

__all__ = ["MAX_WAIT_SECONDS", "change_line", "wait_for_changes"]

MAX_WAIT_SECONDS = 300
"""The longest one call waits; wait again with the token it gives back."""

Seconds = Annotated[float, Field(ge=0, le=MAX_WAIT_SECONDS)]


def _known_sections(names: list[str] | None) -> list[str] | None:
    unknown = sorted(set(names or ()) - set(SECTIONS))
    if unknown:
        raise ValueError(f"not a get_changes section: {', '.join(unknown)}")
    return names


Sections = Annotated[list[str] | None, AfterValidator(_known_sections)]


class WaitForChangesInput(Input):
    since_token: Token = Field(description=SINCE_TOKEN)
    timeout_seconds: Seconds = Field(60, description="Then answer changed=false.")
    sections: Sections = Field(
        None, description="Wake only for these get_changes sections (new work: became_ready)."
    )


class WaitForChangesOutput(Envelope):
    changed: bool = Field(description="True when the tree differs from since_token's state.")
    token: str = Field(description="The state now; give it to get_changes as since_token.")
    summary: str = Field(description="One line: how many tasks each section holds.")


def change_line(delta: TreeDelta) -> str:
    """`2 changed, 1 became_ready`: the sections that hold anything, with their lengths."""
    counts = [f"{n} {name}" for name, n in delta.summary().items() if n]
    return ", ".join(counts) or "no change"


def _answer(ctx: ServerContext, step: int, delta: TreeDelta | None) -> WaitForChangesOutput:
    changed = delta is not None and any(delta.summary().values())
    if changed:
        advice = guide("tree_changed", "Call get_changes with since_token", ["get_changes"])
    else:
        advice = guide("tree_unchanged", "Call wait_for_changes again", ["wait_for_changes"])
    return WaitForChangesOutput(
        changed=changed,
        token=ctx.live.tokens.issue(step),
        summary=change_line(delta) if delta is not None else "no change",
        guidance=advice,
    )


def _wakes(delta: TreeDelta, sections: list[str] | None) -> bool:
    """Whether `delta` answers the wait: any change, or one in the sections asked for."""
    summary = delta.summary()
    return any(summary[name] for name in sections) if sections else any(summary.values())


@tool("query", read_only=True, idempotent=True, waits=True, example=None)
def wait_for_changes(ctx: ServerContext, args: WaitForChangesInput) -> WaitForChangesOutput:
    """Wait until the tree differs from since_token's state, or the timeout."""
    live = ctx.live
    start = live.tokens.step(args.since_token, oldest=live.feed.oldest, newest=live.feed.seq)
    deadline = time.monotonic() + args.timeout_seconds
    seen, delta = start, None
    while True:
        if live.feed.seq != seen:
            seen = live.feed.seq
            delta = feed_delta(ctx, start, seen).delta
            if _wakes(delta, args.sections):
                return _answer(ctx, seen, delta)
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return _answer(ctx, seen, delta)
        live.wait_past(seen, remaining)
        live.refresh()
