"""The README's commands run: the quick start's main job, the working day's commands, every
row of the command-line table in docs/cli.md (each alternative and option at least once) and
any export line of either page.

Placeholders are filled in: TOOL, JSON, ID, P, FILE, DIR, ISO, "Title". A `[a \\| b]` group
is tried absent and with each alternative; `a\\|b` tries each word. The tree is a fresh copy
of the bundled one, named by `$TASKS_ROOT` as a reader's shell would."""

from __future__ import annotations

import itertools
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tasks_server.cli import main
from tests.conftest import DATA, REPO, write
from tests.gitrepo import commit_all, init

SCRIPT = Path(sys.executable).with_name("tasks-server")
README = (REPO / "README.md").read_text(encoding="utf-8")
CLI_PAGE = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
SPAN = re.compile(r"`([^`]+)`")
OPTIONAL = re.compile(r"\[([^\]]+)\]")


def section(title: str, page: str = README) -> str:
    return page.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def quick_start() -> list[str]:
    """The quick start's `tasks-server` steps and the `call` example after it."""
    text = section("Quick start")
    steps = [
        part.strip()
        for line in text.splitlines()
        for part in line.split("&&")
        if part.strip().startswith("tasks-server ")
    ]
    prose = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    calls = [s for s in SPAN.findall(prose) if s.startswith("tasks-server call ")]
    return steps + [s for s in calls if '"..."' not in s]  # not the argument template


def working_day() -> list[str]:
    """The README's tour of the commands, each line up to its comment."""
    block = section("A working day").split("```sh\n", 1)[1].split("```", 1)[0]
    return [line.split("  #", 1)[0].strip() for line in block.splitlines() if line.strip()]


def table_commands() -> list[str]:
    """Each command of the command-line table; later spans in a row continue the first."""
    found: list[str] = []
    for row in section("Commands", CLI_PAGE).splitlines():
        if not row.startswith("| `tasks-server"):
            continue
        first_cell = row.split(" | ")[0]
        found.extend(
            span if span.startswith("tasks-server ") else f"tasks-server {span}"
            for span in SPAN.findall(first_cell)
        )
    return found


def export_lines() -> list[str]:
    spans = SPAN.findall(README + CLI_PAGE)
    return sorted({s for s in spans if s.startswith("tasks-server export ")})


def _choices(template: str) -> list[list[str]]:
    """The template as pieces, each a list of alternatives ("" for an absent option)."""
    pieces: list[list[str]] = []
    for n, part in enumerate(OPTIONAL.split(template)):
        if n % 2:
            pieces.append(["", *(a.strip() for a in part.split("\\|"))])
        else:
            pieces.extend([[w for w in word.split("\\|")] for word in part.split()])
    return pieces


def expand(template: str) -> list[str]:
    """Enough commands that every alternative of every choice is used once."""
    pieces = _choices(template)
    runs = max(len(p) for p in pieces)
    return [" ".join(w for w in (p[i % len(p)] for p in pieces) if w) for i in range(runs)]


def fill(command: str, tmp: Path, n: int) -> list[str]:
    """The command's words with the README's placeholders made real."""
    words = shlex.split(command)[1:]
    out = []
    for before, word in itertools.zip_longest(["", *words], words):
        if word is None:
            break
        out.append(_value(word, before, tmp, n))
    return out


def _value(word: str, before: str, tmp: Path, n: int) -> str:
    if word == "DIR":
        fresh = before in ("--root", "init")
        return str(tmp / f"new-tree-{n}") if fresh else str(backlog(tmp))
    if word == "FILE" and before == "check":
        return str(next((tmp / "tree").rglob("pipe-a84567f9-*.md")))
    fixed = {
        "TOOL": "get_graph_metrics",
        "JSON": "{}",
        "ID": "pipe-a84567f9",
        "TASK_ID": "pipe-a84567f9",
        "REV_A": "HEAD",
        "REV_B": "HEAD",
        "P": "pipe",
        "ISO": "2026-11-22T12:00:00Z",
        "FILE.jsonl": str(beads(tmp)),
        "FILE": str(tmp / f"out-{n}"),
        "...": "",
    }
    return fixed.get(word, word)


def beads(tmp: Path) -> Path:
    return write(tmp, "issues.jsonl", '{"id": "bd-1", "title": "One", "status": "open"}\n')


def backlog(tmp: Path) -> Path:
    write(tmp, "backlog/tasks/task-1 - One.md", "---\nid: task-1\ntitle: One\nstatus: To Do\n---\n")
    return tmp / "backlog"


COMMANDS = sorted(
    {
        c
        for t in [*quick_start(), *working_day(), *table_commands(), *export_lines()]
        for c in expand(t)
    }
)


def test_the_readme_names_the_commands_this_test_runs() -> None:
    assert "tasks-server call get_graph_metrics" in COMMANDS
    assert any(c.startswith("tasks-server call get_task_neighborhood ") for c in COMMANDS)
    assert any(c.startswith("tasks-server export --format svg") for c in COMMANDS)
    assert any(c.startswith("tasks-server new ") for c in COMMANDS)
    assert len(table_commands()) >= 12
    assert "tasks-server lsp" in working_day()


SERVERS = ("serve", "lsp")
"""Commands that serve until their input ends: run as processes (stdin at its end) always."""


def fresh_tree(command: str, tmp_path: Path) -> list[str]:
    """A fresh copy of the bundled tree (in git for the commands that read history), and
    the command's arguments with its placeholders filled in."""
    root = tmp_path / "tree"
    shutil.copytree(DATA, root)
    args = [word for word in fill(command, tmp_path, 0) if word]
    if args[0] in ("diff", "log"):  # they read the tree's git history
        commit_all(init(root), "the example tree")
    return args


def run_script(args: list[str], root: Path) -> tuple[int, bytes, str]:
    """The console script as a reader's shell runs it: (status, stdout, stderr)."""
    done = subprocess.run(
        [str(SCRIPT), *args],
        env={**os.environ, "TASKS_ROOT": str(root)},
        stdin=subprocess.DEVNULL,  # `serve` over stdio ends when its input does
        capture_output=True,
        timeout=120,
        check=False,
    )
    return done.returncode, done.stdout, done.stderr.decode(errors="replace")


def assert_ran(args: list[str], status: int, out: bytes, err: str) -> None:
    assert status == 0, err
    assert out or args[0] in SERVERS or "-o" in args  # servers: no client


@pytest.mark.parametrize("command", COMMANDS)
def test_a_readme_command_runs_on_a_fresh_tree(
    command: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    """Through `main(argv)`, the console script's own entry, in this process (the servers
    in a process of their own); the deep run runs every command as a real process too."""
    args = fresh_tree(command, tmp_path)
    if args[0] in SERVERS:
        assert_ran(args, *run_script(args, tmp_path / "tree"))
        return
    monkeypatch.setenv("TASKS_ROOT", str(tmp_path / "tree"))
    status = main(args)
    captured = capsysbinary.readouterr()
    assert_ran(args, status, captured.out, captured.err.decode(errors="replace"))


@pytest.mark.deep
@pytest.mark.parametrize("command", COMMANDS)
def test_a_readme_command_runs_as_a_process_on_a_fresh_tree(command: str, tmp_path: Path) -> None:
    args = fresh_tree(command, tmp_path)
    assert_ran(args, *run_script(args, tmp_path / "tree"))
