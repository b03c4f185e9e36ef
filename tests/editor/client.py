"""A language client we did not write (pygls's) driving a real `tasks-server lsp` process
over stdio, with the diagnostics it publishes kept per document."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

WAIT = 20.0  # the longest wait for one notification (a bound, never a pause)
Diagnostics = list[lsp.Diagnostic]


class Session:
    """One client, one server process; documents opened by path."""

    def __init__(self, client: LanguageClient) -> None:
        self.client = client
        self.published: dict[str, asyncio.Queue[Diagnostics]] = {}
        self.versions: dict[str, int] = {}
        self.messages: list[str] = []
        self.open_uris: set[str] = set()

    def queue(self, uri: str) -> asyncio.Queue[Diagnostics]:
        return self.published.setdefault(uri, asyncio.Queue())

    async def open(self, path: Path, text: str | None = None) -> str:
        uri = uri_of(path)
        body = path.read_bytes().decode("utf-8", errors="replace") if text is None else text
        self.versions[uri] = 1
        self.open_uris.add(uri)
        item = lsp.TextDocumentItem(uri=uri, language_id="markdown", version=1, text=body)
        self.client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=item))
        return uri

    def close(self, uri: str) -> None:
        document = lsp.TextDocumentIdentifier(uri=uri)
        self.client.text_document_did_close(lsp.DidCloseTextDocumentParams(text_document=document))

    async def forget(self) -> None:
        """Close every document this session opened and drop what was published, so the
        next user of the same server process starts as a fresh session would. A request's
        answer comes after every diagnostic the closes sent (one stream, in order)."""
        for uri in sorted(self.open_uris):
            self.close(uri)
        query = lsp.WorkspaceSymbolParams(query="")
        await asyncio.wait_for(self.client.workspace_symbol_async(query), WAIT)
        self.published.clear()
        self.versions.clear()
        self.messages.clear()
        self.open_uris.clear()

    def change(self, uri: str, text: str) -> None:
        """The whole buffer replaced by `text`, unsaved."""
        self.versions[uri] = self.versions.get(uri, 0) + 1
        document = lsp.VersionedTextDocumentIdentifier(uri=uri, version=self.versions[uri])
        change = lsp.TextDocumentContentChangeWholeDocument(text=text)
        self.client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(text_document=document, content_changes=[change])
        )

    async def diagnostics(self, uri: str) -> Diagnostics:
        """The next diagnostics published for `uri`."""
        return await asyncio.wait_for(self.queue(uri).get(), WAIT)

    async def until(self, uri: str, wanted: Callable[[Diagnostics], bool]) -> Diagnostics:
        """Diagnostics of `uri` as published, until one set is `wanted` (bounded wait)."""
        while True:
            found = await self.diagnostics(uri)
            if wanted(found):
                return found

    async def opened(self, path: Path, text: str | None = None) -> tuple[str, Diagnostics]:
        """Open `path` (as `text` when given) and wait for its first diagnostics."""
        uri = await self.open(path, text)
        return uri, await self.diagnostics(uri)

    async def completion(self, uri: str, line: int, character: int) -> list[lsp.CompletionItem]:
        at = _at(uri, line, character)
        answer = await self.client.text_document_completion_async(
            lsp.CompletionParams(text_document=at.text_document, position=at.position)
        )
        assert isinstance(answer, lsp.CompletionList)
        return list(answer.items)

    async def hover(self, uri: str, line: int, character: int) -> str | None:
        at = _at(uri, line, character)
        answer = await self.client.text_document_hover_async(
            lsp.HoverParams(text_document=at.text_document, position=at.position)
        )
        if answer is None:
            return None
        assert isinstance(answer.contents, lsp.MarkupContent)
        return answer.contents.value

    async def definition(self, uri: str, line: int, character: int) -> object:
        at = _at(uri, line, character)
        return await self.client.text_document_definition_async(
            lsp.DefinitionParams(text_document=at.text_document, position=at.position)
        )

    async def references(self, uri: str, line: int, character: int) -> list[lsp.Location]:
        at = _at(uri, line, character)
        context = lsp.ReferenceContext(include_declaration=False)
        answer = await self.client.text_document_references_async(
            lsp.ReferenceParams(
                text_document=at.text_document, position=at.position, context=context
            )
        )
        return list(answer or [])


def _at(uri: str, line: int, character: int) -> lsp.TextDocumentPositionParams:
    return lsp.TextDocumentPositionParams(
        text_document=lsp.TextDocumentIdentifier(uri=uri),
        position=lsp.Position(line=line, character=character),
    )


def uri_of(path: Path) -> str:
    return from_fs_path(str(path)) or ""


@asynccontextmanager
async def lsp_session(
    root: Path | None, *, workspace: Path | None = None, extra: tuple[str, ...] = ()
) -> AsyncIterator[Session]:
    """A `tasks-server lsp` process (with `--root` when given) initialised by the client."""
    client = LanguageClient("tests", "1")
    session = Session(client)

    @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)  # type: ignore[untyped-decorator]
    def published(params: lsp.PublishDiagnosticsParams) -> None:
        session.queue(params.uri).put_nowait(list(params.diagnostics))

    @client.feature(lsp.WINDOW_SHOW_MESSAGE)  # type: ignore[untyped-decorator]
    def shown(params: lsp.ShowMessageParams) -> None:
        session.messages.append(params.message)

    args = ["-m", "tasks_server", "lsp", *extra]
    if root is not None:
        args += ["--root", str(root)]
    await client.start_io(sys.executable, *args)
    folder = workspace or root
    folders = [lsp.WorkspaceFolder(uri=uri_of(folder), name="tree")] if folder else None
    await client.initialize_async(
        lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(), workspace_folders=folders, process_id=None
        )
    )
    client.initialized(lsp.InitializedParams())
    try:
        yield session
    finally:
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()  # type: ignore[no-untyped-call]
