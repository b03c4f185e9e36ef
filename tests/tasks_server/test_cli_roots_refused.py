"""A root that is the file-system root or a kernel file system is refused in one line
before any walk (exit 2), whichever command names it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tasks_server.roots import mount_type, refusal

SCRIPT = Path(sys.executable).with_name("tasks-server")


@pytest.mark.parametrize(
    ("command", "root"),
    [("ready", "/"), ("check", "/proc"), ("snapshot", "/sys"), ("import", "/")],
)
def test_the_disk_root_and_kernel_file_systems_are_refused_in_one_line(
    command: str, root: str, tmp_path: Path
) -> None:
    source = ["beads", str(tmp_path / "none.jsonl")] if command == "import" else []
    done = subprocess.run(
        [str(SCRIPT), command, *source, "--root", root],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout, len(done.stderr.splitlines())) == (2, "", 1)
    assert done.stderr.startswith(f"tasks-server: task root {root} (from --root) is ")
    assert "refusing to walk" in done.stderr


def test_a_mount_type_is_the_longest_mount_point_above_the_path(tmp_path: Path) -> None:
    info = tmp_path / "mountinfo"
    info.write_text(
        "22 1 0:21 / /proc rw - proc proc rw\n"
        "1 0 8:1 / / rw - ext4 /dev/sda1 rw\n"
        "30 1 0:5 / /my\\040disk rw - xfs /dev/sdb rw\n"
    )
    found = [mount_type(p, str(info)) for p in ("/proc/1", "/procx", "/my disk/a", "/")]
    assert found == ["proc", "ext4", "xfs", "ext4"]
    assert mount_type("/", str(tmp_path / "absent")) is None


def test_an_ordinary_folder_is_never_refused(tmp_path: Path) -> None:
    assert refusal(tmp_path) is None
