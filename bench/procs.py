"""What a spawned server process holds and has spent, read from Linux's /proc.

For the start benches: the processes this one started, and, for one of them with every
descendant it started in turn (a launcher's child counts), its resident memory (VmRSS) and
the CPU time it has used (user + system, every thread's, in clock ticks of 10 ms): a count
that other jobs on the machine move far less than they move wall time.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Usage", "children", "usage"]

TICK = 1 / os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True, slots=True)
class Usage:
    """Resident MB and CPU seconds of a process and its descendants."""

    rss_mb: float
    cpu_seconds: float


def _stat_fields(pid: int) -> list[str]:
    """The fields of /proc/PID/stat after the command name (the state first); [] if gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return []


def _parents() -> dict[int, int]:
    """Every process id -> its parent's."""
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (fields := _stat_fields(int(entry.name))):
            found[int(entry.name)] = int(fields[1])
    return found


def children() -> set[int]:
    """Ids of this process's child processes."""
    me = os.getpid()
    return {pid for pid, parent in _parents().items() if parent == me}


def _family(pid: int) -> set[int]:
    parents, family = _parents(), {pid}
    while grown := {p for p, parent in parents.items() if parent in family} - family:
        family |= grown
    return family


def _rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _cpu_seconds(pid: int) -> float:
    fields = _stat_fields(pid)
    # utime + stime, and cutime + cstime: children already reaped (a forked cold read's)
    return sum(int(field) for field in fields[11:15]) * TICK if fields else 0.0


def usage(pid: int) -> Usage:
    """What process `pid` and its descendants hold and have spent now."""
    family = _family(pid)
    return Usage(sum(map(_rss_mb, family)), sum(map(_cpu_seconds, family)))
