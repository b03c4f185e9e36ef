"""The editor's answers computed in-process over a real tree on disk (the protocol is
tested through a real process in test_lsp_session.py)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pygls.workspace import PositionCodec

from tasks_server.editor.features import choices_at, hover_text, problems_of, symbols
from tasks_server.editor.ranges import Ranges, diagnostic_of
from tasks_server.editor.tree import EditorTree
from tests.conftest import write

NOW = datetime(2026, 6, 1, tzinfo=UTC)


@pytest.fixture
def tree(tmp_path: Path) -> Iterator[EditorTree]:
    write(
        tmp_path, "web/tasks/a.md", "---\nid: a\ntitle: Alpha\nproject: web\ntags: [ui, db]\n---\n"
    )
    write(
        tmp_path,
        "web/tasks/b.md",
        "---\nid: b\ntitle: Beta later\nstatus: active\ndefer_until: 2026-07-01\n"
        "claimed_by: w1\nclaim_expires: 2026-06-01T01:00:00Z\n---\n",
    )
    opened = EditorTree(tmp_path, watch=False)
    yield opened
    opened.close()


def labels(tree: EditorTree, text: str, line: int, column: int) -> list[str]:
    return [c.label for c in choices_at(tree, text, line, column)]


def test_values_projects_and_tags_complete_by_prefix(tree: EditorTree) -> None:
    text = "---\ntype: e\npriority: \nproject: w\ntags: [u\n---\n"
    assert labels(tree, text, 1, 7) == ["epic"]
    assert labels(tree, text, 2, 10) == [
        "0",
        "1",
        "2",
        "3",
        "4",
        "critical",
        "high",
        "medium",
        "low",
        "lowest",
    ]
    assert labels(tree, text, 3, 10) == ["web"]
    assert labels(tree, text, 4, 8) == ["ui"]


def test_nothing_completes_in_the_body_or_an_unknown_key(tree: EditorTree) -> None:
    text = "---\nassignee: x\n---\nbody d\n"
    assert labels(tree, text, 1, 11) == []
    assert labels(tree, text, 3, 6) == []


def test_hover_names_a_deferral_and_a_live_claim(tree: EditorTree) -> None:
    text = "---\ndepends_on: [b]\n---\n"
    shown = hover_text(tree, text, 1, 14, NOW) or ""
    assert "deferred until 2026-07-01T00:00:00+00:00" in shown
    assert "claimed by w1" in shown and "not ready" in shown


def test_hover_on_an_id_no_task_has_says_so(tree: EditorTree) -> None:
    assert hover_text(tree, "---\nparent: zz\n---\n", 1, 9, NOW) == "`zz`: no task has this id"


def test_symbols_match_ids_first_then_titles_in_any_case(tree: EditorTree) -> None:
    assert [row[0] for row in symbols(tree, "b")] == ["b"]
    assert [row[0] for row in symbols(tree, "LPH")] == ["a"]  # in the title "Alpha"
    assert [row[0] for row in symbols(tree, "")] == ["a", "b"]


def test_closing_a_buffer_gives_the_file_on_disk_back(tree: EditorTree) -> None:
    tree.hold("web/tasks/a.md", "---\nid: a\ntitle: Alpha\ndepends_on: [nope]\n---\n")
    assert [p.kind for p in problems_of(tree, "web/tasks/a.md")] == ["dangling_depends_on"]
    assert "nope" not in tree.sorted_ids and tree.index.require("a").depends_on == ("nope",)
    tree.release("web/tasks/a.md")
    assert problems_of(tree, "web/tasks/a.md") == []
    assert tree.index.require("a").tags == ("ui", "db")


def test_completion_ids_follow_renames_in_a_buffer(tree: EditorTree) -> None:
    tree.hold("web/tasks/a.md", "---\nid: a2\ntitle: Alpha\n---\n")
    assert tree.ids_from("a", 10) == ["a2"] and tree.tags == {}
    tree.release("web/tasks/a.md")
    assert tree.ids_from("", 10) == ["a", "b"] and set(tree.tags) == {"ui", "db"}


def diagnostics(tree: EditorTree, relative: str, text: str) -> list[lsp.Diagnostic]:
    tree.hold(relative, text)
    ranges = Ranges(text, PositionCodec())
    return [diagnostic_of(p, relative, ranges) for p in problems_of(tree, relative)]


def test_a_yaml_error_is_shown_at_its_line_and_column(tree: EditorTree) -> None:
    (found,) = diagnostics(tree, "web/tasks/a.md", "---\nid: a\ntitle: [Alpha\n---\n")
    assert found.code == "unparseable_file" and "YAML parse error at line" in found.message
    assert (found.range.start.line, found.range.start.character) == (2, 7)  # the open `[`


def test_a_cycle_typed_into_a_buffer_is_named_at_its_key(tree: EditorTree) -> None:
    tree.hold("web/tasks/b.md", "---\nid: b\ntitle: Beta\ndepends_on: [a]\n---\n")
    text = "---\nid: a\ntitle: Alpha\nproject: web\ndepends_on: [b]\n---\n"
    (found,) = diagnostics(tree, "web/tasks/a.md", text)
    assert found.message == "dependency cycle: a -> b -> a"
    assert found.range.start.line == 4


def test_a_buffer_open_at_close_never_reaches_the_warm_start_cache(tmp_path: Path) -> None:
    write(tmp_path, "t.md", "---\nid: t\ntitle: On disk\n---\n")
    first = EditorTree(tmp_path, watch=False)
    first.hold("t.md", "---\nid: t\ntitle: Unsaved\n---\n")
    assert first.index.require("t").title == "Unsaved"
    first.close()
    again = EditorTree(tmp_path, watch=False)
    assert again.cache_hits == 1 and again.index.require("t").title == "On disk"
    again.close()


def test_hover_says_why_a_task_that_is_not_blocked_is_not_ready(tree: EditorTree) -> None:
    shown = hover_text(tree, "---\nparent: a\n---\n", 1, 9, NOW) or ""
    assert "not ready: status `inbox` is not a ready status" in shown
