"""Bad input never kills the language server: each case gets an error the editor can show,
or nothing, and the server answers the next request."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types as lsp

from tests.conftest import write
from tests.editor.client import Session, lsp_session, uri_of
from tests.editor.conftest import Work, dangling_tree

pytestmark = pytest.mark.anyio


async def still_answers(session: Session, path: Path) -> None:
    """A hover on the task file's own id still answers."""
    assert "**work**" in (await session.hover(uri_of(path), 1, 5) or "")


async def test_binary_huge_and_broken_buffers_get_diagnostics_and_the_server_goes_on(
    tmp_path: Path,
) -> None:
    work = dangling_tree(tmp_path)
    binary = write(tmp_path, "inbox/binary.md", bytes(range(256)) * 4)
    huge = write(tmp_path, "inbox/huge.md", "---\ntitle: Huge\n---\n" + "x" * (2 << 20))
    async with lsp_session(tmp_path) as session:
        await session.diagnostics(await session.open(work))
        found = await session.diagnostics(await session.open(binary))
        assert [d.code for d in found] == ["unparseable_file"]
        found = await session.diagnostics(await session.open(huge))
        assert [d.code for d in found] == ["unparseable_file"]
        assert "over the" in found[0].message
        for text in ("---\ntitle: A\x00\n---\n", "---\ntitle: \ud800 lone\n---\n"):
            uri = await session.open(tmp_path / "inbox" / "broken.md", text)
            found = await session.diagnostics(uri)
            assert [d.code for d in found] == ["unparseable_file"]
        await still_answers(session, work)


async def test_a_change_to_a_file_never_opened_and_a_range_past_the_end_do_no_harm(
    work: Work,
) -> None:
    session, uri = work.session, work.uri
    session.change(uri_of(work.path.parent / "never.md"), "---\ntitle: X\n---\n")
    assert await session.completion(uri, 10_000, 10_000) == []
    assert await session.hover(uri, 10_000, 0) is None
    assert await session.hover(uri, 1, 10_000) is not None  # clamped: the line's id
    await still_answers(session, work.path)


async def test_a_file_outside_the_root_gets_nothing_from_any_request(
    shared: tuple[Session, Path], tmp_path: Path
) -> None:
    session, root = shared
    work = root / "inbox" / "work.md"
    outside = write(tmp_path, "x.md", "---\nid: x\ntitle: X\ndepends_on: [work]\n---\n")
    assert not outside.is_relative_to(root)
    uri = await session.open(outside)
    assert await session.diagnostics(uri) == []
    assert await session.definition(uri, 3, 14) is None
    links = await session.client.text_document_document_link_async(
        lsp.DocumentLinkParams(text_document=lsp.TextDocumentIdentifier(uri=uri))
    )
    assert not links
    await session.diagnostics(await session.open(work))
    await still_answers(session, work)
