"""Shared fixtures: real task trees on disk under tmp_path."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "data"
ODD = DATA / "odd"
DATASETS = REPO.parent / "shared" / "datasets"


@pytest.fixture
def example_root(tmp_path: Path) -> Path:
    """A writable copy of the bundled example tree (odd files excluded by its .tasksignore)."""
    root = tmp_path / "tree"
    shutil.copytree(DATA, root)
    return root


@pytest.fixture
def odd_root(tmp_path: Path) -> Path:
    """A writable copy of the deliberately odd files, as a tree of their own."""
    root = tmp_path / "odd"
    shutil.copytree(ODD, root)
    return root


def write(root: Path, relative: str, text: str | bytes) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_bytes(text.encode())
    return path


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
