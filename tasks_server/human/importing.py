"""`tasks-server import`: another tracker's export into a task tree, as one batch.

The importers (`storage.importers`) are loaded by this command alone: no other command
pays for them at start.
"""

from __future__ import annotations

import json
import signal
import sys
from pathlib import Path
from typing import Any

from storage.errors import StorageError
from storage.importers import import_backlog, import_beads
from storage.repository import TaskRepository
from tasks_server.human import render, terminal

__all__ = ["run_import"]

INTERRUPTED = 130  # 128 + SIGINT, as the entry point's other interrupted commands


def run_import(
    kind: str, source: Path, root: Path, project: str | None, *, as_json: bool = False
) -> int:
    """Import into `root` and print the report; exit 1 when nothing was written. Ctrl-C
    finishes or rolls back the batch (the journal's recovery), sweeps its staged files and
    says which it was (exit 130)."""
    repository = TaskRepository(root)
    before = _task_files(repository)
    try:
        with terminal.working(f"importing {kind} from {source}"):
            if kind == "beads":
                report = import_beads(source, repository, project=project)
            else:
                report = import_backlog(source, repository, project=project)
    except KeyboardInterrupt:
        return _interrupted_import(root, before)
    except StorageError as exc:
        print(f"tasks-server import: {exc}", file=sys.stderr)
        return 1
    data = report.to_dict()
    if as_json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        terminal.out(render.import_report(data))
    if report.imported == 0:
        print(f"tasks-server import: nothing imported: {_why_none(data, kind)}", file=sys.stderr)
        return 1
    return 0


def _why_none(report: dict[str, Any], kind: str) -> str:
    """Why an import wrote nothing, from its report: an empty source, everything skipped
    on purpose, or every record dropped (by problem kind: a file of another format)."""
    unit, source = report["unit"], report["source"]
    if report["read"] == 0:
        return f"{source} holds no {unit}"
    if report["dropped"] == 0:
        return f"all {report['read']:,} {unit} were skipped ({_tally(report['skipped'])})"
    return (
        f"{report['dropped']:,} of {report['read']:,} {unit} dropped "
        f"({_tally(report['problem_counts'])}); is {source} a {kind} export?"
    )


def _tally(counts: dict[str, int]) -> str:
    return ", ".join(f"{kind} {count:,}" for kind, count in sorted(counts.items()))


def _task_files(repository: TaskRepository) -> int:
    """How many task files the tree holds (one walk, nothing read)."""
    return sum(1 for _ in repository.iter_paths()) if repository.root.is_dir() else 0


def _interrupted_import(root: Path, before: int) -> int:
    """After Ctrl-C: finish a committed batch or drop an uncommitted one, sweep the staged
    files (opening the repository does both), and say which state the tree is in. The batch
    is all or nothing, so any new task file means the whole import landed. A second
    Ctrl-C is ignored while this runs."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    written = _task_files(TaskRepository(root)) - before
    state = (
        f"the import is complete ({written} task files written)"
        if written > 0
        else "rolled back, nothing was imported"
    )
    print(f"tasks-server import: interrupted: {state}", file=sys.stderr)
    return INTERRUPTED
