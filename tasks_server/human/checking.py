"""`tasks-server check`: the tree's problems, errors (exit 1) and warnings, from the same
findings the editor shows (`tasks_server.findings`, loaded by this command alone)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tasks_server import findings
from tasks_server.human import render, snapshot
from tasks_server.human.calls import call, emit
from tasks_server.toolset import Toolset

__all__ = ["run_check"]


def run_check(args: argparse.Namespace, toolset: Toolset) -> int:
    root = toolset.context.live.root
    named, outside = _relative_paths(args.files, root)
    if args.verbose:
        for name in outside:
            print(
                f"tasks-server check: ignoring {name}: not under the task root {root}",
                file=sys.stderr,
            )
    data = snapshot.merge_pages(snapshot.pages(toolset, "get_structural_signals", {}))
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
