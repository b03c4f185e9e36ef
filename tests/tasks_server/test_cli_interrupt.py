"""Ctrl-C in a command: one line saying what state it left, exit status 130, and no staged
file left behind. SIGINT goes to real processes once they announce a step (a progress line
on stderr, or a protocol answer), never after a sleep."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.tasks_server.interrupts import SCRIPT, Stopped, beads_export, interrupt_at

TASKS = 3000


@pytest.fixture(scope="module")
def big_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tree large enough that loading it outlasts the moment SIGINT arrives."""
    root = tmp_path_factory.mktemp("big")
    for n in range(TASKS):
        folder = root / f"p{n % 30}"
        folder.mkdir(exist_ok=True)
        (folder / f"t{n}.md").write_text(f"---\nid: t-{n:05d}\ntitle: Task {n}\n---\nbody\n")
    return root


def said(stopped: Stopped, command: str) -> str:
    """The one line the command printed about the interrupt (the rest is its spinner)."""
    ours = [line for line in stopped.lines if line.startswith("tasks-server")]
    assert stopped.status == 130, stopped.lines
    assert len(ours) == 1 and ours[0] == stopped.lines[-1], stopped.lines
    assert not any("Traceback" in line for line in stopped.lines)
    prefix = f"tasks-server {command}: interrupted: "
    assert ours[0].startswith(prefix)
    return ours[0].removeprefix(prefix)


def staged_files(root: Path) -> list[Path]:
    """Hidden files a write stages beside its targets, and journal records."""
    hidden = [p for p in root.rglob(".*") if p.is_file() and p.suffix != ".lock"]
    return [p for p in hidden if ".tasks-journal" in p.name or "tmp" in p.name] + list(
        root.glob(".tasks-index/journal/*.json")
    )


def test_a_read_interrupted_while_loading_says_nothing_was_written(big_root: Path) -> None:
    stopped = interrupt_at(["ready", "--root", str(big_root)], "loading")
    assert said(stopped, "ready") == "nothing was written"


@pytest.mark.deep
@pytest.mark.parametrize("command", [["snapshot"], ["export"], ["check"], ["blocked"]])
def test_every_reading_command_interrupted_while_loading_says_nothing_was_written(
    big_root: Path, command: list[str]
) -> None:
    stopped = interrupt_at([*command, "--root", str(big_root)], "loading")
    assert said(stopped, command[0]) == "nothing was written"


def assert_import_whole_or_none(stopped: Stopped, root: Path) -> None:
    state = said(stopped, "import")
    written = len(list(root.rglob("*.md")))
    if state == "rolled back, nothing was imported":
        assert written == 0
    else:
        assert state == f"the import is complete ({TASKS} task files written)"
        assert written == TASKS
    assert staged_files(root) == []


def test_an_import_interrupted_as_it_starts_is_whole_or_absent_with_nothing_staged(
    tmp_path: Path,
) -> None:
    source = beads_export(tmp_path / "issues.jsonl", TASKS)
    root = tmp_path / "tree"
    stopped = interrupt_at(["import", "beads", str(source), "--root", str(root)], "importing")
    assert_import_whole_or_none(stopped, root)


@pytest.mark.deep
@pytest.mark.parametrize("elapsed", ["0:00:01", "0:00:02", "0:00:03"])
def test_an_import_interrupted_at_any_point_is_whole_or_absent_with_nothing_staged(
    tmp_path: Path, elapsed: str
) -> None:
    """The spinner's elapsed time is the cue: the later ones land while files are staged
    or swapped in (an import of three times `TASKS` takes seconds of fsyncs: about 6 s on
    a quiet CI machine, so no cue later than 3 s; the import of `TASKS` alone came to end
    before 3 s once the parse got faster); an import that ends first is the test's failure,
    not a pass."""
    source = beads_export(tmp_path / "issues.jsonl", 3 * TASKS)
    root = tmp_path / "tree"
    stopped = interrupt_at(["import", "beads", str(source), "--root", str(root)], elapsed)
    assert_import_whole_or_none(stopped, root)


def swapping_in(root: Path) -> Callable[[], bool]:
    """True once the first imported file is in place: past the commit point (files are
    staged hidden, the journal record filled and synced, then swapped in)."""
    folder = root / "bd" / "tasks"

    def placed() -> bool:
        if not folder.is_dir():
            return False
        with os.scandir(folder) as entries:
            return any(not entry.name.startswith(".") for entry in entries)

    return placed


@pytest.mark.deep
def test_an_import_interrupted_after_its_commit_point_completes_and_says_so(
    tmp_path: Path,
) -> None:
    source = beads_export(tmp_path / "issues.jsonl", TASKS)
    root = tmp_path / "tree"
    argv = ["import", "beads", str(source), "--root", str(root)]
    stopped = interrupt_at(argv, "importing", when=swapping_in(root))
    if stopped.status == 0:  # it ended between the look and the signal: whole, as asked
        assert len(list(root.rglob("*.md"))) == TASKS and staged_files(root) == []
        return
    assert said(stopped, "import") == f"the import is complete ({TASKS} task files written)"
    assert_import_whole_or_none(stopped, root)


def test_a_stdio_server_interrupted_while_serving_says_so_and_exits_130(big_root: Path) -> None:
    server = subprocess.Popen(
        [str(SCRIPT), "serve", "--root", str(big_root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert server.stdin is not None and server.stdout is not None and server.stderr is not None
    hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t"}}
    hello["clientInfo"]["version"] = "0"  # type: ignore[index]
    request = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}
    server.stdin.write(json.dumps(request) + "\n")
    server.stdin.flush()
    assert json.loads(server.stdout.readline())["id"] == 1  # serving: stdin stays open
    server.send_signal(signal.SIGINT)
    assert server.wait(timeout=60) == 130
    assert server.stderr.read().splitlines() == [
        "tasks-server serve: interrupted: the server stopped; every write it made is whole "
        "(writes are all or nothing)"
    ]
    server.stdin.close()
    server.stdout.close()
    server.stderr.close()


def test_an_http_server_interrupted_shuts_down_and_says_so(example_root: Path) -> None:
    server = subprocess.Popen(
        [str(SCRIPT), "serve", "--transport", "http", "--port", "0", "--root", str(example_root)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert server.stderr is not None
    assert server.stderr.readline().startswith("serving MCP on http://127.0.0.1:")
    server.send_signal(signal.SIGINT)
    assert server.wait(timeout=60) == 130
    assert server.stderr.read().splitlines()[-1].startswith("tasks-server serve: interrupted: ")
    server.stderr.close()


def test_init_interrupted_leaves_the_folder_with_nothing_copied(tmp_path: Path) -> None:
    target = tmp_path / "copy"
    stopped = interrupt_at(["init", str(target)], "", env={})
    if stopped.status == 130:
        assert said(stopped, "init").startswith("rolled back")
        assert not target.exists() or list(target.iterdir()) == []
