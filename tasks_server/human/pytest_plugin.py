"""A pytest plugin (entry point `pytest11`): keep a real task tree as a snapshot fixture.

Installed with tasks-server, it gives every test suite two session fixtures:

- `task_tree_facts`: the facts of the tree named by the ini option `tasks_root` (relative to
  the rootdir) or `$TASKS_ROOT`, at the clock fixed by `tasks_now` or `$TASKS_NOW`; loaded
  once per session. The same tree and clock give the same facts, so a suite can compare them
  with a snapshot library::

      def test_our_backlog_did_not_change_shape(task_tree_facts, snapshot):
          assert task_tree_facts == snapshot

- `load_task_tree_facts(root, now)`: the same for any tree and clock, each loaded once.

The facts are `tasks-server snapshot`'s: metrics, readiness with reasons, topology, scoring
factors, structural signals and the review's changes, staleness and velocity.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from storage.timestamps import parse_timestamp
from tasks_server.human import snapshot

__all__ = ["load_task_tree_facts", "pytest_addoption", "task_tree_facts"]

Facts = dict[str, Any]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini("tasks_root", "task tree for the task_tree_facts fixture (rootdir-relative)")
    parser.addini("tasks_now", "fixed clock (ISO) for the task_tree_facts fixture")


def _instant(text: str | datetime) -> datetime:
    parsed = parse_timestamp(text)
    if parsed is None:
        raise pytest.UsageError(f"not an ISO date or datetime: {text!r}")
    return parsed


@pytest.fixture(scope="session")
def load_task_tree_facts() -> Callable[[Path | str, str | datetime], Facts]:
    """`load(root, now)`: a tree's facts at a fixed clock, each (root, now) loaded once."""
    loaded: dict[tuple[Path, datetime], Facts] = {}

    def load(root: Path | str, now: str | datetime) -> Facts:
        key = (Path(root).resolve(), _instant(now))
        if key not in loaded:
            loaded[key] = snapshot.load(*key)
        return loaded[key]

    return load


def _setting(config: pytest.Config, ini: str, env: str) -> str:
    value = str(config.getini(ini) or os.environ.get(env, ""))
    if not value:
        raise pytest.UsageError(f"task_tree_facts needs the ini option {ini} or ${env}")
    return value


@pytest.fixture(scope="session")
def task_tree_facts(
    request: pytest.FixtureRequest, load_task_tree_facts: Callable[[Path, str], Facts]
) -> Facts:
    """The facts of the configured tree (`tasks_root`, `tasks_now`), loaded once."""
    config = request.config
    root = Path(_setting(config, "tasks_root", "TASKS_ROOT"))
    now = _setting(config, "tasks_now", "TASKS_NOW")
    return load_task_tree_facts(config.rootpath / root, now)
