"""Hostile git repositories for tests: a small task tree with history, and traps — pieces of
repository configuration, attributes or hooks that make git run a command — each of which
would create a marker file if any git process the server starts ever ran it."""

from __future__ import annotations

import shlex
import stat
from collections.abc import Callable
from pathlib import Path

import frontmatter

from tests.gitrepo import EPOCH, commit_all, git, init

__all__ = ["TRAPS", "History", "arm", "hostile_history", "lazy_fetch", "marks_made"]

HOOKS = [
    "applypatch-msg",
    "pre-applypatch",
    "post-applypatch",
    "pre-commit",
    "pre-merge-commit",
    "prepare-commit-msg",
    "commit-msg",
    "post-commit",
    "pre-rebase",
    "post-checkout",
    "post-merge",
    "pre-push",
    "pre-receive",
    "update",
    "proc-receive",
    "post-receive",
    "post-update",
    "reference-transaction",
    "push-to-checkout",
    "pre-auto-gc",
    "post-rewrite",
    "fsmonitor-watchman",
    "post-index-change",
]
COMMANDS = [
    "rev-parse",
    "rev-list",
    "log",
    "show",
    "diff",
    "diff-tree",
    "diff-index",
    "diff-files",
    "ls-files",
    "ls-tree",
    "cat-file",
    "check-ignore",
    "status",
]


class History:
    """A task tree at the top of its repository: tasks a and b added by commit `first`, a's
    priority raised by `second` (HEAD), b marked done on disk only."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.first = ""
        self.second = ""


def _task(root: Path, name: str, priority: int) -> None:
    post = frontmatter.Post("Body.\n", id=name, title=f"Task {name}", status="active")
    post["priority"] = priority
    (root / f"{name}.md").write_text(frontmatter.dumps(post, sort_keys=False) + "\n")


def hostile_history(root: Path) -> History:
    """The history (see `History`), every file rewritten after the last commit so that git
    doubts each one's stat data and would hash them all to compare the work tree."""
    found = History(init(root))
    _task(root, "a", 2)
    _task(root, "b", 3)
    (root / ".gitattributes").write_text("*.md filter=evil diff=evil\n")
    found.first = commit_all(root, "plan", EPOCH)
    _task(root, "a", 0)
    found.second = commit_all(root, "a is urgent", EPOCH + 60)
    _task(root, "b", 3)
    text = (root / "b.md").read_text().replace("status: active", "status: done")
    (root / "b.md").write_text(text)
    (root / "a.md").write_bytes((root / "a.md").read_bytes())
    return found


def _run(mark: Path) -> str:
    return f"touch {shlex.quote(str(mark))}"


def _script(path: Path, mark: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\n{_run(mark)}\ncat\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def _config(root: Path, *pairs: tuple[str, str]) -> None:
    for key, value in pairs:
        git(root, "config", key, value)


def fsmonitor_command(found: History, mark: Path) -> None:
    _config(found.root, ("core.fsmonitor", f"{_run(mark)}; false"))


def fsmonitor_hook_path(found: History, mark: Path) -> None:
    hook = _script(found.root / ".git" / "hooks" / "query-watchman", mark)
    _config(found.root, ("core.fsmonitor", str(hook)))


def include_into_tree(found: History, mark: Path) -> None:
    """`include.path` naming a file inside the task tree, which defines everything else."""
    run = _run(mark)
    (found.root / "notes").mkdir(exist_ok=True)
    (found.root / "notes" / "settings.cfg").write_text(
        f'[core]\n\tfsmonitor = "{run}; false"\n\tpager = "{run}; cat"\n'
        f'[filter "evil"]\n\tclean = "{run}; cat"\n\tprocess = "{run}"\n'
        f'[diff "evil"]\n\ttextconv = "{run}; cat"\n\tcommand = "{run}; true"\n'
        f'[diff]\n\texternal = "{run}; true"\n'
    )
    _config(found.root, ("include.path", "../notes/settings.cfg"))


def filter_process(found: History, mark: Path) -> None:
    _config(found.root, ("filter.evil.process", _run(mark)), ("filter.evil.required", "false"))


def filter_clean(found: History, mark: Path) -> None:
    run = f"{_run(mark)}; cat"
    _config(found.root, ("filter.evil.clean", run), ("filter.evil.smudge", run))


def diff_external(found: History, mark: Path) -> None:
    _config(found.root, ("diff.external", f"{_run(mark)}; true"))


def textconv(found: History, mark: Path) -> None:
    run = _run(mark)
    _config(found.root, ("diff.evil.textconv", f"{run}; cat"), ("diff.evil.command", run))


def pager(found: History, mark: Path) -> None:
    run = f"{_run(mark)}; cat"
    pairs = [("core.pager", run)] + [(f"pager.{name}", run) for name in COMMANDS]
    _config(found.root, *pairs)


def hooks(found: History, mark: Path) -> None:
    folder = found.root.parent / "hooks"
    for name in HOOKS:
        _script(folder / name, mark)
        _script(found.root / ".git" / "hooks" / name, mark)
    _config(found.root, ("core.hooksPath", str(folder)))


def alias(found: History, mark: Path) -> None:
    _config(found.root, *((f"alias.{name}", f"!{_run(mark)}") for name in COMMANDS))


def signature_check(found: History, mark: Path) -> None:
    """HEAD re-made with a signature, `log.showSignature` on, `gpg.program` the trap."""
    raw = git(found.root, "cat-file", "commit", "HEAD")
    header, _, message = raw.partition("\n\n")
    signature = "gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEz\n -----END PGP SIGNATURE-----"
    made = found.root.parent / "signed-commit"
    made.write_text(f"{header}\n{signature}\n\n{message}\n")
    signed = git(found.root, "hash-object", "-t", "commit", "-w", str(made))
    git(found.root, "update-ref", "refs/heads/main", signed)
    found.second = signed
    gpg = _script(found.root.parent / "gpg", mark)
    _config(
        found.root,
        ("log.showSignature", "true"),
        ("gpg.program", str(gpg)),
        ("gpg.ssh.program", str(gpg)),
        ("gpg.x509.program", str(gpg)),
    )


def lazy_fetch(found: History, mark: Path) -> None:
    """A partial clone missing the blob of a.md at `first`, whose promisor remote is an
    `ext::` command the repository allows: reading the blob would fetch it by running that
    command. (Not in `TRAPS`: the answers then lack that blob.)"""
    blob = git(found.root, "rev-parse", f"{found.first}:a.md")
    (found.root / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    _config(
        found.root,
        ("core.repositoryformatversion", "1"),
        ("extensions.partialClone", "origin"),
        ("remote.origin.url", f"ext::sh -c touch% {mark}"),
        ("remote.origin.promisor", "true"),
        ("protocol.ext.allow", "always"),
        ("core.sshCommand", _run(mark)),
    )


TRAPS: dict[str, Callable[[History, Path], None]] = {
    "fsmonitor_command": fsmonitor_command,
    "fsmonitor_hook_path": fsmonitor_hook_path,
    "include_into_tree": include_into_tree,
    "filter_process": filter_process,
    "filter_clean": filter_clean,
    "diff_external": diff_external,
    "textconv": textconv,
    "pager": pager,
    "hooks": hooks,
    "alias": alias,
    "signature_check": signature_check,
}


def arm(found: History, names: list[str], marks: Path) -> None:
    """Set the traps `names`, each with its own marker file under `marks` (not made yet)."""
    marks.mkdir(parents=True, exist_ok=True)
    for name in sorted(names, key=lambda n: n != "signature_check"):  # it commits: first
        TRAPS[name](found, marks / name)


def marks_made(marks: Path) -> list[str]:
    """The traps that went off."""
    return sorted(path.name for path in marks.iterdir())
