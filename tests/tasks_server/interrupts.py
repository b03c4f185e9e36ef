"""Ctrl-C sent to a real command at a moment it announces: the command's progress line on
stderr (drawn because stderr is a terminal here, a pseudo-terminal), never a sleep."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

__all__ = ["SCRIPT", "Stopped", "beads_export", "interrupt_at"]

SCRIPT = Path(sys.executable).with_name("tasks-server")
_ESCAPES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\r")


@dataclass(frozen=True)
class Stopped:
    """What an interrupted command left: its exit status and its stderr lines (drawing
    escapes removed, blank lines dropped)."""

    status: int
    lines: list[str]


def _read(fd: int) -> bytes:
    try:
        return os.read(fd, 65536)
    except OSError:  # EIO: every writer of the terminal closed it
        return b""


def interrupt_at(
    argv: list[str],
    cue: str,
    env: dict[str, str] | None = None,
    when: Callable[[], bool] | None = None,
) -> Stopped:
    """Run `tasks-server argv` with stderr on a pseudo-terminal, send SIGINT once `cue`
    shows on stderr (and `when` holds: a state of the files the command writes, looked at
    between reads of stderr), and wait for it to end."""
    main, side = pty.openpty()
    fcntl.ioctl(side, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 300, 0, 0))  # whole lines
    process = subprocess.Popen(
        [str(SCRIPT), *argv],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=side,
        env={**os.environ, **(env or {})},
    )
    os.close(side)
    seen = b""
    try:
        while cue.encode() not in seen or not (when is None or when()):
            if when is not None and not select.select([main], [], [], 0.002)[0]:
                continue  # stderr quiet: look at `when` again
            chunk = _read(main)
            assert chunk, f"ended before {cue!r}: {seen.decode(errors='replace')[-300:]}"
            seen += chunk
    except BaseException:  # reap it: a process left running fails the next test as well
        process.kill()
        process.wait(timeout=120)
        os.close(main)
        raise
    process.send_signal(signal.SIGINT)
    while chunk := _read(main):
        seen += chunk
    status = process.wait(timeout=120)
    os.close(main)
    text = _ESCAPES.sub("\n", seen.decode(errors="replace"))
    return Stopped(status, [line.strip() for line in text.splitlines() if line.strip()])


def beads_export(path: Path, count: int) -> Path:
    """A beads export of `count` open tasks, each depending on the one before."""
    lines = []
    for n in range(count):
        record: dict[str, object] = {"id": f"bd-{n:05d}", "title": f"Task {n}", "status": "open"}
        record |= {"priority": 2, "issue_type": "task", "created_at": "2026-02-01T10:00:00Z"}
        if n:
            link = {"issue_id": f"bd-{n:05d}", "depends_on_id": f"bd-{n - 1:05d}"}
            record["dependencies"] = [link | {"type": "blocks"}]
        lines.append(json.dumps(record) + "\n")
    path.write_text("".join(lines))
    return path
