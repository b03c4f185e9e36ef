"""The warnings about a task's own fields, given by `check` and the editor alike."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types as lsp

from storage.model import Task, pack_text
from tasks_server.field_notes import field_notes
from tests.conftest import write
from tests.editor.client import lsp_session


def kinds(task: Task) -> list[tuple[str, str]]:
    return [(note.kind, note.key) for note in field_notes(task)]


def test_a_known_task_with_a_whole_claim_has_no_notes() -> None:
    claim = {
        "claimed_by": "w1",
        "claim_expires": "2026-01-01T00:00:00Z",
        "defer_until": "2026-02-01",
    }
    assert kinds(Task(id="t", title="T", path="t.md", status="active", extra=claim)) == []


def test_an_unknown_type_and_half_a_claim_are_noted() -> None:
    task = Task(id="t", title="T", path="t.md", type="chore", extra={"claim_expires": "2026-01-01"})
    assert kinds(task) == [("unknown_type", "type"), ("incomplete_claim", "claim_expires")]


def test_a_claim_by_no_one_and_an_unreadable_lease_are_noted() -> None:
    extra = {"claimed_by": 7, "claim_expires": "later"}
    task = Task(id="t", title="T", path="t.md", extra=extra)
    assert kinds(task) == [("unreadable_time", "claim_expires"), ("incomplete_claim", "claimed_by")]


def test_a_done_task_with_open_checklist_items_names_them() -> None:
    body = "- [ ] write docs\n- [x] ship\n"
    task = Task(id="t", title="T", path="t.md", status="done", packed_body=pack_text(body))
    (note,) = field_notes(task)
    assert note.message == "t is done but has 1 open checklist item(s): write docs"


@pytest.mark.anyio
async def test_the_editor_warns_at_an_unknown_status_value(tmp_path: Path) -> None:
    path = write(tmp_path, "inbox/t.md", "---\nid: t\ntitle: T\nstatus: actve\n---\n")
    async with lsp_session(tmp_path) as session:
        uri = await session.open(path)
        (found,) = await session.diagnostics(uri)
        assert found.code == "unknown_status"
        assert found.severity == lsp.DiagnosticSeverity.Warning
        assert (found.range.start.line, found.range.start.character) == (3, 8)
        assert found.range.end.character == 13
