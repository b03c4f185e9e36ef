"""The editor's diagnostics and `tasks-server check` can never disagree: for every file of
the bundled tree, the odd files and an imported real tree, the diagnostics of the file (its
text open as a buffer) are check's findings touching that file."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from lsprotocol import types as lsp

from storage.importers.beads import import_beads
from storage.repository import TaskRepository
from tasks_server.editor.features import problems_of
from tasks_server.editor.tree import EditorTree
from tasks_server.findings import Problem, problems_in, tree_problems
from tests.conftest import DATA, DATASETS, ODD, datasets
from tests.editor.client import lsp_session

Finding = tuple[str, str, bool]


def shown(problems: list[Problem]) -> list[Finding]:
    return sorted((p.kind, p.message, p.is_error) for p in problems)


def task_files(tree: EditorTree) -> list[str]:
    return sorted(p for p in tree.table.files if tree.repository.is_task_path(p))


def assert_same_file_by_file(root: Path) -> int:
    """Compare every task file; return how many findings there were in all."""
    tree = EditorTree(root, watch=False)
    try:
        everything = tree_problems(tree.index, tree.table, root)  # what `check` prints
        for relative in task_files(tree):
            expected = problems_in(everything, {relative})
            text = (root / relative).read_bytes().decode("utf-8", errors="replace")
            # An edited buffer (one more newline at the end of the body: no finding changes)
            # stands for the file; a file that is not UTF-8 is held as the editor shows it.
            tree.hold(relative, text if "\ufffd" in text else text + "\n")
            found = problems_of(tree, relative)
            tree.release(relative)
            assert shown(found) == shown(expected), relative
            lines = {(p.kind, p.line) for p in expected if p.path == relative}
            assert lines <= {(p.kind, p.line) for p in found}, relative
        return len(everything)
    finally:
        tree.close()


def test_every_file_of_the_bundled_tree_has_checks_findings(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    shutil.copytree(DATA, root)
    assert_same_file_by_file(root)


def test_every_odd_file_has_checks_findings(odd_root: Path) -> None:
    assert assert_same_file_by_file(odd_root) >= 10  # the odd files are mostly problems


@datasets
def test_every_file_of_an_imported_real_tree_has_checks_findings(tmp_path: Path) -> None:
    root = tmp_path / "imported"
    import_beads(DATASETS / "beads" / "NingYuM__mbtpdf.jsonl", TaskRepository(root))
    assert_same_file_by_file(root)


@pytest.mark.anyio
async def test_the_language_server_process_reports_checks_findings_for_every_odd_file(
    odd_root: Path,
) -> None:
    tree = EditorTree(odd_root, watch=False)
    everything = tree_problems(tree.index, tree.table, odd_root)
    files = task_files(tree)
    tree.close()
    async with lsp_session(odd_root) as session:
        for relative in files:
            uri = await session.open(odd_root / relative)
            found = await session.diagnostics(uri)
            error = lsp.DiagnosticSeverity.Error
            got = sorted((str(d.code), d.message, d.severity == error) for d in found)
            assert got == shown(problems_in(everything, {relative})), relative


def test_the_odd_tree_has_the_kinds_the_editor_must_show() -> None:
    kinds = {p.stem for p in ODD.glob("*.md")}
    assert {"bad-yaml", "dangling", "dup-a", "cycle-a", "self-dependency"} <= kinds
