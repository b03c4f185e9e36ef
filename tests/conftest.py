"""Shared fixtures: real task trees on disk under tmp_path."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

# Two budgets. The quick run (the README's `python -m pytest -q`, before every commit) tries
# every property with a tenth of its examples; the deep run (`-m deep`, in CI) tries them at
# full size, beside the tests marked `deep`. CI replays the same examples every run (a red CI
# always means a change broke something); elsewhere each run explores new ones.
# pytest-xdist workers start with COLUMNS=80 and LINES=24 in their environment, which a plain
# run does not have: the commands the tests start would draw 80-column tables under -n only.
if os.environ.get("PYTEST_XDIST_WORKER"):
    for _name in ("COLUMNS", "LINES"):
        os.environ.pop(_name, None)

FULL_EXAMPLES = 100
QUICK_EXAMPLES = 10
_CI = os.environ.get("CI") == "true"
for _name, _count in (("quick", QUICK_EXAMPLES), ("deep", FULL_EXAMPLES)):
    settings.register_profile(_name, max_examples=_count, derandomize=_CI, print_blob=_CI)
settings.load_profile("quick")
_SELECTS_DEEP = re.compile(r"(?<!not )\bdeep\b")


def is_deep_run(config: pytest.Config) -> bool:
    """True when the mark expression selects the deep tests (`-m deep`, `-m "deep or x"`)."""
    return bool(_SELECTS_DEEP.search(config.getoption("markexpr") or ""))


def pytest_configure(config: pytest.Config) -> None:
    settings.load_profile("deep" if is_deep_run(config) else "quick")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In the deep run every property test runs too, at full size: it is marked `deep`
    before `-m` selects (the quick run already tried it with fewer examples)."""
    if is_deep_run(config):
        for item in items:
            if getattr(getattr(item, "obj", None), "is_hypothesis_test", False):
                item.add_marker(pytest.mark.deep)


def examples(full: int) -> int:
    """A property's example count: `full` in the deep run, a tenth (at least one) in the
    quick run. Read when the test module is imported, after the profile is chosen."""
    return max(1, full * settings().max_examples // FULL_EXAMPLES)


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


def in_fresh_interpreter(code: str, *args: str) -> Any:
    """Run `code` in a new interpreter from the repository (argv: `args`) and read the JSON
    it printed as its last line of stderr: what a process that imported nothing yet does."""
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
        timeout=120,
    )
    return json.loads(done.stderr.strip().splitlines()[-1])


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


@pytest.fixture
def early_tree(tmp_path: Path) -> Iterator[Path]:
    """A generated tree with a bad file, one the cache cannot hold and a link, for a read
    begun early (`storage.early_read`); afterwards nothing begun is left, no child either."""
    from bench.generate import generate_tree  # noqa: PLC0415
    from bench.procs import children  # noqa: PLC0415
    from storage import early_read  # noqa: PLC0415
    from storage.repository import MAX_FILE_BYTES  # noqa: PLC0415

    root = tmp_path / "tree"
    generate_tree(root, 60, seed=21)
    write(root, "odd/bad-yaml.md", "---\nid: [unclosed\n---\n")
    write(root, "odd/int-key.md", "---\nid: ik\ntitle: T\nstatus: todo\nx: {1: a}\n---\n")
    os.symlink(root / "odd" / "bad-yaml.md", root / "odd" / "link.md")
    before = children()
    yield root.resolve()
    early_read.take(root.resolve(), MAX_FILE_BYTES)  # whatever a test left begun
    assert children() == before  # every child reaped
