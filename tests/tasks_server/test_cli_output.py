"""What each human command prints, on the bundled tree and on an imported beads dataset:
snapshots of the text a person reads, and the `--json` result a script reads."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion

from tasks_server.cli import main
from tasks_server.registry import discover
from tests.conftest import DATA, DATASETS, datasets

SCRIPT = Path(sys.executable).with_name("tasks-server")
COLOUR = re.compile(r"\x1b\[(?:[0-9;]*;)?(?:3[0-9]|9[0-7])m")  # a foreground colour
SKYHOOK = DATASETS / "beads" / "NVIDIA__skyhook.jsonl"


def run(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """The command in a pipe (not a terminal), 100 columns wide, no colour asked for."""
    environ = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "TASKS_NOW")}
    environ.update({"COLUMNS": "100", **env})
    return subprocess.run(
        [str(SCRIPT), *args], capture_output=True, text=True, timeout=120, check=False, env=environ
    )


@pytest.fixture(scope="module")
def bundled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("bundled") / "tree"
    shutil.copytree(DATA, root)
    return root


@pytest.fixture(scope="module")
def skyhook(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not SKYHOOK.is_file():
        pytest.skip("datasets not found")  # the datasets marker fails it under CI instead
    root = tmp_path_factory.mktemp("skyhook") / "tree"
    done = run("import", "beads", str(SKYHOOK), "--root", str(root))
    assert done.returncode == 0, done.stderr
    return root


BUNDLED_COMMANDS = {
    "ready": ["ready"],
    "blocked": ["blocked"],
    "metrics": ["metrics"],
    "check": ["check"],
    "show": ["show", "pipe-a84567f9"],
    "tree": ["tree", "--project", "wx"],
    "tools": ["tools", "--role", "planner"],
    "bots": ["bots"],
    "export": ["export", "--format", "mermaid", "--project", "wx"],
}
SKYHOOK_COMMANDS = {
    "ready": ["ready"],
    "blocked": ["blocked"],
    "metrics": ["metrics"],
    "check": ["check"],
    "show": ["show", "skyhook-gld.3"],
    "tree": ["tree"],
    "export": ["export", "--format", "mermaid"],
}


def readable(text: str) -> str:
    """The output with the one line that depends on when the tree was copied made fixed."""
    return re.sub(r"(file modified\s+).*", r"\1<copy time>", text)


def assert_for_people(text: str) -> None:
    """No Python reprs, no trailing blanks, no long unrounded floats."""
    assert "None" not in text and "{'" not in text and "['" not in text
    assert all(line == line.rstrip() for line in text.splitlines())
    assert not re.search(r"\d\.\d{4,}", text)


@pytest.mark.parametrize("name", BUNDLED_COMMANDS)
def test_each_human_command_prints_a_readable_view_of_the_bundled_tree(
    name: str, bundled: Path, snapshot: SnapshotAssertion
) -> None:
    done = run(*BUNDLED_COMMANDS[name], "--root", str(bundled))
    assert done.returncode == 0, done.stderr
    assert_for_people(done.stdout)
    assert readable(done.stdout) == snapshot


@datasets
@pytest.mark.parametrize("name", SKYHOOK_COMMANDS)
def test_each_human_command_prints_a_readable_view_of_an_imported_beads_tree(
    name: str, skyhook: Path, snapshot: SnapshotAssertion
) -> None:
    done = run(*SKYHOOK_COMMANDS[name], "--root", str(skyhook))
    assert done.returncode == 0, done.stderr
    assert_for_people(done.stdout)
    assert readable(done.stdout) == snapshot


@datasets
def test_import_prints_what_it_wrote_and_dropped_as_a_report(
    tmp_path: Path, snapshot: SnapshotAssertion
) -> None:
    # Wide enough that where the datasets sit (the path's length) cannot change the wrapping.
    done = run("import", "beads", str(SKYHOOK), "--root", str(tmp_path / "t"), COLUMNS="400")
    assert done.returncode == 0, done.stderr
    assert_for_people(done.stdout)
    assert done.stdout.replace(str(DATASETS), "<datasets>") == snapshot


def as_json(*args: str) -> Any:
    done = run(*args, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_json_of_each_human_command_is_the_tools_structured_result(
    bundled: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Through `main(argv)`, the console script's entry, in this process: what is under test
    is each command's `--json` answer (the import's, below, goes through a real process)."""

    def as_json_here(*args: str) -> Any:
        assert main([*args, "--root", str(bundled), "--json"]) == 0
        return json.loads(capsys.readouterr().out)

    ready = as_json_here("ready")
    assert ready["success"] and ready["total"] == len(ready["tasks"]) == 5
    blocked = as_json_here("blocked")
    assert {row["task"]["id"] for row in blocked["tasks"]} >= {"wx-ec7ac8ad", "vol-588efbce"}
    assert as_json_here("metrics")["total_tasks"] == 50
    assert as_json_here("check")["totals"]["dependency_cycles"] == 0
    assert as_json_here("show", "wx-ec7ac8ad")["task"]["is_blocked"] is True
    assert as_json_here("tree", "--project", "wx")["node_count"] == 14
    planner = as_json_here("tools", "--role", "planner")
    queries = [spec.name for spec in discover() if spec.tier == "query"]
    assert [spec["name"] for spec in planner] == sorted(queries)
    assert len(as_json_here("bots")) == 60  # story_bot 35, triage_bot 25
    exported = as_json_here("export", "--project", "wx")
    assert len(exported["nodes"]) == 14


@datasets
def test_import_json_is_the_import_report(tmp_path: Path) -> None:
    report = as_json("import", "beads", str(SKYHOOK), "--root", str(tmp_path / "t"))
    assert (report["read"], report["imported"], report["counts_add_up"]) == (7, 7, True)


def test_tools_shows_every_description_whole(bundled: Path) -> None:
    done = run("tools", "--role", "planner", "--root", str(bundled))
    flat = " ".join(done.stdout.split())
    assert "Changes since a token or a git state: added, removed, changed, readiness," in flat
    assert "readiness, problems. get_children" in flat  # wrapped, never cut


@pytest.mark.parametrize(
    "args",
    [
        ["tree", "--project", "nosuch"],
        ["ready", "--project", "nosuch"],
        ["metrics", "--project", "nosuch"],
        ["show", "nosuch-1"],
        ["tree", "--id", "nosuch-1"],
        ["export", "--project", "nosuch"],
        ["export", "--id", "nosuch-1"],
    ],
)
def test_an_unknown_project_or_id_is_one_line_and_exit_1(args: list[str], bundled: Path) -> None:
    done = run(*args, "--root", str(bundled))
    assert done.returncode == 1
    assert done.stdout == "" and len(done.stderr.strip().splitlines()) == 1
    assert "nosuch" in done.stderr


def test_colour_only_on_a_terminal_and_never_with_no_color(bundled: Path) -> None:
    piped = run("ready", "--root", str(bundled))
    assert "\x1b[" not in piped.stdout
    forced = run("ready", "--root", str(bundled), FORCE_COLOR="1")
    assert COLOUR.search(forced.stdout)
    refused = run("ready", "--root", str(bundled), FORCE_COLOR="1", NO_COLOR="1")
    assert "\x1b[1m" in refused.stdout and not COLOUR.search(refused.stdout)


def test_help_and_ready_load_neither_the_mcp_sdk_nor_rich_before_they_print(
    bundled: Path,
) -> None:
    probe = (
        "import sys, runpy\n"
        "sys.argv = ['tasks-server', *sys.argv[1:]]\n"
        "try:\n"
        "    runpy.run_module('tasks_server', run_name='__main__')\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(sorted(m for m in ('mcp', 'rich') if m in sys.modules), file=sys.stderr)\n"
    )
    helped = subprocess.run(
        [sys.executable, "-c", probe, "--help"], capture_output=True, text=True, check=False
    )
    assert helped.stderr.strip().endswith("[]"), helped.stderr
    ready = subprocess.run(
        [sys.executable, "-c", probe, "ready", "--root", str(bundled)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert ready.stderr.strip().endswith("['rich']"), ready.stderr
