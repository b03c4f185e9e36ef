"""Other readers agree with ours: every file the server writes loads through python-frontmatter
(PyYAML, YAML 1.1) to the same metadata and body that our codec (YAML 1.2) reads.

Compared by meaning: a timestamp is an aware datetime whichever reader made it; every other
value must match in type and value (so `5` is not `"0b101"`, `True` is not `"yes"`). The body
is compared the way python-frontmatter keeps it (CRLF joined, whitespace stripped).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from mcp import Client

from storage import codec
from storage.importers import import_backlog, import_beads
from storage.model import Task, pack_text
from storage.repository import TaskRepository
from tests.conftest import DATASETS, datasets, examples, write
from tests.storage.task_strategies import (
    CONTROLS,
    LINE_BREAKERS,
    YAML_11_TRAPS,
    codec_view,
    frontmatter_view,
    tasks,
)
from tests.tasks_server.conftest import call, make_server

HOSTILE = [v for v in YAML_11_TRAPS + LINE_BREAKERS + CONTROLS if v.strip()]
"""Every trap that can stand alone as a title or tag (the reader strips blank ones)."""


def assert_readers_agree(text: str) -> None:
    assert frontmatter_view(text) == codec_view(text)


def written_files(root: Path, before: dict[str, bytes]) -> dict[str, str]:
    """Every task file under `root` that is new or changed since `before`."""
    now = {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*.md")}
    return {path: data.decode("utf-8") for path, data in now.items() if before.get(path) != data}


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*.md")}


# --- the property -------------------------------------------------------------------------


@given(tasks())
@example(
    Task(id="0123", title="0b101", path="p.md", packed_body=pack_text("0\r\r\n0"))
)  # found in CI
@settings(max_examples=examples(500), deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_every_task_the_codec_writes_reads_the_same_through_python_frontmatter(
    task: Task,
) -> None:
    text = codec.dumps(task)
    assert_readers_agree(text)
    changed = codec.update_text(text, {"status": "blocked", "title": task.title + " x"})
    assert_readers_agree(changed)


@pytest.mark.parametrize("value", HOSTILE, ids=ascii)
def test_each_hostile_value_reads_the_same_through_python_frontmatter(value: str) -> None:
    text = "---\nid: a\ntitle: T\n---\nbody\n"
    changes = {"title": value, "tags": [value], "assignee": value, "x": {"k": [value]}}
    written = codec.update_text(text, changes)
    assert_readers_agree(written)
    assert codec.parse_front(codec.split(written)) == {"id": "a", **changes}


# --- through the tools and the importers --------------------------------------------------


@pytest.mark.anyio
@pytest.mark.deep
async def test_every_file_the_write_tools_make_reads_the_same_through_python_frontmatter(
    example_root: Path,
) -> None:
    before = snapshot(example_root)
    server = make_server(example_root)
    try:
        async with Client(server) as client:
            await write_through_every_tool(client)
    finally:
        server.context.close()
    written = written_files(example_root, before)
    assert len(written) >= len(HOSTILE) + 2
    for text in written.values():
        assert_readers_agree(text)


async def write_through_every_tool(client: Client) -> None:
    """create, update, decompose and complete, each with every hostile value somewhere."""
    parent = await call(client, "create_task", title="Parent 0b101", project="interop")
    parent_id = parent["task"]["id"]
    children = [{"title": value, "body": f"{value}\n- [x] done"} for value in HOSTILE]
    decomposed = await call(client, "decompose_task", task_id=parent_id, children=children)
    for n, child in enumerate(decomposed["children"]):
        value = HOSTILE[n]
        await call(client, "update_task", task_id=child["id"], tags=[value, "plain"],
                   assignee=value, complexity=value, status="in_progress")  # fmt: skip
        await call(client, "complete_task", task_id=child["id"])
    created = await call(client, "create_task", title="a\u2028status: done", tags=HOSTILE,
                         due="2026-01-01T10:00:00+05:30", body="\r\nCRLF body\r\n")  # fmt: skip
    await call(client, "update_task", task_id=created["task"]["id"], status="blocked",
               body="---\nnot: frontmatter\n---\n")  # fmt: skip


def test_every_file_the_beads_importer_writes_reads_the_same_through_python_frontmatter(
    tmp_path: Path,
) -> None:
    records = [
        {"id": f"bd-{n}", "title": value, "status": "open", "description": value,
         "labels": [value], "assignee": value, "created_at": "2026-01-01T10:00:00-08:00"}
        for n, value in enumerate(HOSTILE)
    ]  # fmt: skip
    source = write(tmp_path, "issues.jsonl", "".join(json.dumps(r) + "\n" for r in records))
    root = tmp_path / "tree"
    report = import_beads(source, TaskRepository(root))
    assert report.imported == len(HOSTILE)
    check_every_file(root, report.imported)


def test_every_file_the_backlog_importer_writes_reads_the_same_through_python_frontmatter(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "backlog"
    for n, value in enumerate(HOSTILE):
        quoted = json.dumps(value)
        write(folder, f"tasks/task-{n} - T.md", f"---\nid: task-{n}\ntitle: {quoted}\n"
              f"status: To Do\nlabels: [{quoted}]\nnote: {quoted}\n---\n{value}\n")  # fmt: skip
    root = tmp_path / "tree"
    report = import_backlog(folder, TaskRepository(root))
    assert report.imported == len(HOSTILE)
    check_every_file(root, report.imported)


@datasets
@pytest.mark.deep
@pytest.mark.parametrize("source", ["beads", "backlog"])
def test_every_file_imported_from_the_real_datasets_reads_the_same_through_python_frontmatter(
    tmp_path: Path, source: str
) -> None:
    root = tmp_path / "tree"
    if source == "beads":
        for n, path in enumerate(sorted((DATASETS / "beads").glob("*.jsonl"))):
            import_beads(path, TaskRepository(root / str(n)))
    else:
        for n, path in enumerate(sorted((DATASETS / "backlog").iterdir())):
            import_backlog(path, TaskRepository(root / str(n)))
    check_every_file(root, 1)


def check_every_file(root: Path, at_least: int) -> None:
    paths = sorted(root.rglob("*.md"))
    assert len(paths) >= at_least
    for path in paths:
        assert_readers_agree(path.read_text(encoding="utf-8"))
