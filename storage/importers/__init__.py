"""Importers: other trackers' task data mapped into task files.

Each importer parses its whole source first (a pure `to_tasks`, testable without files),
then writes every task in one all-or-nothing `TaskRepository.write_batch`, and returns an
`ImportReport` that accounts for every line or file it read.

    import_beads(path_to_issues_jsonl, repository)      beads `issues.jsonl`
    import_backlog(path_to_backlog_folder, repository)  Backlog.md task folders

Both raise `storage.errors.ImportFailed`, having written nothing, when the source cannot be
read, an id is already in the tree or a target file already exists.
"""

from __future__ import annotations

from storage.importers.backlog import import_backlog
from storage.importers.beads import import_beads
from storage.importers.report import ImportProblem, ImportReport

__all__ = ["ImportProblem", "ImportReport", "import_backlog", "import_beads"]
