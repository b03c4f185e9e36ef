"""The language server: pygls speaks the protocol, `features.py` answers from the live tree.

Only task files get anything (the files the tree's scope reads as tasks; a README, a file
outside the root or in an ignored folder gets no diagnostics). Every handler catches
nothing on purpose beyond what it expects: pygls turns an exception in a request into an
error response and one in a notification into a message the editor shows; the server keeps
answering either way.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path
from pygls.workspace import TextDocument

from storage.timestamps import utc_now
from tasks_server import roots, version
from tasks_server.editor import features
from tasks_server.editor.ranges import Ranges, diagnostic_of
from tasks_server.editor.tree import EditorTree

__all__ = ["TaskLanguageServer"]

log = logging.getLogger(__name__)
_WAIT = 1.0  # seconds the watcher thread waits for a change before looking at `stopping`


class TaskLanguageServer(LanguageServer):
    """A pygls server over one `EditorTree`, made in `initialize`."""

    def __init__(self, root: Path | None, now: datetime | None = None) -> None:
        super().__init__("tasks-server", version())
        self.fixed_root = root
        self.tree: EditorTree | None = None
        self.clock: Callable[[], datetime] = (lambda: now) if now is not None else utc_now
        self.stopping = threading.Event()

    def open_tree(self, params: lsp.InitializeParams) -> None:
        root = self.fixed_root or _workspace_root(params) or roots.resolve(None)
        self.tree = EditorTree(root)

    def relative(self, uri: str) -> str | None:
        """The task file `uri` names, root-relative; None for anything else."""
        path = to_fs_path(uri)
        if self.tree is None or path is None:
            return None
        return self.tree.relative(Path(path))

    def uri_of(self, relative: str) -> str:
        assert self.tree is not None
        return from_fs_path(str(self.tree.root / relative)) or ""

    def ranges(self, document: TextDocument) -> Ranges:
        return Ranges(document.source, self.workspace.position_codec)

    def publish(self, uri: str) -> None:
        """Send the diagnostics of one open document (none for a file that is not a task)."""
        relative = self.relative(uri)
        found: list[lsp.Diagnostic] = []
        if relative is not None and self.tree is not None:
            ranges = self.ranges(self.workspace.get_text_document(uri))
            problems = features.problems_of(self.tree, relative)
            found = [diagnostic_of(p, relative, ranges, self.uri_of) for p in problems]
        params = lsp.PublishDiagnosticsParams(uri=uri, diagnostics=found)
        self.text_document_publish_diagnostics(params)

    def publish_open(self) -> None:
        for uri in list(self.workspace.text_documents):
            self.publish(uri)

    def watch(self, loop: asyncio.AbstractEventLoop) -> None:
        """A thread that wakes the loop when files change on disk; the loop then applies
        the changes and sends the open documents' diagnostics again."""
        done = threading.Event()

        def on_change() -> None:
            try:
                if self.tree is not None:
                    self.tree.refresh()
                    self.publish_open()
            finally:
                done.set()

        def run() -> None:
            while not self.stopping.is_set() and self.tree is not None:
                if self.tree.wait_for_changes(_WAIT):
                    done.clear()
                    loop.call_soon_threadsafe(on_change)
                    while not done.wait(_WAIT) and not self.stopping.is_set():
                        pass

        threading.Thread(target=run, name="tasks-lsp-watch", daemon=True).start()


def _workspace_root(params: lsp.InitializeParams) -> Path | None:
    """The first workspace folder the editor sent, else its root uri."""
    uris = [f.uri for f in params.workspace_folders or []] + [params.root_uri or ""]
    for uri in uris:
        path = to_fs_path(uri) if uri else None
        if path:
            return Path(path)
    return Path(params.root_path) if params.root_path else None
