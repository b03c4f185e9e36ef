"""One `tasks-server lsp` process shared by the tests that only read one small tree.

Starting a server costs more than most of these tests' requests: the tests that read the
`dangling_tree` (hover, definition, completion, links, code actions, unsaved buffers) take
turns on one process. Each starts as a fresh session would: `Session.forget` closes every
document the test opened and drops what was published, and a test that changed a file of
the shared tree fails. A test that writes files, or needs a server started another way, has
its own process (`lsp_session`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.conftest import write
from tests.editor.client import Diagnostics, Session, lsp_session

TASK = """---
id: {id}
title: {title}
status: {status}
{extra}---
Body.
"""


def task(root: Path, task_id: str, *, status: str = "active", extra: str = "") -> Path:
    text = TASK.format(id=task_id, title=f"Task {task_id}", status=status, extra=extra)
    return write(root, f"inbox/{task_id}.md", text)


def dangling_tree(root: Path) -> Path:
    """`base` (done), `other`, and `work` depending on base and on ghost, which no task is."""
    task(root, "base", status="done")
    task(root, "other")
    return task(root, "work", extra="depends_on: [base, ghost]\n")


def files_of(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*.md")}


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    """Session-wide, so the shared server's event loop outlives one test."""
    return "asyncio"


@pytest.fixture(scope="package")
async def shared_server(
    tmp_path_factory: pytest.TempPathFactory,
) -> AsyncIterator[tuple[Session, Path]]:
    root = tmp_path_factory.mktemp("shared") / "tree"
    dangling_tree(root)
    async with lsp_session(root) as session:
        yield session, root


class Work:
    """The shared server with `work` open: its session, uri, first diagnostics and path."""

    def __init__(self, session: Session, uri: str, found: Diagnostics, path: Path) -> None:
        self.session, self.uri, self.found, self.path = session, uri, found, path


@pytest.fixture
async def shared(shared_server: tuple[Session, Path]) -> AsyncIterator[tuple[Session, Path]]:
    """The shared server over a `dangling_tree`, as a fresh session: (session, root)."""
    session, root = shared_server
    before = files_of(root)
    yield session, root
    await session.forget()
    assert files_of(root) == before, "a test wrote into the shared tree"


@pytest.fixture
async def work(shared: tuple[Session, Path]) -> Work:
    """The shared server with `work` (base, ghost) open and its first diagnostics."""
    session, root = shared
    path = root / "inbox" / "work.md"
    uri, found = await session.opened(path)
    return Work(session, uri, found, path)
