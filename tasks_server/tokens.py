"""Feed tokens: a name for one state of the live tree, that only this server process reads.

A token is `<tree>.<step>.<mac>`: the tree's identity (a random nonce drawn when the server
starts, and a hash of the root's path), the change feed's step (`storage.feed`), and an HMAC
of both under a key drawn at start and never written anywhere. A token this process did not
issue fails the HMAC; one from another tree, another server process or an earlier run (a
restart) names another identity; one whose step the feed has forgotten is too old. Each is
`InvalidArgument` in one line naming the way back: a fresh token (`get_index_stats`, or any
`get_changes` answer) or `since_ref`.

A token lives while its server process runs and the feed still holds its step (the last
`storage.feed.MAX_STEPS` changes, at most `MAX_PATHS` changed files in all); a restart ends
every token.

>>> tokens = FeedTokens(Path("/tmp/tree"))
>>> tokens.step(tokens.issue(7), oldest=0, newest=9)
7
"""

from __future__ import annotations

import hashlib
import hmac
import os
from pathlib import Path

from graph.errors import InvalidArgument

__all__ = ["FeedTokens", "stale_token"]

_MAX_CHARS = 100
WAY_BACK = "call get_index_stats for a fresh token, or get_changes with since_ref"


def _stale(why: str) -> InvalidArgument:
    return InvalidArgument("since_token", f"{why}; {WAY_BACK}")


def stale_token() -> InvalidArgument:
    """A token (or a feed answer's cursor) whose state the feed no longer holds."""
    return _stale("token is too old: the changes since it are no longer kept")


class FeedTokens:
    """Issues and reads the tokens of one server process over one root."""

    def __init__(self, root: Path) -> None:
        self._key = os.urandom(32)
        self._place = hashlib.sha256(str(root).encode()).hexdigest()[:8]
        self.tree = f"{os.urandom(4).hex()}{self._place}"

    def _mac(self, tree: str, step: int) -> str:
        message = f"{tree}.{step}".encode()
        return hmac.new(self._key, message, hashlib.sha256).hexdigest()[:16]

    def issue(self, step: int) -> str:
        """The token of the feed's state `step`."""
        return f"{self.tree}.{step}.{self._mac(self.tree, step)}"

    def step(self, token: str, *, oldest: int, newest: int) -> int:
        """The step `token` names; InvalidArgument (one line, with the way back) for a
        token that is forged, from another tree or run, or older than the feed holds."""
        parts = token.split(".") if len(token) <= _MAX_CHARS else []
        if len(parts) != 3 or not parts[1].isdigit():
            raise _stale("not a token this server issued")
        tree, digits, mac = parts
        if tree != self.tree:
            where = "this tree" if tree.endswith(self._place) else "another tree"
            raise _stale(f"token is from another server process on {where}, or before a restart")
        step = int(digits)
        if not hmac.compare_digest(mac, self._mac(tree, step)) or step > newest:
            raise _stale("token was not issued by this server (forged or altered)")
        if step < oldest:
            raise stale_token()
        return step
