"""A real `tasks-server lsp` process, driven over stdio by pygls's language client (one
process shared by the tests that only read, `tests/editor/conftest.py`)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from lsprotocol import types as lsp

from tests.conftest import write
from tests.editor.client import Diagnostics, Session, lsp_session
from tests.editor.conftest import TASK, Work, dangling_tree, task

pytestmark = pytest.mark.anyio


@asynccontextmanager
async def own_work(root: Path) -> AsyncIterator[tuple[Session, str, Diagnostics, Path]]:
    """A server of its own over `dangling_tree`, its `work` task open (for a test that
    changes files): (session, uri, diagnostics, path)."""
    path = dangling_tree(root)
    async with lsp_session(root) as session:
        uri, found = await session.opened(path)
        yield session, uri, found, path


async def test_a_dangling_dependency_is_flagged_at_its_id_and_goes_once_fixed(
    work: Work,
) -> None:
    session, uri, found, path = work.session, work.uri, work.found, work.path
    assert [d.code for d in found] == ["dangling_depends_on"]
    assert found[0].message == "work: depends_on names ghost, which no task has"
    start, end = found[0].range.start, found[0].range.end
    column = path.read_text().splitlines()[4].index("ghost")
    assert (start.line, start.character, end.character) == (4, column, column + 5)
    session.change(uri, path.read_text().replace(", ghost", ""))
    assert await session.diagnostics(uri) == []


async def test_completion_inside_depends_on_lists_real_ids_with_their_titles(
    shared: tuple[Session, Path],
) -> None:
    session, root = shared
    path = root / "inbox" / "work.md"
    text = path.read_text().replace("depends_on: [base, ghost]", "depends_on: [ba")
    uri, _ = await session.opened(path, text)
    answer = await session.completion(uri, 4, len(text.splitlines()[4]))
    assert [(i.label, i.detail) for i in answer] == [("base", "Task base")]
    blank = text.replace("depends_on: [ba", "depends_on: [")
    session.change(uri, blank)
    await session.diagnostics(uri)
    every = await session.completion(uri, 4, len("depends_on: ["))
    assert [i.label for i in every] == ["base", "other"]  # the buffer does not parse


async def test_completion_offers_statuses_and_keys(shared: tuple[Session, Path]) -> None:
    session, root = shared
    path = root / "inbox" / "work.md"
    text = path.read_text().replace("status: active", "status: in_")
    uri, _ = await session.opened(path, text)
    answer = await session.completion(uri, 3, len("status: in_"))
    assert [i.label for i in answer] == ["in_progress"]
    keyed = text.replace("status: in_\n", "status: active\nsoft\n")
    session.change(uri, keyed)
    await session.diagnostics(uri)
    keys = await session.completion(uri, 4, 4)
    assert [i.label for i in keys] == ["soft_depends_on"]


async def test_hover_on_an_id_says_whether_it_is_ready_and_why(work: Work) -> None:
    own = await work.session.hover(work.uri, 1, 5) or ""
    assert "**work**: Task work" in own
    assert "not ready: work is blocked: it depends on ghost, which no task has." in own
    base = await work.session.hover(work.uri, 4, 15) or ""
    assert "status `done`" in base and "blocks 1 task(s)" in base


async def test_definition_opens_the_file_of_the_id(work: Work) -> None:
    found = await work.session.definition(work.uri, 4, 15)
    assert isinstance(found, lsp.Location) and found.uri.endswith("/inbox/base.md")
    assert await work.session.definition(work.uri, 4, 21) is None  # ghost: no task has it


async def test_references_list_the_children_and_the_dependents(tmp_path: Path) -> None:
    dangling_tree(tmp_path)
    task(tmp_path, "kid", extra="parent: base\n")
    base = tmp_path / "inbox" / "base.md"
    async with lsp_session(tmp_path) as session:
        uri, _ = await session.opened(base)
        found = await session.references(uri, 1, 5)
        assert sorted(Path(f.uri).name for f in found) == ["kid.md", "work.md"]
        assert {f.range.start.line for f in found} == {4}


async def test_a_change_on_disk_by_another_process_updates_an_open_files_diagnostics(
    tmp_path: Path,
) -> None:
    async with own_work(tmp_path) as (session, uri, found, _path):
        assert [d.code for d in found] == ["dangling_depends_on"]
        task(tmp_path, "ghost")  # another writer creates the missing task
        assert await session.until(uri, lambda found: found == []) == []


async def test_a_readme_and_a_file_outside_the_root_get_no_diagnostics(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    dangling_tree(root)
    readme = write(root, "README.md", "# Notes\n\nNot a task.\n")
    outside = write(
        tmp_path,
        "elsewhere/x.md",
        TASK.format(id="x", title="X", status="zzz", extra="depends_on: [nope]\n"),
    )
    async with lsp_session(root) as session:
        for path in (readme, outside):
            uri = await session.open(path)
            assert await session.diagnostics(uri) == []


async def test_the_workspace_folder_is_the_root_without_a_root_flag(tmp_path: Path) -> None:
    path = dangling_tree(tmp_path)
    async with lsp_session(None, workspace=tmp_path) as session:
        _, found = await session.opened(path)
        assert [d.code for d in found] == ["dangling_depends_on"]


async def test_a_code_action_creates_the_missing_task_where_create_task_would(
    work: Work,
) -> None:
    actions = await work.session.client.text_document_code_action_async(
        lsp.CodeActionParams(
            text_document=lsp.TextDocumentIdentifier(uri=work.uri),
            range=work.found[0].range,
            context=lsp.CodeActionContext(diagnostics=work.found),
        )
    )
    assert actions is not None and len(actions) == 1
    action = actions[0]
    assert isinstance(action, lsp.CodeAction) and action.edit is not None
    assert action.title == "Create task ghost (inbox/ghost-ghost.md)"
    create, insert = action.edit.document_changes or []
    assert isinstance(create, lsp.CreateFile) and create.uri.endswith("/inbox/ghost-ghost.md")
    assert isinstance(insert, lsp.TextDocumentEdit)
    edit = insert.edits[0]
    assert isinstance(edit, lsp.TextEdit) and "id: ghost\ntitle: ghost\n" in edit.new_text


async def test_a_done_task_with_open_checklist_items_offers_to_tick_them(tmp_path: Path) -> None:
    done = write(
        tmp_path, "inbox/d.md", "---\nid: d\ntitle: D\nstatus: done\n---\n- [ ] one\n- [x] two\n"
    )
    async with lsp_session(tmp_path) as session:
        uri, _ = await session.opened(done)
        actions = await session.client.text_document_code_action_async(
            lsp.CodeActionParams(
                text_document=lsp.TextDocumentIdentifier(uri=uri),
                range=lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0)),
                context=lsp.CodeActionContext(diagnostics=[]),
            )
        )
        assert actions is not None
        (tick,) = actions
        assert isinstance(tick, lsp.CodeAction) and tick.edit is not None
        assert tick.title.endswith("1 open checklist item(s) of this done task: one")
        (edit,) = (tick.edit.changes or {})[uri]
        assert (edit.range.start.line, edit.range.start.character, edit.new_text) == (5, 3, "x")


async def test_document_links_and_workspace_symbols_lead_to_task_files(work: Work) -> None:
    client = work.session.client
    links = await client.text_document_document_link_async(
        lsp.DocumentLinkParams(text_document=lsp.TextDocumentIdentifier(uri=work.uri))
    )
    assert [(link.range.start.line, Path(link.target or "").name) for link in links or []] == [
        (4, "base.md")
    ]
    found = await client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query="oth"))
    assert [s.name for s in found or []] == ["other Task other"]


async def test_an_id_two_files_hold_is_shown_in_each_naming_the_other(tmp_path: Path) -> None:
    first = write(tmp_path, "inbox/a.md", "---\nid: same\ntitle: A\n---\n")
    second = write(tmp_path, "inbox/b.md", "---\nid: same\ntitle: B\n---\n")
    async with lsp_session(tmp_path) as session:
        for path, other in ((first, "inbox/b.md"), (second, "inbox/a.md")):
            _, found = await session.opened(path)
            (duplicate,) = found
            assert duplicate.message == "id same is also in inbox/b.md"
            related = duplicate.related_information or []
            assert [(r.message, r.location.uri.endswith(other)) for r in related] == [(other, True)]
