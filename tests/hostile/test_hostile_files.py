"""Hostile task files, as other people's editors and pushes leave them: each one is a task or
a reported problem (never silently gone), and an update through the tools keeps a readable
one readable, with every key it had."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from storage import codec
from tests.conftest import write
from tests.tasks_server.conftest import call, make_server

pytestmark = pytest.mark.anyio

READABLE = {
    "h-u2028": '---\nid: h-u2028\ntitle: "a\u2028status: done"\nstatus: active\n---\n',
    "h-u2029": "---\nid: h-u2029\ntitle: 'a\u2029status: done'\nstatus: active\n---\n",
    "h-nel": '---\nid: h-nel\ntitle: "a\x85status: done"\nstatus: active\n---\n',
    "h-plain": "---\nid: h-plain\ntitle: a\u2028b\x85c\nstatus: active\n---\n",
    "h-ff": "---\nid: h-ff\ntitle: a\x0cb\nstatus: active\n---\n",
    "h-cr": "---\nid: h-cr\ntitle: T\rstatus: active\n---\nbody\n",
    "h-bom": "\ufeff---\r\nid: h-bom\r\ntitle: BOM and CRLF\r\nstatus: active\r\n---\r\nb\r\n",
    "h-keys": "---\nid: h-keys\ntitle: T\n\"a: b\": 1\n'it''s': 2\nstatus: active\n---\n",
    "0123": "---\nid: 0123\ntitle: no\nstatus: no\n---\n",
    "h-tabs": "---\nid: h-tabs\ntitle: Tabbed\twith a tab\t# c\ntags:\n  - 0b101\n  - on\n---\n",
    "h-dots": "---\nid: h-dots\ntitle: Closed by dots\n...\nbody\n---\nmore\n",
    "h-long": "---\nid: h-long\ntitle: " + "x" * 20_000 + "\n---\n",
}
UNREADABLE = {
    "nul.md": b"---\nid: h-nul\ntitle: T\x00\nstatus: active\n---\n",
    "dup.md": b"---\nid: h-dup\ntitle: T\ntitle: U\n---\n",
    "newline-id.md": b'---\nid: "abc\\n"\ntitle: T\n---\n',
    "latin1.md": b"---\nid: h-latin\ntitle: caf\xe9\n---\n",
    "bomb.md": b"---\ntitle: T\na: &a [x, x, x, x, x, x, x, x, x]\n"
    + b"".join(
        f"{b}: &{b} [*{a}, *{a}, *{a}, *{a}, *{a}, *{a}, *{a}, *{a}, *{a}]\n".encode()
        for a, b in zip("abcdefgh", "bcdefghi", strict=True)
    )
    + b"---\n",
}


@pytest.fixture
def hostile_root(tmp_path: Path) -> Path:
    root = tmp_path / "hostile"
    for task_id, text in READABLE.items():
        write(root, f"inbox/{task_id}.md", text.encode())
    for name, data in UNREADABLE.items():
        write(root, f"inbox/{name}", data)
    return root


async def test_every_hostile_file_is_a_task_or_a_reported_problem(hostile_root: Path) -> None:
    server = make_server(hostile_root)
    try:
        async with Client(server) as client:
            stats = await call(client, "get_index_stats")
            for task_id in READABLE:
                await call(client, "get_task", task_id=task_id)
    finally:
        server.context.close()
    reported = {problem["path"].rsplit("/", 1)[-1] for problem in stats["problems"]}
    assert reported == set(UNREADABLE)


async def test_an_update_keeps_every_readable_hostile_file_readable_with_all_its_keys(
    hostile_root: Path,
) -> None:
    before = {i: read_front(hostile_root, i) for i in READABLE}
    server = make_server(hostile_root)
    try:
        async with Client(server) as client:
            for task_id in READABLE:
                await call(client, "update_task", task_id=task_id, status="blocked")
                task = (await call(client, "get_task", task_id=task_id))["task"]
                assert task["status"] == "blocked"
    finally:
        server.context.close()
    for task_id, old in before.items():
        new = read_front(hostile_root, task_id)
        assert {**old, "status": "blocked", "modified": new["modified"]} == new


def read_front(root: Path, task_id: str) -> dict[str, object]:
    text = (root / "inbox" / f"{task_id}.md").read_bytes().decode("utf-8")
    return codec.parse_front(codec.split(text))
