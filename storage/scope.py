"""Which paths under a root are task files: `*.md` with a UTF-8 name, in no hidden folder,
matched by no pattern of the root's `.tasksignore` (one glob a line; `dir/` matches a
folder, `ignore.py`) nor of the patterns the repository was opened with (`--exclude`).

The ignore file is read once, and again only when one stat says it changed (`reload`); an
unreadable one (a link, a pipe, over the size cap, not UTF-8) ignores nothing and is kept
as a problem to report beside the tasks.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from storage.ignore import IgnoreRules
from storage.reading import read_ignore_file
from storage.table import FileResult
from storage.walk import is_utf8

__all__ = ["IGNORE_FILE", "TaskScope"]

IGNORE_FILE = ".tasksignore"


class TaskScope:
    """The paths under one root that are task files, by the rules above."""

    exclude: tuple[str, ...]
    """Every pattern in force: the given ones, then the ignore file's."""
    ignored: IgnoreRules
    ignore_problem: FileResult | None
    """Why the ignore file was not used, as a load problem (None: it was, or there is none)."""

    def __init__(self, root: Path, given: Sequence[str], max_bytes: int) -> None:
        self._file = root / IGNORE_FILE
        self._given = tuple(given)
        self._max_bytes = max_bytes
        self._seen: tuple[int, ...] | None = None
        self._load()

    def is_task_path(self, relative: str) -> bool:
        """True for a path the scan would read: `*.md`, not hidden, not ignored."""
        parts = relative.split("/")
        return (
            relative.endswith(".md")
            and is_utf8(relative)
            and not any(part.startswith(".") for part in parts)
            and not self.ignored(relative)
        )

    def walks_into(self, folder: str) -> bool:
        """True for a folder (relative path) whose files the scan reads: not hidden, not
        ignored."""
        hidden = any(part.startswith(".") for part in folder.split("/"))
        return not hidden and not self.ignored(folder + "/")

    def reload(self) -> bool:
        """Read the ignore file again if it changed since it was read (one stat); True
        when it did: which paths are tasks may have changed."""
        if _identity(self._file) == self._seen:
            return False
        self._load()
        return True

    def _load(self) -> None:
        """Read the ignore file (noting which file it was) and compile its patterns."""
        self._seen = _identity(self._file)
        patterns, self.ignore_problem = read_ignore_file(self._file, self._max_bytes)
        self.exclude = self._given + patterns
        self.ignored = IgnoreRules(self.exclude)


def _identity(path: Path) -> tuple[int, ...] | None:
    """What a file's stat says of its content (None: no file), to notice any change."""
    try:
        st = os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size, st.st_ctime_ns, st.st_ino
