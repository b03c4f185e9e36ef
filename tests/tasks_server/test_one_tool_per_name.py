"""One tool per name: the registry refuses a twin, and a bot whose generated tool would take
another tool's name stops start-up with one line naming both (exit 2), never replacing it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import BaseModel

from tasks_server.bots.errors import BotConfigError
from tasks_server.registry import DuplicateTool, ToolSpec, by_name, discover, tool
from tasks_server.toolset import open_toolset
from tests.tasks_server.bots.shapes import own_bot


def spec(name: str, origin: str) -> ToolSpec:
    return ToolSpec(name, "query", "", BaseModel, BaseModel, lambda c, a: a, origin=origin)


def test_the_registry_refuses_two_tools_of_one_name_naming_both() -> None:
    with pytest.raises(DuplicateTool) as raised:
        by_name([spec("get_x", "here"), spec("get_y", "here"), spec("get_x", "there")])
    message = str(raised.value)
    assert "'get_x'" in message and "here" in message and "there" in message
    assert "\n" not in message


def test_declaring_a_built_in_name_twice_is_refused() -> None:
    taken = discover()[0].name

    def twin(ctx: object, args: BaseModel) -> BaseModel:
        return args

    twin.__name__ = taken
    with pytest.raises(DuplicateTool, match=taken):
        tool("query")(twin)
    assert [s.name for s in discover()].count(taken) == 1


def write_get_bot(root: Path) -> Path:
    """A bot `get` whose behaviour `task` has an action `tree`: it would make get_task_tree."""
    return own_bot(root / "bots", "get", {"task": ["tree"]}) / "config" / "bot_config.json"


def test_a_generated_name_equal_to_a_built_in_is_refused_at_open(example_root: Path) -> None:
    config = write_get_bot(example_root)
    with pytest.raises(BotConfigError) as raised:
        open_toolset(example_root, watch=False)
    message = str(raised.value)
    assert str(config) in message and "get_task_tree" in message
    assert "tasks_server.tools.query" in message


def test_serve_with_a_bot_taking_a_built_in_name_is_one_line_and_exit_2(
    example_root: Path,
) -> None:
    config = write_get_bot(example_root)
    done = subprocess.run(
        [sys.executable, "-m", "tasks_server", "serve", "--root", str(example_root)],
        capture_output=True, text=True, timeout=120, check=False, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert str(config) in lines[0] and "get_task_tree" in lines[0]
    assert "tasks_server.tools.query" in lines[0]
