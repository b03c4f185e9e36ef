"""Ignore patterns (`.tasksignore` and `--exclude`), compiled once for every path.

A pattern is a glob (`fnmatch`: `*` crosses `/`) matched against the whole relative path
and against its last part; one ending in `/` names a folder and matches everything below
it. Literal patterns (no `*?[`) are looked up in sets; the globs are joined into two
regular expressions. So a check costs a few lookups and two matches, not a loop over the
patterns: 20,000 patterns over 2,000 files was a 69 s start.
"""

from __future__ import annotations

import fnmatch
import re

__all__ = ["IgnoreRules"]

_GLOB = re.compile(r"[*?\[]")


class IgnoreRules:
    """A compiled set of ignore patterns; call it with a relative path."""

    def __init__(self, patterns: tuple[str, ...]) -> None:
        self.patterns = patterns
        literal = [p for p in patterns if not _GLOB.search(p)]
        globs = [p for p in patterns if _GLOB.search(p)]
        self._names = frozenset(p for p in literal if not p.endswith("/"))
        self._folder_set = frozenset(p for p in literal if p.endswith("/"))
        self._whole = _joined([_whole_path(p) for p in globs])
        self._last = _joined([fnmatch.translate(p) for p in globs if not p.endswith("/")])

    def __call__(self, relative: str) -> bool:
        if not self.patterns:
            return False
        if relative in self._names or relative.rsplit("/", 1)[-1] in self._names:
            return True
        if self._folder_set and self._below_folder(relative):
            return True
        if self._whole is not None and self._whole.match(relative):
            return True
        return self._last is not None and self._last.match(relative.rsplit("/", 1)[-1]) is not None

    def _below_folder(self, relative: str) -> bool:
        """True when `relative` starts with a literal folder pattern (`build/`)."""
        at = relative.find("/")
        while at >= 0:
            if relative[: at + 1] in self._folder_set:
                return True
            at = relative.find("/", at + 1)
        return False


def _whole_path(pattern: str) -> str:
    """The expression of a glob against a whole path; a folder glob (`a*/`) matches what is
    below it, and (as it always has) a path that starts with its very text."""
    if not pattern.endswith("/"):
        return fnmatch.translate(pattern)
    return fnmatch.translate(pattern + "*") + "|" + re.escape(pattern) + ".*"


def _joined(parts: list[str]) -> re.Pattern[str] | None:
    return re.compile("|".join(parts)) if parts else None
