"""A broken bot config, seen from the command line: one line naming the file and the field,
exit status 2, no traceback, for every command that loads the bots (the servers as real
processes, the others through `main(argv)` in the test process)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tasks_server.cli import main
from tests.tasks_server.bots.helpers import edit_json

COMMANDS = {
    "serve": ["serve"],
    "serve one bot": ["serve", "--bot", "story_bot"],
    "check": ["check"],
    "call": ["call", "get_index_stats"],
    "bots": ["bots"],
    "tools": ["tools"],
}


def run(*args: str) -> subprocess.CompletedProcess[str]:
    """`python -m tasks_server ...` as a real process (stdin closed, so `serve` would stop)."""
    return subprocess.run(
        [sys.executable, "-m", "tasks_server", *args],
        capture_output=True, text=True, timeout=120, check=False, stdin=subprocess.DEVNULL,
    )  # fmt: skip


SERVERS = {"serve", "serve one bot"}
"""Run as real processes (a server that failed to refuse would serve the test's stdin)."""


def status_of(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """`main(argv)`, the console script's own entry, in this process: (status, out, err)."""
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_broken_bot_config_is_one_line_naming_file_and_field_and_exit_2(
    example_root: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    config = example_root / "bots/story_bot/behaviors/1_shape/2_gather_context/action_config.json"
    edit_json(config, next_action="make_coffee")
    argv = [*COMMANDS[command], "--root", str(example_root)]
    if command in SERVERS:
        done = run(*argv)
        status, out, err = done.returncode, done.stdout, done.stderr
    else:
        status, out, err = status_of(argv, capsys)
    assert status == 2
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1
    assert str(config) in lines[0] and "next_action" in lines[0] and "make_coffee" in lines[0]
    assert out == ""


def test_a_seed_layout_trigger_words_file_does_not_stop_start_up(example_root: Path) -> None:
    done = run("bots", "--root", str(example_root), "--json")
    assert done.returncode == 0, done.stderr
    assert '"triage_bot_intake_gather_evidence"' in done.stdout


def test_serving_a_bot_on_a_tree_without_bots_is_one_line_and_exit_2(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("---\nid: a\ntitle: A\n---\n", encoding="utf-8")
    done = run("serve", "--bot", "nosuch", "--root", str(tmp_path))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == ["no bot named 'nosuch'; loaded: none"]
