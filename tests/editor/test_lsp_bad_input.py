"""Bad input never kills the language server: each case gets an error the editor can show,
or nothing, and the server answers the next request."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types as lsp

from tests.conftest import write
from tests.editor.client import Session, lsp_session, uri_of
from tests.editor.test_lsp_session import dangling_tree

pytestmark = pytest.mark.anyio


async def still_answers(session: Session, path: Path) -> None:
    """A hover on the task file's own id still answers."""
    uri = uri_of(path)
    hover = await session.client.text_document_hover_async(
        lsp.HoverParams(**session.position(uri, 1, 5))  # type: ignore[arg-type]
    )
    assert hover is not None and isinstance(hover.contents, lsp.MarkupContent)
    assert "**work**" in hover.contents.value


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
    tmp_path: Path,
) -> None:
    work = dangling_tree(tmp_path)
    async with lsp_session(tmp_path) as session:
        uri = await session.open(work)
        await session.diagnostics(uri)
        session.change(uri_of(tmp_path / "inbox" / "never.md"), "---\ntitle: X\n---\n")
        far = await session.client.text_document_completion_async(
            lsp.CompletionParams(**session.position(uri, 10_000, 10_000))  # type: ignore[arg-type]
        )
        assert isinstance(far, lsp.CompletionList) and not far.items
        past_line = await session.client.text_document_hover_async(
            lsp.HoverParams(**session.position(uri, 10_000, 0))  # type: ignore[arg-type]
        )
        assert past_line is None
        past_column = await session.client.text_document_hover_async(
            lsp.HoverParams(**session.position(uri, 1, 10_000))  # type: ignore[arg-type]
        )
        assert past_column is not None  # clamped to the end of the line: the id
        await still_answers(session, work)


async def test_a_file_outside_the_root_gets_nothing_from_any_request(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    work = dangling_tree(root)
    outside = write(tmp_path, "x.md", "---\nid: x\ntitle: X\ndepends_on: [work]\n---\n")
    async with lsp_session(root) as session:
        uri = await session.open(outside)
        assert await session.diagnostics(uri) == []
        at = session.position(uri, 3, 14)
        assert (
            await session.client.text_document_definition_async(
                lsp.DefinitionParams(**at)  # type: ignore[arg-type]
            )
            is None
        )
        links = await session.client.text_document_document_link_async(
            lsp.DocumentLinkParams(text_document=lsp.TextDocumentIdentifier(uri=uri))
        )
        assert not links
        await session.diagnostics(await session.open(work))
        await still_answers(session, work)
