"""Pictures of the graph: Graphviz `dot` source with status by style, rendered to SVG or PNG.

A picture shows a whole tree, one project, one subtree or one task's neighbourhood. Each
task is a box whose style says where it stands: done (green, grey text), cancelled (dashed),
ready (thick green border), in progress (blue), blocked (red, with the reason in the box) or
anything else (grey). Parent edges are solid grey lines from parent to child; dependency
edges are dashed red arrows from a task to what it waits on. A legend box explains both.
Rendering needs Graphviz's `dot` on the PATH; without it, `GraphvizMissing` says how to get it.
"""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
import textwrap
from dataclasses import dataclass

from graph.index import TaskIndex
from storage.model import TERMINAL_STATUSES

__all__ = ["GraphvizMissing", "Selection", "dot_source", "render", "select"]

INSTALL = (
    "Graphviz's `dot` is not on the PATH; install Graphviz "
    "(apt-get install graphviz, dnf install graphviz, brew install graphviz) and try again"
)

STYLES = {
    "done": 'fillcolor="#e3f4e1", color="#7bb274", fontcolor="#5b6b58"',
    "cancelled": (
        'fillcolor="#f4f4f4", color="#9e9e9e", fontcolor="#8a8a8a", style="rounded,dashed,filled"'
    ),
    "ready": 'fillcolor="#ffffff", color="#1b7f2a", penwidth=3',
    "in progress": 'fillcolor="#d6e8ff", color="#2f6db5"',
    "blocked": 'fillcolor="#fde2e1", color="#c0392b", penwidth=2',
    "other": 'fillcolor="#f4f4f4", color="#9e9e9e"',
}
PARENT_EDGE = 'color="#9e9e9e", arrowhead=none'
DEPENDS_EDGE = 'color="#c0392b", style=dashed, arrowhead=vee, constraint=false'


class GraphvizMissing(Exception):
    """No `dot` to render with; the message says how to install it."""


@dataclass(frozen=True, slots=True)
class Selection:
    """The tasks a picture or export shows, and the edges among them (from, to, kind)."""

    members: list[str]
    edges: list[tuple[str, str, str]]


def _neighbourhood(index: TaskIndex, task_id: str) -> set[str]:
    parent = index.require(task_id).parent
    return {
        task_id,
        *index.children(task_id),
        *index.dependencies(task_id),
        *index.dependents(task_id),
        *([parent] if parent else []),
    }


def select(
    index: TaskIndex,
    *,
    project: str | None = None,
    task_id: str | None = None,
    subtree: str | None = None,
) -> Selection:
    """A neighbourhood (`task_id`), a subtree, a project, or the whole tree."""
    if task_id is not None:
        chosen = _neighbourhood(index, task_id)
    elif subtree is not None:
        index.require(subtree)
        chosen = {subtree, *index.descendants(subtree)}
    elif project is not None:
        chosen = set(index.project_ids(project))
    else:
        chosen = set(index.ids())
    members = sorted(i for i in chosen if i in index)
    return Selection(members, _edges(index, members))


def _edges(index: TaskIndex, members: list[str]) -> list[tuple[str, str, str]]:
    keep = set(members)
    edges = []
    for task_id in members:
        task = index.require(task_id)
        if task.parent in keep:
            edges.append((task.parent, task_id, "parent"))
        edges.extend((task_id, dep, "depends_on") for dep in task.depends_on if dep in keep)
    return sorted(edges)


def state(index: TaskIndex, task_id: str) -> tuple[str, str]:
    """(style name, words for the box): where the task stands."""
    status = index.require(task_id).status
    facts = index.facts(task_id)
    if status == "done":
        return "done", "done"
    if status in TERMINAL_STATUSES:
        return "cancelled", status
    if facts.is_blocked:
        return "blocked", "blocked: " + _reason(facts.reasons.model_dump())
    if facts.is_ready:
        return "ready", "ready"
    if status == "in_progress":
        return "in progress", "in progress"
    return "other", status.replace("_", " ")


def _reason(reasons: dict[str, object]) -> str:
    """The first reason a task is blocked, short enough for a box."""
    for key, words in (
        ("unmet_dependencies", "waits on"),
        ("dangling_dependencies", "missing"),
        ("cycle", "cycle with"),
    ):
        ids = reasons.get(key)
        if isinstance(ids, list) and ids:
            more = f" +{len(ids) - 1}" if len(ids) > 1 else ""
            return f"{words} {ids[0]}{more}"
    if reasons.get("blocked_ancestor"):
        return f"under {reasons['blocked_ancestor']}"
    return "status is blocked"


def _quote(text: str) -> str:
    """A DOT string: JSON's escaping is DOT's (quotes, backslashes, `\\n` for a new line)."""
    return json.dumps(text, ensure_ascii=False)


def _node(index: TaskIndex, task_id: str) -> str:
    style, words = state(index, task_id)
    title = "\n".join(textwrap.wrap(index.require(task_id).title, 32)[:3])
    label = _quote(f"{task_id}\n{title}\n[{words}]")
    return f"  {_quote(task_id)} [label={label}, {STYLES[style]}];"


def _legend_node(name: str, style: str) -> str:
    return f"    {_quote('legend: ' + name)} [label={_quote(name)}, {STYLES[style]}];"


def _legend_edge(source: str, target: str, attributes: str) -> str:
    return f"    {_quote('legend: ' + source)} -> {_quote('legend: ' + target)} [{attributes}];"


def _legend() -> list[str]:
    """A box with one sample of each style and each kind of edge."""
    names = list(STYLES)
    lines = ["  subgraph cluster_legend {", '    label="legend"; color="#bdbdbd"; fontsize=11;']
    lines.extend(_legend_node(name, name) for name in names)
    lines.extend(_legend_edge(a, b, "style=invis") for a, b in itertools.pairwise(names))
    for source, target, attributes in (
        ("parent", "child", PARENT_EDGE),
        ("task", "what it waits on", DEPENDS_EDGE),
    ):
        lines.extend([_legend_node(source, "other"), _legend_node(target, "other")])
        lines.append(_legend_edge(source, target, attributes))
    return [*lines, "  }"]


def dot_source(index: TaskIndex, selection: Selection, *, legend: bool = True) -> str:
    """The selection as a Graphviz digraph."""
    lines = [
        "digraph tasks {",
        '  graph [rankdir=LR, fontname="Helvetica", nodesep=0.25, ranksep=0.6];',
        '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=10];',
        '  edge [fontname="Helvetica", fontsize=9];',
        *(_node(index, m) for m in selection.members),
    ]
    for source, target, kind in selection.edges:
        attributes = PARENT_EDGE if kind == "parent" else DEPENDS_EDGE
        lines.append(f"  {_quote(source)} -> {_quote(target)} [{attributes}];")
    if legend:
        lines.extend(_legend())
    return "\n".join([*lines, "}"]) + "\n"


def render(source: str, fmt: str) -> bytes:
    """`source` rendered by Graphviz as `fmt` (svg or png)."""
    dot = shutil.which("dot")
    if dot is None:
        raise GraphvizMissing(INSTALL)
    done = subprocess.run([dot, f"-T{fmt}"], input=source.encode(), capture_output=True, check=True)
    return done.stdout
