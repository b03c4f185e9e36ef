"""A task tree's git history, read through the `git` command in batch mode.

Every question costs a few `git` processes whose work grows with the change asked about,
not with the tree: `git diff-tree --raw` lists the paths two commits differ in with the blob
ids of both sides, one `git cat-file --batch` reads the blobs by id (no path lookup through
the trees), `git log --name-status -M` walks the commits of a task's history.
(`bench/history_bench.py` measured this against dulwich and pygit2; the README says why the
command won.) `storage.states` builds states of the tree from these answers.

Paths are always relative to the task root (POSIX), whatever the repository's top level.
Every git process is built by `storage.gitcmd` (no program the repository's configuration
names ever runs; git never reads a work-tree file's content, so no filter driver runs) and
every revision is checked before it reaches git (it never starts with `-`, so it is never
read as an option). Failures are `HistoryError`s with one line.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from storage.errors import GitMissing, HistoryError, NotInGit, UnknownRevision
from storage.gitcmd import DIFF_FLAGS, run_git
from storage.reading import parse_result, problem_result
from storage.table import FileResult

__all__ = [
    "EMPTY_TREE",
    "Commit",
    "GitTree",
    "PathChange",
    "TaskCommit",
    "results_at",
    "results_of",
    "task_commits",
]

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
"""Git's empty tree: the base of a tree whose history starts later than asked."""
_MAX_REVISION_CHARS = 256
_RECORD, _UNIT = "\x1e", "\x1f"
_RAW = ("--raw", "--no-abbrev", "-z", "--relative", "--no-renames", *DIFF_FLAGS)
_OBJECT_ID = re.compile("[0-9a-f]{40}|[0-9a-f]{64}")
_TREE_DIFFS: dict[tuple[str, str, str, str], dict[str, str | None]] = {}
"""The last few diffs between two commits (by full id, so never stale): a planner asking
again what changed since its last plan pays git's tree diff once."""
_TREE_DIFFS_KEPT = 16
_CHECK_IGNORE_MOST = 200  # git check-ignore: 0.1 ms a path at 10k tracked files, 0.4 at 40k
_OTHERS = ("--others", "--exclude-standard", "-z")


@dataclass(frozen=True, slots=True)
class Commit:
    """One commit: its full sha, committer time, author and subject line."""

    sha: str
    time: datetime
    author: str
    message: str


@dataclass(frozen=True, slots=True)
class PathChange:
    """One file a commit changed: `A`dded, `D`eleted, `M`odified or `R`enamed (old → new)."""

    status: str
    old: str | None
    new: str | None


def _check_revision(revision: str) -> None:
    if not revision or len(revision) > _MAX_REVISION_CHARS:
        raise UnknownRevision(revision, f"give 1 to {_MAX_REVISION_CHARS} characters")
    if revision.startswith("-") or any(c in revision for c in "\n\r\0"):
        raise UnknownRevision(revision, "not a revision name (a leading '-' or a line break)")


class GitTree:
    """The git repository holding one task root."""

    def __init__(self, root: Path, top: Path, prefix: str, git_dir: Path) -> None:
        self.root = root
        self.top = top
        self.prefix = prefix  # the root's path under the top level, "" or ending in "/"
        self.git_dir = git_dir

    @classmethod
    def open(cls, root: Path) -> GitTree:
        """The repository around `root`; `NotInGit` when there is none."""
        asked = ("rev-parse", "--absolute-git-dir", "--show-toplevel", "--show-prefix")
        try:
            done = _git(root, *asked)
        except GitMissing:
            raise
        except (HistoryError, OSError) as exc:
            raise NotInGit(str(root)) from exc
        git_dir, top, prefix = [*done.split("\n"), "", ""][:3]
        return cls(root, Path(top), prefix, Path(git_dir))

    def run(self, *args: str, stdin: bytes | None = None) -> bytes:
        """`git ARGS` in the root's folder, its output; `HistoryError` on failure."""
        return run_git(self.root, args, stdin)

    def is_shallow(self) -> bool:
        return _git(self.root, "rev-parse", "--is-shallow-repository") == "true"

    def resolve(self, revision: str) -> str:
        """The full sha of the commit `revision` names (a sha, tag, branch, `HEAD~3`)."""
        _check_revision(revision)
        try:
            return _git(self.root, "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}")
        except HistoryError:
            pass
        why = "no such commit in the repository at " + str(self.top)
        if self.is_shallow():
            why += " (a shallow clone: its history may be cut off; git fetch --unshallow)"
        raise UnknownRevision(revision, why)

    def commit_at(self, moment: datetime) -> str | None:
        """The last commit of HEAD's history at or before `moment` (None: none that old)."""
        stamp = str(int(moment.timestamp()))
        found = _git(self.root, "rev-list", "-1", f"--before={stamp}", "HEAD", "--")
        return found or None

    def describe(self, sha: str) -> Commit:
        fmt = f"--format=%H{_UNIT}%ct{_UNIT}%an{_UNIT}%s"
        raw = _git(self.root, "show", "-s", "--no-show-signature", "--encoding=UTF-8", fmt, sha)
        return _commit(raw)

    def blobs(self, commit: str) -> dict[str, str]:
        """Every `*.md` file under the root at `commit`, with its blob id (read from the
        commit's trees: no work-tree file is looked at)."""
        out = self.run("ls-tree", "-r", "-z", "--full-tree", commit, "--", self.prefix or ".")
        found: dict[str, str] = {}
        for record in out.decode("utf-8", "surrogateescape").split("\0"):
            header, _, path = record.partition("\t")
            parts = header.split(" ")
            if len(parts) == 3 and parts[1] == "blob" and path.endswith(".md"):
                found[path[len(self.prefix) :]] = parts[2]
        return found

    def differences(self, commit: str, other: str) -> dict[str, str | None]:
        """Paths under the root whose content differs between commits `commit` and `other`,
        each with its blob id at `commit` (None: no such file there)."""
        key = (str(self.top), self.prefix, commit, other)
        kept = _TREE_DIFFS.pop(key, None)
        if kept is None:
            kept = _raw_blobs(self.run("diff-tree", "-r", *_RAW, commit, other))
        if _OBJECT_ID.fullmatch(commit) and _OBJECT_ID.fullmatch(other):
            _TREE_DIFFS[key] = kept  # two objects' diff never changes: last asked, last out
            while len(_TREE_DIFFS) > _TREE_DIFFS_KEPT:
                del _TREE_DIFFS[next(iter(_TREE_DIFFS))]
        return dict(kept)

    def index_listing(self) -> tuple[bytes, int]:
        """Git's index entries under the root with their recorded stat (`ls-files --stage
        --debug`: read from the index file, no work-tree file opened), and when the index
        was written (ns; taken before the listing, so a later write only makes more entries
        look racy); (b"", 0) when there is no index."""
        try:
            written = (self.git_dir / "index").stat().st_mtime_ns
        except OSError:
            return b"", 0
        return self.run("ls-files", "-z", "--stage", "--debug"), written

    def untracked_ignored(self) -> set[str]:
        """The `*.md` files on disk that git neither tracks nor would list (ignored)."""
        return set(_names(self.run("ls-files", *_OTHERS, "--ignored", "--", "*.md")))

    def ignored(self, paths: Collection[str]) -> set[str]:
        """Those of `paths` (`*.md`) that git ignores (a tracked file never is): asked one
        by one, or for many (each costs more in a bigger index) from one walk of the tree."""
        if len(paths) > _CHECK_IGNORE_MOST:
            return self.untracked_ignored() & set(paths)
        listed = "".join(f"{path}\0" for path in paths).encode("utf-8", "surrogateescape")
        if not listed:
            return set()
        found = run_git(self.root, ("check-ignore", "--stdin", "-z"), listed, ok=(0, 1))
        return set(_names(found))

    def read(self, names: Sequence[tuple[str, str]]) -> list[bytes | None]:
        """The content of each (commit, path) in one `git cat-file --batch` (None: absent)."""
        return self.read_objects([f"{rev}:{self.prefix}{path}" for rev, path in names])

    def read_objects(self, names: Sequence[str]) -> list[bytes | None]:
        """The content of each object (a blob id, or `rev:path` from the top level) in one
        `git cat-file --batch` (None: absent, or not a blob)."""
        if not names:
            return []
        lines = "".join(f"{name}\n" for name in names)
        out = self.run("cat-file", "--batch", stdin=lines.encode("utf-8", "surrogateescape"))
        return _batch_contents(out, len(names))

    def log(self) -> list[tuple[Commit, list[PathChange]]]:
        """Every commit of HEAD's history that changed a file under the root, newest first,
        with its changes (renames found by content, as `git log -M` finds them)."""
        fmt = f"--format={_RECORD}%H{_UNIT}%ct{_UNIT}%an{_UNIT}%s"
        asked = ("-z", fmt, "-M", "--name-status", "--relative", *DIFF_FLAGS)
        flags = ("--no-show-signature", "--encoding=UTF-8", *asked)
        out = self.run("log", *flags, "HEAD", "--", ".")
        text = out.decode("utf-8", "surrogateescape")
        return [_log_entry(chunk) for chunk in text.split(_RECORD) if chunk.strip("\0\n")]


def _git(cwd: Path, *args: str) -> str:
    return run_git(cwd, args).decode("utf-8", "surrogateescape").strip()


def _names(out: bytes) -> list[str]:
    return [p for p in out.decode("utf-8", "surrogateescape").split("\0") if p]


def _raw_blobs(out: bytes) -> dict[str, str | None]:
    """Path → the first side's blob id (None: absent there) of a `--raw -z` diff, whose
    records are `:mode mode blob blob status` then the path."""
    tokens = out.decode("utf-8", "surrogateescape").split("\0")
    found: dict[str, str | None] = {}
    for header, path in zip(tokens[0::2], tokens[1::2], strict=False):
        blob = header.split(" ")[2] if header.startswith(":") else ""
        found[path] = None if not blob.strip("0") else blob
    return found


def _commit(raw: str) -> Commit:
    sha, seconds, author, message = [*raw.strip("\0\n").split(_UNIT), "", "", ""][:4]
    when = datetime.fromtimestamp(int(seconds), UTC)
    return Commit(sha=sha, time=when, author=author, message=message)


def _log_entry(chunk: str) -> tuple[Commit, list[PathChange]]:
    header, _, rest = chunk.partition("\0")
    tokens = [t for t in rest.lstrip("\n").split("\0") if t]
    changes: list[PathChange] = []
    at = 0
    while at < len(tokens):
        status = tokens[at][0]
        if status in "RC":
            changes.append(PathChange("R", tokens[at + 1], tokens[at + 2]))
            at += 3
            continue
        path = tokens[at + 1]
        old, new = (None if status == "A" else path), (None if status == "D" else path)
        changes.append(PathChange(status, old, new))
        at += 2
    return _commit(header), changes


def _batch_contents(out: bytes, count: int) -> list[bytes | None]:
    """The objects of a `cat-file --batch` answer, in order (None for a missing one)."""
    found: list[bytes | None] = []
    at = 0
    for _ in range(count):
        end = out.index(b"\n", at)
        header = out[at:end].split(b" ")
        if header[-1] in (b"missing", b"ambiguous") or header[1] != b"blob":
            found.append(None)
            at = end + 1
            continue
        size = int(header[2])
        found.append(out[end + 1 : end + 1 + size])
        at = end + 1 + size + 1
    return found


def results_at(
    git: GitTree,
    commit: str,
    paths: Iterable[str],
    is_task_path: Callable[[str], bool],
    max_bytes: int = 1 << 20,
) -> dict[str, FileResult | None]:
    """Each of `paths` as the tree at `commit` held it: a parsed result, or None when the
    commit has no such file (or the reader would not read it: hidden, ignored)."""
    listed = list(paths)
    wanted = [p for p in listed if is_task_path(p)]
    found: dict[str, FileResult | None] = dict.fromkeys(listed)
    for path, data in zip(wanted, git.read([(commit, p) for p in wanted]), strict=True):
        found[path] = None if data is None else _result(path, data, max_bytes)
    return found


def _result(path: str, data: bytes, max_bytes: int) -> FileResult:
    if len(data) > max_bytes:
        message = f"{len(data)} bytes, over the {max_bytes}-byte limit"
        return problem_result(path, (0, 0), "too_large", message)
    return parse_result(path, data, (0, len(data)))


def results_of(
    git: GitTree,
    blobs: Mapping[str, str | None],
    is_task_path: Callable[[str], bool],
    max_bytes: int,
) -> dict[str, FileResult | None]:
    """Each path as the blob id beside it holds it: a parsed result, or None (no blob, or
    the reader would not read that path: hidden, ignored)."""
    wanted = [(p, blob) for p, blob in blobs.items() if blob is not None and is_task_path(p)]
    found: dict[str, FileResult | None] = dict.fromkeys(blobs)
    contents = git.read_objects([blob for _, blob in wanted])
    for (path, _), data in zip(wanted, contents, strict=True):
        found[path] = None if data is None else _result(path, data, max_bytes)
    return found


@dataclass(frozen=True, slots=True)
class TaskCommit:
    """A commit that changed one task's file: where the file was before it (None: the
    commit created it) and where it was after."""

    commit: Commit
    old: str | None
    new: str


def task_commits(
    git: GitTree, path: str, task_id: str, is_task_path: Callable[[str], bool]
) -> list[TaskCommit]:
    """The commits of HEAD's history that changed the file holding `task_id` (at `path`
    now), newest first, following the file back through moves: renames git finds, and a
    file added where another holding the same id was deleted in the same commit."""
    found: list[TaskCommit] = []
    at: str | None = path
    for commit, changes in git.log():
        change = next((c for c in changes if c.new == at), None)
        if change is None or at is None:
            continue
        old = change.old
        if change.status == "A":
            old = _same_id_deleted(git, commit, changes, task_id, is_task_path)
        found.append(TaskCommit(commit, old, at))
        at = old
        if at is None:
            break
    return found


def _same_id_deleted(
    git: GitTree,
    commit: Commit,
    changes: Sequence[PathChange],
    task_id: str,
    is_task_path: Callable[[str], bool],
) -> str | None:
    """The file deleted by `commit` that held `task_id`, if any (a move git did not see)."""
    deleted = [c.old for c in changes if c.status == "D" and c.old is not None]
    if not deleted:
        return None
    before = results_at(git, f"{commit.sha}^", deleted, is_task_path)
    for old, result in before.items():
        if result is not None and result.task is not None and result.task.id == task_id:
            return old
    return None
