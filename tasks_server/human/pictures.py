"""Pictures of the graph: Graphviz `dot` source with status by style, rendered to SVG or PNG.

A picture shows a whole tree, one project, one subtree or one task's neighbourhood. Each
task is a box whose style says where it stands: done (green, grey text), cancelled (dashed),
ready (thick green border), in progress (blue), blocked (red, with the reason in the box) or
anything else (grey). Parent edges are solid grey lines from parent to child; dependency
edges are dashed red arrows from a task to what it waits on. A legend box explains both.
Rendering needs Graphviz's `dot` on the PATH; without it, `GraphvizMissing` says how to get it.
Graphviz's own warnings (an image scaled down, a label too wide) are passed on to stderr.

A selection of more than `SUMMARY_ABOVE` tasks is drawn as a summary instead (`summarize`):
one box per project (the whole tree), or the top task above one box per task under it
(a project or subtree); boxes of a single task are folded into one box per state, and the
boxes holding ready, then blocked, then other open work come first (a flat project shows
its open tasks, not a row of done ones). Each box counts the tasks folded into it by state
and the tasks in other boxes they wait on (counted, not drawn: twenty projects that all wait on each
other would be a hairball of edges again). Boxes are laid out in rows of `ROW`. The
picture says how to draw one box in full (`--project P`, `--subtree ID`).
"""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
import sys
import textwrap
from collections import Counter
from dataclasses import dataclass

from graph.index import TaskIndex
from storage.model import TERMINAL_STATUSES

__all__ = [
    "SUMMARY_ABOVE",
    "Box",
    "GraphvizFailed",
    "GraphvizMissing",
    "Selection",
    "Summary",
    "box_counts",
    "box_text",
    "dot_source",
    "render",
    "select",
    "summarize",
    "summary_dot",
    "summary_note",
]

SUMMARY_ABOVE = 100
"""The most tasks a picture draws one by one; a larger selection is drawn as a summary."""
MOST_BOXES = 60
"""The most boxes a summary draws; the rest are folded into one last box."""
ROW = 5
"""Boxes side by side in a summary."""

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


class GraphvizFailed(Exception):
    """`dot` ran and failed (its messages are already on stderr)."""


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
    """`source` rendered by Graphviz as `fmt` (svg or png); its warnings go to stderr."""
    dot = shutil.which("dot")
    if dot is None:
        raise GraphvizMissing(INSTALL)
    done = subprocess.run(
        [dot, f"-T{fmt}"], input=source.encode(), capture_output=True, check=False
    )
    warnings = done.stderr.decode(errors="replace")
    sys.stderr.write("".join(f"graphviz: {line}\n" for line in warnings.splitlines()))
    if done.returncode != 0:
        raise GraphvizFailed(f"Graphviz's dot failed (exit status {done.returncode})")
    return done.stdout


# --- summaries of large selections ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Box:
    """Tasks folded into one box: `name` is its node, `label` its first line, `hint` the
    export option that draws it in full."""

    name: str
    label: str
    members: tuple[str, ...]
    hint: str


@dataclass(frozen=True, slots=True)
class Summary:
    """A large selection as boxes: the top task drawn above them (or none), the boxes, and
    by box name the tasks of other boxes its tasks wait on (tasks, boxes)."""

    top: str | None
    boxes: list[Box]
    waits: dict[str, tuple[int, int]]
    total: int
    kind: str  # what a box is: "project" or "subtree"


def _project_boxes(index: TaskIndex, members: list[str]) -> list[Box]:
    by_project: dict[str | None, list[str]] = {}
    for member in members:
        by_project.setdefault(index.require(member).project, []).append(member)
    return [
        Box(f"project {name}", name, tuple(ids), f"--project {name}")
        if name is not None
        else Box("no project", "tasks without a project", tuple(ids), "")
        for name, ids in sorted(by_project.items(), key=lambda item: item[0] or "")
    ]


def _subtree_boxes(index: TaskIndex, members: list[str]) -> tuple[str | None, list[Box]]:
    """The single top task and a box per child of it, else a box per top task; tasks no
    top reaches (a parent cycle) share one last box."""
    keep = set(members)
    tops = [m for m in members if index.require(m).parent not in keep]
    top = tops[0] if len(tops) == 1 else None
    heads = [c for c in index.children(top) if c in keep] if top is not None else tops
    boxes = []
    for head in heads:
        below = [d for d in index.descendants(head) if d in keep]
        title = textwrap.shorten(index.require(head).title, 40, placeholder="…")
        boxes.append(Box(head, f"{head}\n{title}", (head, *below), f"--subtree {head}"))
    placed = {m for box in boxes for m in box.members} | {top}
    rest = tuple(m for m in members if m not in placed)
    if rest:
        boxes.append(Box("in parent cycles", "in parent cycles", rest, ""))
    return top, boxes


def _fold_singles(index: TaskIndex, boxes: list[Box]) -> list[Box]:
    """Boxes of one task each folded into one box per state (`N single tasks: ready`): a
    flat project (every task a top task) draws a box per state, not a box per task. A lone
    single box of its state stays as it is."""
    singles: dict[str, list[Box]] = {}
    for box in boxes:
        if len(box.members) == 1 and box.hint:
            singles.setdefault(state(index, box.members[0])[0], []).append(box)
    folded = {name: group for name, group in singles.items() if len(group) > 1}
    kept = [box for box in boxes if not _is_in(box, folded)]
    for name, group in folded.items():
        label = f"{len(group):,} single tasks: {name}"
        kept.append(Box(f"single {name}", label, tuple(b.members[0] for b in group), ""))
    return kept


def _is_in(box: Box, folded: dict[str, list[Box]]) -> bool:
    return any(box in group for group in folded.values())


def _open_first(index: TaskIndex, boxes: list[Box]) -> list[Box]:
    """Boxes with the most ready tasks first, then the most blocked, then the most open
    (not done or cancelled); ties keep their order. The open work is what a reader looks
    for, and what the fold into `more boxes` must never hide."""

    def key(box: Box) -> tuple[int, int, int]:
        states = Counter(state(index, m)[0] for m in box.members)
        closed = states["done"] + states["cancelled"]
        return -states["ready"], -states["blocked"], closed - len(box.members)

    return sorted(boxes, key=key)


def _fold(boxes: list[Box]) -> list[Box]:
    """At most `MOST_BOXES` boxes: the rest (in order) folded into one."""
    if len(boxes) <= MOST_BOXES:
        return boxes
    kept, rest = boxes[: MOST_BOXES - 1], boxes[MOST_BOXES - 1 :]
    folded = tuple(m for box in rest for m in box.members)
    return [*kept, Box("more", f"{len(rest):,} more boxes", folded, "")]


def summarize(index: TaskIndex, selection: Selection, *, by_project: bool) -> Summary:
    """The selection as boxes: by project, or by the top task's children (see the module)."""
    members = selection.members
    top, boxes = (
        (None, _project_boxes(index, members)) if by_project else (_subtree_boxes(index, members))
    )
    boxes = _fold(_open_first(index, _fold_singles(index, boxes)))
    box_of = {m: box.name for box in boxes for m in box.members}
    waited: dict[str, set[str]] = {}
    for source, target, kind in selection.edges:
        mine, theirs = box_of.get(source), box_of.get(target)
        if kind == "depends_on" and mine and theirs and mine != theirs:
            waited.setdefault(mine, set()).add(target)
    waits = {
        name: (len(targets), len({box_of[t] for t in targets})) for name, targets in waited.items()
    }
    return Summary(top, boxes, waits, len(members), "project" if by_project else "subtree")


def box_counts(index: TaskIndex, members: tuple[str, ...]) -> str:
    """`N tasks: x done, y ready, ...`, the states in the legend's order."""
    states = Counter(state(index, m)[0] for m in members)
    parts = [f"{states[name]:,} {name}" for name in STYLES if states[name]]
    return f"{len(members):,} tasks: " + ", ".join(parts)


def box_text(index: TaskIndex, summary: Summary, box: Box) -> list[str]:
    """The lines of a box: what it is, its counts, what it waits on, how to draw it."""
    lines = [*box.label.split("\n"), box_counts(index, box.members)]
    tasks, boxes = summary.waits.get(box.name, (0, 0))
    if tasks:
        lines.append(f"waits on {tasks:,} tasks in {boxes:,} other {summary.kind}s")
    if box.hint:
        lines.append(f"draw it: {box.hint}")
    return lines


def _box_node(index: TaskIndex, summary: Summary, box: Box) -> str:
    label = _quote("\n".join(box_text(index, summary, box)))
    return f"  {_quote(box.name)} [label={label}, shape=box3d, {STYLES['other']}];"


def _rows(names: list[str]) -> list[str]:
    """Lines that lay `names` out in rows of `ROW`, each row under the one before."""
    rows = [names[n : n + ROW] for n in range(0, len(names), ROW)]
    lines = [f"  {{ rank=same; {'; '.join(_quote(name) for name in row)}; }}" for row in rows]
    for upper, lower in itertools.pairwise(rows):
        lines.extend(
            f"  {_quote(a)} -> {_quote(b)} [style=invis];"
            for a, b in zip(upper, lower, strict=False)
        )
    return lines


def summary_note(summary: Summary) -> str:
    """What the summary is and how to draw a part in full (the picture's caption)."""
    parts = summary.kind
    option = "--project P" if parts == "project" else "--subtree ID"
    under = f" under {summary.top}" if summary.top is not None else ""
    return (
        f"{summary.total:,} tasks, more than a picture keeps readable ({SUMMARY_ABOVE}): "
        f"each {parts}{under} is a box with its counts; draw one in full with {option}, "
        "or everything with --full"
    )


def summary_dot(index: TaskIndex, summary: Summary) -> str:
    """The summary as a Graphviz digraph, its caption saying how to draw a box in full."""
    lines = [
        "digraph tasks {",
        f'  graph [rankdir=TB, fontname="Helvetica", nodesep=0.3, ranksep=0.4, '
        f"labelloc=t, label={_quote(summary_note(summary))}];",
        '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=11];',
        *(_box_node(index, summary, box) for box in summary.boxes),
        *_rows([box.name for box in summary.boxes]),
    ]
    if summary.top is not None:
        lines.append(_node(index, summary.top))
        lines.extend(
            f"  {_quote(summary.top)} -> {_quote(box.name)} [{PARENT_EDGE}];"
            for box in summary.boxes[:ROW]
        )
    return "\n".join([*lines, "}"]) + "\n"
