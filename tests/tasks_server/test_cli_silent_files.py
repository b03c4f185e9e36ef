"""Nothing a newcomer gives the tool vanishes without a word: an import that wrote nothing
exits 1 with the reason, and a file with task keys but no title is a `check` warning that
names the missing key."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(sys.executable).with_name("tasks-server")


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SCRIPT), *args], capture_output=True, text=True, timeout=60, check=False
    )


def test_importing_a_file_that_is_not_a_beads_export_exits_1_with_the_reason(
    tmp_path: Path,
) -> None:
    source = tmp_path / "notes.jsonl"
    source.write_text('{"a": 1}\nnot json\n{"id": "x"}\n')
    done = run("import", "beads", str(source), "--root", str(tmp_path / "tree"))
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        "tasks-server import: nothing imported: 3 of 3 lines dropped (invalid_id 1, "
        f"missing_title 1, not_json 1); is {source} a beads export?"
    ]
    assert "imported 0 of 3 lines" in done.stdout


def test_importing_an_empty_file_exits_1_saying_it_is_empty(tmp_path: Path) -> None:
    (tmp_path / "empty.jsonl").write_text("")
    done = run("import", "beads", str(tmp_path / "empty.jsonl"), "--root", str(tmp_path / "t"))
    assert (done.returncode, done.stderr) == (
        1,
        f"tasks-server import: nothing imported: {tmp_path / 'empty.jsonl'} holds no lines\n",
    )


def test_a_file_with_task_keys_and_no_title_is_a_warning_naming_the_missing_key(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.md").write_text("---\nid: a-1\nstatus: open\ndepends_on: [b]\n---\nbody\n")
    (tmp_path / "b.md").write_text("---\ntitle: B\nid: b\n---\n")
    (tmp_path / "README.md").write_text("# not a task, and not like one\n")
    (tmp_path / "note.md").write_text("---\nauthor: me\n---\n")
    done = run("check", "--root", str(tmp_path))
    assert done.returncode == 0  # a warning: the file may be a draft
    assert "checked 1 task in 4 files: 0 errors, 1 warning" in done.stdout
    assert "a.md:2   task without title   missing key title: task keys (id, status," in (
        done.stdout
    )
    assert "README" not in done.stdout and "note.md" not in done.stdout
