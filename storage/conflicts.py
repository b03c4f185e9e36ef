"""Files left with git's merge-conflict markers, and the task ids they hold.

A merge that could not join two edits of a task file leaves both versions in it between
`<<<<<<<`, `=======` and `>>>>>>>` lines: no longer a task the reader can parse, but a person
still needs to hear "this file is conflicted" when they name its task, not "no such task".
The ids it holds are those of either side (each read as the file it would be once resolved)
and, failing both, the file's name.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from pathlib import Path

from storage import codec
from storage.errors import ParseError
from storage.files import read_regular
from storage.table import Problem

__all__ = ["conflict_ids", "conflicted_file", "has_conflict_markers", "sides"]

_OPEN, _MIDDLE, _CLOSE = b"<<<<<<<", b"=======", b">>>>>>>"
_MARKER = re.compile(rb"^(<{7}|={7}|>{7}|\|{7})(?: |$)", re.MULTILINE)


def has_conflict_markers(data: bytes) -> bool:
    """True when `data` holds an opening and a closing conflict marker line."""
    found = {match.group(1)[:1] for match in _MARKER.finditer(data)}
    return {b"<", b">"} <= found


def sides(data: bytes) -> tuple[bytes, bytes]:
    """The file as each side of every conflict would leave it (ours, theirs); a diff3
    base section (`|||||||`) belongs to neither."""
    ours: list[bytes] = []
    theirs: list[bytes] = []
    keep = (True, True)
    for line in data.splitlines(keepends=True):
        marker = _MARKER.match(line)
        if marker is None:
            if keep[0]:
                ours.append(line)
            if keep[1]:
                theirs.append(line)
            continue
        keep = {b"<": (True, False), b"|": (False, False), b"=": (False, True)}.get(
            marker.group(1)[:1], (True, True)
        )
    return b"".join(ours), b"".join(theirs)


def conflict_ids(path: str, data: bytes) -> set[str]:
    """The task ids a conflicted file holds: each side's, else the file's name."""
    found: set[str] = set()
    for side in sides(data):
        try:
            found.add(codec.from_bytes(side, path).id)
        except ParseError:
            continue
    return found or {posixpath.splitext(posixpath.basename(path))[0]}


def conflicted_file(
    root: Path, problems: Iterable[Problem], task_id: str, limit: int = 1 << 20
) -> str | None:
    """The path of a file under `root` that `problems` name as conflicted and that holds
    `task_id` (None: no such file)."""
    for problem in problems:
        if problem.kind != "merge_conflict":
            continue
        data = read_regular(root / problem.path, limit)
        if isinstance(data, bytes) and task_id in conflict_ids(problem.path, data):
            return problem.path
    return None
