"""Shared fixtures: real task trees on disk under tmp_path."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import settings

# CI replays the same examples every run (a red CI always means a change broke something);
# elsewhere each run explores new ones.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI") == "true":
    settings.load_profile("ci")

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "data"
ODD = DATA / "odd"
DATASETS = REPO.parent / "shared" / "datasets"
datasets = pytest.mark.datasets


def need_datasets() -> Path:
    """The real datasets beside the clone: skip without them, but fail under CI=true.

    They are other projects' task trees (`../shared/datasets`), never copied into this
    repository, so a bare clone runs everything else; CI always has them.
    """
    if DATASETS.is_dir():
        return DATASETS
    reason = f"real datasets not found at {DATASETS} (a bare clone has no ../shared)"
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason}; CI must run the dataset tests", pytrace=False)
    pytest.skip(reason)


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("datasets") is not None:
        need_datasets()


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
