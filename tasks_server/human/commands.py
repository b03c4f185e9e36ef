"""The human commands: the same tools agents call (`Toolset.run`), printed for people.

Every command takes `--json` and then prints the structured result the tool returns. An
unknown id or project is one line on stderr and exit 1. rich is imported only here and in
the modules that draw, after the arguments are parsed.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tasks_server import findings
from tasks_server.consent import Consent
from tasks_server.human import changes, interop, render, snapshot, terminal
from tasks_server.human.snapshot import CallFailed as Failed
from tasks_server.human.snapshot import pages
from tasks_server.listing import MAX_PAGE
from tasks_server.roles import parse_patterns
from tasks_server.toolset import Toolset, open_toolset

if TYPE_CHECKING:
    from rich.console import RenderableType

__all__ = ["RUNNERS", "open_tools", "run"]

ALL = MAX_PAGE  # the largest page a tool gives; the human commands show whole lists


def open_tools(args: argparse.Namespace) -> Toolset:
    """The tools over the command's root, role and allowlist; no watcher thread."""

    with terminal.working(f"loading {args.root}"):
        toolset = open_toolset(
            args.root,
            role=getattr(args, "role", None),
            tools=parse_patterns(getattr(args, "tools", None)),
            bots=getattr(args, "bots", None),
            watch=False,
        )
    toolset.context.set_clock(getattr(args, "now", None))
    return toolset


def _typed_by_the_person(question: str) -> Consent:
    """A human command's question is answered: the person typed the command themselves."""
    return "accepted"


def call(toolset: Toolset, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A tool's result; its error message becomes `Failed`."""
    given = {k: v for k, v in arguments.items() if v is not None}
    outcome = toolset.run(tool, given, ask=_typed_by_the_person)
    if outcome.is_error:
        raise Failed(outcome.data["error"]["message"])
    return outcome.data


def emit(
    args: argparse.Namespace,
    data: Any,
    view: Callable[[], RenderableType],
    *,
    soft_wrap: bool = False,
) -> None:
    if args.json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        terminal.out(view(), soft_wrap=soft_wrap)


def require_project(toolset: Toolset, project: str | None) -> None:
    if project is None:
        return
    known = toolset.context.index.projects()
    if project not in known:
        raise Failed(f"unknown project: {project} (projects: {', '.join(known) or 'none'})")


def _listing(tool: str, what: str) -> Callable[[argparse.Namespace, Toolset], None]:
    def run(args: argparse.Namespace, toolset: Toolset) -> None:

        require_project(toolset, args.project)
        data = call(toolset, tool, {"limit": ALL, "project": args.project})
        view = render.blocked_table if what == "blocked" else render.task_table
        emit(args, data, lambda: view(data))

    return run


def run_metrics(args: argparse.Namespace, toolset: Toolset) -> None:

    require_project(toolset, args.project)
    arguments: dict[str, Any] = {"scope": "project", "scope_id": args.project}
    data = call(toolset, "get_graph_metrics", arguments if args.project else {})
    emit(args, data, lambda: render.metrics_view(data))


def run_show(args: argparse.Namespace, toolset: Toolset) -> None:

    data = call(toolset, "get_task", {"task_id": args.task_id})
    width = terminal.console().width
    emit(args, data, lambda: render.task_detail(data, width), soft_wrap=True)  # see the view


def run_tree(args: argparse.Namespace, toolset: Toolset) -> None:

    require_project(toolset, args.project)
    arguments = {"project": args.project, "task_id": args.task_id, "max_depth": args.max_depth}
    data = call(toolset, "get_task_tree", arguments)
    emit(args, data, lambda: render.tree_view(data))


def run_check(args: argparse.Namespace, toolset: Toolset) -> int:

    root = toolset.context.live.root
    named, outside = _relative_paths(args.files, root)
    if args.verbose:
        for name in outside:
            print(
                f"tasks-server check: ignoring {name}: not under the task root {root}",
                file=sys.stderr,
            )
    data = snapshot.merge_pages(pages(toolset, "get_structural_signals", {}))
    stats = call(toolset, "get_index_stats", {})
    live = toolset.context.live
    with live.snapshot():
        problems = findings.tree_problems(live.index, live.table, root)
    problems += findings.untitled(live.table.not_tasks(), root)
    if args.files:
        problems = findings.problems_in(problems, named)
    emit(args, data, lambda: render.check_view(problems, stats["tasks"], stats["files"]))
    return findings.exit_status(problems)


def _relative_paths(files: list[Path], root: Path) -> tuple[set[str], list[Path]]:
    """Root-relative POSIX paths of the files named on the command line, and the names of
    those outside the root."""
    base = root.resolve()
    inside, outside = set(), []
    for name in files:
        path = name.resolve()
        if path.is_relative_to(base):
            inside.add(path.relative_to(base).as_posix())
        else:
            outside.append(name)
    return inside, outside


def run_tools(args: argparse.Namespace, toolset: Toolset) -> None:

    specs = [
        {"name": spec.name, "tier": spec.tier, "description": " ".join(spec.description.split())}
        for spec in toolset.visible()
    ]
    emit(args, specs, lambda: render.tools_table(specs))


def run_bots(args: argparse.Namespace, toolset: Toolset) -> None:

    bots = toolset.context.bots
    catalog = bots.catalog_json(only=args.bot) if bots else []
    emit(args, catalog, lambda: render.bots_table(catalog))


def run_new(args: argparse.Namespace, toolset: Toolset) -> None:
    """A new task file; under a parent, in the parent's project unless told otherwise."""
    project = args.project
    if project is None and args.parent is not None:
        parent = toolset.context.index.get(args.parent)
        project = parent.project if parent is not None else None
    arguments = {"title": args.title, "parent": args.parent, "project": project}
    data = call(toolset, "create_task", arguments)
    path = toolset.context.live.root / data["task"]["path"]
    if args.json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        print(path)


def run_diff(args: argparse.Namespace, toolset: Toolset) -> None:
    arguments = {"since_ref": args.since, "until_ref": args.until}
    data = snapshot.merge_pages(pages(toolset, "get_changes", _given(arguments)))
    emit(args, data, lambda: changes.changes_view(data, everything=args.all))


def run_log(args: argparse.Namespace, toolset: Toolset) -> None:
    data = snapshot.merge_pages(pages(toolset, "get_task_history", {"task_id": args.task_id}))
    data["count"] = len(data["commits"])
    emit(args, data, lambda: changes.history_view(data))


def _given(arguments: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in arguments.items() if value is not None}


def run_snapshot(args: argparse.Namespace, toolset: Toolset) -> None:

    sys.stdout.write(snapshot.dumps(snapshot.tree_facts(toolset)))


Runner = Callable[[argparse.Namespace, "Toolset"], int | None]
RUNNERS: dict[str, Runner] = {
    "ready": _listing("get_ready_tasks", "ready tasks"),
    "blocked": _listing("get_blocked_tasks", "blocked"),
    "metrics": run_metrics,
    "show": run_show,
    "tree": run_tree,
    "check": run_check,
    "tools": run_tools,
    "bots": run_bots,
    "new": run_new,
    "snapshot": run_snapshot,
    "diff": run_diff,
    "log": run_log,
}


def run(args: argparse.Namespace) -> int:
    """Run the human command `args.command`; 1 on a tool error or unknown name."""
    if args.command == "import":
        return interop.run_import(
            args.kind, args.source, args.root, args.project, as_json=args.json
        )
    if args.command == "export":
        return interop.run_export(args)
    toolset = open_tools(args)
    try:
        status = RUNNERS[args.command](args, toolset)
    except Failed as exc:
        print(f"tasks-server {args.command}: {exc}", file=sys.stderr)
        return 1
    finally:
        toolset.context.close()
    return status or 0
