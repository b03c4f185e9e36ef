"""`tasks-server diff` and `tasks-server log`: readable tables, `--json` as the tools give
it, and one line on stderr for a bad revision."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import frontmatter

from tests.gitrepo import EPOCH, commit_all, git, init

SCRIPT = Path(sys.executable).with_name("tasks-server")


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SCRIPT), *args], capture_output=True, text=True, timeout=120, check=False
    )


def repo(tmp_path: Path) -> tuple[Path, str]:
    root = init(tmp_path / "repo")
    for name, priority in (("a", 2), ("b", 3)):
        post = frontmatter.Post(
            "", id=name, title=f"Task {name}", status="active", priority=priority
        )
        (root / f"{name}.md").write_text(frontmatter.dumps(post, sort_keys=False) + "\n")
    first = commit_all(root, "plan", EPOCH)
    text = (root / "a.md").read_text().replace("priority: 2", "priority: 0")
    (root / "a.md").write_text(text)
    commit_all(root, "a is urgent", EPOCH + 60)
    (root / "b.md").write_text((root / "b.md").read_text().replace("active", "done"))
    return root, first


def test_diff_prints_each_change_and_json_gives_every_section(tmp_path: Path) -> None:
    root, first = repo(tmp_path)
    text = run("diff", "--root", str(root))
    assert text.returncode == 0, text.stderr
    assert "the files on disk" in text.stdout and "status: active → done" in text.stdout
    both = json.loads(run("diff", first, "HEAD", "--root", str(root), "--json").stdout)
    assert [row["fields"] for row in both["changed"]] == [{"priority": {"from": 2, "to": 0}}]
    assert both["until"] == git(root, "rev-parse", "HEAD") and both["next_cursor"] is None


def test_log_lists_the_commits_of_one_task_newest_first(tmp_path: Path) -> None:
    root, _ = repo(tmp_path)
    text = run("log", "a", "--root", str(root))
    assert text.returncode == 0, text.stderr
    assert text.stdout.index("a is urgent") < text.stdout.index("plan")
    words = " ".join(text.stdout.split())  # at 80 columns the change wraps at a space
    assert "priority: 2 → 0" in words and "created" in words
    assert "2026-09-21 14:14:20 UTC" in text.stdout  # a timestamp is never split
    data = json.loads(run("log", "a", "--root", str(root), "--json").stdout)
    assert [c["message"] for c in data["commits"]] == ["a is urgent", "plan"]


def test_a_bad_revision_is_one_line_on_stderr_and_exit_1(tmp_path: Path) -> None:
    root, _ = repo(tmp_path)
    done = run("diff", "no-such-rev", "--root", str(root))
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "no-such-rev" in done.stderr
