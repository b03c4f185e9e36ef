"""Views of what git says changed, for people: `diff` (get_changes between two states of
the tree) and `log` (get_task_history of one task), drawn with rich like every other view
(`tasks_server.human.render`)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from rich.table import Table
from rich.text import Text

from tasks_server.human.calls import emit
from tasks_server.human.render import (
    TIMES,
    empty,
    field_text,
    keep_whole,
    stack,
    table,
    task_table,
    when_text,
)
from tasks_server.human.snapshot import merge_pages, pages

if TYPE_CHECKING:
    from rich.console import RenderableType

    from tasks_server.toolset import Toolset

__all__ = ["NOISE", "changes_view", "history_view", "is_noise", "run_diff", "run_log"]


NOISE = frozenset({"modified"})
"""Fields whose change alone is bookkeeping (every save moves `modified`): `diff` leaves
such rows out unless asked (`--all`), and says how many it left out."""


def _value_text(name: str, value: Any) -> str:
    """A from- or to-value; an absent or empty one as `(none)`, never as nothing."""
    if value in (None, "", [], {}):
        return "(none)"
    return when_text(value) if name in TIMES and isinstance(value, str) else field_text(name, value)


def _change_text(name: str, change: dict[str, Any]) -> str:
    return f"{name}: {_value_text(name, change['from'])} → {_value_text(name, change['to'])}"


def is_noise(row: dict[str, Any]) -> bool:
    """A change row whose only change is a `NOISE` field (no move, no body change)."""
    fields = set(row["fields"])
    return bool(fields) and fields <= NOISE and not row["path"] and not row["body_changed"]


def _what_changed(row: dict[str, Any]) -> str:
    """A change row (of get_changes or get_task_history) as one line: fields, move, body."""
    parts = [_change_text(name, change) for name, change in row["fields"].items()]
    if row["path"]:
        parts.append(_change_text("path", row["path"]))
    if row["body_changed"]:
        parts.append("body")
    return "; ".join(parts)


def _changed_table(rows: list[dict[str, Any]]) -> Table:
    grid = table("id", "what changed", title=f"{len(rows):,} changed")
    for row in rows:
        grid.add_row(Text(row["task_id"], style="bold"), _what_changed(row))
    return keep_whole(grid, [row["task_id"] for row in rows])


def _problems_table(title: str, rows: list[dict[str, Any]]) -> Table:
    grid = table("kind", "tasks", "detail", title=f"{len(rows):,} {title}")
    for row in rows:
        grid.add_row(row["kind"], ", ".join(row["task_ids"]), row["path"] or row["detail"])
    return grid


def changes_view(data: dict[str, Any], *, everything: bool = False) -> RenderableType:
    """get_changes read whole: a line naming the two states, then each non-empty section
    (rows that only touch `modified` left out, and counted, unless `everything`)."""
    until = (data["until"] or "")[:12] or "the files on disk"
    parts: list[RenderableType] = [Text(f"{data['since'][:12]} → {until}", style="bold")]
    for name, count in data["summary"].items():
        rows = data[name]
        if not count:
            continue
        if name == "changed":
            shown = rows if everything else [row for row in rows if not is_noise(row)]
            if shown:
                parts.append(_changed_table(shown))
            if len(shown) < len(rows):
                hidden = len(rows) - len(shown)
                note = f"{hidden:,} more changed only their modified time (--all shows them)"
                parts.append(Text(note, style="dim"))
        elif name.startswith("problems"):
            parts.append(_problems_table(name.replace("_", " "), rows))
        else:
            what = name.replace("_", " ")
            parts.append(task_table({"tasks": rows, "count": count, "total": count}, what))
    if len(parts) == 1:
        parts.append(empty("changes"))
    return stack(*parts)


def history_view(data: dict[str, Any]) -> RenderableType:
    """get_task_history read whole: one row a commit, newest first."""
    commits = data["commits"]
    if not commits:
        return empty(f"commits changing {data['task_id']}")
    grid = table("commit", "when", "author", "message", "changes", title=data["task_id"])
    for row in commits:
        changes = "created" if row["created"] else _what_changed(row) or "(file only)"
        grid.add_row(
            row["commit"][:12], when_text(row["time"]), row["author"], row["message"], changes
        )
    keep_whole(grid, [when_text(row["time"]) for row in commits], column=1)
    return keep_whole(grid, [row["commit"][:12] for row in commits])


def run_diff(args: argparse.Namespace, toolset: Toolset) -> None:
    """`tasks-server diff`: get_changes between two revisions (or a revision and the disk)."""
    arguments = {"since_ref": args.since, "until_ref": args.until}
    given = {key: value for key, value in arguments.items() if value is not None}
    data = merge_pages(pages(toolset, "get_changes", given))
    emit(args, data, lambda: changes_view(data, everything=args.all))


def run_log(args: argparse.Namespace, toolset: Toolset) -> None:
    """`tasks-server log`: the commits that changed one task."""
    data = merge_pages(pages(toolset, "get_task_history", {"task_id": args.task_id}))
    data["count"] = len(data["commits"])
    emit(args, data, lambda: history_view(data))
