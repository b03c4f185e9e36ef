"""Blob ids of files on disk, computed without git, are the ids git gives them."""

from __future__ import annotations

from pathlib import Path

from storage.diskblobs import DiskBlobs, blob_id
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
