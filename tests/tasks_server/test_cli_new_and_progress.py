"""`tasks-server new`, and progress drawn on stderr only when stderr is a terminal."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import frontmatter

SCRIPT = Path(sys.executable).with_name("tasks-server")


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SCRIPT), *args], capture_output=True, text=True, timeout=120, check=False
    )


def test_new_writes_a_task_file_under_its_parent_and_prints_its_path(example_root: Path) -> None:
    done = run(
        "new", "Order spare anemometers", "--parent", "wx-f5b19f71", "--root", str(example_root)
    )
    assert done.returncode == 0, done.stderr
    path = Path(done.stdout.strip())
    assert path.is_file() and path.is_relative_to(example_root / "wx" / "tasks")
    post = frontmatter.load(path)
    assert post["title"] == "Order spare anemometers"
    assert (post["parent"], post["project"], post["status"]) == ("wx-f5b19f71", "wx", "inbox")
    tree = run("tree", "--id", "wx-f5b19f71", "--root", str(example_root), "--json")
    children = json.loads(tree.stdout)["tree"][0]["children"]
    assert post["id"] in {child["id"] for child in children}


def test_new_without_a_parent_goes_to_the_inbox_or_the_named_project(example_root: Path) -> None:
    inbox = Path(run("new", "Loose idea", "--root", str(example_root)).stdout.strip())
    named = Path(
        run("new", "Fresh start", "--project", "garden", "--root", str(example_root)).stdout.strip()
    )
    assert inbox.parent == example_root / "inbox"
    assert named.parent == example_root / "garden" / "tasks"


def test_new_under_an_unknown_parent_writes_nothing_and_exits_1(example_root: Path) -> None:
    before = sorted(example_root.rglob("*.md"))
    done = run("new", "Orphan", "--parent", "nosuch-1", "--root", str(example_root))
    assert done.returncode == 1 and done.stdout == ""
    assert "nosuch-1" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert sorted(example_root.rglob("*.md")) == before


def test_new_with_an_empty_title_is_refused(example_root: Path) -> None:
    done = run("new", "", "--root", str(example_root))
    assert done.returncode == 1 and "title" in done.stderr


def stderr_on_a_terminal(*args: str) -> tuple[int, str, str]:
    """Run with stderr on a pseudo-terminal (stdout still a pipe); what each received."""
    controller, terminal = pty.openpty()
    with subprocess.Popen(
        [str(SCRIPT), *args], stdout=subprocess.PIPE, stderr=terminal, text=True
    ) as proc:
        os.close(terminal)
        chunks = []
        while True:
            try:
                chunk = os.read(controller, 4096)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        out, _ = proc.communicate()
    os.close(controller)
    return proc.returncode, out, b"".join(chunks).decode(errors="replace")


def test_an_import_draws_progress_on_a_terminal_and_keeps_stdout_clean(tmp_path: Path) -> None:
    source = tmp_path / "issues.jsonl"
    source.write_text('{"id": "p-1", "title": "One", "status": "open"}\n')
    status, out, err = stderr_on_a_terminal(
        "import", "beads", str(source), "--root", str(tmp_path / "t"), "--json"
    )
    assert status == 0
    assert json.loads(out)["imported"] == 1
    assert "importing beads" in err


def test_nothing_is_drawn_on_stderr_when_it_is_a_pipe(tmp_path: Path, example_root: Path) -> None:
    source = tmp_path / "issues.jsonl"
    source.write_text('{"id": "p-1", "title": "One", "status": "open"}\n')
    done = run("import", "beads", str(source), "--root", str(tmp_path / "t"))
    assert done.returncode == 0 and done.stderr == ""
    loaded = run("ready", "--root", str(example_root))
    assert loaded.stderr == ""
