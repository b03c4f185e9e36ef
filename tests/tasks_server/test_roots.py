"""The root rule: `--root`, else `$TASKS_ROOT`, else the bundled example; a bad root is one
line on stderr and exit 2, for every command that takes a root."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tasks_server import roots
from tasks_server.cli import main
from tests.conftest import DATA, REPO

NOBODY = 65534

# Every command that serves a root, with the arguments it needs besides the root.
COMMANDS = [
    ["serve"],
    ["call", "get_graph_metrics"],
    ["check"],
    ["ready"],
    ["blocked"],
    ["metrics"],
    ["tools"],
    ["show", "pipe-a84567f9"],
    ["tree"],
    ["bots"],
    ["export"],
]


def run(args: list[str], *, env: dict[str, str] | None = None, cwd: Path | None = None):
    """`python -m tasks_server ARGS` as a real process, this checkout first on the path."""
    environment = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "tasks_server", *args],
        capture_output=True,
        text=True,
        env=environment,
        cwd=cwd,
        timeout=120,
        check=False,
    )


def assert_one_line_naming(stderr: str, path: Path) -> None:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert str(path) in lines[0] and "Traceback" not in stderr


def test_the_flag_wins_over_the_environment(tmp_path: Path) -> None:
    assert roots.resolve(tmp_path, {"TASKS_ROOT": "/elsewhere"}) == tmp_path


def test_the_environment_names_the_root_when_there_is_no_flag(tmp_path: Path) -> None:
    assert roots.resolve(None, {"TASKS_ROOT": str(tmp_path)}) == tmp_path


def test_with_neither_the_root_is_the_bundled_example_not_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert roots.resolve(None, {}) == roots.bundled_root()
    assert roots.resolve(None, {"TASKS_ROOT": ""}) == roots.bundled_root()


def test_in_a_checkout_the_bundled_example_is_the_repositorys_data_folder() -> None:
    assert roots.bundled_root() == DATA


def test_an_empty_root_flag_is_a_usage_error_not_the_working_directory(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["call", "get_graph_metrics", "--root", ""])
    assert exit_.value.code == 2
    assert "must not be empty" in capsys.readouterr().err


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_every_command_given_a_missing_root_exits_2_with_one_line_naming_it(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nowhere"
    assert main([*command, "--root", str(missing)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert_one_line_naming(captured.err, missing)
    assert "does not exist" in captured.err and "--root" in captured.err


def test_a_missing_root_from_the_environment_names_the_variable(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    done = run(["call", "get_graph_metrics"], env={"TASKS_ROOT": str(missing)}, cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert_one_line_naming(done.stderr, missing)
    assert "TASKS_ROOT" in done.stderr


def test_a_file_as_the_root_is_not_a_folder(tmp_path: Path) -> None:
    afile = tmp_path / "task.md"
    afile.write_text("---\nid: a\n---\n")
    done = run(["check", "--root", str(afile)])
    assert done.returncode == 2
    assert_one_line_naming(done.stderr, afile)
    assert "not a folder" in done.stderr


def test_an_unreadable_root_says_it_cannot_be_read(tmp_path: Path) -> None:
    """As root, permissions bind only after dropping to `nobody` (imports done first)."""
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0)
    drop = f"os.setgid({NOBODY}); os.setuid({NOBODY}); " if os.geteuid() == 0 else ""
    script = (
        "import os, sys; from tasks_server.cli import build_parser, main; "
        "import tasks_server.toolset; build_parser(); "
        f"{drop}sys.exit(main(['metrics', '--root', {str(locked)!r}]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=120,
        check=False,
    )
    locked.chmod(0o700)
    assert done.returncode == 2, done.stderr
    assert_one_line_naming(done.stderr, locked)
    assert "cannot be read (Permission denied)" in done.stderr


def test_import_creates_a_missing_root_but_refuses_a_file(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("")
    source = tmp_path / "issues.jsonl"
    source.write_text('{"id": "x-1", "title": "One", "status": "open"}\n')
    refused = run(["import", "beads", str(source), "--root", str(afile)])
    created = run(["import", "beads", str(source), "--root", str(tmp_path / "new")])
    assert refused.returncode == 2
    assert_one_line_naming(refused.stderr, afile)
    assert created.returncode == 0, created.stderr
    assert list((tmp_path / "new").rglob("*.md"))
