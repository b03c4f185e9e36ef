"""Every usage error of the installed command is one line on stderr and exit status 2.

Each bad input is one the README's commands accept the shape of (a flag given a value, an
argument of the wrong kind), run through the console script as a user would type it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import tasks_server

SCRIPT = Path(sys.executable).with_name("tasks-server")

BAD_INPUTS = {
    "call --args an array": ["call", "get_task", "--args", "[1]"],
    "call --args a string": ["call", "get_task", "--args", '"x"'],
    "call --args null": ["call", "get_task", "--args", "null"],
    "call --args a number": ["call", "get_task", "--args", "1.5"],
    "call --args not JSON": ["call", "get_task", "--args", "{oops"],
    "call --args nested past the parser": ["call", "get_task", "--args", "[" * 100_000],
    "call without a tool": ["call"],
    "serve --port too large": ["serve", "--transport", "http", "--port", "99999"],
    "serve --port negative": ["serve", "--transport", "http", "--port", "-1"],
    "serve --port a word": ["serve", "--transport", "http", "--port", "http"],
    "serve --transport unknown": ["serve", "--transport", "sse"],
    "serve --role unknown": ["serve", "--role", "admin"],
    "ready --now not a date": ["ready", "--now", "yesterday"],
    "ready with an unknown option": ["ready", "--bogus"],
    "tree --max-depth negative": ["tree", "--max-depth", "-1"],
    "tree --max-depth a word": ["tree", "--max-depth", "deep"],
    "show without an id": ["show"],
    "new without a title": ["new"],
    "export --format unknown": ["export", "--format", "gif"],
    "import of an unknown kind": ["import", "jira", "x.json", "--root", "out"],
    "import without --root": ["import", "beads", "x.jsonl"],
    "an empty --root": ["ready", "--root", ""],
    "an unknown command": ["frobnicate"],
    "no command": [],
}


def run(args: list[str], root: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TASKS_ROOT": str(root)}
    return subprocess.run(
        [str(SCRIPT), *args], capture_output=True, text=True, timeout=120, check=False, env=env
    )


def assert_one_line_usage_error(done: subprocess.CompletedProcess[str]) -> None:
    lines = done.stderr.splitlines()
    assert (done.returncode, done.stdout, len(lines)) == (2, "", 1), done.stderr
    assert lines[0].startswith("tasks-server") and "Traceback" not in done.stderr


@pytest.mark.parametrize("case", BAD_INPUTS)
def test_a_bad_input_is_one_line_on_stderr_and_exit_2(case: str, example_root: Path) -> None:
    assert_one_line_usage_error(run(BAD_INPUTS[case], example_root))


def test_an_export_into_a_folder_that_does_not_exist_is_one_line_and_exit_2(
    example_root: Path, tmp_path: Path
) -> None:
    done = run(["export", "-o", str(tmp_path / "missing" / "graph.md")], example_root)
    assert_one_line_usage_error(done)
    assert "cannot write" in done.stderr


def test_a_usage_error_names_the_help_to_read() -> None:
    done = run(["serve", "--port", "99999"], Path("unused"))
    assert done.stderr == (
        "tasks-server serve: argument --port: not a port number (0 to 65535): '99999' "
        "(see tasks-server serve --help)\n"
    )


def test_call_says_its_arguments_must_be_an_object_and_which_kind_it_got(
    example_root: Path,
) -> None:
    done = run(["call", "get_task", "--args", "[1]"], example_root)
    assert done.stderr == (
        "tasks-server call: --args must be a JSON object of arguments, not an array\n"
    )


def test_version_prints_the_installed_version() -> None:
    done = run(["--version"], Path("unused"))
    assert (done.returncode, done.stdout) == (0, f"tasks-server {tasks_server.version()}\n")
