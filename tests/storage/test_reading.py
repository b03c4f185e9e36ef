"""Reading one task file while another process rewrites it in place (truncate, then write),
as editors such as vim with `backupcopy=yes` save: every read is the whole task as one of
the versions written: never a task dropped for an empty read, nor a body cut at a page
boundary."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from storage.reading import read_task_file

READS = 3000
BODY_LINES = 700  # about 9 KB: the write spans pages, so a racing read could see a prefix
REWRITER = """
import os, sys, time
path, stop, versions = sys.argv[1], sys.argv[2], [v.encode() for v in sys.argv[3:]]
n = 0
while not os.path.exists(stop):
    fd = os.open(path, os.O_RDWR)
    os.ftruncate(fd, 0)
    os.pwrite(fd, versions[n % len(versions)], 0)
    os.close(fd)
    n += 1
    if n == 1:
        print("saving", flush=True)
    time.sleep(0.0005)  # an editor between two saves (a person types slower still)
print(n, flush=True)
"""


def version(number: int) -> str:
    body = "".join(f"line {number}-{i}\n" for i in range(BODY_LINES + number * 50))
    return f"---\nid: t\ntitle: Version {number}\n---\n{body}"


def test_a_file_an_editor_rewrites_in_place_is_always_read_whole(tmp_path: Path) -> None:
    versions = [version(0), version(1)]
    path, stop = tmp_path / "t.md", tmp_path / "stop"
    path.write_text(versions[0])
    args = [sys.executable, "-c", REWRITER, str(path), str(stop), *versions]
    rewriter = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
    assert rewriter.stdout is not None
    try:
        assert rewriter.stdout.readline() == "saving\n"  # the reads start once saves do
        results = [read_task_file("t.md", str(path), 1 << 20) for _ in range(READS)]
    finally:
        stop.touch()
        saves = int(rewriter.communicate(timeout=30)[0])
    assert saves > 100  # the reads raced that many saves
    tasks = [result.task if result else None for result in results]
    bodies = {version.split("---\n", 2)[2] for version in versions}
    assert [r for r in results if r is None or r.task is None] == []
    assert {task.body for task in tasks if task is not None} <= bodies
