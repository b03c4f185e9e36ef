"""The summary picture of a flat project (every task a top task, as a beads import gives)
shows its open work first: single tasks folded into one box per state, the boxes with
ready and then blocked tasks ahead of the done ones."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(sys.executable).with_name("tasks-server")


def task(root: Path, n: int, status: str, *, depends_on: str | None = None) -> None:
    wait = f"depends_on: [{depends_on}]\n" if depends_on else ""
    (root / f"t{n}.md").write_text(
        f"---\nid: t-{n:03d}\ntitle: Task {n}\nstatus: {status}\n{wait}---\n"
    )


def test_a_flat_project_draws_ready_then_blocked_boxes_before_the_done_ones(
    tmp_path: Path,
) -> None:
    for n in range(140):
        task(tmp_path, n, "done")
    for n in range(140, 143):
        task(tmp_path, n, "open")
    for n in range(143, 145):
        task(tmp_path, n, "open", depends_on="t-140")
    done = subprocess.run(
        [str(SCRIPT), "export", "--root", str(tmp_path), "--format", "mermaid"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    boxes = [line.split('["', 1)[1] for line in done.stdout.splitlines() if '["' in line]
    assert [box.split("<br>")[0] for box in boxes] == [
        "3 single tasks: ready",
        "2 single tasks: blocked",
        "140 single tasks: done",
    ]
