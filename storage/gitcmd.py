"""Every git process the server and the CLI start, built in this one place.

A task tree may come from anywhere with its `.git` (an archive, a shared folder, a volume), so
its repository's configuration is data written by someone else. Git reads that configuration
on every command, and some of it names programs to run: `core.fsmonitor`, hooks, filter
drivers (`filter.<x>.clean`/`process`, chosen by the tree's own `.gitattributes`), diff
drivers and `diff.external`, pagers, signature checkers (`gpg.program` with
`log.showSignature`), credential helpers, askpass, ssh and other transports (a lazy fetch of
a missing object in a partial clone). `include.path` and `includeIf` can add any of these
from a file inside the task tree. Two rules keep every one of them from running:

1. Configuration given with `-c` is read after every file, includes and all, so each key git
   reads under a fixed name is pinned here (`OVERRIDES`) to a value that runs nothing.
2. Keys whose names the repository chooses (`filter.<x>.*`, `diff.<x>.*`, `alias.*`,
   `remote.<x>.*`) cannot be pinned, so no command here reaches the code that reads them:
   git never hashes a work-tree file (the work tree is compared by reading the files
   ourselves, `storage.diskblobs`), never prints a patch (only `--raw`/`--name-status`, with
   `--no-ext-diff --no-textconv`), never fetches (every transport is refused, so a lazy fetch
   fails instead of connecting), and only built-in commands are named (an alias never
   shadows one).

The one exception is `serve --sync` (`storage.gitsync`): its fetch and push run with
`remote_overrides`, which allow the plain transports again and give back the person's own
credential helpers and ssh command, read from their global and system files only; the
remote is named by its URL and the pack programs on the command line, so no
`remote.<x>.*` key is read. `docs/security.md` lists what the server trusts in a tree and
what it never runs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from storage.errors import GitMissing, HistoryError

__all__ = [
    "DIFF_FLAGS",
    "ENVIRONMENT",
    "OVERRIDES",
    "REMOTE_TRANSPORTS",
    "TIMEOUT_SECONDS",
    "command",
    "remote_overrides",
    "run_git",
    "user_settings",
]

_TRANSPORTS = ("file", "git", "ssh", "http", "https", "ftp", "ftps", "ext", "fd")
OVERRIDES: tuple[str, ...] = (
    "core.fsmonitor=false",  # a command, or a hook's path: run on every index read
    "core.useBuiltinFSMonitor=false",
    "core.untrackedCache=false",
    "core.hooksPath=/dev/null",  # not a folder: no hook is found
    "core.pager=cat",
    "core.askPass=",
    "core.sshCommand=",
    "core.gitProxy=",
    "credential.helper=",  # an empty value empties the list
    "diff.external=",
    "diff.orderFile=/dev/null",
    "log.showSignature=false",  # would run gpg.program on every commit shown
    "color.ui=never",
    "color.diff=never",
    "i18n.logOutputEncoding=UTF-8",
    "protocol.allow=never",
    *(f"protocol.{name}.allow=never" for name in _TRANSPORTS),
)
"""Pinned values, given with `-c` (read last: they beat the repository and its includes)."""

ENVIRONMENT: dict[str, str] = {
    "GIT_OPTIONAL_LOCKS": "0",  # a read never takes the index lock an editor's commit needs
    "LC_ALL": "C",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "GIT_ASKPASS": "",  # set and empty: neither core.askPass nor SSH_ASKPASS is looked up
    "GIT_NO_REPLACE_OBJECTS": "1",  # refs/replace/ cannot swap the objects a commit names
    "GIT_PROTOCOL_FROM_USER": "0",
}
_DROPPED = ("GIT_EXTERNAL_DIFF", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_EDITOR", "GIT_DIFF_OPTS")

TIMEOUT_SECONDS = 300.0
"""The longest a git process may run: a tree can hold a FIFO where git expects a file (a
`.gitignore`, say), which git would wait on for ever; past this the process is killed and
the question answered with a `HistoryError`."""

DIFF_FLAGS = ("--no-ext-diff", "--no-textconv", "--no-color", "-O/dev/null")
"""Given to every command that diffs: no external diff, no textconv, no colour codes in
the answer, no order file read."""


REMOTE_TRANSPORTS = ("file", "ssh", "https", "http", "git")
"""What a syncing fetch or push may use (`ext::` and `fd::` run programs: never)."""

_SIGNING = ("commit.gpgSign=false", "push.gpgSign=false", "gpg.program=false")
_USER_KEYS = r"^(credential\..*helper|core\.sshcommand)$"


def command(git: str, args: Sequence[str], overrides: Sequence[str] = OVERRIDES) -> list[str]:
    """The argument list that runs `git ARGS` with every override before the subcommand."""
    pinned = [part for value in overrides for part in ("-c", value)]
    return [git, "--no-pager", *pinned, *args]


def remote_overrides(user: Sequence[tuple[str, str]]) -> tuple[str, ...]:
    """The pins of a sync's fetch and push: every local pin, the transports of
    `REMOTE_TRANSPORTS` allowed again, and the person's own credential helpers and ssh
    command (`user`: read from their global and system files, never the repository's)
    given after the emptied list, so only theirs run."""
    allowed = [f"protocol.{name}.allow=always" for name in REMOTE_TRANSPORTS]
    kept = [value for value in OVERRIDES if value != "protocol.allow=never"]
    own = [f"{key}={value}" for key, value in user]
    if not any(key.lower() == "core.sshcommand" for key, _ in user):
        own.append("core.sshCommand=ssh")  # empty would run nothing at all
    return (*kept, *_SIGNING, "protocol.allow=never", *allowed, *own)


def user_settings() -> list[tuple[str, str]]:
    """The person's credential helpers and ssh command, from their global and system
    configuration files only (`git config --global/--system`, run outside any
    repository): a tree's own `.git/config` can name neither."""
    found: list[tuple[str, str]] = []
    for scope in ("--system", "--global"):
        out = run_git(
            Path("/"), ["config", scope, "--includes", "-z", "--get-regexp", _USER_KEYS], ok=(0, 1)
        )
        for item in out.decode("utf-8", "replace").split("\0"):
            key, _, value = item.partition("\n")
            if key:
                found.append((key, value))
    return found


def _environment(extra: dict[str, str] | None = None, keep_ssh: bool = False) -> dict[str, str]:
    dropped = [k for k in _DROPPED if not (keep_ssh and k.startswith("GIT_SSH"))]
    kept = {k: v for k, v in os.environ.items() if k not in dropped}
    return {**kept, **ENVIRONMENT, **(extra or {})}


def run_git(
    cwd: Path,
    args: Sequence[str],
    stdin: bytes | None = None,
    ok: Sequence[int] = (0,),
    *,
    env: dict[str, str] | None = None,
    overrides: Sequence[str] = OVERRIDES,
) -> bytes:
    """`git ARGS` in `cwd`, its output; `GitMissing` when no git is on PATH, `HistoryError`
    (git's first line of complaint) when it fails or outlives `TIMEOUT_SECONDS`. `env` adds
    variables (an index file, an author); `overrides` replaces the pins (only
    `remote_overrides` does: the person's `GIT_SSH`/`GIT_SSH_COMMAND` then stay, their
    environment being theirs)."""
    git = shutil.which("git")
    if git is None:
        raise GitMissing()
    try:
        done = subprocess.run(
            command(git, args, overrides),
            cwd=cwd,
            input=stdin,
            capture_output=True,
            env=_environment(env, keep_ssh=overrides is not OVERRIDES),
            check=False,
            timeout=TIMEOUT_SECONDS,
        )
    except subprocess.TimeoutExpired as exc:
        raise HistoryError(f"git {args[0]}: no answer in {TIMEOUT_SECONDS:g} s (killed)") from exc
    except OSError as exc:
        raise HistoryError(f"cannot run git: {exc.strerror or exc}") from exc
    if done.returncode not in ok:
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines() or ["failed"]
        raise HistoryError(f"git {args[0]}: {lines[0][:200]}")
    return done.stdout
