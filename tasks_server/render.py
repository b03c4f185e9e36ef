"""Plain-text views of tool results for the human CLI commands."""

from __future__ import annotations

from typing import Any

__all__ = [
    "blocked_lines",
    "check_lines",
    "check_status",
    "metrics_lines",
    "task_detail",
    "task_lines",
    "tree_text",
]


def _line(task: dict[str, Any]) -> str:
    project = f" [{task['project']}]" if task.get("project") else ""
    return f"{task['id']}  P{task['priority']}  {task['status']:<11} {task['title']}{project}"


def task_lines(data: dict[str, Any]) -> str:
    tasks = data.get("tasks", [])
    return "\n".join(_line(task) for task in tasks) or "(none)"


def blocked_lines(data: dict[str, Any]) -> str:
    out: list[str] = []
    for row in data.get("tasks", []):
        reasons = [
            f"{key}: {', '.join(row[key])}"
            for key in ("unmet_dependencies", "dangling_dependencies", "cycle")
            if row[key]
        ]
        if row.get("blocked_ancestor"):
            reasons.append(f"blocked_ancestor: {row['blocked_ancestor']}")
        if row.get("status_blocked"):
            reasons.append("status is blocked")
        out.append(f"{_line(row['task'])}\n    {'; '.join(reasons)}")
    return "\n".join(out) or "(none)"


def metrics_lines(data: dict[str, Any]) -> str:
    keep = {k: v for k, v in data.items() if k not in ("success", "guidance")}
    return "\n".join(f"{key}: {value}" for key, value in keep.items())


def task_detail(data: dict[str, Any]) -> str:
    task = data["task"]
    head = [
        f"{key}: {value}"
        for key, value in task.items()
        if key not in ("body", "extra") and value not in (None, [], "")
    ]
    return "\n".join(head) + "\n\n" + (task.get("body") or "")


def tree_text(data: dict[str, Any]) -> str:
    return str(data.get("ascii") or "(empty)")


def check_lines(data: dict[str, Any]) -> str:
    out = []
    shown = 0
    for key, value in data.items():
        items = [] if key in ("success", "guidance", "totals") else _problem_items(value)
        if not items:
            continue
        out.append(f"{key}:")
        out.extend(f"  {item}" for item in items)
        shown += len(items)
    if data.get("next_cursor"):
        rest = sum(data.get("totals", {}).values()) - shown
        out.append(f"... and {rest} more (page them with get_structural_signals)")
    return "\n".join(out) or "no problems found"


def _problem_items(value: Any) -> list[Any]:
    """The entries of a signal: a list, or a dict of lists (dangling references by field)."""
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        return [f"{field}: {entry}" for field, entries in value.items() for entry in entries]
    return []


def check_status(data: dict[str, Any]) -> int:
    """1 when the tree has problems worth fixing (on any page: read from `totals`), else 0.
    Done tasks with open children, and open tasks under done ones, are not errors."""
    keys = (
        "parent_cycles",
        "dependency_cycles",
        "dangling_parent",
        "dangling_depends_on",
        "dangling_soft_depends_on",
        "duplicate_ids",
        "unparseable_files",
        "self_references",
    )
    totals = data.get("totals") or {}
    return 1 if any(totals.get(key) for key in keys) else 0
