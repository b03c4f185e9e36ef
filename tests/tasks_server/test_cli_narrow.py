"""At 80 columns no view breaks a word, a path or a timestamp mid-name; `show` gives every
time in one zone; `diff` leaves out rows that only moved `modified` unless `--all`, and
shows an empty from-value as `(none)`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.gitrepo import EPOCH, commit_all, init

SCRIPT = Path(sys.executable).with_name("tasks-server")
LONG = "a-rather-long-folder-name-for-tasks/and-a-long-task-file-name-that-goes-on.md"


def run(*args: str) -> str:
    done = subprocess.run(
        [str(SCRIPT), *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "COLUMNS": "80"},
    )
    assert done.returncode in (0, 1), done.stderr
    return done.stdout


def test_show_keeps_the_path_and_body_words_whole_and_times_in_one_zone(tmp_path: Path) -> None:
    path = tmp_path / LONG
    path.parent.mkdir()
    words = " ".join(["word"] * 30) + " https://example.org/" + "x" * 90 + " end"
    path.write_text(
        "---\nid: t-1\ntitle: T\ncreated: 2026-02-04T16:39:14-08:00\n"
        f"modified: 2026-02-05T09:16:51Z\n---\n{words}\n"
    )
    shown = run("show", "t-1", "--root", str(tmp_path))
    lines = shown.splitlines()
    assert any(line.endswith(LONG) for line in lines)
    assert any(line.startswith("https://example.org/") for line in lines)
    assert all(len(line) <= 80 for line in lines if "word" in line)
    assert "2026-02-05 00:39:14 UTC" in shown and "-0800" not in shown


def test_check_keeps_file_names_whole_at_80_columns(tmp_path: Path) -> None:
    path = tmp_path / LONG
    path.parent.mkdir()
    path.write_text("---\nid: t-1\nstatus: open\n---\n")
    shown = run("check", "--root", str(tmp_path))
    assert f"{LONG}:2" in shown


def test_diff_leaves_out_rows_that_only_moved_modified_unless_all(tmp_path: Path) -> None:
    root = init(tmp_path / "repo")
    (root / "a.md").write_text("---\nid: a\ntitle: A\nmodified: 2026-01-01T00:00:00Z\n---\n")
    (root / "b.md").write_text("---\nid: b\ntitle: B\n---\n")
    commit_all(root, "plan", EPOCH)
    (root / "a.md").write_text("---\nid: a\ntitle: A\nmodified: 2026-01-02T00:00:00Z\n---\n")
    (root / "b.md").write_text("---\nid: b\ntitle: B\nassignee: ada\n---\n")
    quiet = run("diff", "--root", str(root))
    everything = run("diff", "--all", "--root", str(root))
    assert "assignee: (none) → ada" in quiet
    assert "1 more changed only their modified time (--all shows them)" in quiet
    assert "modified: 2026-01-01 00:00:00 UTC → 2026-01-02 00:00:00 UTC" in everything
    assert "--all shows" not in everything
