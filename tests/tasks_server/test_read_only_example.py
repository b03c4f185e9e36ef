"""The example inside an installed package is read-only; `tasks-server init DIR` copies it
out. (The wheel itself is installed and tried in tests/test_wheel.py.)"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from tasks_server import roots
from tasks_server.cli import main
from tests.conftest import DATA, write
from tests.tasks_server.conftest import fail, make_server

pytestmark = pytest.mark.anyio


def fingerprint(root: Path) -> dict[str, str]:
    """Every file under `root`, hidden folders included, by content."""
    return {
        str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def test_only_the_example_inside_the_installed_package_is_read_only() -> None:
    installed = Path(roots.__file__).resolve().parent / "example"
    assert roots.is_installed_example(installed)
    assert not roots.is_installed_example(DATA), "a clone's data/ stays writable"


WRITES = {
    "create_task": {"title": "into site-packages?"},
    "update_task": {"task_id": "pipe-a84567f9", "status": "done"},
    "delete_task": {"task_id": "pipe-a84567f9"},
    "story_bot_tool": {},
}


@pytest.mark.parametrize("tool", WRITES)
async def test_a_read_only_root_refuses_a_write_saying_how_to_get_a_copy(
    example_root: Path, tool: str
) -> None:
    from mcp import Client  # noqa: PLC0415

    server = make_server(example_root)
    server.context.read_only = True
    before = fingerprint(example_root)
    try:
        async with Client(server) as client:
            error = (await fail(client, tool, **WRITES[tool]))["error"]
            still_read = await client.call_tool("get_task", {"task_id": "pipe-a84567f9"})
    finally:
        server.close()
    assert error["code"] == "READ_ONLY_ROOT"
    assert "tasks-server init DIR" in error["message"] and "\n" not in error["message"]
    assert not still_read.is_error
    assert fingerprint(example_root) == before


def test_init_copies_the_example_without_server_folders_or_test_fixtures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "mine"
    assert main(["init", str(target)]) == 0
    assert f"--root {target}" in capsys.readouterr().out
    copied = set(fingerprint(target))
    expected = {
        name
        for name in fingerprint(DATA)
        if not name.startswith(("odd/", ".tasks-index/", ".workflow/", ".trash/"))
    }
    assert copied == expected and len([n for n in copied if n.endswith(".md")]) == 50


def test_init_into_a_folder_that_holds_anything_is_refused_and_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mine = write(tmp_path, "mine/notes.md", "mine\n")
    assert main(["init", str(mine.parent)]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"tasks-server init: {mine.parent} exists and is not an empty folder"
    ]
    assert fingerprint(mine.parent) == {"notes.md": hashlib.sha256(b"mine\n").hexdigest()}
