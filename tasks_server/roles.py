"""Which tools a server exposes: role presets (`--role`) and name patterns (`--tools`).

>>> allowed = tool_filter(role="planner", patterns=["story_bot_*"])
>>> allowed("get_task", "query"), allowed("create_task", "mutation")
(True, False)
>>> allowed("story_bot_tool", "workflow")
True
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Sequence

__all__ = ["ROLES", "NoToolMatches", "check_allowlist", "parse_patterns", "tool_filter"]

ROLES: dict[str, frozenset[str]] = {
    "planner": frozenset({"query"}),
    "editor": frozenset({"query", "mutation"}),
    "bot": frozenset({"workflow"}),
    "all": frozenset({"query", "mutation", "workflow", "admin"}),
}


def parse_patterns(text: str | None) -> list[str]:
    """`get_*, story_bot_*` → `['get_*', 'story_bot_*']`."""
    return [part.strip() for part in (text or "").split(",") if part.strip()]


def tool_filter(
    role: str | None = None, patterns: Sequence[str] = ()
) -> Callable[[str, str], bool]:
    """A predicate over (tool name, tier). With neither a role nor patterns, everything is
    allowed; otherwise a tool is allowed when its tier is in the role or a pattern matches."""
    if role is not None and role not in ROLES:
        raise ValueError(f"unknown role {role!r}; choose one of {', '.join(ROLES)}")
    if role is None and not patterns:
        return lambda name, tier: True
    tiers = ROLES[role] if role else frozenset()

    def allowed(name: str, tier: str) -> bool:
        return tier in tiers or any(fnmatch.fnmatchcase(name, p) for p in patterns)

    return allowed


class NoToolMatches(ValueError):
    """An allowlist that matches no tool: one line, for the command line."""


def check_allowlist(patterns: Sequence[str], names: Sequence[str]) -> None:
    """NoToolMatches when `patterns` are given and match none of `names` (a typo would
    otherwise serve nothing, silently).

    >>> check_allowlist(["nosuch_*"], ["get_task"])
    Traceback (most recent call last):
    ...
    tasks_server.roles.NoToolMatches: tasks-server: --tools nosuch_* matches no tool; ...
    """
    if not patterns or any(fnmatch.fnmatchcase(n, p) for p in patterns for n in names):
        return
    raise NoToolMatches(
        f"tasks-server: --tools {','.join(patterns)} matches no tool; "
        "`tasks-server tools` lists them"
    )
