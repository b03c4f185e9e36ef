"""Export a tree, project, subtree or neighbourhood as mermaid, dot or json text, or as an
SVG or PNG picture (`tasks_server.human.pictures`); importing is `importing.py`.

Past `pictures.SUMMARY_ABOVE` tasks, every drawing format (mermaid, dot, svg, png) draws
the summary (`--full` draws every task anyway); json always lists every task. Mermaid text
stays within mermaid's default limits (`MERMAID_EDGES`, `MERMAID_CHARS`) or is refused in
one line saying what to draw instead.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from graph.index import TaskIndex
from tasks_server import sizes
from tasks_server.human import pictures, terminal
from tasks_server.human.pictures import Selection, Summary
from tasks_server.live import LiveTree
from tasks_server.roots import is_installed_example

__all__ = ["MERMAID_CHARS", "MERMAID_EDGES", "export", "run_export"]

MERMAID_EDGES = 500  # mermaid's default maxEdges
MERMAID_CHARS = 50_000  # mermaid's default maxTextSize


class TooBig(Exception):
    """Mermaid text past mermaid's default limits; the message says what to draw instead."""


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
    return _mermaid(lines, len(edges))


def _mermaid(lines: list[str], edges: int) -> str:
    """A mermaid graph of `lines`; TooBig past mermaid's default limits."""
    text = "graph TD\n" + "\n".join(lines)
    if edges > MERMAID_EDGES or len(text) > MERMAID_CHARS:
        raise TooBig(
            f"the mermaid text would have {edges:,} edges and {len(text):,} characters, past "
            f"mermaid's defaults ({MERMAID_EDGES} edges, {MERMAID_CHARS:,} characters); draw "
            "less with --project P or --subtree ID, or use --format svg"
        )
    return text


def _mermaid_text(text: str) -> str:
    return sizes.clip(text, 80).replace('"', "'").replace("[", "(").replace("]", ")")


def mermaid_summary(index: TaskIndex, summary: pictures.Summary) -> str:
    """The summary as mermaid: the top task over a node per box, the note as a comment."""
    safe = {box.name: f"b{n}" for n, box in enumerate(summary.boxes)}  # ids mermaid accepts
    lines = [f"  %% {pictures.summary_note(summary)}"]
    if summary.top is not None:
        top = index.require(summary.top)
        lines.append(f'  top["{top.id}: {_mermaid_text(top.title)}"]')
        lines += [f"  top --> {safe[box.name]}" for box in summary.boxes]
    for box in summary.boxes:
        text = "<br>".join(_mermaid_text(line) for line in pictures.box_text(index, summary, box))
        lines.append(f'  {safe[box.name]}["{text}"]')
    return _mermaid(lines, len(summary.boxes) if summary.top is not None else 0)


def _selection(index: TaskIndex, args: argparse.Namespace) -> Selection | str:
    """What to draw, or why it cannot be drawn."""
    if args.project is not None and args.project not in index.projects():
        return f"unknown project: {args.project}"
    for task_id in (args.task_id, args.subtree):
        if task_id is not None and task_id not in index:
            return f"unknown task: {task_id}"
    return pictures.select(index, project=args.project, task_id=args.task_id, subtree=args.subtree)


def run_export(args: argparse.Namespace) -> int:
    """`tasks-server export`: 1 for an unknown id or project or mermaid past its limits, 2
    when Graphviz is missing or fails."""
    fmt = "json" if args.json else args.format
    with terminal.working(f"loading {args.root}"):
        # never a cache written into the example inside an installed package
        live = LiveTree(args.root, watch=False, use_cache=not is_installed_example(args.root))
    try:
        selection = _selection(live.index, args)
        if isinstance(selection, str):
            print(f"tasks-server export: {selection}", file=sys.stderr)
            return 1
        data = _drawn(live.index, selection, fmt, args)
    except TooBig as exc:
        print(f"tasks-server export: {exc}", file=sys.stderr)
        return 1
    except (pictures.GraphvizMissing, pictures.GraphvizFailed) as exc:
        print(f"tasks-server export: {exc}", file=sys.stderr)
        return 2
    finally:
        live.close()
    return _write(data, args.output)


def _summary(index: TaskIndex, selection: Selection, args: argparse.Namespace) -> Summary | None:
    """The summary to draw instead of `selection`, when it is too large to draw whole."""
    if args.full or len(selection.members) <= pictures.SUMMARY_ABOVE:
        return None
    whole_tree = args.project is None and args.subtree is None and args.task_id is None
    summary = pictures.summarize(index, selection, by_project=whole_tree and _has_projects(index))
    print(f"tasks-server export: {pictures.summary_note(summary)}", file=sys.stderr)
    return summary


def _has_projects(index: TaskIndex) -> bool:
    return len(index.projects()) > 1


def _drawn(index: TaskIndex, selection: Selection, fmt: str, args: argparse.Namespace) -> bytes:
    """The export's bytes: json whole; a drawing format whole or summarised."""
    summary = None if fmt == "json" else _summary(index, selection, args)
    if summary is None:
        text = None if fmt in ("svg", "png") else export(index, selection, fmt)
        source = pictures.dot_source(index, selection)
    else:
        text = mermaid_summary(index, summary) if fmt == "mermaid" else None
        source = pictures.summary_dot(index, summary)
    if fmt in ("svg", "png"):
        return pictures.render(source, fmt)
    return ((source if fmt == "dot" else text or "") + "\n").encode()


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
