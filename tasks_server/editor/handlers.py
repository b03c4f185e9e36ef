"""The protocol's methods, each a few lines from the editor's request to `features.py`."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from lsprotocol import types as lsp

from tasks_server.editor import features
from tasks_server.editor.actions import new_task_file, ticks
from tasks_server.editor.server import TaskLanguageServer
from tasks_server.editor.text import REFERENCE_KEYS, id_tokens, token_at
from tasks_server.editor.tree import EditorTree

__all__ = ["build_server"]

_KINDS = {
    "id": lsp.CompletionItemKind.Reference,
    "value": lsp.CompletionItemKind.EnumMember,
    "key": lsp.CompletionItemKind.Property,
}


def build_server(root: Path | None, now: datetime | None = None) -> TaskLanguageServer:
    """The server over `root` (None: the editor's workspace folder), every method wired."""
    server = TaskLanguageServer(root, now)
    _documents(server)
    _reading(server)
    _navigation(server)
    _links(server)
    _actions(server)
    return server


def _opened(ls: TaskLanguageServer, uri: str) -> tuple[str, str] | None:
    """(root-relative path, buffer text) of an open task file, else None."""
    relative = ls.relative(uri)
    document = ls.workspace.text_documents.get(uri)
    if relative is None or document is None:
        return None
    return relative, document.source


@dataclass(frozen=True, slots=True)
class Cursor:
    """Where a request points: the tree, the open buffer, a line and column in characters."""

    tree: EditorTree
    text: str
    line: int
    column: int


def _cursor(ls: TaskLanguageServer, uri: str, position: lsp.Position) -> Cursor | None:
    """The cursor of a request on an open task file, else None."""
    opened = _opened(ls, uri)
    if opened is None or ls.tree is None:
        return None
    line, column = ls.ranges(ls.workspace.get_text_document(uri)).position(position)
    return Cursor(ls.tree, opened[1], line, column)


def _documents(server: TaskLanguageServer) -> None:
    @server.feature(lsp.INITIALIZE)
    def initialize(ls: TaskLanguageServer, params: lsp.InitializeParams) -> None:
        ls.open_tree(params)

    @server.feature(lsp.INITIALIZED)
    def initialized(ls: TaskLanguageServer, _: lsp.InitializedParams) -> None:
        ls.watch(asyncio.get_running_loop())

    @server.feature(lsp.SHUTDOWN)
    def shutdown(ls: TaskLanguageServer, *_: object) -> None:
        ls.stopping.set()

    def changed(ls: TaskLanguageServer, uri: str) -> None:
        opened = _opened(ls, uri)
        if opened is not None and ls.tree is not None:
            ls.tree.hold(*opened)
        ls.publish_open()

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: TaskLanguageServer, params: lsp.DidOpenTextDocumentParams) -> None:
        changed(ls, params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: TaskLanguageServer, params: lsp.DidChangeTextDocumentParams) -> None:
        changed(ls, params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: TaskLanguageServer, params: lsp.DidCloseTextDocumentParams) -> None:
        relative = ls.relative(params.text_document.uri)
        if relative is not None and ls.tree is not None:
            ls.tree.release(relative)
        ls.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[])
        )
        ls.publish_open()


def _reading(server: TaskLanguageServer) -> None:
    @server.feature(
        lsp.TEXT_DOCUMENT_COMPLETION,
        lsp.CompletionOptions(trigger_characters=["[", ",", " ", ":"]),
    )
    def completion(ls: TaskLanguageServer, params: lsp.CompletionParams) -> lsp.CompletionList:
        at = _cursor(ls, params.text_document.uri, params.position)
        if at is None:
            return lsp.CompletionList(is_incomplete=False, items=[])
        choices = features.choices_at(at.tree, at.text, at.line, at.column)
        items = [
            lsp.CompletionItem(label=c.label, detail=c.detail, kind=_KINDS[c.kind]) for c in choices
        ]
        return lsp.CompletionList(
            is_incomplete=len(items) >= features.COMPLETION_LIMIT, items=items
        )

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    def hover(ls: TaskLanguageServer, params: lsp.HoverParams) -> lsp.Hover | None:
        at = _cursor(ls, params.text_document.uri, params.position)
        if at is None:
            return None
        text = features.hover_text(at.tree, at.text, at.line, at.column, ls.clock())
        if text is None:
            return None
        content = lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=text)
        return lsp.Hover(contents=content)


def file_location(ls: TaskLanguageServer, relative: str) -> lsp.Location:
    start = lsp.Position(0, 0)
    return lsp.Location(uri=ls.uri_of(relative), range=lsp.Range(start, start))


def _navigation(server: TaskLanguageServer) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
    def definition(ls: TaskLanguageServer, params: lsp.DefinitionParams) -> lsp.Location | None:
        at = _cursor(ls, params.text_document.uri, params.position)
        token = token_at(at.text, at.line, at.column) if at is not None else None
        task = at.tree.index.get(token.value) if at is not None and token is not None else None
        return file_location(ls, task.path) if task is not None else None

    @server.feature(lsp.TEXT_DOCUMENT_REFERENCES)
    def references(ls: TaskLanguageServer, params: lsp.ReferenceParams) -> list[lsp.Location]:
        at = _cursor(ls, params.text_document.uri, params.position)
        token = token_at(at.text, at.line, at.column) if at is not None else None
        if at is None or token is None:
            return []
        found = []
        for path, named in features.referrers(at.tree, token.value):
            place = file_location(ls, path)
            if named is not None:
                where = lsp.Range(
                    lsp.Position(named.line, named.start), lsp.Position(named.line, named.end)
                )
                place = lsp.Location(uri=place.uri, range=where)
            found.append(place)
        return found


def _links(server: TaskLanguageServer) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_LINK)
    def links(ls: TaskLanguageServer, params: lsp.DocumentLinkParams) -> list[lsp.DocumentLink]:
        opened = _opened(ls, params.text_document.uri)
        if opened is None or ls.tree is None:
            return []
        ranges = ls.ranges(ls.workspace.get_text_document(params.text_document.uri))
        found = []
        for token in id_tokens(opened[1]):
            task = ls.tree.index.get(token.value) if token.key in REFERENCE_KEYS else None
            if task is not None:
                at = ranges.span(token.line, token.start, token.end)
                found.append(lsp.DocumentLink(range=at, target=ls.uri_of(task.path)))
        return found

    @server.feature(lsp.WORKSPACE_SYMBOL)
    def symbols(
        ls: TaskLanguageServer, params: lsp.WorkspaceSymbolParams
    ) -> list[lsp.SymbolInformation]:
        if ls.tree is None:
            return []
        return [
            lsp.SymbolInformation(
                name=f"{task_id} {title}",
                kind=lsp.SymbolKind.File,
                location=file_location(ls, path),
            )
            for task_id, title, path in features.symbols(ls.tree, params.query)
        ]


def _actions(server: TaskLanguageServer) -> None:
    @server.feature(lsp.TEXT_DOCUMENT_CODE_ACTION)
    def actions(ls: TaskLanguageServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        uri = params.text_document.uri
        opened = _opened(ls, uri)
        if opened is None or ls.tree is None:
            return []
        relative, text = opened
        result = ls.tree.table.result(relative)
        task = result.task if result is not None else None
        found = []
        first, last = params.range.start.line, params.range.end.line
        project = task.project if task else None
        for token in id_tokens(text):
            named = token.key in REFERENCE_KEYS and first <= token.line <= last
            if named and token.value not in ls.tree.index:
                found.extend(_create(ls, token.value, project))
        if task is not None and task.is_terminal:
            found.extend(_tick(uri, text))
        return found


def _create(ls: TaskLanguageServer, task_id: str, project: str | None) -> list[lsp.CodeAction]:
    new = new_task_file(task_id, project)
    if new is None or ls.tree is None or (ls.tree.root / new.path).exists():
        return []
    uri = ls.uri_of(new.path)
    start = lsp.Position(0, 0)
    edit = lsp.WorkspaceEdit(
        document_changes=[
            lsp.CreateFile(uri=uri, options=lsp.CreateFileOptions(ignore_if_exists=True)),
            lsp.TextDocumentEdit(
                text_document=lsp.OptionalVersionedTextDocumentIdentifier(uri=uri, version=None),
                edits=[lsp.TextEdit(range=lsp.Range(start, start), new_text=new.text)],
            ),
        ]
    )
    title = f"Create task {task_id} ({new.path})"
    return [lsp.CodeAction(title=title, kind=lsp.CodeActionKind.QuickFix, edit=edit)]


def _tick(uri: str, text: str) -> list[lsp.CodeAction]:
    places = ticks(text)
    if not places:
        return []
    edits = [
        lsp.TextEdit(
            range=lsp.Range(lsp.Position(line, column), lsp.Position(line, column + 1)),
            new_text="x",
        )
        for line, column in places
    ]
    lines = text.split("\n")
    items = ", ".join(lines[line][column + 2 :].strip() for line, column in places)
    title = f"Tick the {len(places)} open checklist item(s) of this done task: {items}"[:200]
    edit = lsp.WorkspaceEdit(changes={uri: edits})
    return [lsp.CodeAction(title=title, kind=lsp.CodeActionKind.QuickFix, edit=edit)]
