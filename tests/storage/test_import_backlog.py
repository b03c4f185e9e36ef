"""Backlog.md import keeps what the folders mean: live wins, archive and drafts never ready,
every id form resolves to one id, and the report lists every collision and dangling reference.

The synthetic board below is our own text laid out as Backlog.md lays out a board: `tasks/`,
`completed/`, `drafts/`, `archive/tasks/`, `archive/drafts/`, `milestones/`, a `config.yml`
whose `task_prefix` differs from the `task-` prefix older references still use, zero-padded
subtask ids and bare numbers. The expected meaning is written out by hand; the real folder
is read back through python-frontmatter (PyYAML), an independent path, and compared.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import cast

import frontmatter
import pytest

from graph.index import TaskIndex
from graph.readiness import ready_tasks
from storage.importers import ImportReport, import_backlog
from storage.importers import backlog as backlog_importer
from storage.importers.backlog_rules import BacklogIds
from storage.model import TERMINAL_STATUSES, Task
from storage.repository import TaskRepository
from tests.conftest import DATASETS, datasets, write
from tests.storage.import_checks import check, dangling_in_index, listed, read_back

TASKWRIGHT = DATASETS / "backlog" / "ChronoVortex07__taskwright"


def card(
    task_id: str, title: str, status: str, *, deps: str = "[]", parent: str = "", more: str = ""
) -> str:
    """A task file as Backlog.md writes one."""
    parent_line = f"parent_task_id: {parent}\n" if parent else ""
    return (
        f"---\nid: {task_id}\ntitle: {title}\nstatus: {status}\nassignee: []\n"
        f"created_date: '2026-01-05 09:30'\nlabels: []\ndependencies: {deps}\n"
        f"{parent_line}{more}---\n\n## Description\n\n{title}, in a few words.\n"
    )


BOARD: dict[str, str] = {
    "config.yml": 'project_name: "Demo board"\ntask_prefix: "proj"\n',
    "tasks/proj-1 - Set-up-the-repository.md": card("PROJ-1", "Set up the repository", "To Do"),
    "tasks/proj-2 - Write-the-parser.md": card(
        "PROJ-2", "Write the parser", "In Progress", deps="[task-1]"
    ),
    "tasks/proj-3 - Ship-it.md": card("PROJ-3", "Ship it", "To Do", deps="['2', proj-7]"),
    "tasks/proj-3.01 - First-step.md": card("PROJ-3.01", "First step", "To Do", parent="task-3"),
    "tasks/proj-3.02 - Second-step.md": card(
        "PROJ-3.02", "Second step", "To Do", deps="[task-3.01]", parent="'3'"
    ),
    "completed/proj-4 - Old-work.md": card("PROJ-4", "Old work", "Done"),
    "tasks/proj-5 - Live-copy.md": card("PROJ-5", "Live copy", "Done"),
    "archive/tasks/proj-5 - Archived-stub.md": card("PROJ-5", "Archived stub", "To Do"),
    "completed/proj-6 - Finished-copy.md": card("PROJ-6", "Finished copy", "Done"),
    "archive/tasks/proj-6 - Archived-stub.md": card("PROJ-6", "Archived stub", "To Do"),
    "archive/tasks/proj-7 - Dropped-idea.md": card("PROJ-7", "Dropped idea", "To Do"),
    "archive/tasks/proj-8 - Not-doing-this.md": card("PROJ-8", "Not doing this", "Won't Do"),
    "archive/tasks/proj-9 - Done-then-archived.md": card("PROJ-9", "Done then archived", "Done"),
    "drafts/draft-1 - Rough-idea.md": card("DRAFT-1", "Rough idea", "To Do"),
    "drafts/draft-2 - Another-idea.md": card("DRAFT-2", "Another idea", "Draft", deps="[proj-1]"),
    "archive/drafts/draft-3 - Shelved-idea.md": card("DRAFT-3", "Shelved idea", "To Do"),
    "milestones/m-1 - Launch.md": "---\nid: m-1\ntitle: Launch\n---\n\n## Description\n\nGo.\n",
    "tasks/proj-10 - Needs-missing-work.md": card(
        "PROJ-10", "Needs missing work", "To Do", deps="[task-99, proj-42]"
    ),
    "tasks/proj-11 - Lost-its-parent.md": card(
        "PROJ-11", "Lost its parent", "To Do", parent="proj-404"
    ),
    "tasks/proj-12 - Padded-twin.md": card("PROJ-12", "Padded twin", "To Do"),
    "tasks/proj-012 - Padded-twin-copy.md": card("PROJ-012", "Padded twin copy", "To Do"),
    "tasks/readme.md": "# Tasks\n\nOne file per task, `proj-<n> - <title>.md`.\n",
    "docs/doc-1 - Guide.md": "---\nid: doc-1\ntitle: Guide\n---\n\nHow we work.\n",
    "decisions/decision-1 - Use-YAML.md": "---\nid: decision-1\ntitle: Use YAML\n---\n",
}

# The meaning of BOARD, written out by hand: id -> (status, backlog_folder or None, title).
MEANING: dict[str, tuple[str, str | None, str]] = {
    "PROJ-1": ("active", None, "Set up the repository"),
    "PROJ-2": ("in_progress", None, "Write the parser"),
    "PROJ-3": ("active", None, "Ship it"),
    "PROJ-3.1": ("active", None, "First step"),
    "PROJ-3.2": ("active", None, "Second step"),
    "PROJ-4": ("done", "completed", "Old work"),
    "PROJ-5": ("done", None, "Live copy"),
    "PROJ-6": ("done", "completed", "Finished copy"),
    "PROJ-7": ("cancelled", "archive/tasks", "Dropped idea"),
    "PROJ-8": ("cancelled", "archive/tasks", "Not doing this"),
    "PROJ-9": ("done", "archive/tasks", "Done then archived"),
    "DRAFT-1": ("inbox", "drafts", "Rough idea"),
    "DRAFT-2": ("inbox", "drafts", "Another idea"),
    "DRAFT-3": ("cancelled", "archive/drafts", "Shelved idea"),
    "PROJ-10": ("active", None, "Needs missing work"),
    "PROJ-11": ("active", None, "Lost its parent"),
    "PROJ-12": ("active", None, "Padded twin"),
}
LINKS: dict[str, tuple[str | None, tuple[str, ...]]] = {
    "PROJ-2": (None, ("PROJ-1",)),
    "PROJ-3": (None, ("PROJ-2", "PROJ-7")),
    "PROJ-3.1": ("PROJ-3", ()),
    "PROJ-3.2": ("PROJ-3", ("PROJ-3.1",)),
    "DRAFT-2": (None, ("PROJ-1",)),
    "PROJ-10": (None, ("TASK-99", "PROJ-42")),
    "PROJ-11": ("PROJ-404", ()),
}


# --- helpers -----------------------------------------------------------------------------


def board(tmp_path: Path, files: dict[str, str] = BOARD) -> Path:
    folder = tmp_path / "backlog"
    for relative, text in files.items():
        write(folder, relative, text)
    return folder


def imported(folder: Path, root: Path) -> tuple[ImportReport, dict[str, Task], TaskIndex]:
    report = import_backlog(folder, TaskRepository(root), project="demo")
    return (report, *read_back(root))


def written_canonical(written: str) -> str:
    """Backlog.md's rule, as its docs state it: prefix upper-cased, leading zeros cosmetic."""
    match = re.fullmatch(r"([A-Za-z]+)-(\d+(?:\.\d+)*)", written)
    if not match:
        return written
    return f"{match[1].upper()}-{'.'.join(str(int(part)) for part in match[2].split('.'))}"


def oracle(folder: Path) -> dict[str, list[tuple[str, str, str]]]:
    """What python-frontmatter (PyYAML) reads: canonical id -> [(folder, id as written,
    title)] for every task file Backlog.md would list, milestones, docs and decisions aside."""
    found: dict[str, list[tuple[str, str, str]]] = {}
    for path in sorted(folder.rglob("*.md")):
        relative = path.relative_to(folder)
        if relative.parts[0] in ("docs", "decisions") or "milestones" in relative.parts:
            continue
        post = frontmatter.load(path)
        if "title" in post.metadata:
            written = str(post["id"])
            entry = (relative.parent.as_posix(), written, str(post["title"]))
            found.setdefault(written_canonical(written), []).append(entry)
    return found


RANK = ("tasks", "completed", "drafts", "archive/tasks", "archive/drafts")


def assert_folders_keep_their_meaning(
    folder: Path, tasks: dict[str, Task], index: TaskIndex
) -> None:
    """Against the oracle: for each id the copy in the liveliest folder is the one imported
    (the archive never wins by sorting first), and every archived or draft task says where
    it came from, has a status that is not ready and is not ready."""
    ready = set(ready_tasks(index))
    for canonical, copies in oracle(folder).items():
        where, _, title = min(copies, key=lambda c: (RANK.index(c[0]), c[1] != canonical))
        task = tasks[canonical]
        assert (task.title, task.extra.get("backlog_folder", "tasks")) == (title, where)
        if where.startswith(("archive", "drafts")):
            assert task.id not in ready
            assert task.status in {*TERMINAL_STATUSES, "inbox"}


# --- the synthetic board --------------------------------------------------------------------


def test_board_folders_keep_their_meaning_and_ids_their_canonical_form(tmp_path: Path) -> None:
    report, tasks, _ = imported(board(tmp_path), tmp_path / "root")

    assert {i: (t.status, t.extra.get("backlog_folder"), t.title) for i, t in tasks.items()} == (
        MEANING
    )
    for task_id, (parent, depends_on) in LINKS.items():
        assert (tasks[task_id].parent, tasks[task_id].depends_on) == (parent, depends_on)
    assert tasks["PROJ-3.1"].extra["backlog_id"] == "PROJ-3.01"
    assert tasks["PROJ-7"].extra["backlog_status"] == "To Do"
    assert tasks["DRAFT-1"].extra["backlog_status"] == "To Do"
    assert "backlog_status" not in tasks["PROJ-8"].extra
    assert report.counts_add_up()


def test_archived_and_draft_tasks_are_never_ready(tmp_path: Path) -> None:
    folder = board(tmp_path)
    _, tasks, index = imported(folder, tmp_path / "root")

    assert sorted(ready_tasks(index)) == ["PROJ-1", "PROJ-11", "PROJ-12"]
    assert_folders_keep_their_meaning(folder, tasks, index)


def test_live_copy_wins_over_completed_and_archive_and_each_collision_is_reported(
    tmp_path: Path,
) -> None:
    report, tasks, _ = imported(board(tmp_path), tmp_path / "root")

    collisions = {p.where: p.message for p in report.problems if p.kind == "duplicate_id"}
    assert set(collisions) == {
        "archive/tasks/proj-5 - Archived-stub.md",
        "archive/tasks/proj-6 - Archived-stub.md",
        "tasks/proj-012 - Padded-twin-copy.md",
    }
    assert "tasks/proj-5 - Live-copy.md" in collisions["archive/tasks/proj-5 - Archived-stub.md"]
    assert "completed/proj-6" in collisions["archive/tasks/proj-6 - Archived-stub.md"]
    assert "tasks/proj-12 - Padded-twin.md" in collisions["tasks/proj-012 - Padded-twin-copy.md"]
    assert (tasks["PROJ-5"].title, tasks["PROJ-6"].title) == ("Live copy", "Finished copy")
    assert (report.read, report.imported, report.dropped) == (22, 17, 3)
    assert dict(report.skipped) == {"milestone": 1, "not_a_task": 1}
    assert report.counts_add_up()


def test_every_dangling_reference_is_in_the_report_and_the_index_finds_no_other(
    tmp_path: Path,
) -> None:
    report, _, index = imported(board(tmp_path), tmp_path / "root")

    assert (
        dangling_in_index(index)
        == listed(report, "dangling_reference")
        == {
            ("depends_on", "PROJ-10", "TASK-99"),
            ("depends_on", "PROJ-10", "PROJ-42"),
            ("parent", "PROJ-11", "PROJ-404"),
        }
    )
    assert {field: dict(tally) for field, tally in report.references.items()} == {
        "parent": {"named": 3, "resolved": 2, "dropped": 0, "dangling": 1},
        "depends_on": {"named": 7, "resolved": 5, "dropped": 0, "dangling": 2},
        "soft_depends_on": {"named": 0, "resolved": 0, "dropped": 0, "dangling": 0},
    }
    assert report.counts["rewritten_references"] == 10
    assert report.counts_add_up()


def test_prefixed_bare_and_padded_references_resolve_to_one_id() -> None:
    files = [
        ("tasks/back-100 - Target.md", card("BACK-100", "Target", "To Do")),
        ("tasks/back-355 - Parent.md", card("BACK-355", "Parent", "To Do")),
        ("tasks/back-355.01 - Sub.md", card("BACK-355.01", "Sub", "To Do", parent="task-355")),
        ("tasks/back-7 - A.md", card("BACK-7", "A", "To Do", deps="[task-100, '100', TASK-100]")),
        ("tasks/back-8 - B.md", card("BACK-8", "B", "To Do", deps="[back-355.01, task-355.1]")),
    ]
    tasks, report = backlog_importer.to_tasks(files, project=None)
    by_id = {task.id: task for task in tasks}

    assert set(by_id) == {"BACK-100", "BACK-355", "BACK-355.1", "BACK-7", "BACK-8"}
    assert by_id["BACK-7"].depends_on == ("BACK-100",)
    assert by_id["BACK-8"].depends_on == ("BACK-355.1",)
    assert by_id["BACK-355.1"].parent == "BACK-355"
    assert report.problems == ()


def test_numbers_name_the_prefix_the_board_uses_when_no_config_says() -> None:
    files = [
        ("tasks/task-1 - One.md", card("task-1", "One", "To Do")),
        ("tasks/task-2 - Two.md", card("task-2", "Two", "To Do", deps="[1]")),
    ]
    tasks, report = backlog_importer.to_tasks(files, project=None)

    assert [(t.id, t.depends_on) for t in tasks] == [("TASK-1", ()), ("TASK-2", ("TASK-1",))]
    assert [t.extra["backlog_id"] for t in tasks] == ["task-1", "task-2"]
    assert report.counts_add_up()


def test_unquoted_at_assignee_reads_as_backlog_md_reads_it(tmp_path: Path) -> None:
    setup = card("PROJ-1", "Setup", "Done").replace(
        "assignee: []", "assignee: @dev\nreporter: @lead"
    )
    files = {
        "tasks/proj-1 - Setup.md": setup,
        "tasks/proj-2 - Next.md": card("PROJ-2", "Next", "To Do", deps="[task-1]"),
    }
    report, tasks, index = imported(board(tmp_path, files), tmp_path / "root")

    assert report.problem_counts() == {}
    assert (tasks["PROJ-1"].assignee, tasks["PROJ-1"].extra["reporter"]) == ("@dev", "@lead")
    assert ready_tasks(index) == ["PROJ-2"]


def test_check_reports_exactly_the_dangling_references_the_import_listed(tmp_path: Path) -> None:
    root = tmp_path / "root"
    report = import_backlog(board(tmp_path), TaskRepository(root), project="demo")

    done = check(root, "--json")
    found = json.loads(done.stdout)["dangling_references"]
    shown = {(field, d["task_id"], d["missing_id"]) for field, rows in found.items() for d in rows}
    assert done.returncode == 1
    assert shown == set(listed(report, "dangling_reference"))
    assert len(shown) == 3


# --- the taskwright dataset -------------------------------------------------------------------


@datasets
def test_taskwright_archive_is_imported_marked_and_never_ready(tmp_path: Path) -> None:
    report, tasks, index = imported(TASKWRIGHT, tmp_path / "root")
    archived = {i for i, copies in oracle(TASKWRIGHT).items() if copies[0][0] == "archive/tasks"}

    assert len(archived) == 7
    assert {i for i, t in tasks.items() if t.extra.get("backlog_folder")} == archived
    assert all(tasks[i].status == "cancelled" for i in archived)
    assert all(tasks[i].extra["backlog_status"] == "To Do" for i in archived)
    assert not archived & set(ready_tasks(index))
    assert_folders_keep_their_meaning(TASKWRIGHT, tasks, index)
    assert (report.imported, report.counts["from_archive"], report.dropped) == (136, 7, 0)


@datasets
def test_taskwright_references_all_resolve_and_the_report_counts_them(tmp_path: Path) -> None:
    report, _, index = imported(TASKWRIGHT, tmp_path / "root")
    named = [
        dependency
        for path in sorted(TASKWRIGHT.rglob("*.md"))
        for dependency in cast(list[str], frontmatter.load(path).get("dependencies") or [])
    ]

    assert len(named) == 63
    assert dict(report.references["depends_on"]) == {
        "named": 63,
        "resolved": 63,
        "dropped": 0,
        "dangling": 0,
    }
    assert dangling_in_index(index) == listed(report, "dangling_reference") == set()
    assert report.counts_add_up()


@pytest.mark.parametrize(
    ("written", "canonical"),
    [
        ("task-100", "BACK-100"),
        ("100", "BACK-100"),
        ("BACK-355.01", "BACK-355.1"),
        ("back-0355.010", "BACK-355.10"),
        ("task-0", "BACK-0"),
        ("draft-2", "DRAFT-2"),
        ("doc-intro", "doc-intro"),
    ],
)
def test_canonical_id_follows_backlog_md(written: str, canonical: str) -> None:
    ids = BacklogIds("BACK", frozenset({"BACK", "DRAFT"}))
    assert ids.resolve(written, {"BACK-100", "BACK-355.1", "BACK-355.10", "BACK-0", "DRAFT-2"}) == (
        canonical
    )
