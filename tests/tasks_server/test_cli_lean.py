"""Each command imports only what it uses: what a fresh interpreter holds after `--help`,
after `ready` and after `check` (module sets, not times: the figures are in
docs/performance.md, from `python -m bench.cli_bench`)."""

from __future__ import annotations

import shutil

import pytest

from tasks_server.human.commands import COMMANDS
from tasks_server.registry import declared_in
from tests.conftest import DATA, in_fresh_interpreter

PROBE = """
import json, sys
from tasks_server import cli
root, seen = sys.argv[1], {}
try:
    cli.main(["--help"])
except SystemExit:
    pass
seen["--help"] = sorted(sys.modules)
cli.main(["ready", "--root", root])
seen["ready"] = sorted(sys.modules)
cli.main(["check", "--root", root])
seen["check"] = sorted(sys.modules)
print(json.dumps(seen), file=sys.stderr)
"""

NEVER = ("mcp", "pygls", "lsprotocol", "networkx", "storage.importers")
"""Loaded by no human command here: the SDK and the editor's, networkx (the index keeps its
own dicts), the importers (`import` alone)."""

NOT_FOR_READY = (
    "tasks_server.bots.catalog",  # the bots (their errors module is a leaf every call may use)
    "tasks_server.bots.runtime",
    "tasks_server.findings",
    "tasks_server.sync",
    "storage.gitsync",
    "tasks_server.tools.mutation",
    "tasks_server.tools.agents",
    "tasks_server.tools.analysis",
    "tasks_server.tools.changes",
)
NOT_FOR_HELP = ("pydantic", "rich", "graph", "tasks_server.toolset", "storage.repository")


def _under(loaded: list[str], packages: tuple[str, ...]) -> list[str]:
    return sorted(m for m in loaded if any(m == p or m.startswith(p + ".") for p in packages))


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    root = tmp_path_factory.mktemp("lean") / "tree"
    shutil.copytree(DATA, root)
    found: dict[str, list[str]] = in_fresh_interpreter(PROBE, str(root))
    return found


def test_help_loads_no_model_no_drawing_and_no_tree_code(loaded: dict[str, list[str]]) -> None:
    assert _under(loaded["--help"], NEVER + NOT_FOR_HELP) == []


def test_ready_loads_only_its_own_tools_and_no_bots_sdk_importers_or_findings(
    loaded: dict[str, list[str]],
) -> None:
    assert _under(loaded["ready"], NEVER + NOT_FOR_READY) == []
    assert "tasks_server.tools.query" in loaded["ready"]  # the one tool module it calls


def test_check_loads_the_findings_and_the_bots_but_never_the_sdk_or_importers(
    loaded: dict[str, list[str]],
) -> None:
    assert _under(loaded["check"], NEVER) == []
    assert {"tasks_server.findings", "tasks_server.bots.catalog"} <= set(loaded["check"])


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_names_its_runner_and_tool_modules_that_exist(name: str) -> None:
    command = COMMANDS[name]
    assert callable(command.load())
    for module in command.tools or ():
        assert declared_in([module]), f"{name}: tasks_server.tools.{module} declares no tool"
