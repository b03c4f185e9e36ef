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
factors, structural signals and the review's changes, staleness and velocity, every per-task
section keyed by id. When they differ from a stored syrupy snapshot, the failure first says
which tasks changed and how (`ready.wx-1.priority: 2 → 3`), then shows syrupy's own diff.
Create the snapshot the first time with `pytest --snapshot-update`.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Callable, Generator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from storage.timestamps import parse_timestamp
from tasks_server.human import snapshot

__all__ = [
    "load_task_tree_facts",
    "pytest_addoption",
    "pytest_assertrepr_compare",
    "semantic_delta",
    "task_tree_facts",
]
_FACT_KEYS = frozenset({"now", "metrics", "ready", "blocked", "topology", "review"})
MOST_LINES = 60

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


class _Unwrap(ast.NodeTransformer):
    """`dict({...})` and `list([...])`, as syrupy writes them, become plain literals."""

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        named = isinstance(node.func, ast.Name) and node.func.id in ("dict", "list", "tuple")
        return node.args[0] if named and len(node.args) == 1 else node


def _stored(right: Any) -> Any:
    """The value a failed syrupy assertion compared against, read back from its stored text
    (literals only, never evaluated as code); None when there is none or it cannot be read."""
    results = getattr(right, "_execution_results", None)
    if not results:
        return None
    text = results[max(results)].recalled_data
    if not isinstance(text, str):
        return None
    try:
        tree = _Unwrap().visit(ast.parse(text.strip(), mode="eval"))
        return ast.literal_eval(tree.body)
    except (SyntaxError, ValueError, TypeError):
        return None


def semantic_delta(left: object, right: object) -> list[str]:
    """For `facts == snapshot`: which tasks changed and how (per-task sections first, so
    pytest's short explanation shows them), or nothing when it is not that comparison."""
    if not (isinstance(left, dict) and left.keys() >= _FACT_KEYS):
        return []
    stored = _stored(right)
    if not isinstance(stored, dict):
        return []
    found = snapshot.describe_changes(stored, left)
    lines = sorted(found, key=lambda line: line.startswith(("now", "metrics", "signals")))
    if len(lines) > MOST_LINES:
        lines = [*lines[:MOST_LINES], f"... and {len(lines) - MOST_LINES} more"]
    head = "task tree facts differ from the stored snapshot (stored → now):"
    return [head, *(f"  {line}" for line in lines), ""]


@pytest.hookimpl(wrapper=True)
def pytest_assertrepr_compare(
    op: str, left: object, right: object
) -> Generator[None, list[list[str]], list[list[str]]]:
    """Put the semantic delta before syrupy's own text diff of the same failure."""
    explained = yield
    mine = semantic_delta(left, right) if op == "==" else []
    if not mine:
        return explained
    return [mine + (explained[0] if explained else []), *explained[1:]]
