"""Handoff notes: appended to the body's Notes section, nothing else in the file touched but
`modified` (real files, real MCP client, fixed clock)."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from tasks_server.tools._blocks import closers
from tasks_server.tools.agents import MAX_NOTE_CHARS
from tests.reliability.stdio import ServerProcess
from tests.tasks_server.conftest import call
from tests.tasks_server.test_claims import TASK, file_of
from tests.tasks_server.test_mutation_validation import refused

pytestmark = pytest.mark.anyio

STAMP = "2026-11-22T12:00:00Z"


def without_modified(text: str) -> str:
    return "".join(line for line in text.splitlines(True) if not line.startswith("modified:"))


async def test_a_note_opens_a_notes_section_at_the_end_and_changes_nothing_else(
    client: Client, example_root: Path
) -> None:
    path = file_of(example_root, TASK)
    before = path.read_text()
    data = await call(
        client, "add_note", task_id=TASK, text="Parser done.\nTests next.", author="w1"
    )
    assert data["entry"] == f"- {STAMP} — w1: Parser done.\n  Tests next."
    after = path.read_text()
    added = f"\n## Notes\n\n- {STAMP} — w1: Parser done.\n  Tests next.\n"
    assert without_modified(after) == without_modified(before) + added
    assert "modified: 2026-11-22T12:00:00+00:00\n" in after


async def test_later_notes_go_under_the_same_heading_in_order(
    client: Client, example_root: Path
) -> None:
    for n in range(3):
        await call(client, "add_note", task_id=TASK, text=f"note {n}", author=f"w{n}")
    body = (await call(client, "get_task", task_id=TASK))["task"]["body"]
    assert body.count("## Notes") == 1
    assert body.endswith("".join(f"- {STAMP} — w{n}: note {n}\n" for n in range(3)))


async def test_a_note_after_another_section_opens_its_own_notes_section(
    client: Client, example_root: Path
) -> None:
    await call(client, "add_note", task_id=TASK, text="first", author="w1")
    body = (await call(client, "get_task", task_id=TASK))["task"]["body"]
    await call(client, "update_task", task_id=TASK, body=body + "\n## Later\n\nMore.\n")
    await call(client, "add_note", task_id=TASK, text="second", author="w1")
    body = (await call(client, "get_task", task_id=TASK))["task"]["body"]
    assert body.endswith(f"## Later\n\nMore.\n\n## Notes\n\n- {STAMP} — w1: second\n")


async def test_a_crlf_file_gets_crlf_note_lines(client: Client, example_root: Path) -> None:
    path = file_of(example_root, TASK)
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    await call(client, "add_note", task_id=TASK, text="a\nb", author="w1")
    data = path.read_bytes()
    assert data.endswith(f"## Notes\r\n\r\n- {STAMP} — w1: a\r\n  b\r\n".encode())
    assert b"\n" not in data.replace(b"\r\n", b"")


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   \n ",
        "x" * (MAX_NOTE_CHARS + 1),
        "bell\x07",
        "nul\x00",
        "sep\u2028",
        "a <!-- b",
        "x\n<!--\ny",
        "rtl \u202e override",
        "isolate \u2066x\u2069",
        "lre\u202a",
    ],
    ids=[
        "empty",
        "blank",
        "too-long",
        "bell",
        "nul",
        "line-sep",
        "comment",
        "comment-line",
        "rlo",
        "isolate",
        "lre",
    ],
)
async def test_a_blank_oversized_or_control_laden_note_writes_nothing(
    client: Client, example_root: Path, text: str
) -> None:
    bad = "INVALID_ARGUMENT"
    await refused(client, example_root, bad, "add_note", task_id=TASK, text=text, author="w1")


async def test_a_note_to_a_task_that_does_not_exist_is_not_found(
    client: Client, example_root: Path
) -> None:
    await refused(client, example_root, "TASK_NOT_FOUND", "add_note", task_id="no", text="x",
                  author="w1")  # fmt: skip


async def test_a_note_after_a_body_ending_in_an_open_fence_closes_it_before_its_heading(
    client: Client, example_root: Path
) -> None:
    await call(client, "update_task", task_id=TASK, body="Plan.\n\n````python\nx = 1\n```\n")
    await call(client, "add_note", task_id=TASK, text="done", author="w1")
    body = (await call(client, "get_task", task_id=TASK))["task"]["body"]
    assert body == f"Plan.\n\n````python\nx = 1\n```\n````\n\n## Notes\n\n- {STAMP} — w1: done\n"
    assert closers(body) == []


async def test_a_note_that_leaves_a_fence_open_is_closed_so_the_next_note_renders(
    client: Client, example_root: Path
) -> None:
    await call(client, "add_note", task_id=TASK, text="see:\n~~~\nlog", author="w1")
    await call(client, "add_note", task_id=TASK, text="next", author="w2")
    body = (await call(client, "get_task", task_id=TASK))["task"]["body"]
    assert body.endswith(f"- {STAMP} — w1: see:\n  ~~~\n  log\n  ~~~\n- {STAMP} — w2: next\n")
    assert closers(body) == []


@pytest.mark.deep
def test_a_served_process_closes_an_open_comment_and_refuses_a_hiding_note(
    example_root: Path,
) -> None:
    path = file_of(example_root, TASK)
    path.write_text(path.read_text() + "\n<!-- left open\n")
    with ServerProcess(example_root, now="2026-11-22T12:00:00Z") as server:
        refusal = server.call("add_note", task_id=TASK, text="a <!-- b", author="w1")
        assert refusal["error"] == "INVALID_ARGUMENT"
        server.call("add_note", task_id=TASK, text="seen", author="w1")
        server.close()
    text = path.read_text()
    assert text.endswith(f"<!-- left open\n-->\n\n## Notes\n\n- {STAMP} — w1: seen\n")
