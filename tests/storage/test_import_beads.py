"""beads import: deleted records (tombstones) are not tasks, and no reference to one is left
dangling silently; every other reference is kept and the report accounts for each.

The synthetic export is our own text shaped like a beads `issues.jsonl` with deleted records
(`status: tombstone`, `deleted_at`, `delete_reason`, `original_type`) still named by live
ones through every dependency type. The source is read back with `json` as the oracle.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from graph.index import TaskIndex
from storage.importers import ImportReport, import_beads
from storage.importers import beads as beads_importer
from storage.importers.report import REFERENCE_FIELDS
from storage.model import Task
from storage.repository import TaskRepository
from tests.conftest import DATASETS, datasets, write
from tests.storage.import_checks import check, dangling_in_index, listed, read_back

KIND_FIELD = {"parent-child": "parent", "blocks": "depends_on"}


def edge(child: str, target: str, kind: str) -> dict[str, str]:
    return {"issue_id": child, "depends_on_id": target, "type": kind}


def record(task_id: str, title: str, status: str = "open", *links: tuple[str, str]) -> str:
    data: dict[str, Any] = {"id": task_id, "title": title, "status": status, "priority": 2}
    data["issue_type"] = "task"
    data["created_at"] = "2026-02-01T10:00:00Z"
    if links:
        data["dependencies"] = [edge(task_id, target, kind) for target, kind in links]
    return json.dumps(data)


def tombstone(task_id: str, title: str) -> str:
    return json.dumps(
        {
            "id": task_id,
            "title": title,
            "status": "tombstone",
            "priority": 2,
            "issue_type": "task",
            "created_at": "2026-01-20T08:00:00Z",
            "deleted_at": "2026-01-28T17:45:00Z",
            "delete_reason": "duplicate",
            "original_type": "epic",
        }
    )


EXPORT = [
    record("app-a1", "Live epic"),
    record("app-a1.1", "Child of the live epic", "open", ("app-a1", "parent-child")),
    tombstone("app-b2", "Deleted epic"),
    record("app-b2.1", "Child of the deleted epic", "open", ("app-b2", "parent-child")),
    tombstone("app-c3", "Deleted task"),
    record(
        "app-d4",
        "Waits on a deleted and a live task",
        "open",
        ("app-c3", "blocks"),
        ("app-a1.1", "blocks"),
    ),
    record(
        "app-e5",
        "Related to deleted records",
        "closed",
        ("app-c3", "related"),
        ("app-b2", "discovered-from"),
    ),
    record(
        "app-f6",
        "First parent deleted, second live",
        "open",
        ("app-b2", "parent-child"),
        ("app-a1", "parent-child"),
    ),
]
MISSING = record("app-g7", "Names an id that is nowhere", "open", ("app-zz9", "blocks"))


# --- helpers -----------------------------------------------------------------------------


def export(tmp_path: Path, lines: list[str]) -> Path:
    return write(tmp_path, "issues.jsonl", "".join(line + "\n" for line in lines))


def imported(source: Path, root: Path) -> tuple[ImportReport, dict[str, Task], TaskIndex]:
    report = import_beads(source, TaskRepository(root))
    return (report, *read_back(root))


def source_references(lines: list[dict[str, Any]]) -> set[tuple[str, str, str]]:
    """(field, record id, target) for every dependency of every record that is not deleted."""
    return {
        (KIND_FIELD.get(dep["type"], "soft_depends_on"), line["id"], dep["depends_on_id"])
        for line in lines
        if line["status"] != "tombstone"
        for dep in line.get("dependencies") or []
    }


def tree_references(tasks: dict[str, Task]) -> set[tuple[str, str, str]]:
    """(field, task id, target) for every reference the imported tasks make."""
    found = {("parent", task.id, task.parent) for task in tasks.values() if task.parent}
    for task in tasks.values():
        found |= {("depends_on", task.id, target) for target in task.depends_on}
        found |= {("soft_depends_on", task.id, target) for target in task.soft_depends_on}
    return found


def assert_tombstones_left_out(lines: list[dict[str, Any]], report: ImportReport,
                               tasks: dict[str, Task], index: TaskIndex) -> None:  # fmt: skip
    """Against the json oracle: no deleted record is a task or named by one; every reference
    to one is listed as dropped, every other one is in the tree, every dangling one listed."""
    deleted = {line["id"] for line in lines if line["status"] == "tombstone"}
    live = {line["id"] for line in lines if line["status"] != "tombstone"}
    deleted -= live
    assert not deleted & set(tasks)
    in_tree = tree_references(tasks)
    to_deleted = {ref for ref in source_references(lines) if ref[2] in deleted}
    assert not {ref[2] for ref in in_tree} & deleted
    assert listed(report, "dropped_reference") == to_deleted
    assert dangling_in_index(index) == listed(report, "dangling_reference")
    kept = source_references(lines) - to_deleted
    other_parents = {
        ("parent", task.id, other)
        for task in tasks.values()
        for other in task.extra.get("beads_other_parents", [])
    }
    assert kept == in_tree | other_parents
    assert report.skipped.get("tombstone", 0) == sum(
        line["status"] == "tombstone" for line in lines
    )
    assert report.counts_add_up()


# --- the synthetic export ---------------------------------------------------------------------


def test_tombstones_are_not_tasks_and_references_to_them_are_dropped(tmp_path: Path) -> None:
    report, tasks, _ = imported(export(tmp_path, EXPORT), tmp_path / "root")

    assert set(tasks) == {"app-a1", "app-a1.1", "app-b2.1", "app-d4", "app-e5", "app-f6"}
    assert tasks["app-b2.1"].parent is None
    assert tasks["app-d4"].depends_on == ("app-a1.1",)
    assert (tasks["app-e5"].soft_depends_on, "soft_dependency_types" in tasks["app-e5"].extra) == (
        (),
        False,
    )
    assert tasks["app-f6"].parent == "app-a1"
    assert "beads_other_parents" not in tasks["app-f6"].extra
    assert dict(report.skipped) == {"tombstone": 2}
    assert report.problem_counts() == {"dropped_reference": 5}


def test_every_reference_to_a_deleted_record_is_counted_by_field(tmp_path: Path) -> None:
    report, _, _ = imported(export(tmp_path, EXPORT), tmp_path / "root")

    assert {field: dict(tally) for field, tally in report.references.items()} == {
        "parent": {"named": 4, "resolved": 2, "dropped": 2, "dangling": 0},
        "depends_on": {"named": 2, "resolved": 1, "dropped": 1, "dangling": 0},
        "soft_depends_on": {"named": 2, "resolved": 0, "dropped": 2, "dangling": 0},
    }
    assert listed(report, "dropped_reference") == {
        ("parent", "app-b2.1", "app-b2"),
        ("parent", "app-f6", "app-b2"),
        ("depends_on", "app-d4", "app-c3"),
        ("soft_depends_on", "app-e5", "app-c3"),
        ("soft_depends_on", "app-e5", "app-b2"),
    }
    assert report.counts_add_up()


def test_reference_to_an_id_in_no_record_is_kept_and_listed_as_dangling(tmp_path: Path) -> None:
    lines = [*EXPORT, MISSING]
    report, tasks, index = imported(export(tmp_path, lines), tmp_path / "root")

    assert tasks["app-g7"].depends_on == ("app-zz9",)
    assert listed(report, "dangling_reference") == {("depends_on", "app-g7", "app-zz9")}
    assert_tombstones_left_out([json.loads(line) for line in lines], report, tasks, index)


def test_record_deleted_then_written_again_is_imported_and_its_references_kept() -> None:
    lines = [
        tombstone("app-h8", "Old"),
        record("app-h8", "Written again"),
        record("app-i9", "Waits on it", "open", ("app-h8", "blocks")),
    ]
    tasks, report = beads_importer.to_tasks(lines)

    assert [(task.id, task.depends_on) for task in tasks] == [
        ("app-h8", ()),
        ("app-i9", ("app-h8",)),
    ]
    assert (dict(report.skipped), report.problems) == ({"tombstone": 1}, ())


def test_report_lists_dropped_references_in_plain_json() -> None:
    _, report = beads_importer.to_tasks(EXPORT)

    data = json.loads(json.dumps(report.to_dict()))
    assert data["references"]["parent"] == {"named": 4, "resolved": 2, "dropped": 2, "dangling": 0}
    assert data["problem_counts"] == {"dropped_reference": 5}
    assert data["counts_add_up"] is True


def test_check_passes_on_a_tree_imported_from_an_export_with_deleted_records(
    tmp_path: Path,
) -> None:
    root = tmp_path / "root"
    import_beads(export(tmp_path, EXPORT), TaskRepository(root))

    done = check(root)
    assert done.returncode == 0, done.stdout
    assert done.stdout.strip().endswith("no problems found"), done.stdout


# --- the visible datasets ---------------------------------------------------------------------


@datasets
@pytest.mark.parametrize(
    "name", ["NVIDIA__skyhook.jsonl", "NingYuM__mbtpdf.jsonl", "MuhDur__rust-oracledb.jsonl"]
)
def test_beads_dataset_keeps_every_reference_and_lists_every_one_left_out(
    tmp_path: Path, name: str
) -> None:
    source = DATASETS / "beads" / name
    lines = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines()]
    report, tasks, index = imported(source, tmp_path / "root")

    assert_tombstones_left_out(lines, report, tasks, index)
    refs = source_references(lines)
    for field in REFERENCE_FIELDS:
        tally = report.references[field]
        assert tally["dropped"] == tally["dangling"] == 0
        if field != "parent":
            assert tally["named"] == len({r for r in refs if r[0] == field})
