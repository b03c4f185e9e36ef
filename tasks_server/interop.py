"""Import other trackers into a tree, and export a tree or neighbourhood as a graph text."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from graph.index import TaskIndex
from storage.errors import StorageError
from storage.importers import import_backlog, import_beads
from storage.repository import TaskRepository
from tasks_server.live import LiveTree

__all__ = ["export", "run_import"]


def run_import(kind: str, source: Path, root: Path, project: str | None) -> int:
    """Import into `root`; prints the report as JSON; exit 1 when nothing was written."""
    repository = TaskRepository(root)
    print(f"importing {kind} from {source} ...", file=sys.stderr)
    try:
        if kind == "beads":
            report = import_beads(source, repository, project=project)
        else:
            report = import_backlog(source, repository, project=project)
    except StorageError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    print(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
    return 0


def _members(index: TaskIndex, project: str | None, task_id: str | None) -> list[str]:
    if task_id is not None:
        index.require(task_id)
        around = {
            task_id,
            *index.children(task_id),
            *index.dependencies(task_id),
            *index.dependents(task_id),
        }
        parent = index.require(task_id).parent
        return sorted(i for i in around | ({parent} if parent else set()) if i in index)
    if project is not None:
        return sorted(index.project_ids(project))
    return sorted(index.ids())


def _edges(index: TaskIndex, members: list[str]) -> list[tuple[str, str, str]]:
    keep = set(members)
    edges = []
    for task_id in members:
        task = index.require(task_id)
        if task.parent in keep:
            edges.append((task.parent, task_id, "parent"))
        edges.extend((task_id, dep, "depends_on") for dep in task.depends_on if dep in keep)
    return sorted(edges)


def export(root: Path, fmt: str, *, project: str | None = None, task_id: str | None = None) -> str:
    """The tree (or a project, or one task's neighbourhood) as mermaid, dot or json."""
    live = LiveTree(root, watch=False)
    index = live.index
    members = _members(index, project, task_id)
    edges = _edges(index, members)
    titles = {m: index.require(m).title for m in members}
    statuses = {m: index.require(m).status for m in members}
    if fmt == "json":
        nodes = [{"id": m, "title": titles[m], "status": statuses[m]} for m in members]
        return json.dumps(
            {"nodes": nodes, "edges": [{"from": a, "to": b, "kind": k} for a, b, k in edges]},
            indent=2,
        )
    if fmt == "dot":
        lines = [
            f'  "{m}" [label={json.dumps(titles[m] + " (" + statuses[m] + ")")}];' for m in members
        ]
        lines += [
            f'  "{a}" -> "{b}"{" [style=dashed]" if k == "depends_on" else ""};'
            for a, b, k in edges
        ]
        return "digraph tasks {\n" + "\n".join(lines) + "\n}"
    safe = {m: f"n{n}" for n, m in enumerate(members)}
    lines = [f'  {safe[m]}["{m}: {_mermaid_text(titles[m])}"]' for m in members]
    lines += [
        f"  {safe[a]} {'-.->' if k == 'depends_on' else '-->'} {safe[b]}" for a, b, k in edges
    ]
    return "graph TD\n" + "\n".join(lines)


def _mermaid_text(text: str) -> str:
    return text.replace('"', "'").replace("[", "(").replace("]", ")")
