"""Every task as an MCP resource: `task://{id}`, its file as text/markdown.

The server lists the tasks (paged), publishes one resource template, reads a task's file as
it is on disk, completes the template's id (`completion/complete`) and tells subscribers
when a task's file changes, whoever wrote it (this server, another process, an editor, a
checkout), the way the session's protocol does it: `resources/subscribe` and
`notifications/resources/updated` up to 2025-11-25; a `subscriptions/listen` stream naming
the URIs at 2026-07-28. Changes are found by the live tree's change feed
(`storage.feed`), woken by the kernel's report (`LiveTree.wait_past`); the watch runs only
while someone is subscribed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import anyio
import anyio.to_thread
from mcp.server.context import ServerRequestContext
from mcp.server.session import ServerSession
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler
from mcp.shared.exceptions import MCPError
from mcp.shared.subscriptions import ResourceUpdated
from mcp_types import (
    CompleteRequestParams,
    CompleteResult,
    Completion,
    EmptyResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    PaginatedRequestParams,
    ReadResourceRequestParams,
    ReadResourceResult,
    Resource,
    ResourceTemplate,
    ResourceTemplateReference,
    SubscribeRequestParams,
    SubscriptionsListenRequestParams,
    SubscriptionsListenResult,
    TextResourceContents,
    UnsubscribeRequestParams,
)

from tasks_server.live import LiveTree

__all__ = ["SCHEME", "TEMPLATE", "TaskResources"]

SCHEME = "task://"
TEMPLATE = f"{SCHEME}{{id}}"
MARKDOWN = "text/markdown"
PAGE = 500
"""Resources per `resources/list` page."""
COMPLETIONS = 100
"""Ids per completion answer (the protocol's most)."""
RESOURCE_NOT_FOUND = -32002
WATCH_SLICE = 1.0
"""The longest one look for changes blocks a worker thread (cancelling waits this long)."""

Context = ServerRequestContext[Any]


def task_id_of(uri: str) -> str:
    """The id a `task://{id}` URI names; an MCPError for any other URI."""
    if not uri.startswith(SCHEME) or len(uri) == len(SCHEME):
        raise MCPError(RESOURCE_NOT_FOUND, f"not a task resource: {uri[:80]}")
    return uri[len(SCHEME) :]


def _offset(cursor: str | None) -> int:
    if cursor is None:
        return 0
    if not cursor.isdigit() or len(cursor) > 12:
        raise MCPError(-32602, "cursor is not one this server issued")
    return int(cursor)


class TaskResources:
    """The resource handlers of one server over one live tree, and its subscribers."""

    def __init__(self, live: LiveTree, bus: InMemorySubscriptionBus) -> None:
        self.live = live
        self._bus = bus
        self._listen = ListenHandler(bus)
        self._sessions: dict[str, set[ServerSession]] = {}
        self._listeners = 0
        self._wanted = anyio.Event()

    # --- reading ------------------------------------------------------------------------

    async def _in_tree(self, read: Callable[[], Any]) -> Any:
        """`read` on a worker thread, over the tree brought up to date."""

        def run() -> Any:
            with self.live.snapshot():
                return read()

        return await anyio.to_thread.run_sync(run)

    async def listed(
        self, ctx: Context, params: PaginatedRequestParams | None
    ) -> ListResourcesResult:
        start = _offset(params.cursor if params is not None else None)

        def page() -> tuple[list[Resource], bool]:
            index = self.live.index
            ids = index.ordered_ids()[start : start + PAGE + 1]
            rows = [index.require(i) for i in ids[:PAGE]]
            resources = [
                Resource(uri=f"{SCHEME}{t.id}", name=t.id, title=t.title, mime_type=MARKDOWN)
                for t in rows
            ]
            return resources, len(ids) > PAGE

        resources, more = await self._in_tree(page)
        cursor = str(start + PAGE) if more else None
        return ListResourcesResult(resources=resources, next_cursor=cursor)

    async def templates(
        self, ctx: Context, params: PaginatedRequestParams | None
    ) -> ListResourceTemplatesResult:
        template = ResourceTemplate(
            uri_template=TEMPLATE,
            name="task",
            title="A task's markdown file",
            mime_type=MARKDOWN,
        )
        return ListResourceTemplatesResult(resource_templates=[template])

    async def read(self, ctx: Context, params: ReadResourceRequestParams) -> ReadResourceResult:
        task_id = task_id_of(params.uri)

        def text() -> str | None:
            task = self.live.index.get(task_id)
            if task is None:
                return None
            return (self.live.root / task.path).read_text(encoding="utf-8")

        found = await self._in_tree(text)
        if found is None:
            raise MCPError(RESOURCE_NOT_FOUND, f"no task has id {task_id[:80]!r}")
        contents = TextResourceContents(uri=params.uri, mime_type=MARKDOWN, text=found)
        return ReadResourceResult(contents=[contents])

    async def complete(self, ctx: Context, params: CompleteRequestParams) -> CompleteResult:
        """Ids starting with what was typed, for the template's `id` (nothing for others)."""
        ref = params.ref
        wanted = isinstance(ref, ResourceTemplateReference) and ref.uri == TEMPLATE
        if not wanted or params.argument.name != "id":
            return CompleteResult(completion=Completion(values=[], total=0, has_more=False))
        typed = params.argument.value

        def matching() -> list[str]:
            return sorted(i for i in self.live.index.ordered_ids() if i.startswith(typed))

        found: list[str] = await self._in_tree(matching)
        shown = found[:COMPLETIONS]
        completion = Completion(values=shown, total=len(found), has_more=len(found) > len(shown))
        return CompleteResult(completion=completion)

    # --- subscriptions ------------------------------------------------------------------

    async def subscribe(self, ctx: Context, params: SubscribeRequestParams) -> EmptyResult:
        task_id_of(params.uri)
        self._sessions.setdefault(params.uri, set()).add(ctx.session)
        self._wanted.set()
        return EmptyResult()

    async def unsubscribe(self, ctx: Context, params: UnsubscribeRequestParams) -> EmptyResult:
        self._drop(params.uri, ctx.session)
        return EmptyResult()

    def _drop(self, uri: str, session: ServerSession) -> None:
        sessions = self._sessions.get(uri, set())
        sessions.discard(session)
        if not sessions:
            self._sessions.pop(uri, None)

    async def listen(
        self, ctx: Context, params: SubscriptionsListenRequestParams
    ) -> SubscriptionsListenResult:
        """The SDK's listen stream; while one names resources, changes are watched."""
        names_resources = bool(params.notifications.resource_subscriptions)
        self._listeners += names_resources
        if names_resources:
            self._wanted.set()
        try:
            return await self._listen(ctx, params)
        finally:
            self._listeners -= names_resources

    def close(self) -> None:
        self._listen.close()

    # --- the watch ----------------------------------------------------------------------

    def _subscribed(self) -> bool:
        return bool(self._sessions) or self._listeners > 0

    async def watch(self) -> None:
        """Forever: while anyone is subscribed, tell them of each changed task file."""
        while True:
            await self._wanted.wait()
            seen = self.live.feed.seq
            while self._subscribed():
                seen, uris = await anyio.to_thread.run_sync(
                    self._next_change, seen, abandon_on_cancel=True
                )
                await self._tell(uris)
            self._wanted = anyio.Event()

    def _next_change(self, seen: int) -> tuple[int, list[str]]:
        """Wait a while for changes after the feed's state `seen`: the state now and the
        URIs of the tasks whose files changed (held a task before or after)."""
        live = self.live
        with live.lock:
            live.refresh()
            if live.feed.seq == seen:
                live.wait_past(seen, WATCH_SLICE)
                live.refresh()
            now = live.feed.seq
            priors = live.feed.between(seen, now) or {}
            ids = _ids_at(priors.items(), live.table.result)
        return now, [f"{SCHEME}{i}" for i in sorted(ids)]

    async def _tell(self, uris: list[str]) -> None:
        for uri in uris:
            await self._bus.publish(ResourceUpdated(uri=uri))
            for session in list(self._sessions.get(uri, ())):
                try:
                    await session.send_resource_updated(uri)
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    self._drop(uri, session)


def _ids_at(priors: Iterable[tuple[str, Any]], now: Callable[[str], Any]) -> set[str]:
    """The ids held at the changed paths, before (`priors`) or now."""
    ids = set()
    for path, before in priors:
        for result in (before, now(path)):
            if result is not None and result.task is not None:
                ids.add(result.task.id)
    return ids
