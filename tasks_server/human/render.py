"""Views of tool results for people: aligned tables and trees drawn with rich.

Each function takes the structured result a tool returns (the same data `--json` prints)
and gives something to print. Numbers are rounded for reading, lists are joined with commas
and nothing is printed as a Python repr. What `check` finds comes from the core
(`tasks_server.findings`, shared with the editor's diagnostics); the views of what git says
changed have their own module (`tasks_server.human.changes`), drawn with the pieces here
(`table`, `stack`, `field_text`, ...).
"""

from __future__ import annotations

import textwrap
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from rich import box
from rich.console import Group
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from tasks_server.sizes import (
    MAX_ID_CHARS,
    MAX_LIST_ITEMS,
    MAX_SHORT_CHARS,
    MAX_TITLE_CHARS,
    TEXT_LIMITS,
    clip,
)

if TYPE_CHECKING:
    from rich.console import RenderableType

    from tasks_server.findings import Problem

__all__ = [
    "STATUS_STYLE",
    "blocked_table",
    "bots_table",
    "check_view",
    "empty",
    "field_text",
    "import_report",
    "keep_whole",
    "metrics_view",
    "stack",
    "status_text",
    "table",
    "task_detail",
    "task_table",
    "tools_table",
    "tree_view",
    "when_text",
]

STATUS_STYLE = {
    "done": "green",
    "cancelled": "dim",
    "in_progress": "cyan",
    "blocked": "red",
    "review": "magenta",
    "active": "default",
}


def status_text(status: str) -> Text:
    return Text(status, style=STATUS_STYLE.get(status, "yellow"))


def table(*headers: str, title: str | None = None) -> Table:
    """A borderless table with a rule under its header row."""
    grid = Table(
        box=box.SIMPLE_HEAD, title=title, title_justify="left", pad_edge=False, show_edge=False
    )
    for header in headers:
        grid.add_column(header, overflow="fold")
    return grid


def stack(*parts: RenderableType) -> Group:
    """Parts one under another, a blank line between them."""
    spaced: list[RenderableType] = []
    for part in parts:
        spaced.extend([Text(""), part] if spaced else [part])
    return Group(*spaced)


def keep_whole(grid: Table, names: list[str], column: int = 0) -> Table:
    """Never fold `names` (ids, tool names) in `column`: other columns wrap instead."""
    grid.columns[column].min_width = max((len(name) for name in names), default=0)
    grid.columns[column].no_wrap = True
    return grid


def empty(what: str) -> Text:
    return Text(f"no {what}", style="dim")


def title(task: dict[str, Any]) -> str:
    """A task's title, shortened with a marker past the length a write allows."""
    return clip(task["title"], MAX_TITLE_CHARS)


def _task_cells(task: dict[str, Any]) -> list[str | Text]:
    return [
        Text(clip(task["id"], MAX_ID_CHARS), style="bold"),
        f"P{task['priority']}",
        status_text(clip(task["status"], MAX_SHORT_CHARS)),
        clip(task.get("project") or "", MAX_ID_CHARS),
        title(task),
    ]


def task_table(data: dict[str, Any], what: str = "ready") -> RenderableType:
    """ready: one row a task."""
    tasks = data.get("tasks", [])
    if not tasks:
        return empty(f"{what} tasks")
    grid = table("id", "prio", "status", "project", "title", title=_count(data, what))
    for task in tasks:
        grid.add_row(*_task_cells(task))
    return keep_whole(grid, [task["id"] for task in tasks])


def _count(data: dict[str, Any], what: str) -> str:
    shown, total = data.get("count", 0), data.get("total", 0)
    return f"{total:,} {what}" if shown == total else f"{shown:,} of {total:,} {what}"


def blocked_reasons(row: dict[str, Any]) -> str:
    """Why a task is blocked, in words."""
    reasons = []
    if row.get("status_blocked"):
        reasons.append("status is blocked")
    if row.get("unmet_dependencies"):
        reasons.append("waits on " + ", ".join(row["unmet_dependencies"]))
    if row.get("dangling_dependencies"):
        reasons.append("depends on missing " + ", ".join(row["dangling_dependencies"]))
    if row.get("cycle"):
        more = row.get("cycle_length", 0) - len(row["cycle"])
        listed = ", ".join(row["cycle"]) + (f" and {more:,} more" if more > 0 else "")
        reasons.append("in a dependency cycle with " + listed)
    if row.get("blocked_ancestor"):
        reasons.append("under blocked " + row["blocked_ancestor"])
    return "; ".join(reasons)


def blocked_table(data: dict[str, Any]) -> RenderableType:
    """blocked: one row a task, with the reasons."""
    rows = data.get("tasks", [])
    if not rows:
        return empty("blocked tasks")
    grid = table("id", "prio", "status", "project", "title", "why", title=_count(data, "blocked"))
    for row in rows:
        grid.add_row(*_task_cells(row["task"]), blocked_reasons(row))
    return keep_whole(grid, [row["task"]["id"] for row in rows])


def _pairs(title: str, pairs: list[tuple[str, Any]]) -> Table:
    grid = table(title, "")
    grid.columns[1].justify = "right"
    for label, value in pairs:
        grid.add_row(label, _number(value))
    return grid


def _number(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:,.1f}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return "" if value is None else str(value)


def _scope(data: dict[str, Any]) -> str:
    scope = data.get("scope", "all")
    return "whole tree" if scope == "all" else f"{scope} {data.get('scope_id')}"


def metrics_view(data: dict[str, Any]) -> RenderableType:
    """metrics: counts, then counts by status and type, degrees and readiness."""
    deps, ready = data["dependency_stats"], data["readiness_stats"]
    shape = [
        ("tasks", data["total_tasks"]),
        ("roots", data["root_count"]),
        ("leaves", data["leaf_count"]),
        ("orphans", data["orphan_count"]),
        ("max depth", data["max_depth"]),
        ("average depth", data["avg_depth"]),
        ("without depth (parent cycle)", data["no_depth_count"]),
    ]
    readiness = [
        ("ready", ready["ready_count"]),
        ("blocked", ready["blocked_count"]),
        ("in progress", ready["in_progress_count"]),
    ]
    edges = [
        ("dependency edges", deps["total_edges"]),
        ("dangling edges", deps["dangling_edges"]),
        ("max in-degree", deps["max_in_degree"]),
        ("max out-degree", deps["max_out_degree"]),
    ]
    parts: list[RenderableType] = [
        Text(f"Graph metrics: {_scope(data)}", style="bold"),
        _columns(_pairs("shape", shape), _pairs("readiness", readiness), _pairs("edges", edges)),
        _columns(
            _pairs("status", sorted(data["tasks_by_status"].items())),
            _pairs("type", sorted(data["tasks_by_type"].items())),
        ),
    ]
    heavy = deps.get("tasks_with_high_out_degree") or []
    if heavy:
        grid = table("id", "depends on", "title", title="Most dependencies")
        grid.columns[1].justify = "right"
        for row in heavy:
            grid.add_row(row["id"], str(row["out_degree"]), title(row))
        parts.append(grid)
    return stack(*parts)


def _columns(*tables: Table) -> Table:
    """Tables side by side."""
    grid = Table.grid(padding=(0, 4))
    grid.add_row(*tables)
    return grid


TIMES = frozenset({"created", "modified", "completed", "due", "file_modified"})
FIELD_ORDER = ("type", "status", "priority", "project", "parent", "order", "assignee")


def when_text(text: str) -> str:
    """An ISO timestamp for reading: to the second, in UTC (one zone in every view, whatever
    offset each file wrote); a time without an offset is shown as written."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return text
    if moment.utcoffset() is None:
        return f"{moment:%Y-%m-%d %H:%M:%S}"
    return f"{moment.astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC"


def field_text(key: str, value: Any) -> str:
    """A field's value for reading, shortened with a marker past what a write allows."""
    if isinstance(value, list):
        shown = [clip(str(v), MAX_SHORT_CHARS) for v in value[:MAX_LIST_ITEMS]]
        more = len(value) - len(shown)
        return ", ".join(shown) + (f"… (+{more:,} items)" if more else "")
    if isinstance(value, bool):
        return "yes" if value else "no"
    return clip(_number(value), TEXT_LIMITS.get(key, MAX_SHORT_CHARS))


def task_detail(data: dict[str, Any], width: int = 120) -> RenderableType:
    """show: the task's fields, then its body."""
    task = dict(data["task"])
    head = Text.assemble((clip(task.pop("id"), MAX_ID_CHARS), "bold"), "  ", title(task))
    task.pop("title")
    body = task.pop("body", None) or ""
    task.pop("extra", None)
    keys = [*[k for k in FIELD_ORDER if k in task], *[k for k in task if k not in FIELD_ORDER]]
    shown = [key for key in keys if task[key] not in (None, [], "", {})]
    label = max((len(key) for key in shown), default=4)
    parts: list[RenderableType] = [head]
    rows = _field_grid(label)
    for key in shown:
        if key == "path":
            # Printed soft-wrapped (`terminal.out`): the path is one line of its own, never
            # broken mid-name; the fields around it are grids with the same label width.
            parts += [rows, Text.assemble(("path".ljust(label), "dim"), "  ", task[key])]
            rows = _field_grid(label)
            continue
        text = field_text(key, task[key])
        value = status_text(text) if key == "status" else text
        if key in TIMES and isinstance(task[key], str):
            value = when_text(task[key])
        rows.add_row(key.replace("_", " "), value)
    parts.append(rows)
    # The body's long lines are wrapped here at spaces only, so a long path or URL stays
    # whole and its own line breaks are kept.
    if not body:
        return Group(*parts)
    return Group(*parts, Text(""), Text(wrap_words(body.strip("\n"), width)))


def _field_grid(label: int) -> Table:
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="dim", width=label)
    grid.add_column(overflow="fold")
    return grid


def wrap_words(text: str, width: int) -> str:
    """`text` with each line longer than `width` wrapped at spaces (never inside a word,
    never at a hyphen), keeping its indent; shorter lines as they are.

    >>> wrap_words("  a bb ccc", 6).split(chr(10))
    ['  a bb', '  ccc']
    """
    lines = []
    for line in text.split("\n"):
        if len(line) <= width:
            lines.append(line)
            continue
        indent = line[: len(line) - len(line.lstrip())]
        lines.append(
            textwrap.fill(
                line, width, subsequent_indent=indent, break_long_words=False,
                break_on_hyphens=False,
            )
        )  # fmt: skip
    return "\n".join(lines)


def tree_view(data: dict[str, Any]) -> RenderableType:
    """tree: the nested nodes of get_task_tree (format json)."""
    nodes = data.get("tree") or []
    if not nodes:
        return empty("tasks")
    if len(nodes) == 1:
        top = Tree(_node_label(nodes[0]), guide_style="dim")
        _grow(top, nodes[0]["children"])
        return top
    top = Tree(Text(f"{data.get('node_count', 0):,} tasks", style="dim"), guide_style="dim")
    _grow(top, nodes)
    return top


def _grow(branch: Tree, nodes: list[dict[str, Any]]) -> None:
    for node in nodes:
        _grow(branch.add(_node_label(node)), node.get("children") or [])


def _node_label(node: dict[str, Any]) -> Text:
    status = Text(f"[{node['status']}]", style=STATUS_STYLE.get(node["status"], "yellow"))
    return Text.assemble((clip(node["id"], MAX_ID_CHARS), "bold"), " ", status, " ", title(node))


def tools_table(specs: list[dict[str, Any]]) -> RenderableType:
    """tools: name, tier and the whole description (wrapped, never cut)."""
    grid = table("tool", "tier", "what it does", title=f"{len(specs)} tools")
    for spec in specs:
        grid.add_row(Text(spec["name"], style="bold"), spec["tier"], spec["description"])
    return keep_whole(grid, [spec["name"] for spec in specs])


def bots_table(catalog: list[dict[str, Any]]) -> RenderableType:
    """bots: the generated tools, with their triggers."""
    if not catalog:
        return empty("bot tools")
    grid = table("tool", "triggers", "what it does", title=f"{len(catalog)} bot tools")
    for entry in catalog:
        triggers = "; ".join(entry.get("trigger_patterns") or [])
        grid.add_row(Text(entry["name"], style="bold"), triggers, first_sentence(entry))
    return keep_whole(grid, [entry["name"] for entry in catalog])


def first_sentence(entry: dict[str, Any]) -> str:
    """A description's first sentence, whole (`--json` has the rest)."""
    text = " ".join(str(entry.get("description", "")).split())
    end = text.find(". ")
    return text if end < 0 else text[: end + 1]


def import_report(report: dict[str, Any]) -> RenderableType:
    """import: what was written, skipped and dropped, the problems, and the tallies."""
    unit = str(report.get("unit", "records"))
    skipped = sum(report.get("skipped", {}).values())
    head = (
        f"imported {report['imported']:,} of {report['read']:,} {unit} from {report['source']}"
        f" ({skipped:,} skipped, {report['dropped']:,} dropped)"
    )
    parts: list[RenderableType] = [Text(head, style="bold")]
    problems = report.get("problems") or []
    if problems:
        grid = table("where", "problem", "detail", title=f"problems ({len(problems):,})")
        for problem in problems:
            grid.add_row(problem["where"], problem["kind"], problem["message"])
        parts.append(grid)
    for key in ("skipped", "dropped_fields", "counts"):
        if report.get(key):
            parts.append(_pairs(key.replace("_", " "), sorted(report[key].items())))
    return stack(*parts)


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}" + ("" if count == 1 else "s")


def check_view(problems: list[Problem], tasks: int, files: int) -> RenderableType:
    """check: a summary line, then errors and warnings, each under its heading."""
    errors = [p for p in problems if p.is_error]
    warnings = [p for p in problems if not p.is_error]
    checked = f"checked {_plural(tasks, 'task')} in {_plural(files, 'file')}"
    if not problems:
        return Text(f"{checked}: no problems found", style="green")
    summary = f"{checked}: {_plural(len(errors), 'error')}, {_plural(len(warnings), 'warning')}"
    parts: list[RenderableType] = [Text(summary, style="bold")]
    for heading, group, style in (("errors", errors, "red"), ("warnings", warnings, "yellow")):
        if group:
            grid = table("file", "problem", "detail")
            grid.title = Text(f"{heading} ({len(group):,})", style=f"bold {style}")
            for problem in group:
                grid.add_row(problem.where, problem.kind.replace("_", " "), problem.message)
            keep_whole(grid, [problem.kind.replace("_", " ") for problem in group], column=1)
            parts.append(keep_whole(grid, [problem.where for problem in group]))
    return stack(*parts)
