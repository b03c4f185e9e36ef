"""Import other trackers into a tree; export a tree, project, subtree or neighbourhood as
mermaid, dot or json text, or as an SVG or PNG picture (`tasks_server.pictures`)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from graph.index import TaskIndex
from storage.errors import StorageError
from storage.importers import import_backlog, import_beads
from storage.repository import TaskRepository
from tasks_server import pictures, terminal
from tasks_server.live import LiveTree
from tasks_server.pictures import Selection

__all__ = ["export", "run_export", "run_import"]


def run_import(
    kind: str, source: Path, root: Path, project: str | None, *, as_json: bool = False
) -> int:
    """Import into `root` and print the report; exit 1 when nothing was written."""
    repository = TaskRepository(root)
    try:
        with terminal.working(f"importing {kind} from {source}"):
            if kind == "beads":
                report = import_beads(source, repository, project=project)
            else:
                report = import_backlog(source, repository, project=project)
    except StorageError as exc:
        print(f"tasks-server import: {exc}", file=sys.stderr)
        return 1
    if as_json:
        print(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
    else:
        from tasks_server import render  # noqa: PLC0415

        terminal.out(render.import_report(report.to_dict()))
    return 0


def export(index: TaskIndex, selection: Selection, fmt: str) -> str:
    """The selection as mermaid, dot or json text."""
    members, edges = selection.members, selection.edges
    titles = {m: index.require(m).title for m in members}
    if fmt == "json":
        nodes = [{"id": m, "title": titles[m], "status": index.require(m).status} for m in members]
        return json.dumps(
            {"nodes": nodes, "edges": [{"from": a, "to": b, "kind": k} for a, b, k in edges]},
            indent=2,
            ensure_ascii=False,
        )
    if fmt == "dot":
        return pictures.dot_source(index, selection)
    safe = {m: f"n{n}" for n, m in enumerate(members)}
    lines = [f'  {safe[m]}["{m}: {_mermaid_text(titles[m])}"]' for m in members]
    lines += [
        f"  {safe[a]} {'-.->' if k == 'depends_on' else '-->'} {safe[b]}" for a, b, k in edges
    ]
    return "graph TD\n" + "\n".join(lines)


def _mermaid_text(text: str) -> str:
    return text.replace('"', "'").replace("[", "(").replace("]", ")")


def _selection(index: TaskIndex, args: argparse.Namespace) -> Selection | str:
    """What to draw, or why it cannot be drawn."""
    if args.project is not None and args.project not in index.projects():
        return f"unknown project: {args.project}"
    for task_id in (args.task_id, args.subtree):
        if task_id is not None and task_id not in index:
            return f"unknown task: {task_id}"
    return pictures.select(index, project=args.project, task_id=args.task_id, subtree=args.subtree)


def run_export(args: argparse.Namespace) -> int:
    """`tasks-server export`: 1 for an unknown id or project, 2 when Graphviz is missing."""
    fmt = "json" if args.json else args.format
    with terminal.working(f"loading {args.root}"):
        live = LiveTree(args.root, watch=False)
    try:
        selection = _selection(live.index, args)
        if isinstance(selection, str):
            print(f"tasks-server export: {selection}", file=sys.stderr)
            return 1
        if fmt in ("svg", "png"):
            data = pictures.render(pictures.dot_source(live.index, selection), fmt)
        else:
            data = (export(live.index, selection, fmt) + "\n").encode()
    except pictures.GraphvizMissing as exc:
        print(f"tasks-server export: {exc}", file=sys.stderr)
        return 2
    finally:
        live.close()
    return _write(data, args.output)


def _write(data: bytes, output: Path | None) -> int:
    """Write to `output` (or stdout); 2 with one line when the file cannot be written."""
    if output is not None:
        try:
            output.write_bytes(data)
        except OSError as exc:
            print(f"tasks-server export: cannot write {output}: {exc.strerror}", file=sys.stderr)
            return 2
        return 0
    sys.stdout.flush()
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()
    return 0
