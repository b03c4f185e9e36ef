"""Blob ids of files on disk, computed without git, are the ids git gives them."""

from __future__ import annotations

import os
from pathlib import Path

from storage.diskblobs import DiskBlobs, IndexHints, blob_id, index_hints
from storage.history import GitTree
from storage.reading import read_task_file
from storage.table import FileResult
from tests.gitrepo import git, init


def read(root: Path, *names: str) -> list[FileResult]:
    found = [read_task_file(name, str(root / name), 1 << 20) for name in names]
    return [result for result in found if result is not None]


def test_each_file_gets_the_id_git_would_give_it_and_an_edit_gets_a_new_one(
    tmp_path: Path,
) -> None:
    root = init(tmp_path / "repo")
    (root / "a.md").write_bytes(b"---\ntitle: A\n---\n")
    (root / "b.md").write_bytes(b"")
    blobs = DiskBlobs(root, "sha1")
    first = blobs.ids(read(root, "a.md", "b.md"))
    assert first["a.md"] == git(root, "hash-object", "a.md")
    assert first["b.md"] == blob_id(b"") == git(root, "hash-object", "b.md")
    (root / "a.md").write_bytes(b"---\ntitle: A again\n---\n")
    assert blobs.ids(read(root, "a.md"))["a.md"] == git(root, "hash-object", "a.md")


def test_a_file_changed_or_gone_since_the_table_read_it_has_no_id(tmp_path: Path) -> None:
    root = init(tmp_path / "repo")
    (root / "a.md").write_bytes(b"one\n")
    (root / "b.md").write_bytes(b"two\n")
    results = read(root, "a.md", "b.md")
    (root / "a.md").write_bytes(b"one, longer\n")
    (root / "b.md").unlink()
    assert DiskBlobs(root, "sha1").ids(results) == {"a.md": None, "b.md": None}


def test_a_sha256_repository_gets_sha256_ids(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "--object-format=sha256")
    (root / "a.md").write_bytes(b"x\n")
    found = DiskBlobs(root, "sha256").ids(read(root, "a.md"))
    assert found["a.md"] == git(root, "hash-object", "a.md")


def test_an_index_entry_whose_stat_still_matches_vouches_for_the_file_unless_racy(
    tmp_path: Path,
) -> None:
    root = init(tmp_path / "repo")
    (root / "a.md").write_bytes(b"---\ntitle: A\n---\n")
    (root / "ita.md").write_bytes(b"new\n")
    git(root, "add", "a.md")
    git(root, "add", "-N", "ita.md")
    listing, written = GitTree.open(root).index_listing()
    hints = index_hints(listing, written)
    real = git(root, "hash-object", "a.md")
    assert set(hints.entries) == {"a.md"} and hints.entries["a.md"][1] == real
    lied = IndexHints({"a.md": (hints.entries["a.md"][0], "0" * 40)}, written)
    assert DiskBlobs(root, "sha1").ids(read(root, "a.md"), lied)["a.md"] == "0" * 40
    racy = IndexHints(lied.entries, 0)  # modified no earlier than the index was written
    assert DiskBlobs(root, "sha1").ids(read(root, "a.md"), racy)["a.md"] == real
    os.utime(root / "a.md", ns=(1, 1))
    assert DiskBlobs(root, "sha1").ids(read(root, "a.md"), lied)["a.md"] == real
