"""Importers: the real beads and Backlog.md datasets, every error path, and the round trip."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from storage import codec
from storage.errors import ImportFailed
from storage.importers import ImportReport, import_backlog, import_beads
from storage.importers import backlog as backlog_importer
from storage.importers import beads as beads_importer
from storage.model import Task
from storage.repository import TaskRepository
from tests.conftest import DATASETS, datasets, write

BEADS = DATASETS / "beads"
BACKLOG = DATASETS / "backlog" / "ChronoVortex07__taskwright"
BEADS_FILES = {
    "NVIDIA__skyhook.jsonl": "skyhook",
    "NingYuM__mbtpdf.jsonl": "mbtpdf",
    "MuhDur__rust-oracledb.jsonl": "rust-oracledb",
}
BEADS_STATUS = {
    "open": "active",
    "in_progress": "in_progress",
    "blocked": "blocked",
    "closed": "done",
    "deferred": "deferred",
}


# --- helpers -----------------------------------------------------------------------------


def raw_records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def edges(record: dict[str, Any], kind: str) -> list[str]:
    return [d["depends_on_id"] for d in record.get("dependencies") or [] if d["type"] == kind]


def tree(root: Path) -> dict[str, bytes | None]:
    """Every file (with its bytes) and folder (None) below `root`."""
    if not root.exists():
        return {}
    return {
        p.relative_to(root).as_posix(): p.read_bytes() if p.is_file() else None
        for p in sorted(root.rglob("*"))
    }


def loaded(root: Path) -> dict[str, Task]:
    table = TaskRepository(root).scan()
    assert table.problems() == []
    assert table.not_tasks() == []
    return {task.id: task for task in table.tasks()}


def jsonl(tmp_path: Path, *lines: str | dict[str, Any]) -> Path:
    text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    return write(tmp_path, "issues.jsonl", text)


def issue(task_id: str, **fields: Any) -> dict[str, Any]:
    return {"id": task_id, "title": f"Title of {task_id}", "status": "open", **fields}


def frontmatter_value(path: Path, key: str) -> object:
    text = path.read_text(encoding="utf-8")
    return codec.parse_front(codec.split(text))[key]


def kinds(report: ImportReport) -> list[tuple[str, str]]:
    return [(problem.where, problem.kind) for problem in report.problems]


Imported = Callable[..., tuple[Path, ImportReport]]


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Imported:
    """`imported(source, project=None)`: a dataset (a beads file's name, or "backlog")
    imported once per module into a tree of its own: (root, report). The tests that take it
    only read the tree; a test that imports again or changes files makes its own."""
    done: dict[tuple[str, str | None], tuple[Path, ImportReport]] = {}

    def get(source: str, project: str | None = None) -> tuple[Path, ImportReport]:
        if (source, project) not in done:
            root = tmp_path_factory.mktemp("imported")
            repository = TaskRepository(root)
            if source == "backlog":
                report = import_backlog(BACKLOG, repository, project=project)
            else:
                report = import_beads(BEADS / source, repository, project=project)
            done[source, project] = (root, report)
        return done[source, project]

    return get


BACKLOG_TASK = """---
id: {id}
title: Task {id}
status: To Do
labels: []
dependencies: []
priority: medium
{more}---

Body of {id}.
"""


def backlog_file(folder: Path, task_id: str, more: str = "") -> Path:
    name = f"tasks/{task_id.lower()} - Task-{task_id}.md"
    return write(folder, name, BACKLOG_TASK.format(id=task_id, more=more))


# --- beads datasets ----------------------------------------------------------------------


@datasets
@pytest.mark.parametrize("name", sorted(BEADS_FILES))
def test_beads_dataset_is_imported_whole_with_counts_matching_the_raw_file(
    imported: Imported, name: str
) -> None:
    source = BEADS / name
    lines = source.read_text(encoding="utf-8").splitlines()
    records = raw_records(source)
    tombstones = sum(record["status"] == "tombstone" for record in records)
    with_parent = sum(bool(edges(record, "parent-child")) for record in records)
    blocks = sum(len(set(edges(record, "blocks"))) for record in records)

    root, report = imported(name)

    assert report.read == len(lines)
    assert report.imported == len(records) - tombstones
    assert dict(report.skipped) == ({"tombstone": tombstones} if tombstones else {})
    assert report.problems == ()
    assert report.counts_add_up()
    assert report.counts.get("with_parent", 0) == with_parent
    assert report.references["depends_on"]["named"] == blocks
    tasks = loaded(root)
    assert len(tasks) == report.imported
    assert {task.project for task in tasks.values()} == {BEADS_FILES[name]}
    assert sum(task.parent is not None for task in tasks.values()) == with_parent
    assert all(task.path.startswith(f"{BEADS_FILES[name]}/tasks/") for task in tasks.values())


@datasets
@pytest.mark.parametrize("name", sorted(BEADS_FILES))
def test_beads_every_record_keeps_its_links_status_and_timestamps(
    imported: Imported, name: str
) -> None:
    tasks = loaded(imported(name)[0])
    for record in raw_records(BEADS / name):
        task = tasks[record["id"]]
        parents = edges(record, "parent-child")
        soft = [
            d
            for d in record.get("dependencies") or []
            if d["type"] not in ("parent-child", "blocks")
        ]
        assert task.parent == (parents[0] if parents else None)
        assert list(task.depends_on) == list(dict.fromkeys(edges(record, "blocks")))
        assert list(task.soft_depends_on) == list(dict.fromkeys(d["depends_on_id"] for d in soft))
        assert dict(task.extra.get("soft_dependency_types", {})) == {
            d["depends_on_id"]: d["type"] for d in soft
        }
        assert task.status == BEADS_STATUS[record["status"]]
        assert task.priority == record["priority"]
        assert task.tags == tuple(record.get("labels") or ())
        assert task.created is not None
        assert task.created.isoformat()[:19] == record["created_at"][:19]


@datasets
def test_skyhook_records_keep_parent_blocks_comments_and_their_minus_eight_offset(
    imported: Imported,
) -> None:
    tasks = loaded(imported("NVIDIA__skyhook.jsonl")[0])

    epic, child = tasks["skyhook-gld"], tasks["skyhook-gld.4"]
    assert (epic.type, epic.status, epic.priority, epic.parent) == ("epic", "active", 1, None)
    assert child.parent == "skyhook-gld"
    assert child.depends_on == ("skyhook-gld.1", "skyhook-gld.2")
    assert child.status == "done"
    assert child.created is not None and child.completed is not None
    assert child.created.utcoffset() == timedelta(hours=-8)
    assert "\n## Comments\n" in child.body
    assert "\n## Design\n" in epic.body
    gld1 = tasks["skyhook-gld.1"]
    assert gld1.extra["beads_estimated_minutes"] == 480
    assert gld1.extra["beads_close_reason"] == "Closed"


@datasets
def test_mbtpdf_keeps_a_two_level_hierarchy_and_its_plus_eight_offset(
    imported: Imported,
) -> None:
    tasks = loaded(imported("NingYuM__mbtpdf.jsonl")[0])

    grandchild = tasks["mbtpdf-mhm.2.2"]
    assert grandchild.parent == "mbtpdf-mhm.2"
    assert grandchild.depends_on == ("mbtpdf-mhm.2.1",)
    assert tasks["mbtpdf-mhm.2"].parent == "mbtpdf-mhm"
    assert tasks["mbtpdf-mhm"].parent is None
    assert grandchild.created is not None
    assert grandchild.created.isoformat().endswith("+08:00")


@datasets
def test_rust_oracledb_keeps_soft_dependency_types_chores_and_deferred_status(
    imported: Imported,
) -> None:
    tasks = loaded(imported("MuhDur__rust-oracledb.jsonl")[0])

    mixed = tasks["rust-oracledb-road-to-1-0-llv.4.1"]
    assert mixed.parent == "rust-oracledb-road-to-1-0-llv.4"
    assert mixed.depends_on == ("rust-oracledb-road-to-1-0-llv.3.1",)
    assert mixed.soft_depends_on == ("rust-oracledb-p5h",)
    assert dict(mixed.extra["soft_dependency_types"]) == {"rust-oracledb-p5h": "related"}

    chore = tasks["rust-oracledb-sqp2"]
    assert (chore.type, chore.extra["beads_type"], chore.status) == ("task", "chore", "done")
    assert dict(chore.extra["soft_dependency_types"]) == {
        "rust-oracledb-road-to-1-0-llv.1.1.2": "discovered-from"
    }
    assert chore.tags == ("release-0-5-1",)

    deferred = tasks["rust-oracledb-kerberos-radius-backends-bpsh"]
    assert (deferred.status, deferred.type, deferred.completed) == ("deferred", "feature", None)
    assert deferred.created is not None
    assert deferred.created.isoformat() == "2026-06-29T08:04:13.911922+00:00"


@datasets
@pytest.mark.parametrize("name", sorted(BEADS_FILES))
def test_beads_owner_and_created_by_are_left_out_of_every_file(
    imported: Imported, name: str
) -> None:
    records = raw_records(BEADS / name)
    root, report = imported(name)

    owners = {record["owner"] for record in records if "owner" in record}
    texts = [path.read_text(encoding="utf-8") for path in root.rglob("*.md")]
    assert not any(owner in text for owner in owners for text in texts)
    assert not any(re.search(r"[\w.+-]+@[\w-]+\.[\w.]+", text) for text in texts)
    assert report.dropped_fields["created_by"] == sum("created_by" in r for r in records)
    assert report.dropped_fields.get("owner", 0) == len([r for r in records if "owner" in r])


# --- Backlog.md dataset ------------------------------------------------------------------


@datasets
def test_backlog_folder_is_imported_whole_with_counts_matching_the_files(
    imported: Imported,
) -> None:
    files = sorted(BACKLOG.rglob("*.md"))
    archived = sorted((BACKLOG / "archive").rglob("*.md"))
    statuses = Counter(frontmatter_value(path, "status") for path in files)
    archived_open = sum(frontmatter_value(path, "status") != "Done" for path in archived)

    root, report = imported("backlog")

    assert (report.read, report.imported, report.dropped) == (len(files), len(files), 0)
    assert report.problems == ()
    assert report.counts_add_up()
    assert report.counts["from_archive"] == len(archived) == 7
    tasks = loaded(root)
    assert len(tasks) == len(files)
    assert archived_open == 7
    assert Counter(task.status for task in tasks.values()) == {
        "done": statuses["Done"],
        "active": statuses["To Do"] - archived_open,
        "in_progress": statuses["In Progress"],
        "cancelled": archived_open,
    }
    assert {task.project for task in tasks.values()} == {"chronovortex07-taskwright"}
    references = [dep for task in tasks.values() for dep in task.depends_on]
    assert len(references) == 63
    assert set(references) <= set(tasks)


@datasets
def test_backlog_records_keep_priority_labels_dates_and_extra_fields(
    imported: Imported,
) -> None:
    tasks = loaded(imported("backlog", "taskwright")[0])

    first = tasks["TASK-1"]
    assert (first.status, first.priority, first.tags) == ("done", 1, ("refactor", "bug"))
    assert first.project == "taskwright"
    assert first.created is not None and first.modified is not None
    assert first.created.isoformat() == "2026-06-30T11:38:00+00:00"
    assert first.modified.isoformat() == "2026-07-04T00:41:00+00:00"
    assert (first.extra["milestone"], first.extra["ordinal"]) == ("Foundation & Rebrand", 1000)
    assert first.assignee is None

    archived = tasks["TASK-12"]
    assert (archived.status, archived.priority) == ("cancelled", 2)
    assert dict(archived.extra)["backlog_folder"] == "archive/tasks"
    assert archived.path.startswith("taskwright/tasks/TASK-12-")

    raw = next(BACKLOG.glob("tasks/task-107 - *.md")).read_text(encoding="utf-8")
    assert tasks["TASK-107"].body == codec.split(raw).body
    assert tasks["TASK-110"].depends_on == ("TASK-107", "TASK-108", "TASK-109")
    assert tasks["TASK-110"].extra["milestone"] == "Performance & Startup Cost"


# --- round trip ----------------------------------------------------------------------------


def mapped_beads(name: str) -> list[Task]:
    lines = (BEADS / name).read_bytes().splitlines()
    return beads_importer.to_tasks(lines)[0]


def mapped_backlog() -> list[Task]:
    files = [(p.relative_to(BACKLOG).as_posix(), p.read_bytes()) for p in BACKLOG.rglob("*.md")]
    return backlog_importer.to_tasks(files, project="chronovortex07-taskwright")[0]


@datasets
@pytest.mark.parametrize("source", [*sorted(BEADS_FILES), "backlog"])
def test_every_imported_file_reads_back_as_the_task_that_was_mapped(
    imported: Imported, source: str
) -> None:
    root, _ = imported(source)
    repository = TaskRepository(root)
    mapped = mapped_backlog() if source == "backlog" else mapped_beads(source)

    for task in mapped:
        relative = repository.path_for_new(task)
        text = (root / relative).read_text(encoding="utf-8")
        again = codec.loads(text, path=relative)
        assert again == replace(task, path=relative)
        for stamp in ("created", "modified", "completed"):
            before, after = getattr(task, stamp), getattr(again, stamp)
            assert (before and before.utcoffset()) == (after and after.utcoffset())


# --- beads error paths --------------------------------------------------------------------


def test_line_that_is_not_json_is_reported_and_the_rest_imported(tmp_path: Path) -> None:
    source = jsonl(tmp_path, issue("p-1"), '{"id": "p-2", "title": ', issue("p-3"))
    report = import_beads(source, TaskRepository(tmp_path / "root"))

    assert kinds(report) == [("line 2", "not_json")]
    assert (report.read, report.imported, report.dropped) == (3, 2, 1)
    assert report.counts_add_up()
    assert set(loaded(tmp_path / "root")) == {"p-1", "p-3"}


def test_merge_conflict_markers_are_reported_and_the_first_side_kept(tmp_path: Path) -> None:
    source = jsonl(
        tmp_path,
        issue("p-1"),
        "<<<<<<< HEAD",
        issue("p-2", title="Ours"),
        "=======",
        issue("p-2", title="Theirs"),
        ">>>>>>> feature",
        issue("p-3"),
    )
    report = import_beads(source, TaskRepository(tmp_path / "root"))

    assert kinds(report) == [
        ("line 2", "merge_conflict"),
        ("line 4", "merge_conflict"),
        ("line 6", "merge_conflict"),
        ("line 5", "duplicate_id"),
    ]
    assert (report.read, report.imported, report.dropped) == (7, 3, 4)
    assert report.counts_add_up()
    assert loaded(tmp_path / "root")["p-2"].title == "Ours"


def test_duplicate_id_is_reported_and_the_first_kept(tmp_path: Path) -> None:
    source = jsonl(tmp_path, issue("p-1", title="First"), issue("p-1", title="Second"))
    report = import_beads(source, TaskRepository(tmp_path / "root"))

    assert kinds(report) == [("line 2", "duplicate_id")]
    assert report.counts_add_up()
    assert loaded(tmp_path / "root")["p-1"].title == "First"


def test_second_parent_is_reported_and_the_first_kept(tmp_path: Path) -> None:
    parents = [
        {"issue_id": "p-3", "depends_on_id": "p-1", "type": "parent-child"},
        {"issue_id": "p-3", "depends_on_id": "p-2", "type": "parent-child"},
    ]
    source = jsonl(tmp_path, issue("p-1"), issue("p-2"), issue("p-3", dependencies=parents))
    report = import_beads(source, TaskRepository(tmp_path / "root"))

    assert kinds(report) == [("line 3", "second_parent")]
    assert report.imported == 3
    assert report.counts_add_up()
    child = loaded(tmp_path / "root")["p-3"]
    assert child.parent == "p-1"
    assert child.extra["beads_other_parents"] == ["p-2"]


def test_unknown_status_is_reported_and_kept_as_written(tmp_path: Path) -> None:
    source = jsonl(tmp_path, issue("p-1", status="pinned"), issue("p-2", status="in_progress"))
    report = import_beads(source, TaskRepository(tmp_path / "root"))

    assert kinds(report) == [("line 1", "unknown_status")]
    assert report.imported == 2
    tasks = loaded(tmp_path / "root")
    assert (tasks["p-1"].status, tasks["p-2"].status) == ("pinned", "in_progress")


def test_invalid_id_is_reported_and_the_rest_imported(tmp_path: Path) -> None:
    source = jsonl(tmp_path, issue("../escape"), issue("p-2"), {"title": "no id"})
    report = import_beads(source, TaskRepository(tmp_path / "root"))

    assert kinds(report) == [("line 1", "invalid_id"), ("line 3", "invalid_id")]
    assert (report.imported, report.dropped) == (1, 2)
    assert report.counts_add_up()
    assert set(loaded(tmp_path / "root")) == {"p-2"}


def test_tombstones_and_blank_lines_are_skipped_and_counted(tmp_path: Path) -> None:
    source = jsonl(tmp_path, issue("p-1", status="tombstone"), "", issue("p-2"))
    report = import_beads(source, TaskRepository(tmp_path / "root"))

    assert dict(report.skipped) == {"blank_line": 1, "tombstone": 1}
    assert (report.read, report.imported, report.problems) == (3, 1, ())
    assert report.counts_add_up()


def test_line_that_is_not_utf8_or_not_an_object_is_reported(tmp_path: Path) -> None:
    source = write(
        tmp_path, "issues.jsonl", b"\xff\xfe{}\n[1, 2]\n" + json.dumps(issue("p-1")).encode()
    )
    report = import_beads(source, TaskRepository(tmp_path / "root"))

    assert kinds(report) == [("line 1", "not_utf8"), ("line 2", "not_an_object")]
    assert (report.read, report.imported) == (3, 1)
    assert report.counts_add_up()


def test_unknown_beads_field_is_kept_prefixed_and_reported_once(tmp_path: Path) -> None:
    source = jsonl(tmp_path, issue("p-1", wisp=True), issue("p-2", wisp=False))
    report = import_beads(source, TaskRepository(tmp_path / "root"))

    assert kinds(report) == [("line 1", "unmapped_field")]
    assert report.imported == 2
    assert loaded(tmp_path / "root")["p-2"].extra["beads_wisp"] is False


def test_existing_target_file_fails_the_import_and_writes_nothing(tmp_path: Path) -> None:
    root = tmp_path / "root"
    write(root, "p/tasks/p-2-title-of-p-2.md", "not a task, but in the way\n")
    before = tree(root)
    source = jsonl(tmp_path, issue("p-1"), issue("p-2"), issue("p-3"))

    with pytest.raises(ImportFailed):
        import_beads(source, TaskRepository(root))
    assert tree(root) == before


def test_id_already_in_the_tree_fails_the_import_and_writes_nothing(tmp_path: Path) -> None:
    root = tmp_path / "root"
    write(root, "elsewhere/p-3.md", "---\nid: p-3\ntitle: Already here\n---\n")
    before = tree(root)
    source = jsonl(tmp_path, issue("p-1"), issue("p-2"), issue("p-3"))

    with pytest.raises(ImportFailed):
        import_beads(source, TaskRepository(root))
    assert tree(root) == before


@datasets
def test_importing_the_same_file_twice_fails_the_second_time_and_changes_nothing(
    tmp_path: Path,
) -> None:
    repository = TaskRepository(tmp_path / "root")
    import_beads(BEADS / "NVIDIA__skyhook.jsonl", repository)
    before = tree(tmp_path / "root")

    with pytest.raises(ImportFailed):
        import_beads(BEADS / "NVIDIA__skyhook.jsonl", repository)
    assert tree(tmp_path / "root") == before


def test_missing_source_file_fails_the_import(tmp_path: Path) -> None:
    with pytest.raises(ImportFailed):
        import_beads(tmp_path / "absent.jsonl", TaskRepository(tmp_path))
    with pytest.raises(ImportFailed):
        import_backlog(tmp_path / "absent", TaskRepository(tmp_path))


# --- beads mapping without files ----------------------------------------------------------


def test_beads_prose_fields_become_body_sections_in_order() -> None:
    record = issue(
        "p-1",
        description="What.",
        design="How.",
        acceptance_criteria="Done when.",
        notes="By the way.",
        comments=[
            {
                "id": 1,
                "issue_id": "p-1",
                "author": "ann",
                "text": "Hi",
                "created_at": "2026-01-02T03:04:05Z",
            }
        ],
    )
    tasks, report = beads_importer.to_tasks([json.dumps(record)])

    assert tasks[0].body == (
        "\nWhat.\n\n## Design\n\nHow.\n\n## Acceptance criteria\n\nDone when.\n\n"
        "## Notes\n\nBy the way.\n\n## Comments\n\n**ann**, 2026-01-02T03:04:05Z:\n\nHi\n"
    )
    assert dict(report.dropped_fields) == {"comments.id": 1, "comments.issue_id": 1}


def test_beads_project_is_the_shared_id_prefix_unless_the_caller_names_one() -> None:
    lines = [json.dumps(issue("my-app-1")), json.dumps(issue("my-app-ui-2"))]

    assert {task.project for task in beads_importer.to_tasks(lines)[0]} == {"my-app"}
    assert {task.project for task in beads_importer.to_tasks(lines, project="x")[0]} == {"x"}


def test_report_to_dict_is_plain_json() -> None:
    _, report = beads_importer.to_tasks(["not json", json.dumps(issue("p-1", status="tombstone"))])

    data = json.loads(json.dumps(report.to_dict()))
    assert data["read"] == 2
    assert data["skipped"] == {"tombstone": 1}
    assert data["problem_counts"] == {"not_json": 1}
    assert data["counts_add_up"] is True


# --- Backlog error paths --------------------------------------------------------------------


def test_backlog_file_with_broken_frontmatter_is_reported_and_the_others_imported(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "board"
    backlog_file(folder, "TASK-1")
    write(folder, "tasks/task-2 - Broken.md", "---\nid: TASK-2\ntitle: [unclosed\n---\n")
    write(folder, "tasks/task-3 - Unclosed.md", "---\nid: TASK-3\ntitle: Three\n")
    write(folder, "tasks/task-4 - Binary.md", b"---\nid: TASK-4\ntitle: \xff\n---\n")
    write(folder, "tasks/readme.md", "Just notes, no frontmatter.\n")
    backlog_file(folder, "TASK-5")

    report = import_backlog(folder, TaskRepository(tmp_path / "root"))

    assert sorted(kinds(report)) == [
        ("tasks/task-2 - Broken.md", "parse_error"),
        ("tasks/task-3 - Unclosed.md", "parse_error"),
        ("tasks/task-4 - Binary.md", "not_utf8"),
    ]
    assert dict(report.skipped) == {"not_a_task": 1}
    assert (report.read, report.imported, report.dropped) == (6, 2, 3)
    assert report.counts_add_up()
    assert set(loaded(tmp_path / "root")) == {"TASK-1", "TASK-5"}


def test_backlog_duplicate_id_second_parent_and_unknown_status_are_reported(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "board"
    backlog_file(folder, "TASK-1")
    backlog_file(folder, "TASK-2")
    backlog_file(folder, "TASK-3", "parent_task_id: TASK-1\nparent: TASK-2\n")
    write(
        folder,
        "tasks/task-4 - Odd.md",
        BACKLOG_TASK.format(id="TASK-4", more="").replace("To Do", "Queued"),
    )
    write(folder, "tasks/task-9 - Copy.md", BACKLOG_TASK.format(id="TASK-1", more=""))

    report = import_backlog(folder, TaskRepository(tmp_path / "root"), project="board")

    assert sorted(kinds(report)) == [
        ("tasks/task-3 - Task-TASK-3.md", "second_parent"),
        ("tasks/task-4 - Odd.md", "unknown_status"),
        ("tasks/task-9 - Copy.md", "duplicate_id"),
    ]
    assert (report.read, report.imported) == (5, 4)
    assert report.counts_add_up()
    tasks = loaded(tmp_path / "root")
    assert tasks["TASK-3"].parent == "TASK-1"
    assert tasks["TASK-3"].extra["backlog_other_parents"] == ["TASK-2"]
    assert tasks["TASK-4"].status == "Queued"


def test_backlog_keys_the_model_reserves_are_kept_prefixed_and_reported(tmp_path: Path) -> None:
    folder = tmp_path / "board"
    backlog_file(folder, "TASK-1", "project: Elsewhere\nmilestone: M1\nsprint: 4\n")

    report = import_backlog(folder, TaskRepository(tmp_path / "root"), project="board")

    assert sorted(kinds(report)) == [
        ("tasks/task-1 - Task-TASK-1.md", "unmapped_field"),
        ("tasks/task-1 - Task-TASK-1.md", "unmapped_field"),
    ]
    task = loaded(tmp_path / "root")["TASK-1"]
    assert task.project == "board"
    assert dict(task.extra) == {"backlog_project": "Elsewhere", "milestone": "M1", "sprint": 4}


def test_backlog_existing_target_file_fails_the_import_and_writes_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "board"
    backlog_file(folder, "TASK-1")
    backlog_file(folder, "TASK-2")
    root = tmp_path / "root"
    write(root, "board/tasks/TASK-2-task-task-2.md", "in the way\n")
    before = tree(root)

    with pytest.raises(ImportFailed):
        import_backlog(folder, TaskRepository(root), project="board")
    assert tree(root) == before


def test_backlog_file_without_id_takes_the_id_in_its_file_name() -> None:
    text = "---\ntitle: No id\nstatus: Done\n---\n"
    tasks, report = backlog_importer.to_tasks([("tasks/task-7 - No-id.md", text)], project=None)

    assert [(task.id, task.status, task.project) for task in tasks] == [("TASK-7", "done", None)]
    assert tasks[0].extra["backlog_id"] == "task-7"
    assert report.problems == ()


def test_project_that_is_not_a_valid_id_fails_the_import_and_writes_nothing(
    tmp_path: Path,
) -> None:
    source = jsonl(tmp_path, issue("p-1"))

    with pytest.raises(ImportFailed):
        import_beads(source, TaskRepository(tmp_path / "root"), project="../up")
    assert tree(tmp_path / "root") == {}
