"""Blob ids of files on disk, computed without git, are the ids git gives them."""

from __future__ import annotations

import os
from pathlib import Path

from storage.diskblobs import DiskBlobs, blob_id, index_hints
from storage.history import GitTree
from tests.gitrepo import git, init


def test_each_file_gets_the_id_git_would_give_it_and_an_edit_gets_a_new_one(
    tmp_path: Path,
) -> None:
    root = init(tmp_path / "repo")
    (root / "a.md").write_bytes(b"---\ntitle: A\n---\n")
    (root / "b.md").write_bytes(b"")
    (root / "link.md").symlink_to(root / "a.md")
    blobs = DiskBlobs(root, "sha1")
    first = blobs.ids(["a.md", "b.md", "link.md", "gone.md"])
    assert first["a.md"] == git(root, "hash-object", "a.md")
    assert first["b.md"] == blob_id(b"") == git(root, "hash-object", "b.md")
    assert first["link.md"] is None and first["gone.md"] is None
    (root / "a.md").write_bytes(b"---\ntitle: A again\n---\n")
    assert blobs.ids(["a.md"])["a.md"] == git(root, "hash-object", "a.md")


def test_a_sha256_repository_gets_sha256_ids(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "--object-format=sha256")
    (root / "a.md").write_bytes(b"x\n")
    assert DiskBlobs(root, "sha256").ids(["a.md"])["a.md"] == git(root, "hash-object", "a.md")


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
    assert set(hints) == {"a.md"} and hints["a.md"][1] == git(root, "hash-object", "a.md")
    assert index_hints(listing, 0) == {}  # every entry modified after the index: racy
    lied = {"a.md": (hints["a.md"][0], "0" * 40)}
    assert DiskBlobs(root, "sha1").ids(["a.md"], lied)["a.md"] == "0" * 40  # read as data
    os.utime(root / "a.md", ns=(1, 1))
    assert DiskBlobs(root, "sha1").ids(["a.md"], lied)["a.md"] == hints["a.md"][1]
