"""The commands that make one tool call and print its answer: ready, blocked, metrics,
show, tree, tools, bots and new."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable

from tasks_server.human import render, terminal
from tasks_server.human.calls import ALL, call, emit, require_project
from tasks_server.toolset import Toolset

__all__ = [
    "run_blocked",
    "run_bots",
    "run_metrics",
    "run_new",
    "run_ready",
    "run_show",
    "run_tools",
    "run_tree",
]


def _listing(tool: str, what: str) -> Callable[[argparse.Namespace, Toolset], None]:
    def run(args: argparse.Namespace, toolset: Toolset) -> None:
        require_project(toolset, args.project)
        data = call(toolset, tool, {"limit": ALL, "project": args.project})
        view = render.blocked_table if what == "blocked" else render.task_table
        emit(args, data, lambda: view(data))

    return run


run_ready = _listing("get_ready_tasks", "ready tasks")
run_blocked = _listing("get_blocked_tasks", "blocked")


def run_metrics(args: argparse.Namespace, toolset: Toolset) -> None:
    require_project(toolset, args.project)
    arguments: dict[str, object] = {"scope": "project", "scope_id": args.project}
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
